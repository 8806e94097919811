// Stored runs side by side: the best of each figure, the nodes two placements put on different
// devices, the knobs two tunings' best configurations disagree on.
#include <gtest/gtest.h>

#include "StoreTestSupport.h"
#include "store/RunComparison.h"
#include "store/RunStore.h"
#include "store/StoreError.h"

using namespace graphopt;
using namespace graphopt::testing;

namespace {

ProgressEvent ev(int64_t evaluations, double best, double elapsed) {
    ProgressEvent e;
    e.evaluations = evaluations;
    e.bestCost = best;
    e.elapsedS = elapsed;
    return e;
}

int64_t graphId(RunStore& store) {
    GraphRecord g;
    g.contentHash = "abc123";
    g.name = "tiny";
    g.nodes = 3;
    return store.addGraph(g);
}

}  // namespace

TEST(RunComparison, MarksTheBestAndListsTheNodesPlacedDifferently) {
    TempDir dir;
    RunStore store(dir.file("runs.db"));
    const int64_t g = graphId(store);
    const int64_t a = store.beginRun(sampleSpec("brkga"), g);
    const int64_t b = store.beginRun(sampleSpec("regal"), g);
    store.appendEvents(a, {ev(100, 5, 0.5), ev(200, 4, 1.0)});
    store.appendEvents(b, {ev(100, 3, 2.0)});
    RunResult ra, rb;
    ra.cost = 4;
    ra.costs = {{"runtime_s", 4.0}, {"peak_bytes", 100.0}, {"budget", 5000}};
    ra.placement = {{"conv", "gpu0"}, {"relu", "gpu0"}, {"fc", "gpu1"}};
    rb.cost = 3;
    rb.costs = {{"runtime_s", 3.0}, {"peak_bytes", 100.0}, {"budget", 5000}};
    rb.placement = {{"conv", "gpu1"}, {"relu", "gpu0"}, {"fc", "gpu0"}};
    store.setResult(a, ra);
    store.setResult(b, rb);
    store.endRun(a, RunStatus::Finished);
    store.endRun(b, RunStatus::Finished);

    const RunComparison c = compareRuns(store, {a, b});
    ASSERT_EQ(c.runs.size(), 2u);
    EXPECT_TRUE(c.warnings.empty());
    auto figure = [&](const std::string& name) -> const ComparedFigure& {
        for (const auto& f : c.figures)
            if (f.name == name) return f;
        ADD_FAILURE() << "no figure " << name;
        return c.figures.front();
    };
    EXPECT_EQ(figure("best cost").best, std::optional<size_t>(1));   // regal's 3 < brkga's 4
    EXPECT_EQ(figure("elapsed s").best, std::optional<size_t>(0));   // brkga's 1.0 s < 2.0 s
    EXPECT_EQ(figure("runtime_s").best, std::optional<size_t>(1));
    EXPECT_FALSE(figure("peak_bytes").best.has_value());             // equal: nothing to mark
    EXPECT_FALSE(figure("budget").best.has_value());                 // not a score
    EXPECT_FALSE(figure("evaluations").best.has_value());
    ASSERT_TRUE(c.placementsComparable);
    EXPECT_EQ(c.placedNodes, 3);
    EXPECT_EQ(c.nodesPlacedDifferently, (std::vector<std::string>{"conv", "fc"}));
    EXPECT_FALSE(c.tuningComparable);
    EXPECT_THROW(compareRuns(store, {a, 999}), StoreError);
}

TEST(RunComparison, RunsOnDifferentGraphsAreNotComparedNodeByNode) {
    TempDir dir;
    RunStore store(dir.file("runs.db"));
    const int64_t g1 = graphId(store);
    GraphRecord other;
    other.contentHash = "def456";
    other.name = "other";
    const int64_t g2 = store.addGraph(other);
    const int64_t a = store.beginRun(sampleSpec("brkga"), g1);
    const int64_t b = store.beginRun(sampleSpec("brkga"), g2);
    RunResult r;
    r.placement = {{"conv", "gpu0"}};
    store.setResult(a, r);
    store.setResult(b, r);
    const RunComparison c = compareRuns(store, {a, b});
    EXPECT_FALSE(c.placementsComparable);
    ASSERT_EQ(c.warnings.size(), 1u);
    EXPECT_NE(c.warnings[0].find("different graphs"), std::string::npos);
}

TEST(RunComparison, TuningRunsOfOneTaskShowTheKnobsThatDiffer) {
    TempDir dir;
    RunStore store(dir.file("runs.db"));
    RunSpec spec = sampleSpec("autotvm");
    spec.kind = "tuning";
    spec.objective = "latency";
    const int64_t a = store.beginRun(spec, std::nullopt);
    spec.engine = "release";
    const int64_t b = store.beginRun(spec, std::nullopt);
    auto m = [](double latency, const std::string& knobs) {
        TuningMeasurement t;
        t.task = "dense 64x64 * 64x64";
        t.ok = true;
        t.latencyS = latency;
        t.knobs = knobs;
        return t;
    };
    store.addMeasurements(a, {m(2e-3, "tile_n=8 vec=8 parallel=0"), m(1e-3, "tile_n=16 vec=8 parallel=1")});
    store.addMeasurements(b, {m(1.5e-3, "tile_n=16 vec=4 parallel=1")});
    const RunComparison c = compareRuns(store, {a, b});
    ASSERT_TRUE(c.tuningComparable);
    EXPECT_EQ(c.task, "dense 64x64 * 64x64");
    EXPECT_EQ(c.bestKnobs, (std::vector<std::string>{"tile_n=16 vec=8 parallel=1", "tile_n=16 vec=4 parallel=1"}));
    EXPECT_EQ(c.knobsThatDiffer, (std::vector<std::string>{"vec"}));
}
