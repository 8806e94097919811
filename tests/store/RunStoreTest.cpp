// Writing and reading back: graphs, runs, events, results, measurements, policies; listing,
// filtering, deleting and exporting.
#include <cmath>

#include <gtest/gtest.h>

#include "StoreTestSupport.h"
#include "store/RunExport.h"
#include "store/RunStore.h"
#include "store/StoreSchema.h"
#include "store/SqliteDatabase.h"
#include "store/StoreError.h"

using namespace graphopt;
using namespace graphopt::testing;

namespace {

void expectSameEvent(const ProgressEvent& a, const ProgressEvent& b) {
    EXPECT_EQ(a.step, b.step);
    EXPECT_EQ(a.evaluations, b.evaluations);
    EXPECT_EQ(a.bestCost, b.bestCost);  // bit-exact: REAL keeps all 64 bits
    EXPECT_EQ(a.elapsedS, b.elapsedS);
    EXPECT_EQ(a.values, b.values);
}

}  // namespace

TEST(RunStore, CreatesANewDatabaseAtTheLatestSchemaInWalMode) {
    TempDir dir;
    RunStore store(dir.file("runs.db"));
    EXPECT_EQ(store.schemaVersion(), latestStoreSchemaVersion());
    EXPECT_EQ(store.database().queryInt("PRAGMA foreign_keys"), 1);
    EXPECT_GE(store.database().queryInt("PRAGMA busy_timeout"), 1000);
    EXPECT_TRUE(store.listRuns().empty());
}

TEST(RunStore, EventsAndResultReadBackEqual) {
    TempDir dir;
    RunStore store(dir.file("runs.db"));
    int64_t graphId = store.addGraph(sampleGraph());
    RunSpec spec = sampleSpec();
    int64_t id = store.beginRun(spec, graphId, "first try");

    std::vector<ProgressEvent> events;
    for (int i = 0; i < 50; ++i) events.push_back(sampleEvent(i));
    events[3].bestCost = INFINITY;  // nothing feasible yet is a legitimate best cost
    store.appendEvents(id, {events.begin(), events.begin() + 20});
    store.appendEvents(id, {events.begin() + 20, events.end()});

    RunResult result;
    result.cost = 0.123456789012345678;
    result.costs = {{"runtime_s", 0.123456789012345678}, {"peak_bytes", int64_t(1) << 40}, {"evaluations", 3200},
                    {"wall_s", 0.25}, {"per_device_peak_bytes", {1, 2}}};
    result.placement = {{"conv1", 0}, {"relu", 1}, {"fc \"x\"", 1}};
    result.schedule = {"conv1", "relu", "fc \"x\""};
    store.setResult(id, result);
    store.endRun(id, RunStatus::Finished);

    auto back = store.events(id);
    ASSERT_EQ(back.size(), events.size());
    for (size_t i = 0; i < events.size(); ++i) expectSameEvent(back[i], events[i]);

    auto r = store.result(id);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->cost, result.cost);
    EXPECT_EQ(r->costs, result.costs);
    EXPECT_EQ(r->placement, result.placement);
    EXPECT_EQ(r->schedule, result.schedule);

    RunSummary s = store.run(id);
    EXPECT_EQ(s.run.status, RunStatus::Finished);
    EXPECT_EQ(s.run.engine, "brkga");
    EXPECT_EQ(s.run.kind, "placement");
    EXPECT_EQ(s.run.objective, "runtime");
    EXPECT_EQ(s.run.seed, 7u);
    EXPECT_EQ(s.run.note, "first try");
    EXPECT_EQ(s.run.graphName, "resnet18");
    EXPECT_EQ(RunSpec::fromJson(s.run.spec).toJson(), spec.toJson());
    EXPECT_FALSE(s.run.startedAt.empty());
    EXPECT_FALSE(s.run.endedAt.empty());
    EXPECT_EQ(s.eventCount, 50);
    EXPECT_EQ(s.evaluations, 3200);  // from the result's costs
    EXPECT_EQ(s.bestCost, result.cost);
    EXPECT_EQ(s.elapsedS, events.back().elapsedS);
}

TEST(RunStore, KeepsHugeSeedsAndNanBestCosts) {
    TempDir dir;
    RunStore store(dir.file("runs.db"));
    RunSpec spec = sampleSpec("random", ~uint64_t(0) - 5);
    int64_t id = store.beginRun(spec, std::nullopt);
    ProgressEvent e = sampleEvent(0);
    e.bestCost = std::nan("");
    store.appendEvents(id, {e});
    EXPECT_EQ(store.run(id).run.seed, ~uint64_t(0) - 5);
    EXPECT_FALSE(store.run(id).run.graphId);
    EXPECT_TRUE(std::isnan(store.events(id).at(0).bestCost));
}

