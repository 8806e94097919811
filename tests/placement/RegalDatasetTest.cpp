// REGAL's data set rule (placement/regal/RegalDataset.h): devices whose memory binds, and the
// low-limit / high-limit verdict.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "graph/Loaders.h"
#include "graph/SyntheticGenerator.h"
#include "placement/model/ScheduleSimulator.h"
#include "placement/regal/RegalDataset.h"

using namespace graphopt;
using namespace graphopt::regal;

namespace {

Graph generatedChain(int nodes, uint64_t seed) {
    return generateGraph({.family = GraphFamily::Chain, .nodes = nodes, .seed = seed});
}

// The simulator's verdict on putting every node on device 0 in topological order.
ScheduleCosts allOnOne(const Graph& g, const DeviceModel& d) {
    auto p = std::make_shared<const ScheduleProblem>(g, d, ScheduleOptions{});
    ScheduleSimulator sim(p);
    return sim.evaluatePlacement(std::vector<int>(g.nodes().size(), 0), g.topologicalOrder());
}

}  // namespace

TEST(RegalDataset, AShareOfTheSingleDeviceNeedMakesTheLimitBind) {
    const Graph g = generatedChain(60, 3);
    const DeviceModel base = DeviceModel::preset("2xgpu-pcie");
    const int64_t need = singleDevicePeakBytes(g, base);
    ASSERT_GT(need, 0);
    // What one device needs fits exactly; half of it does not, on either device.
    EXPECT_TRUE(allOnOne(g, withMemoryShare(base, need, 1.0)).feasible);
    const DeviceModel half = withMemoryShare(base, need, 0.5);
    for (const auto& d : half.devices) EXPECT_EQ(d.memoryBytes, need / 2 + need % 2);
    EXPECT_FALSE(allOnOne(g, half).feasible);
    EXPECT_NE(half.name.find("50 %"), std::string::npos) << half.name;
    EXPECT_THROW(withMemoryShare(base, need, 0), std::invalid_argument);
    EXPECT_THROW(withMemoryShare(base, need, 1.5), std::invalid_argument);
    EXPECT_THROW(withMemoryShare(base, 0, 0.5), std::invalid_argument);
}

// A graph that fits one device has no room (the low limit already finds a fitting placement and
// the high limit gains little); one that fits nowhere has none either; the verdict's costs are
// BRKGA's own at the two limits, and it follows the rule from them.
TEST(RegalDataset, TheVerdictFollowsThePapersRule) {
    const Graph g = generatedChain(60, 3);
    const DeviceModel base = DeviceModel::preset("2xgpu-pcie");
    const int64_t need = singleDevicePeakBytes(g, base);
    const RoomRule rule{100, 2000, 0.2};

    const DeviceModel roomy = withMemoryShare(base, need, 1.0);
    const PolicyGraph a = preparePolicyGraph("a", g, roomy, PlacementObjective::Memory);
    const RoomVerdict fits = roomForImprovement(a, rule, 1, 1);
    EXPECT_TRUE(fits.lowFeasible && fits.highFeasible);
    EXPECT_DOUBLE_EQ(fits.lowCost, runBrkga(a, {}, 100, 1, 1));
    EXPECT_DOUBLE_EQ(fits.highCost, runBrkga(a, {}, 2000, 1, 1));
    EXPECT_NEAR(fits.gain, (fits.lowCost - fits.highCost) / fits.lowCost, 1e-12);
    EXPECT_EQ(fits.keep, fits.gain >= 0.2) << fits.reason;

    const DeviceModel tiny = withMemoryShare(base, need, 0.01);
    const PolicyGraph b = preparePolicyGraph("b", g, tiny, PlacementObjective::Runtime);
    const RoomVerdict none = roomForImprovement(b, rule, 1, 1);
    EXPECT_FALSE(none.keep);
    EXPECT_FALSE(none.highFeasible);
    EXPECT_EQ(none.reason, "no room: neither limit fits the devices");

    EXPECT_THROW(roomForImprovement(a, RoomRule{100, 100, 0.2}, 1, 1), std::invalid_argument);
    const nlohmann::json j = fits.toJson();
    for (const char* k : {"keep", "reason", "low_cost", "high_cost", "low_feasible", "high_feasible", "gain"})
        EXPECT_TRUE(j.contains(k)) << k;
}

