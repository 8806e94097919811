#include <gtest/gtest.h>

#include <filesystem>

#include "TestGraphs.h"
#include "graph/Loaders.h"
#include "graph/SyntheticGenerator.h"
#include "placement/search/BrkgaSearch.h"
#include "placement/PlacementEngines.h"
#include "placement/PlacementRun.h"

namespace graphopt {
namespace {

RunSpec spec(const std::string& engine, const std::string& objective, int64_t budget, uint64_t seed = 1,
             int threads = 1) {
    RunSpec s;
    s.engine = engine;
    s.objective = objective;
    s.budget = budget;
    s.seed = seed;
    s.threads = threads;
    return s;
}

PlacementResult place(const Graph& g, const DeviceModel& m, RunSpec s, ProgressCallback cb = {},
                      const CancellationToken* cancel = nullptr) {
    return PlacementRun(g, std::move(s), m).run(cb, cancel);
}

TEST(BrkgaSearch, FindsTheExhaustiveOptimumOnTinyGraphs) {
    // Links slow enough that splitting only sometimes pays: the optimum is not trivially "one device".
    DeviceModel m = test::testDevices(2, 2e-3, 1e8);
    int checked = 0;
    for (uint64_t seed = 1; seed <= 8; ++seed) {
        test::RandomGraphOptions o;
        o.nodes = 5 + int(seed % 3);  // 5..7 nodes
        Graph g = test::randomGraph(seed, o);
        for (const char* objective : {"runtime", "memory"}) {
            SCOPED_TRACE("seed " + std::to_string(seed) + " " + objective);
            PlacementResult best = place(g, m, spec("exhaustive", objective, 0));
            PlacementResult ga = place(g, m, spec("brkga", objective, 5000, seed));
            EXPECT_NEAR(ga.cost, best.cost, 1e-9 * best.cost) << "BRKGA " << ga.cost << " vs optimum " << best.cost;
            EXPECT_GE(ga.cost, best.cost * (1 - 1e-12));  // nothing beats the optimum
            ++checked;
        }
    }
    EXPECT_EQ(checked, 16);
}

TEST(BrkgaSearch, BeatsRandomSearchAtEqualBudgetOnGeneratedGraphs) {
    DeviceModel m = DeviceModel::preset("2xgpu-pcie");
    for (GraphFamily f : {GraphFamily::Branchy, GraphFamily::Layered, GraphFamily::SeriesParallel}) {
        Graph g = generateGraph({f, 150, 5});
        for (const char* objective : {"runtime", "memory"}) {
            SCOPED_TRACE(std::string(graphFamilyName(f)) + " " + objective);
            PlacementResult ga = place(g, m, spec("brkga", objective, 2000, 3));
            PlacementResult rnd = place(g, m, spec("random", objective, 2000, 3));
            EXPECT_EQ(ga.evaluations, 2000);
            EXPECT_EQ(rnd.evaluations, 2000);
            EXPECT_LT(ga.cost, rnd.cost);
        }
    }
}

TEST(BrkgaSearch, BeatsRandomSearchAtEqualBudgetOnBundledModels) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::path(GRAPHOPT_SOURCE_DIR) / "resources" / "models";
    int models = 0, cases = 0, strictWins = 0;
    // At the paper's reference budget (BRKGA5K). At 1,000 evaluations BRKGA (10 generations) can
    // still lose to random search on the memory objective, where random keys already balance the
    // weights over two devices well.
    for (const char* name : {"resnet18.onnx", "mobilenet_v2.onnx", "googlenet.onnx"}) {
        if (!fs::exists(dir / name)) continue;
        Graph g = loadGraph((dir / name).string());
        DeviceModel m = DeviceModel::preset("2xgpu-pcie");
        for (const char* objective : {"runtime", "memory"}) {
            SCOPED_TRACE(std::string(name) + " " + objective);
            PlacementResult ga = place(g, m, spec("brkga", objective, 5000, 1, 2));
            PlacementResult rnd = place(g, m, spec("random", objective, 5000, 1, 2));
            // Both can reach the same floor (ResNet-18's memory: a weight-bound split), so ties
            // are allowed per case; strict wins are required in most cases.
            EXPECT_LE(ga.cost, rnd.cost);
            strictWins += ga.cost < rnd.cost;
            ++cases;
        }
        ++models;
    }
    ASSERT_GT(models, 0) << "no bundled models in " << dir << " (a committed or installed resource is missing)";
    EXPECT_GE(strictWins * 3, cases * 2) << strictWins << " strict wins in " << cases << " cases";
}

TEST(BrkgaSearch, SameSeedSameAnswerForAnyThreadCount) {
    Graph g = test::randomGraph(21, {60});
    DeviceModel m = DeviceModel::preset("4xgpu-nvlink");
    for (const char* objective : {"runtime", "memory"}) {
        PlacementResult one = place(g, m, spec("brkga", objective, 1500, 9, 1));
        PlacementResult two = place(g, m, spec("brkga", objective, 1500, 9, 2));
        PlacementResult three = place(g, m, spec("brkga", objective, 1500, 9, 3));
        EXPECT_EQ(one.cost, two.cost);
        EXPECT_EQ(one.placement, two.placement);
        EXPECT_EQ(one.order, two.order);
        EXPECT_EQ(one.cost, three.cost);
        EXPECT_EQ(one.placement, three.placement);
        PlacementResult other = place(g, m, spec("brkga", objective, 1500, 10, 2));
        EXPECT_TRUE(other.cost != one.cost || other.placement != one.placement || other.order != one.order);
        PlacementResult r1 = place(g, m, spec("random", objective, 700, 9, 1));
        PlacementResult r2 = place(g, m, spec("random", objective, 700, 9, 2));
        EXPECT_EQ(r1.cost, r2.cost);
        EXPECT_EQ(r1.placement, r2.placement);
    }
}

TEST(BrkgaSearch, UsesExactlyTheBudgetAndReportsEveryGeneration) {
    Graph g = test::randomGraph(3, {30});
    DeviceModel m = DeviceModel::preset("2xgpu-pcie");
    std::vector<ProgressEvent> events;
    PlacementResult r = place(g, m, spec("brkga", "runtime", 250, 1, 2), [&](const ProgressEvent& e) { events.push_back(e); });
    EXPECT_EQ(r.evaluations, 250);
    // Generation 0: 100 decodings; then 90 per generation (10 elites are copied): 190, 250 (cut).
    ASSERT_EQ(events.size(), 3u);
    EXPECT_EQ(events[0].evaluations, 100);
    EXPECT_EQ(events[1].evaluations, 190);
    EXPECT_EQ(events[2].evaluations, 250);
    for (size_t i = 1; i < events.size(); ++i) EXPECT_LE(events[i].bestCost, events[i - 1].bestCost);
    EXPECT_EQ(events[0].values["population_costs"].size(), 100u);
    EXPECT_DOUBLE_EQ(r.cost, events.back().bestCost);
}

TEST(BrkgaSearch, CancellationStopsAndKeepsTheBestSoFar) {
    Graph g = test::randomGraph(4, {80});
    DeviceModel m = DeviceModel::preset("2xgpu-pcie");
    CancellationToken token;
    double lastBest = 0;
    int64_t lastEvals = 0;
    PlacementResult r = place(
        g, m, spec("brkga", "runtime", 1'000'000, 1, 2),
        [&](const ProgressEvent& e) {
            lastBest = e.bestCost;
            lastEvals = e.evaluations;
            if (e.step >= 3) token.cancel();
        },
        &token);
    EXPECT_TRUE(r.cancelled);
    EXPECT_EQ(r.evaluations, lastEvals);
    EXPECT_EQ(r.evaluations, 100 + 3 * 90);
    EXPECT_DOUBLE_EQ(r.cost, lastBest);
    EXPECT_EQ(r.placement.size(), g.nodeCount());

    CancellationToken early;
    early.cancel();
    for (const char* engine : {"random", "local", "brkga"}) {
        PlacementResult c = place(g, m, spec(engine, "memory", 1'000'000, 1, 2), {}, &early);
        EXPECT_TRUE(c.cancelled) << engine;
        EXPECT_LT(c.evaluations, 1000) << engine;
        EXPECT_GT(c.cost, 0) << engine;
    }
}

TEST(BrkgaSearch, BetaMutantsAndPerKeyCrossoverAreHonoured) {
    Graph g = test::randomGraph(5, {20});
    const int n = int(g.nodeCount()), d = 2;
    auto problem = std::make_shared<const ScheduleProblem>(g, DeviceModel::preset("2xgpu-pcie"), ScheduleOptions{});
    ScheduleSimulator sim(problem);
    std::vector<double> alpha, beta, cross(n, 1.0);
    for (int v = 0; v < n; ++v) {
        alpha.insert(alpha.end(), {1.0, 60.0, 2.0});  // device 1 key near 1, device 0 key near 0
        beta.insert(beta.end(), {60.0, 1.0, 2.0});
    }
    KeyBias bias = KeyBias::perNode(d + 1, alpha, beta, cross);
    EXPECT_EQ(bias.inheritProb.size(), size_t(n) * 3);
    BrkgaSearch search(sim.keyCount(), BrkgaParams{}, bias);
    WorkerPool pool(1);
    std::vector<KeyDecoder> dec{[&](std::span<const double> k) { return sim.evaluate(k).cost; }};
    BrkgaOutcome out = search.run(dec, pool, 300, 1);
    sim.evaluate(out.bestKeys);
    // Every chromosome ever made puts each node on device 1 (crossover with rho 1 copies the elite).
    for (int dev : sim.placement()) EXPECT_EQ(dev, 1);
    EXPECT_THROW(BrkgaSearch(sim.keyCount(), BrkgaParams{}, KeyBias{{1.0}, {1.0}, {}}), std::invalid_argument);
    EXPECT_THROW(BrkgaSearch(sim.keyCount(), BrkgaParams{1}, KeyBias{}), std::invalid_argument);
}

// uniform_mutant_share (issue 31): a policy that points every mutant into one basin held the
// whole search there on two held-out graphs. With a share, that many of the biased search's
// policy-drawn chromosomes are drawn uniform, each chromosome as a whole; 0 draws them as before.
TEST(BrkgaSearch, AUniformMutantShareDrawsThatShareOfChromosomesUniform) {
    const size_t L = 60;
    KeyBias bias{std::vector<double>(L, 200.0), std::vector<double>(L, 1.0), {}};  // every key near 1
    // Generation 0 only (budget = population): the chromosomes whose keys look uniform.
    auto uniformLooking = [&](double share) {
        BrkgaParams bp;
        bp.uniformMutantShare = share;
        BrkgaSearch search(L, bp, bias);
        WorkerPool pool(1);
        int count = 0;
        std::vector<KeyDecoder> dec{[&](std::span<const double> k) {
            double mean = 0;
            for (double x : k) mean += x / double(k.size());
            count += mean < 0.8;
            return mean;
        }};
        search.run(dec, pool, bp.population, 7);
        return count;
    };
    EXPECT_EQ(uniformLooking(0), 0);
    const int half = uniformLooking(0.5);
    EXPECT_GT(half, 30);
    EXPECT_LT(half, 70);
    EXPECT_EQ(uniformLooking(1), 100);
    BrkgaParams bad;
    bad.uniformMutantShare = 1.5;
    EXPECT_THROW(BrkgaSearch(L, bad, bias), std::invalid_argument);
}

}  // namespace
}  // namespace graphopt