TEST(RunStore, SameGraphContentIsStoredOnce) {
    TempDir dir;
    RunStore store(dir.file("runs.db"));
    int64_t a = store.addGraph(sampleGraph("resnet18"));
    GraphRecord moved = sampleGraph("resnet18");
    moved.sourcePath = "/elsewhere/copy.onnx";
    EXPECT_EQ(store.addGraph(moved), a);
    EXPECT_NE(store.addGraph(sampleGraph("bert")), a);
    EXPECT_EQ(store.graph(a)->sourcePath, "/models/resnet18.onnx");
    EXPECT_EQ(store.graph(a)->nodes, 69);
}

TEST(RunStore, MeasurementsAndPoliciesReadBack) {
    TempDir dir;
    RunStore store(dir.file("runs.db"));
    RunSpec spec = sampleSpec("release");
    spec.kind = "tuning";
    int64_t id = store.beginRun(spec, std::nullopt);
    TuningMeasurement ok;
    ok.task = "conv2d_1";
    ok.config = 17;
    ok.knobs = "tile_x=8 unroll=1";
    ok.ok = true;
    ok.latencyS = 0.00125;
    ok.gflops = 150.5;
    ok.compileS = 0.2;
    ok.repeats = 9;
    ok.cluster = 3;
    ok.batch = 2;
    ok.elapsedS = 1.5;
    TuningMeasurement bad;
    bad.task = "conv2d_1";
    bad.config = 40;
    bad.knobs = "tile_x=64 unroll=0";
    bad.error = "compile failed: out of registers";
    bad.batch = 2;
    store.addMeasurements(id, {ok, bad});
    auto back = store.measurements(id);
    ASSERT_EQ(back.size(), 2u);
    EXPECT_EQ(back[0].task, "conv2d_1");
    EXPECT_EQ(back[0].config, 17);
    EXPECT_EQ(back[0].knobs, ok.knobs);
    EXPECT_TRUE(back[0].ok);
    EXPECT_EQ(back[0].latencyS, ok.latencyS);
    EXPECT_EQ(back[0].gflops, ok.gflops);
    EXPECT_EQ(back[0].compileS, 0.2);
    EXPECT_EQ(back[0].repeats, 9);
    EXPECT_EQ(back[0].cluster, 3);
    EXPECT_EQ(back[0].batch, 2);
    EXPECT_EQ(back[0].elapsedS, 1.5);
    EXPECT_FALSE(back[1].ok);
    EXPECT_EQ(back[1].error, bad.error);
    EXPECT_FALSE(back[1].cluster);

    int64_t pid = store.addPolicy({0, "policies/regal.pt", "feedbeef", id, ""});
    auto ps = store.policies();
    ASSERT_EQ(ps.size(), 1u);
    EXPECT_EQ(ps[0].id, pid);
    EXPECT_EQ(ps[0].trainingRunId, id);
    EXPECT_FALSE(ps[0].createdAt.empty());
}

TEST(RunStore, ListFiltersByGraphEngineKindAndStatus) {
    TempDir dir;
    RunStore store(dir.file("runs.db"));
    int64_t resnet = store.addGraph(sampleGraph("resnet18"));
    int64_t bert = store.addGraph(sampleGraph("bert"));
    int64_t a = store.beginRun(sampleSpec("brkga"), resnet);
    int64_t b = store.beginRun(sampleSpec("random"), resnet);
    int64_t c = store.beginRun(sampleSpec("brkga"), bert);
    RunSpec tuning = sampleSpec("release");
    tuning.kind = "tuning";
    int64_t d = store.beginRun(tuning, std::nullopt);
    store.endRun(a, RunStatus::Finished);
    store.endRun(b, RunStatus::Cancelled);

    auto ids = [](const std::vector<RunSummary>& v) {
        std::vector<int64_t> out;
        for (auto& s : v) out.push_back(s.run.id);
        return out;
    };
    EXPECT_EQ(ids(store.listRuns()), (std::vector<int64_t>{a, b, c, d}));
    EXPECT_EQ(ids(store.listRuns({.graph = "resnet18"})), (std::vector<int64_t>{a, b}));
    EXPECT_EQ(ids(store.listRuns({.graph = "/models/bert.onnx"})), (std::vector<int64_t>{c}));
    EXPECT_EQ(ids(store.listRuns({.graph = sampleGraph("bert").contentHash.substr(0, 20)})),
              (std::vector<int64_t>{c}));
    EXPECT_EQ(ids(store.listRuns({.engine = "brkga"})), (std::vector<int64_t>{a, c}));
    EXPECT_EQ(ids(store.listRuns({.graph = "resnet18", .engine = "brkga"})), (std::vector<int64_t>{a}));
    EXPECT_EQ(ids(store.listRuns({.kind = "tuning"})), (std::vector<int64_t>{d}));
    EXPECT_EQ(ids(store.listRuns({.status = RunStatus::Cancelled})), (std::vector<int64_t>{b}));
    EXPECT_EQ(ids(store.listRuns({.limit = 2})), (std::vector<int64_t>{c, d}));
    EXPECT_TRUE(store.listRuns({.engine = "nope"}).empty());
}

