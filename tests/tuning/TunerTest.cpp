#include <gtest/gtest.h>

#include "TunerRuns.h"
#include <algorithm>
#include <set>

#include "tuning/SimulatedMeasurer.h"
#include "tuning/TemplateSpace.h"
#include "tuning/TuningRun.h"

using namespace graphopt;
using namespace graphopt::tuning;
using graphopt::Rng;

namespace {

using test::configsOf;
using test::runTuner;

class EveryTuner : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(EveryTuner, RespectsTheBudgetWithoutRepeats) {
    const TuningTask t = makeConv2d(1, 64, 56, 56, 64, 3, 1, 1);
    const TuningResult r = runTuner(GetParam(), t, 250, 11, 16);
    EXPECT_EQ(r.measurements.size(), 250u);
    EXPECT_EQ(configsOf(r).size(), 250u);
    EXPECT_EQ(r.status(), RunStatus::Finished);
    ASSERT_TRUE(r.hasBest());
    for (const auto& m : r.measurements) EXPECT_LE(m.gflops, r.bestGflops());
}

TEST_P(EveryTuner, ExhaustsASmallSpaceExactlyOnce) {
    const TuningTask t = makeDense(2, 4, 3);  // tile_n 3 x tile_m 2 x tile_k 2 x vec 4 x 2 x 2 = 192
    const uint64_t size = templateSpace(t).size();
    ASSERT_LT(size, 300u);
    const TuningResult r = runTuner(GetParam(), t, 1000, 3, 7);
    EXPECT_EQ(r.measurements.size(), size);
    EXPECT_EQ(configsOf(r).size(), size);
}

TEST_P(EveryTuner, IsDeterministicForASeed) {
    const TuningTask t = makeConv2d(1, 32, 28, 28, 64, 3, 1, 1);
    const TuningResult a = runTuner(GetParam(), t, 120, 5), b = runTuner(GetParam(), t, 120, 5);
    ASSERT_EQ(a.measurements.size(), b.measurements.size());
    for (size_t i = 0; i < a.measurements.size(); ++i)
        EXPECT_EQ(a.measurements[i].config, b.measurements[i].config);
}

INSTANTIATE_TEST_SUITE_P(Tuners, EveryTuner, ::testing::Values("random", "grid", "ga"));

TEST(Tuners, GridGoesInIndexOrder) {
    const TuningResult r = runTuner("grid", makeConv2d(1, 16, 14, 14, 16, 3, 1, 1), 20, 1);
    for (size_t i = 0; i < r.measurements.size(); ++i) EXPECT_EQ(r.measurements[i].config, i);
}

TEST(Tuners, GeneticSearchBeatsItsFirstGeneration) {
    const TuningTask t = makeConv2d(1, 64, 56, 56, 64, 3, 1, 1);
    const TuningResult r = runTuner("ga", t, 600, 2, 50);
    double firstGen = 0, later = 0;
    for (size_t i = 0; i < r.measurements.size(); ++i)
        (i < 100 ? firstGen : later) = std::max(i < 100 ? firstGen : later, r.measurements[i].gflops);
    EXPECT_GT(later, firstGen);
}

TEST(Tuners, UnknownNameListsTheKnownOnes) {
    try {
        makeTuner("annealing", templateSpace(makeDense(4, 4, 4)), 1);
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("random"), std::string::npos);
    }
    EXPECT_THROW(makeTuner("ga", templateSpace(makeDense(4, 4, 4)), 1, {{"elites", 200}}), std::invalid_argument);
}

TEST(TuningRun, ReportsProgressPerBatchAndHonoursCancellation) {
    const TuningTask t = makeConv2d(1, 64, 56, 56, 64, 3, 1, 1);
    SimulatedMeasurer m(1);
    TuningRunOptions o;
    o.budget = 100;
    o.batchSize = 10;
    TuningRun run(t, m, makeTuner("random", t, 1), o);
    CancellationToken cancel;
    std::vector<ProgressEvent> events;
    const TuningResult r = run.run(
        [&](const ProgressEvent& e) {
            events.push_back(e);
            if (e.step == 3) cancel.cancel();
        },
        &cancel);
    EXPECT_EQ(r.status(), RunStatus::Cancelled);
    EXPECT_EQ(r.measurements.size(), 30u);
    ASSERT_EQ(events.size(), 3u);
    EXPECT_EQ(events[2].evaluations, 30);
    EXPECT_EQ(events[2].values["batch_configs"].size(), 10u);
    EXPECT_DOUBLE_EQ(events[2].bestCost, r.bestLatencyS());
    EXPECT_DOUBLE_EQ(events[2].values["best_gflops"].get<double>(), r.bestGflops());
    for (size_t i = 1; i < events.size(); ++i) EXPECT_LE(events[i].bestCost, events[i - 1].bestCost);
}

TEST(TuningRun, JsonKeepsEveryMeasurement) {
    const TuningTask t = makeDense(1, 1000, 512);
    const TuningResult r = runTuner("random", t, 24, 4);
    const auto j = r.toJson();
    EXPECT_EQ(j["measurements"].size(), 24u);
    EXPECT_EQ(j["tuner"], "random");
    EXPECT_EQ(j["measurer"], "sim");
    EXPECT_DOUBLE_EQ(j["best_gflops"].get<double>(), r.bestGflops());
    EXPECT_TRUE(j["best_config"].contains("tile_n"));
    EXPECT_TRUE(j["measurements"][0].contains("knobs"));
    EXPECT_TRUE(j["measurements"][0].contains("latency_s"));
    EXPECT_EQ(r.spec().kind, "tuning");
}

TEST(Tuners, ARegisteredTunerIsMadeByNameWithItsTask) {
    registerTuner({"test-first", "test tuner", {}}, [](const TunerContext& c) -> std::unique_ptr<Tuner> {
        if (!c.task) throw std::invalid_argument("needs a task");
        return std::make_unique<GridTuner>(c.space, c.seed);
    });
    const TuningTask t = makeDense(4, 8, 8);
    EXPECT_EQ(makeTuner("test-first", t, 1)->name(), "grid");
    EXPECT_THROW(makeTuner("test-first", templateSpace(t), 1), std::invalid_argument);
    const auto names = tunerNames();
    EXPECT_NE(std::find(names.begin(), names.end(), "test-first"), names.end());
}
