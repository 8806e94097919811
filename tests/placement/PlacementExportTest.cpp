// `graphopt place --export`: the placement file (node -> device, each device's nodes in schedule
// order) and the NeurIPS 2020 package's split, with the paper's max-load worked out by hand on the
// hand-made workload tests/data/workloads/two_accelerators.json.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "graph/Loaders.h"
#include "placement/PlacementExport.h"
#include "placement/model/DeviceModel.h"

namespace graphopt {
namespace {

const std::string kNeuripsWorkload = std::string(GRAPHOPT_SOURCE_DIR) + "/tests/data/workloads/two_accelerators.json";

struct Fixture {
    Graph g = loadGraph(kNeuripsWorkload);
    DeviceModel devices = *DeviceModel::fromGraph(g);
    PlacementResult r;
    Fixture() {
        // Nodes in file order: embed, attn, lookup, node13, head. Devices: acc0, acc1, cpu0.
        r.engine = "test";
        r.objective = "runtime";
        r.placement = {0, 0, 2, 0, 1};
        r.order = {0, 2, 1, 3, 4};
        for (const auto& n : g.nodes()) r.nodeNames.push_back(n.name);
        for (const auto& d : devices.devices) r.deviceNames.push_back(d.name);
    }
};

// acc0: embed 2 + attn 4 + node13 1 = 7 ms, sends embed's output to the CPU (1.5) and node13's to
// acc1 (0.5): 9 ms. acc1: head 0.75, receives from node13 (0.5) and lookup (3): 4.25 ms. cpu0:
// lookup 5 ms, pays no transfers.
TEST(PlacementExport, NeuripsLoadsFollowThePapersMaxLoadRule) {
    Fixture f;
    const auto load = neuripsLoadsMs(f.g, f.devices, f.r.placement);
    ASSERT_EQ(load.size(), 3u);
    EXPECT_DOUBLE_EQ(load[0], 9.0);
    EXPECT_DOUBLE_EQ(load[1], 4.25);
    EXPECT_DOUBLE_EQ(load[2], 5.0);
}

TEST(PlacementExport, NeuripsSplitListsOriginalIdsPerAcceleratorAndCpu) {
    Fixture f;
    const nlohmann::json j = neuripsSplitJson(f.g, f.devices, f.r);
    EXPECT_DOUBLE_EQ(j.at("maxLoad").get<double>(), 9.0);
    ASSERT_EQ(j.at("fpgas").size(), 2u);
    EXPECT_EQ(j["fpgas"][0]["nodes"], nlohmann::json({10, 11, 13}));
    EXPECT_DOUBLE_EQ(j["fpgas"][0]["load"].get<double>(), 9.0);
    EXPECT_EQ(j["fpgas"][1]["nodes"], nlohmann::json({14}));
    ASSERT_EQ(j.at("cpus").size(), 1u);
    EXPECT_EQ(j["cpus"][0]["nodes"], nlohmann::json({12}));
    EXPECT_DOUBLE_EQ(j["cpus"][0]["load"].get<double>(), 5.0);
}

TEST(PlacementExport, GraphoptFileHasEachDevicesNodesInScheduleOrder) {
    Fixture f;
    const auto path = (std::filesystem::temp_directory_path() / ("graphopt-export-" + std::to_string(::getpid()) + ".json")).string();
    writePlacementExport(path, f.g, f.devices, f.r, PlacementExportFormat::Graphopt);
    std::ifstream in(path);
    const nlohmann::json j = nlohmann::json::parse(in);
    std::filesystem::remove(path);
    EXPECT_EQ(j.at("format"), "graphopt-placement");
    EXPECT_EQ(j.at("version"), 1);
    ASSERT_EQ(j.at("devices").size(), 3u);
    EXPECT_EQ(j["devices"][0]["name"], "acc0");
    EXPECT_EQ(j["devices"][0]["nodes"], nlohmann::json({"embed", "attn", "node13"}));
    EXPECT_EQ(j["devices"][1]["nodes"], nlohmann::json({"head"}));
    EXPECT_EQ(j["devices"][2]["kind"], "cpu");
    EXPECT_EQ(j["devices"][2]["nodes"], nlohmann::json({"lookup"}));
    EXPECT_EQ(j.at("placement").at("lookup"), "cpu0");
    EXPECT_EQ(j.at("placement").size(), 5u);
}

TEST(PlacementExport, NeuripsSplitNeedsANeuripsWorkload) {
    Graph g;
    Node n;
    n.name = "x";
    g.addNode(n);
    g.finalize();
    EXPECT_THROW(checkPlacementExportable(g, DeviceModel::preset("2xgpu-pcie"), PlacementExportFormat::Neurips),
                 std::invalid_argument);
    EXPECT_NO_THROW(checkPlacementExportable(g, DeviceModel::preset("2xgpu-pcie"), PlacementExportFormat::Graphopt));
    EXPECT_THROW(placementExportFormatFromName("csv"), std::invalid_argument);
}

}  // namespace
}  // namespace graphopt
