// Cost files (MeasuredCosts), placements read for execution (PlacedSchedule) and measured costs in
// the placement problem by device kind (compilePlacementProblem): plain C++, no libtorch.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "execution/MeasuredCosts.h"
#include "execution/PlacedSchedule.h"
#include "graph/Loaders.h"
#include "placement/PlacementExport.h"
#include "placement/PlacementRun.h"
#include "placement/model/ScheduleSimulator.h"
#include "TestModels.h"

namespace fs = std::filesystem;
using namespace graphopt;
using namespace graphopt::exec;

namespace {

MeasuredCosts someCosts(const Graph& g) {
    MeasuredCosts m;
    m.model = "tiny.onnx";
    m.graph = g.name;
    m.threads = 1;
    double s = 1e-3;
    for (const auto& n : g.nodes()) {
        MeasuredOpCost c;
        c.medianS = s;
        c.minS = s * 0.9;
        c.maxS = s * 1.2;
        c.repeats = 7;
        m.costs[n.name] = c;
        s += 1e-4;
    }
    m.notProfiled.push_back({"x", "LSTM", "op 'LSTM' is not implemented by the executor"});
    return m;
}

TEST(MeasuredCosts, RoundTripsThroughItsFile) {
    const Graph g = loadOnnx(test_support::kTinyModel);
    const MeasuredCosts m = someCosts(g);
    const fs::path path = fs::temp_directory_path() / ("costs-" + std::to_string(::getpid()) + ".json");
    m.save(path.string());
    const MeasuredCosts back = MeasuredCosts::load(path.string());
    fs::remove(path);
    EXPECT_EQ(back.costs.size(), g.nodeCount());
    EXPECT_DOUBLE_EQ(back.totalS(), m.totalS());
    EXPECT_EQ(back.costs.at(g.nodes()[3].name).repeats, 7);
    ASSERT_EQ(back.notProfiled.size(), 1u);
    EXPECT_EQ(back.notProfiled[0].op, "LSTM");
    EXPECT_EQ(back.deviceKind, "cpu");
}

TEST(MeasuredCosts, RefusesAnotherFormatAndAnotherModelNamingTheFile) {
    try {
        MeasuredCosts::fromJson(nlohmann::json{{"format", "graphopt-placement"}}, "p.json");
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("p.json: not a cost file"), std::string::npos) << e.what();
    }
    try {
        MeasuredCosts::fromJson(nlohmann::json{{"format", "graphopt-op-costs"}, {"costs", {{"a", -1}}}}, "c.json");
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("c.json: costs['a'] must be >= 0"), std::string::npos) << e.what();
    }
    const Graph g = loadOnnx(test_support::kTinyModel);
    MeasuredCosts m = someCosts(g);
    m.costs["/layer9/Conv"] = MeasuredOpCost{};
    try {
        m.placementParams(g, "r50.costs.json");
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("node '/layer9/Conv' is not in the graph"), std::string::npos) << e.what();
    }
}

TEST(MeasuredCosts, ReplaceTheEstimateOnlyOnDevicesOfTheirKind) {
    const Graph g = loadOnnx(test_support::kTinyModel);
    const DeviceModel devices = DeviceModel::preset("cpu+gpu");  // "cpu" (kind cpu, speed 1/15) and "gpu"
    RunSpec plain;
    plain.objective = "runtime";
    const auto estimate = compilePlacementProblem(g, devices, plain);
    RunSpec measured = plain;
    measured.params.update(someCosts(g).placementParams(g, "tiny.costs.json"));
    const auto p = compilePlacementProblem(g, devices, measured);
    for (size_t v = 0; v < g.nodeCount(); ++v) {
        const double s = someCosts(g).costs.at(g.nodes()[v].name).medianS;
        EXPECT_DOUBLE_EQ(p->opCost[v * 2 + 0], s * 15) << "the cpu device, its speed factor applied";
        EXPECT_DOUBLE_EQ(p->opCost[v * 2 + 1], estimate->opCost[v * 2 + 1]) << "the gpu keeps its estimate";
    }
    measured.params["measured_costs_kind"] = "fpga";
    EXPECT_THROW(compilePlacementProblem(g, devices, measured), std::invalid_argument);
}

TEST(PlacedSchedule, ReadsTheExportOfAPlacementRunAndKeepsEachDevicesOrder) {
    const Graph g = loadOnnx(test_support::kTinyModel);
    const DeviceModel devices = DeviceModel::preset("cpu-cores");
    RunSpec spec;
    spec.engine = "brkga";
    spec.objective = "runtime";
    spec.devices = "cpu-cores";
    spec.budget = 300;
    spec.threads = 1;
    PlacementRun run(g, spec, devices);
    const PlacementResult r = run.run();
    const auto exported = placementExportJson(g, devices, r);
    const PlacedSchedule fromFile = placedScheduleFromExport(nlohmann::json::parse(exported.dump()), g, devices, "x.json");
    const PlacedSchedule fromRun = placedScheduleFromResult(r, g, devices, "run 1");
    EXPECT_EQ(fromFile.deviceOf, fromRun.deviceOf);
    ASSERT_EQ(fromFile.priority.size(), g.nodeCount());
    // Each device's nodes appear in the order the export lists them.
    for (const auto& d : exported["devices"]) {
        std::vector<std::string> inOrder;
        for (int v : fromFile.priority)
            if (devices.devices[size_t(fromFile.deviceOf[size_t(v)])].name == d["name"].get<std::string>())
                inOrder.push_back(g.nodes()[size_t(v)].name);
        EXPECT_EQ(inOrder, d["nodes"].get<std::vector<std::string>>());
    }
    // The simulator gives the run's own figures for the placement read back.
    ScheduleSimulator sim(compilePlacementProblem(g, devices, spec));
    EXPECT_NEAR(sim.evaluatePlacement(fromFile.deviceOf, fromFile.priority).makespan, r.runtimeS, 1e-12);
}

TEST(PlacedSchedule, RefusesUnknownDevicesMissingNodesAndOrdersAgainstTheData) {
    const Graph g = loadOnnx(test_support::kTinyModel);
    const DeviceModel devices = DeviceModel::preset("cpu-cores");
    nlohmann::json j = {{"format", "graphopt-placement"}, {"devices", nlohmann::json::array()}};
    std::vector<std::string> all;
    for (int v : g.topologicalOrder()) all.push_back(g.nodes()[size_t(v)].name);
    j["devices"] = {{{"name", "gpu0"}, {"nodes", all}}};
    try {
        placedScheduleFromExport(j, g, devices, "p.json");
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("p.json: the placement uses device 'gpu0'"), std::string::npos) << e.what();
    }
    j["devices"] = {{{"name", "core0"}, {"nodes", std::vector<std::string>(all.begin(), all.end() - 1)}}};
    try {
        placedScheduleFromExport(j, g, devices, "p.json");
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("is not placed"), std::string::npos) << e.what();
    }
    std::vector<std::string> reversed(all.rbegin(), all.rend());
    j["devices"] = {{{"name", "core0"}, {"nodes", reversed}}};
    try {
        placedScheduleFromExport(j, g, devices, "p.json");
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("contradict the graph"), std::string::npos) << e.what();
    }
}

}  // namespace
