#include <gtest/gtest.h>

#include "TestGraphs.h"
#include "placement/PlacementEngines.h"
#include "placement/PlacementRun.h"

namespace graphopt {
namespace {

TEST(PlacementRun, ResultJsonHasTheFieldsOthersRelyOn) {
    Graph g = test::randomGraph(12, {15});
    RunSpec s;
    s.engine = "brkga";
    s.objective = "memory";
    s.devices = "2xgpu-pcie";
    s.budget = 300;
    s.seed = 4;
    s.threads = 2;
    PlacementResult r = PlacementRun(g, s).run();
    nlohmann::json j = r.toJson();
    for (const char* key : {"objective", "cost", "runtime_s", "peak_bytes", "evaluations", "wall_s", "placement",
                            "order", "device_peak_bytes", "feasible", "cancelled"})
        EXPECT_TRUE(j.contains(key)) << key;
    EXPECT_EQ(j["objective"], "memory");
    EXPECT_EQ(j["placement"].size(), g.nodeCount());
    EXPECT_EQ(j["order"].size(), g.nodeCount());
    EXPECT_EQ(j["placement"][g.nodes()[0].name].get<std::string>().substr(0, 3), "gpu");
    EXPECT_DOUBLE_EQ(j["cost"].get<double>(), double(r.peakBytes));
    EXPECT_FALSE(j.contains("schedule"));

    nlohmann::json full = r.toJson(true);
    PlacementResult back = PlacementResult::fromJson(nlohmann::json::parse(full.dump()));
    EXPECT_EQ(back.placement, r.placement);
    EXPECT_EQ(back.order, r.order);
    EXPECT_EQ(back.peakBytes, r.peakBytes);
    EXPECT_EQ(back.devicePeakBytes, r.devicePeakBytes);
    EXPECT_EQ(back.schedule.ops.size(), r.schedule.ops.size());
    EXPECT_EQ(back.schedule.memory.size(), 2u);
}

TEST(PlacementRun, RejectsBadSpecsBeforeRunning) {
    Graph g = test::randomGraph(1, {5});
    RunSpec s;
    s.engine = "nope";
    EXPECT_THROW(PlacementRun(g, s), std::invalid_argument);
    s.engine = "brkga";
    s.objective = "speed";
    EXPECT_THROW(PlacementRun(g, s), std::invalid_argument);
    s.objective = "runtime";
    s.devices = "16xgpu";
    EXPECT_THROW(PlacementRun(g, s), std::invalid_argument);
}

TEST(PlacementRun, WeightSwitchAndEnginesPlugIn) {
    Graph g = test::randomGraph(6, {15});
    RunSpec s;
    s.engine = "single";
    s.objective = "memory";
    PlacementResult with = PlacementRun(g, s).run();
    s.params["count_weights"] = false;
    PlacementResult without = PlacementRun(g, s).run();
    EXPECT_GT(with.peakBytes, without.peakBytes);
    EXPECT_FALSE(without.countWeights);

    // A new engine (as REGAL will be) registers itself; the run needs no change.
    registerPlacementEngine({"test-biased-brkga", "BRKGA with a fixed bias (test)", brkgaParams()}, [](const SearchContext& ctx) {
        const size_t L = ctx.keyCount();
        std::vector<double> alpha(L, 2.0), beta(L, 2.0);
        KeyBias bias = KeyBias::perNode(ctx.deviceCount() + 1, alpha, beta, std::vector<double>(ctx.nodes(), 0.8));
        SearchOutcome out = brkgaEngine(ctx, bias);
        out.info["policy"] = "test";
        return out;
    });
    s.engine = "test-biased-brkga";
    s.budget = 200;
    PlacementResult r = PlacementRun(g, s).run();
    EXPECT_EQ(r.evaluations, 200);
    EXPECT_EQ(r.engineInfo["policy"], "test");
    EXPECT_TRUE(r.engineInfo["biased"].get<bool>());
}

}  // namespace
}  // namespace graphopt