// Where the devices hold about half the graph each, a short search often cannot fit it and a
// long one can: over a few seeds some graph is kept for that reason, and every kept one says so.
TEST(RegalDataset, TightMemoryLeavesRoomForTheLongSearch) {
    const DeviceModel base = DeviceModel::preset("2xgpu-pcie");
    int keptForFit = 0;
    for (uint64_t seed = 1; seed <= 4; ++seed) {
        const Graph g = generatedChain(80, seed);
        const DeviceModel d = withMemoryShare(base, singleDevicePeakBytes(g, base), 0.6);
        const PolicyGraph pg = preparePolicyGraph("g", g, d, PlacementObjective::Runtime);
        const RoomVerdict v = roomForImprovement(pg, RoomRule{20, 3000, 0.2}, 1, 1);
        if (v.keep && !v.lowFeasible) {
            EXPECT_TRUE(v.highFeasible);
            EXPECT_EQ(v.reason, "fits only with the high limit");
            ++keptForFit;
        }
    }
    EXPECT_GE(keptForFit, 1);
}

// A data set's graphs train on the devices they carry: train/ joins the training set, validation/
// replaces the synthetic validation graphs, and a graph without its devices, or with another
// number of devices than the policy's, is refused naming the file.
TEST(RegalDataset, TrainingReadsEachGraphOnItsOwnDevices) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("graphopt-regal-dataset-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "train");
    fs::create_directories(dir / "validation");
    const DeviceModel base = DeviceModel::preset("2xgpu-pcie");
    std::vector<int64_t> memory;
    auto write = [&](const std::string& split, const std::string& name, uint64_t seed, double share) {
        Graph g = generatedChain(40, seed);
        const DeviceModel d = withMemoryShare(base, singleDevicePeakBytes(g, base), share);
        g.metadata[DeviceModel::kGraphDevicesKey] = d.toJson().dump();
        saveJson(g, (dir / split / (name + ".json")).string());
        return d.devices[0].memoryBytes;
    };
    const int64_t m1 = write("train", "b", 1, 0.7), m0 = write("train", "a", 2, 0.5), mv = write("validation", "v", 3, 0.6);

    TrainingSetOptions o;
    o.sizes = {20};
    o.graphSeeds = 1;
    o.datasetDir = dir.string();
    const auto train = buildTrainingSet(o, base, PlacementObjective::Runtime);
    const size_t synthetic = allGraphFamilies().size();
    ASSERT_EQ(train.size(), synthetic + 2);
    EXPECT_EQ(train[synthetic].name, "train/a.json");  // in name order
    EXPECT_EQ(train[synthetic].devices->devices[0].memoryBytes, m0);
    EXPECT_EQ(train[synthetic + 1].devices->devices[1].memoryBytes, m1);
    EXPECT_EQ(train[0].devices->devices[0].memoryBytes, base.devices[0].memoryBytes);  // synthetic: the policy's
    // The search runs on the graph's own devices: where they bind, all on one device does not fit.
    EXPECT_FALSE(allOnOne(*train[synthetic].graph, *train[synthetic].devices).feasible);
    EXPECT_GT(runBrkga(train[synthetic], {}, 200, 1, 1), 0.0);

    const auto validation = buildValidationSet(o, base, PlacementObjective::Runtime);
    ASSERT_EQ(validation.size(), 1u);
    EXPECT_EQ(validation[0].name, "validation/v.json");
    EXPECT_EQ(validation[0].devices->devices[0].memoryBytes, mv);

    // Another device count than the policy's, and a graph without devices: refused, naming the file.
    const DeviceModel four = DeviceModel::preset("4xv100-16gb-nvlink");
    try {
        buildTrainingSet(o, four, PlacementObjective::Runtime);
        ADD_FAILURE() << "a 2-device data set was read for a 4-device policy";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("a.json: its device setup has 2 devices, the policy places on 4"),
                  std::string::npos)
            << e.what();
    }
    // ... unless the caller takes the inputs it cannot use (train-policy does): then each such
    // graph is left out with its file and reason and training goes on with the rest; a data set
    // that leaves no validation graph is still an error, saying how many were left out.
    {
        std::vector<UnusableInput> skipped;
        const auto only = buildTrainingSet(o, four, PlacementObjective::Runtime, &skipped);
        EXPECT_EQ(only.size(), synthetic);  // the synthetic graphs, on the policy's devices
        ASSERT_EQ(skipped.size(), 2u);
        EXPECT_EQ(fs::path(skipped[0].file).filename(), "a.json");
        EXPECT_EQ(skipped[0].reason, "its device setup has 2 devices, the policy places on 4");
        EXPECT_EQ(fs::path(skipped[1].file).filename(), "b.json");
        try {
            buildValidationSet(o, four, PlacementObjective::Runtime, &skipped);
            ADD_FAILURE() << "a data set without a validation graph for a 4-device policy was accepted";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find("no validation graphs this policy can place (1 left out"),
                      std::string::npos)
                << e.what();
        }
    }
    saveJson(generatedChain(30, 9), (dir / "train" / "c.json").string());
    try {
        buildTrainingSet(o, base, PlacementObjective::Runtime);
        ADD_FAILURE() << "a graph without its device setup was read";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("c.json: a data set graph without its device setup"), std::string::npos)
            << e.what();
    }
    fs::remove_all(dir);
}