TEST(RunStore, DeleteRemovesTheRunWithEverythingItOwns) {
    TempDir dir;
    RunStore store(dir.file("runs.db"));
    int64_t keep = store.beginRun(sampleSpec(), std::nullopt);
    int64_t gone = store.beginRun(sampleSpec(), std::nullopt);
    for (int64_t id : {keep, gone}) {
        store.appendEvents(id, {sampleEvent(0), sampleEvent(1)});
        store.setResult(id, {1.0, {}, {}, {}});
        store.addMeasurements(id, {TuningMeasurement{.task = "t", .ok = true, .latencyS = 1.0, .gflops = 1.0}});
        store.endRun(id, RunStatus::Finished);
    }
    int64_t policy = store.addPolicy({0, "p.pt", "h", gone, ""});
    store.deleteRun(gone);
    EXPECT_FALSE(store.findRun(gone));
    EXPECT_TRUE(store.events(gone).empty());
    EXPECT_FALSE(store.result(gone));
    EXPECT_TRUE(store.measurements(gone).empty());
    EXPECT_EQ(store.database().queryInt("SELECT count(*) FROM events"), 2);
    EXPECT_EQ(store.policies().at(0).id, policy);
    EXPECT_FALSE(store.policies().at(0).trainingRunId);
    EXPECT_EQ(store.events(keep).size(), 2u);
    EXPECT_THROW(store.deleteRun(gone), StoreError);
}

TEST(RunStore, RefusesToDeleteARunStillWrittenByThisProcess) {
    TempDir dir;
    RunStore store(dir.file("runs.db"));
    int64_t id = store.beginRun(sampleSpec(), std::nullopt);
    try {
        store.deleteRun(id);
        FAIL() << "deleted a live run";
    } catch (const StoreError& e) {
        EXPECT_NE(std::string(e.what()).find("still running"), std::string::npos) << e.what();
    }
    store.endRun(id, RunStatus::Cancelled);
    store.deleteRun(id);
    EXPECT_FALSE(store.findRun(id));
}

TEST(RunStore, UnknownRunIsAClearError) {
    TempDir dir;
    RunStore store(dir.file("runs.db"));
    try {
        store.run(42);
        FAIL();
    } catch (const StoreError& e) {
        EXPECT_NE(std::string(e.what()).find("no run with id 42"), std::string::npos);
    }
    EXPECT_THROW(store.endRun(42, RunStatus::Finished), StoreError);
    EXPECT_THROW(store.endRun(42, RunStatus::Running), StoreError);
}

TEST(RunExport, JsonHoldsRunEventsAndResult) {
    TempDir dir;
    RunStore store(dir.file("runs.db"));
    int64_t id = store.beginRun(sampleSpec(), store.addGraph(sampleGraph()));
    store.appendEvents(id, {sampleEvent(0), sampleEvent(1)});
    store.setResult(id, {0.5, {{"runtime_s", 0.5}}, {{"a", 1}}, {"a"}});
    store.endRun(id, RunStatus::Finished);
    auto j = exportRunJson(store, id);
    EXPECT_EQ(j["run"]["id"], id);
    EXPECT_EQ(j["run"]["status"], "finished");
    EXPECT_EQ(j["graph"]["name"], "resnet18");
    ASSERT_EQ(j["events"].size(), 2u);
    EXPECT_EQ(j["events"][1]["evaluations"], sampleEvent(1).evaluations);
    EXPECT_EQ(j["events"][1]["best_cost"].get<double>(), sampleEvent(1).bestCost);
    EXPECT_EQ(j["events"][1]["values"], sampleEvent(1).values);
    EXPECT_EQ(j["result"]["placement"]["a"], 1);
    // Round trip through text.
    EXPECT_EQ(nlohmann::json::parse(j.dump()), j);
}

TEST(RunExport, CsvHasOneRowPerEventAndTheResult) {
    TempDir dir;
    RunStore store(dir.file("runs.db"));
    int64_t id = store.beginRun(sampleSpec(), std::nullopt);
    store.appendEvents(id, {sampleEvent(0), sampleEvent(1), sampleEvent(2)});
    store.setResult(id, {0.5, {{"evaluations", 192}, {"wall_s", 0.01}}, nullptr, nullptr});
    std::string csv = exportRunCsv(store, id);
    std::vector<std::string> lines;
    for (size_t p = 0, q; (q = csv.find('\n', p)) != std::string::npos; p = q + 1) lines.push_back(csv.substr(p, q - p));
    ASSERT_EQ(lines.size(), 5u);
    EXPECT_EQ(lines[0], "record,step,evaluations,best_cost,elapsed_s,json");
    EXPECT_EQ(lines[2].rfind("event,1,128,", 0), 0u) << lines[2];
    // The best cost round-trips through its text.
    std::string cost = lines[2].substr(std::string("event,1,128,").size());
    cost = cost.substr(0, cost.find(','));
    EXPECT_EQ(std::stod(cost), sampleEvent(1).bestCost);
    // JSON inside CSV: quotes doubled.
    EXPECT_NE(lines[2].find("\"\"note\"\""), std::string::npos) << lines[2];
    EXPECT_EQ(lines[4].rfind("result,,192,0.5,0.01", 0), 0u) << lines[4];
}

