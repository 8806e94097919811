#include <gtest/gtest.h>

#include <algorithm>

#include "TestGraphs.h"
#include "placement/PlacementEngines.h"
#include "placement/PlacementRun.h"

namespace graphopt {
namespace {

PlacementResult place(const Graph& g, const DeviceModel& m, const std::string& engine, const std::string& objective,
                      int64_t budget = 500, uint64_t seed = 1) {
    RunSpec s;
    s.engine = engine;
    s.objective = objective;
    s.budget = budget;
    s.seed = seed;
    s.threads = 1;
    return PlacementRun(g, s, m).run();
}

bool respectsDependencies(const Graph& g, const std::vector<int>& order) {
    if (order.size() != g.nodeCount()) return false;
    std::vector<int> pos(g.nodeCount(), -1);
    for (size_t i = 0; i < order.size(); ++i) pos[order[i]] = int(i);
    for (int v = 0; v < int(g.nodeCount()); ++v) {
        if (pos[v] < 0) return false;
        for (int u : g.predecessors(v))
            if (pos[u] > pos[v]) return false;
    }
    return true;
}

TEST(Baselines, MemorySchedulerOrdersAreTopological) {
    for (uint64_t seed = 1; seed <= 20; ++seed) {
        Graph g = test::randomGraph(seed, {25});
        ScheduleProblem p(g, test::testDevices(1, 0, 1), ScheduleOptions{});
        EXPECT_TRUE(respectsDependencies(g, xlaListOrder(p))) << seed;
        EXPECT_TRUE(respectsDependencies(g, xlaDfsOrder(p, g))) << seed;
        EXPECT_TRUE(respectsDependencies(g, postOrder(g))) << seed;
    }
}

// Two independent branches x -> big1 -> small1 and x -> big2 -> small2, joined by J. "big" ops
// make 1000 B, "small" ops shrink it to 1 B; every op takes 1 s.
TEST(Baselines, ListSchedulerFinishesABranchBeforeOpeningAnother) {
    test::GraphBuilder b;
    int x = b.input("x", 1);
    int big1 = b.op("big1", {x}, 1000, 1.0);
    int big2 = b.op("big2", {x}, 1000, 1.0);
    int s1 = b.op("small1", {big1}, 1, 1.0);
    int s2 = b.op("small2", {big2}, 1, 1.0);
    b.op("J", {s1, s2}, 1, 1.0, 0, true);
    Graph g = b.done();
    DeviceModel m = test::testDevices(1, 0, 1);
    // Topological order by id: big1, big2, small1, small2, J. t0 x 1 + big1 1000 = 1001;
    // t1 + big2 = 2001 (peak); t2 x freed, + small1 = 2001; t3 big1 freed, + small2 = 1002; ...
    EXPECT_EQ(place(g, m, "single", "memory").peakBytes, 2001);
    // list: big1 (score -1000, ties big2, lower id); then small1 (frees 1000, defines 1: +999)
    // beats big2 (frees x: 1 - 1000). Then big2, small2, J.
    // t0 1001; t1 + small1 = 1002; t2 big1 freed, + big2 = 1002; t3 x freed, + small2 = 1002;
    // t4 big2 freed, + J = 3; t5 = 1 (J's output). Peak 1002.
    PlacementResult list = place(g, m, "list", "memory");
    EXPECT_EQ(list.peakBytes, 1002);
    EXPECT_EQ(list.order, (std::vector<int>{0, 2, 1, 3, 4}));
    // dfs and postorder: from J, visit small1's chain first: the same order.
    EXPECT_EQ(place(g, m, "dfs", "memory").peakBytes, 1002);
    EXPECT_EQ(place(g, m, "postorder", "memory").peakBytes, 1002);
    PlacementResult best = place(g, m, "xla-best", "memory");
    EXPECT_EQ(best.peakBytes, 1002);
    EXPECT_EQ(best.evaluations, 3);
    EXPECT_TRUE(best.engineInfo.contains("scheduler"));
}

TEST(Baselines, HeftSplitsParallelWorkWhenLinksAreCheap) {
    // x -> A; four 10 s branches from A; join. Links nearly free: HEFT spreads the branches over
    // 4 devices: 1 + 10 + 1 plus tiny transfers.
    test::GraphBuilder b;
    int x = b.input("x", 1);
    int a = b.op("A", {x}, 1, 1.0);
    std::vector<int> br;
    for (int i = 0; i < 4; ++i) br.push_back(b.op("B" + std::to_string(i), {a}, 1, 10.0));
    b.op("J", br, 1, 1.0, 0, true);
    Graph g = b.done();
    DeviceModel m = test::testDevices(4, 1e-6, 1e9);
    PlacementResult heft = place(g, m, "heft", "runtime");
    EXPECT_NEAR(heft.runtimeS, 12.0, 1e-4);
    EXPECT_EQ(heft.evaluations, 1);
    PlacementResult single = place(g, m, "single", "runtime");
    EXPECT_DOUBLE_EQ(single.runtimeS, 42.0);
    // With a slow link (1000 s latency) everything stays on one device.
    PlacementResult slow = place(g, test::testDevices(4, 1000, 1e9), "heft", "runtime");
    EXPECT_DOUBLE_EQ(slow.runtimeS, 42.0);
}

TEST(Baselines, RandomAndLocalSearchUseTheBudgetAndLocalImproves) {
    Graph g = test::randomGraph(8, {50});
    DeviceModel m = DeviceModel::preset("2xgpu-pcie");
    PlacementResult rnd = place(g, m, "random", "runtime", 300);
    PlacementResult loc = place(g, m, "local", "runtime", 300);
    EXPECT_EQ(rnd.evaluations, 300);
    EXPECT_EQ(loc.evaluations, 300);
    PlacementResult loc1 = place(g, m, "local", "runtime", 1);
    EXPECT_LE(loc.cost, loc1.cost);
}

TEST(Baselines, ExhaustiveIsTheLowerBoundAndRefusesLargeGraphs) {
    DeviceModel m = test::testDevices(2, 1e-3, 1e8);
    for (uint64_t seed = 30; seed < 36; ++seed) {
        Graph g = test::randomGraph(seed, {6});
        for (const char* objective : {"runtime", "memory"}) {
            PlacementResult ex = place(g, m, "exhaustive", objective);
            for (const char* engine : {"single", "heft", "list", "dfs", "postorder", "random", "local"})
                EXPECT_LE(ex.cost, place(g, m, engine, objective, 200).cost * (1 + 1e-12)) << engine << " " << seed;
        }
    }
    Graph big = test::randomGraph(1, {24});
    try {
        place(big, m, "exhaustive", "runtime");
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("tiny graphs"), std::string::npos);
    }
}

TEST(Baselines, SingleDevicePicksTheFasterDevice) {
    Graph g = test::randomGraph(2, {20});
    for (auto& n : g.mutableNodes()) n.computeCostS = -1, n.flops = 1e9;
    DeviceModel m = DeviceModel::preset("cpu+gpu");
    PlacementResult r = place(g, m, "single", "runtime");
    for (int dev : r.placement) EXPECT_EQ(dev, 1);
    EXPECT_EQ(r.engineInfo["device"], "gpu");
}

}  // namespace
}  // namespace graphopt
