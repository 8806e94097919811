// eval-policy's figures (placement/regal/RegalTraining.h): the best-so-far curve of a BRKGA run,
// the evaluations a run needed to reach a cost, and the summary's "evaluations to uniform BRKGA's
// final cost" (the paper's "seconds instead of hours").
#include <gtest/gtest.h>

#include "graph/SyntheticGenerator.h"
#include "placement/regal/RegalTraining.h"

using namespace graphopt;
using namespace graphopt::regal;

namespace {

PolicyGraph layered(int nodes, uint64_t seed) {
    return preparePolicyGraph("layered", generateGraph({.family = GraphFamily::Layered, .nodes = nodes, .seed = seed}),
                              DeviceModel::preset("2xgpu-pcie"), PlacementObjective::Runtime);
}

GraphEvaluation evaluation(int64_t budget, std::vector<int64_t> reach) {
    GraphEvaluation e;
    e.budget = budget;
    e.uniform.assign(reach.size(), 2.0);
    e.regal.assign(reach.size(), 1.0);
    e.regalEvaluationsToUniform = std::move(reach);
    return e;
}

}  // namespace

TEST(RegalEvaluation, TheCurveEndsAtTheRunsCostAndNeverRises) {
    const PolicyGraph g = layered(40, 3);
    std::vector<CurvePoint> curve;
    const double cost = runBrkga(g, {}, 600, 2, 1, nlohmann::json::object(), &curve);
    ASSERT_GE(curve.size(), 2u);
    EXPECT_EQ(curve.back().evaluations, 600);
    EXPECT_DOUBLE_EQ(curve.back().bestCost, cost);
    for (size_t i = 1; i < curve.size(); ++i) {
        EXPECT_GT(curve[i].evaluations, curve[i - 1].evaluations) << i;
        EXPECT_LE(curve[i].bestCost, curve[i - 1].bestCost) << i;
    }
    // The run's own final cost is reached where the curve first gets there, and a cost below
    // anything it found never is.
    const int64_t reached = evaluationsToReach(curve, cost);
    EXPECT_GT(reached, 0);
    EXPECT_LE(reached, 600);
    EXPECT_EQ(evaluationsToReach(curve, curve.front().bestCost), curve.front().evaluations);
    EXPECT_EQ(evaluationsToReach(curve, 0.5 * cost), -1);
    // The same seed gives the same curve: the figure is deterministic.
    std::vector<CurvePoint> again;
    runBrkga(g, {}, 600, 2, 1, nlohmann::json::object(), &again);
    ASSERT_EQ(again.size(), curve.size());
    EXPECT_EQ(evaluationsToReach(again, cost), reached);
}

TEST(RegalEvaluation, TheSummarySaysHowSoonRegalReachedUniformsFinalCost) {
    // Budget 900: graph A got there at 100, 200 and 400 evaluations (median 200 <= 300), graph B
    // at 600 and never on its other two seeds (median: never).
    const auto s = summarizeEvaluations({evaluation(900, {100, 200, 400}), evaluation(900, {600, -1, -1})});
    ASSERT_TRUE(s.contains("evaluations_to_uniform_final")) << s.dump();
    const auto& r = s["evaluations_to_uniform_final"];
    EXPECT_DOUBLE_EQ(r["reached_rate"].get<double>(), 4.0 / 6.0);
    EXPECT_DOUBLE_EQ(r["within_third_rate"].get<double>(), 0.5);
    // Fractions 1/9, 2/9, 4/9, 6/9, 2, 2: the median is between 4/9 and 6/9.
    EXPECT_DOUBLE_EQ(r["median_budget_fraction"].get<double>(), 5.0 / 9.0);
    // A graph evaluated without curves (an older rank's figures) adds nothing to these figures.
    GraphEvaluation old;
    old.uniform = {1.0};
    old.regal = {1.0};
    EXPECT_FALSE(summarizeEvaluations({old}).contains("evaluations_to_uniform_final"));
}

// Training and evaluation run BRKGA on one graph many times, each run seeded from the same
// engines' solutions: the graph keeps them (PolicyGraph::seedSolutions), so dp-contiguous runs
// once per graph, and every run ends where running its seed engines itself would have ended.
TEST(RegalEvaluation, SeededRunsOnOneGraphRunEachDeterministicSeedEngineOnce) {
    const PolicyGraph g = layered(40, 5);
    PolicyGraph unkept = g;
    unkept.seedSolutions = nullptr;
    const nlohmann::json params = brkgaSeedParams(true, {"dp-contiguous"});
    for (uint64_t seed = 1; seed <= 3; ++seed) {
        std::vector<CurvePoint> kept, own;
        const double withKept = runBrkga(g, {}, 400, seed, 1, params, &kept);
        const double withOwn = runBrkga(unkept, {}, 400, seed, 1, params, &own);
        EXPECT_DOUBLE_EQ(withKept, withOwn) << "seed " << seed;
        ASSERT_EQ(kept.size(), own.size()) << "seed " << seed;
        for (size_t i = 0; i < kept.size(); ++i) {
            EXPECT_EQ(kept[i].evaluations, own[i].evaluations) << "seed " << seed << " point " << i;
            EXPECT_DOUBLE_EQ(kept[i].bestCost, own[i].bestCost) << "seed " << seed << " point " << i;
        }
    }
    // heft, xla-best, single and dp-contiguous, each once; the two later seeds reuse all four.
    EXPECT_EQ(g.seedSolutions->computed(), 4);
    EXPECT_EQ(g.seedSolutions->reused(), 8);
}

TEST(RegalEvaluation, ASeedEngineThatSearchesIsKeptPerSeedAndBudget) {
    const PolicyGraph g = layered(30, 6);
    PolicyGraph unkept = g;
    unkept.seedSolutions = nullptr;
    const nlohmann::json params = brkgaSeedParams(false, {"random"});
    for (uint64_t seed : {1, 2, 1}) {
        EXPECT_DOUBLE_EQ(runBrkga(g, {}, 300, seed, 1, params), runBrkga(unkept, {}, 300, seed, 1, params))
            << "seed " << seed;
    }
    EXPECT_DOUBLE_EQ(runBrkga(g, {}, 500, 1, 1, params), runBrkga(unkept, {}, 500, 1, 1, params));
    // seed 1 and seed 2 at budget 300, seed 1 at budget 500; the second seed-1 run at 300 reuses.
    EXPECT_EQ(g.seedSolutions->computed(), 3);
    EXPECT_EQ(g.seedSolutions->reused(), 1);
}