namespace graphopt {
namespace {

TEST(PlacementRun, MeasuredCostsReplaceTheEstimate) {
    test::GraphBuilder b;
    int x = b.input("x", 1);
    int a = b.op("A", {x}, 1, 1.0);
    b.op("B", {a}, 1, 2.0, 0, true);
    Graph g = b.done();
    RunSpec s;
    s.engine = "single";
    PlacementRun plain(g, s, test::testDevices(1, 0, 1));
    EXPECT_DOUBLE_EQ(plain.run().runtimeS, 3.0);
    s.params["measured_costs_s"] = {{"B", 0.5}};
    PlacementRun measured(g, s, test::testDevices(1, 0, 1));
    EXPECT_DOUBLE_EQ(measured.run().runtimeS, 1.5);  // A 1 s + B measured 0.5 s
    s.params["measured_costs_s"] = {{"nope", 0.5}};
    EXPECT_THROW(PlacementRun(g, s, test::testDevices(1, 0, 1)).run(), std::invalid_argument);
}

TEST(PlacementRun, RefusesParametersTheEngineDoesNotDescribeOrOfTheWrongType) {
    Graph g = test::randomGraph(12, {15});
    RunSpec s;
    s.engine = "brkga";
    s.budget = 100;
    auto refusal = [&](const nlohmann::json& params) -> std::string {
        s.params = params;
        try {
            PlacementRun run(g, s);
        } catch (const std::invalid_argument& e) {
            return e.what();
        }
        return "";
    };
    EXPECT_NE(refusal({{"populaton", 50}}).find("brkga: unknown parameter 'populaton'"), std::string::npos);
    EXPECT_NE(refusal({{"population", "many"}}).find("population must be an integer in [2, 1000000]"), std::string::npos);
    EXPECT_NE(refusal({{"population", 1}}).find("population must be an integer"), std::string::npos);
    EXPECT_NE(refusal({{"population", 10.5}}).find("population must be an integer"), std::string::npos);
    EXPECT_NE(refusal({{"rho_e", 1.5}}).find("rho_e must be a number in [0, 1]"), std::string::npos);
    EXPECT_NE(refusal({{"count_weights", "no"}}).find("count_weights must be a boolean"), std::string::npos);
    EXPECT_EQ(refusal({{"population", 40}, {"count_weights", false}}), "");
    s.engine = "heft";  // no parameters of its own
    EXPECT_NE(refusal({{"population", 40}}).find("heft: unknown parameter 'population'"), std::string::npos);
    EXPECT_EQ(refusal({{"count_weights", false}}), "");
}

TEST(PlacementEngines, EveryEngineDescribesItselfAndUsesTheDefaultsItDescribes) {
    Graph g = test::randomGraph(5, {6});
    for (const auto& d : placementEngineDescriptions()) {
        SCOPED_TRACE(d.name);
        EXPECT_FALSE(d.summary.empty());
        for (const auto& p : d.params) EXPECT_FALSE(p.help.empty()) << p.name;
        if (d.name == "exhaustive" || d.name.rfind("test-", 0) == 0) continue;
        // Giving every described default changes nothing: the description is what the engine reads.
        RunSpec s;
        s.engine = d.name;
        s.budget = 300;
        s.seed = 7;
        s.threads = 1;
        const PlacementResult plain = PlacementRun(g, s).run();
        s.params = d.defaults();
        const PlacementResult explicitDefaults = PlacementRun(g, s).run();
        EXPECT_EQ(plain.placement, explicitDefaults.placement);
        EXPECT_EQ(plain.order, explicitDefaults.order);
        EXPECT_EQ(plain.cost, explicitDefaults.cost);
    }
}

TEST(PlacementResult, BecomesAStoredRunWithCostPlacementScheduleAndFigures) {
    Graph g = test::randomGraph(12, {15});
    RunSpec s;
    s.engine = "brkga";
    s.budget = 200;
    const PlacementResult r = PlacementRun(g, s).run();
    const RunResult stored = r.toRunResult();
    EXPECT_EQ(stored.cost, r.cost);
    EXPECT_EQ(stored.placement, r.toJson()["placement"]);
    EXPECT_TRUE(stored.schedule.contains("ops"));  // the full schedule: the GUI redraws the Gantt chart from it
    EXPECT_EQ(stored.schedule["node_names"].size(), g.nodeCount());
    for (const char* figure : {"runtime_s", "peak_bytes", "evaluations", "wall_s", "feasible", "engine", "objective"})
        EXPECT_TRUE(stored.costs.contains(figure)) << figure;
    for (const char* moved : {"cost", "placement", "schedule", "order"}) EXPECT_FALSE(stored.costs.contains(moved)) << moved;
    EXPECT_EQ(r.status(), RunStatus::Finished);
}

}  // namespace
}  // namespace graphopt
