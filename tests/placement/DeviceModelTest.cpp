#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "TestGraphs.h"
#include "placement/model/DeviceModel.h"

namespace graphopt {
namespace {

std::string writeTemp(const std::string& name, const std::string& text) {
    std::string path = std::string(GRAPHOPT_BINARY_DIR) + "/" + name;
    std::ofstream(path) << text;
    return path;
}

TEST(DeviceModel, Presets) {
    DeviceModel a = DeviceModel::preset("2xgpu-pcie");
    EXPECT_EQ(a.deviceCount(), 2);
    EXPECT_DOUBLE_EQ(a.link(0, 1).bandwidth, 12e9);
    EXPECT_DOUBLE_EQ(a.transferS(0, 1, 12'000'000), 10e-6 + 1e-3);
    EXPECT_DOUBLE_EQ(a.transferS(1, 1, 12'000'000), 0.0);
    EXPECT_EQ(DeviceModel::preset("4xgpu-nvlink").deviceCount(), 4);
    DeviceModel cg = DeviceModel::preset("cpu+gpu");
    EXPECT_EQ(cg.devices[0].name, "cpu");
    EXPECT_LT(cg.devices[0].flopsPerS, cg.devices[1].flopsPerS);
    try {
        DeviceModel::load("8xtpu");
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("8xtpu"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("2xgpu-pcie"), std::string::npos);
    }
}

// The named machines carry their data sheets' figures (docs/formats.md, "Device presets").
TEST(DeviceModel, NamedMachinePresetsHaveTheirDataSheetFigures) {
    struct Expected {
        const char* name;
        int devices;
        double flops, bandwidth;
        int64_t memory;
        double linkBandwidth, linkLatency;
    };
    const Expected machines[] = {
        {"4xv100-16gb-nvlink", 4, 15.7e12, 900e9, int64_t(16) << 30, 50e9, 5e-6},
        {"8xa100-40gb-nvlink", 8, 19.5e12, 1555e9, int64_t(40) << 30, 300e9, 3e-6},
        {"2xt4-16gb-pcie", 2, 8.1e12, 320e9, int64_t(16) << 30, 12e9, 10e-6},
    };
    const auto names = DeviceModel::presetNames();
    for (const Expected& e : machines) {
        SCOPED_TRACE(e.name);
        EXPECT_NE(std::find(names.begin(), names.end(), e.name), names.end());
        const DeviceModel m = DeviceModel::load(e.name);  // what --devices NAME does
        EXPECT_EQ(m.name, e.name);
        ASSERT_EQ(m.deviceCount(), e.devices);
        for (int d = 0; d < m.deviceCount(); ++d) {
            EXPECT_EQ(m.devices[d].name, "gpu" + std::to_string(d));
            EXPECT_EQ(m.devices[d].kind, "gpu");
            EXPECT_DOUBLE_EQ(m.devices[d].flopsPerS, e.flops);
            EXPECT_DOUBLE_EQ(m.devices[d].memoryBandwidth, e.bandwidth);
            EXPECT_EQ(m.devices[d].memoryBytes, e.memory);
            for (int o = 0; o < m.deviceCount(); ++o) {
                if (o == d) continue;
                EXPECT_DOUBLE_EQ(m.link(d, o).bandwidth, e.linkBandwidth);
                EXPECT_DOUBLE_EQ(m.link(d, o).latencyS, e.linkLatency);
            }
        }
        // 1 GB over one link: latency + bytes / bandwidth.
        EXPECT_DOUBLE_EQ(m.transferS(0, 1, 1'000'000'000), e.linkLatency + 1e9 / e.linkBandwidth);
        // The preset survives its JSON form (what a stored run records).
        const DeviceModel back = DeviceModel::fromJson(m.toJson());
        EXPECT_EQ(back.deviceCount(), m.deviceCount());
        EXPECT_EQ(back.devices[0].memoryBytes, e.memory);
    }
    // A 7B model's float32 weights (~27 GB) fit no 16 GB V100 or T4 alone, but four V100s
    // together; one 40 GB A100 holds them.
    const double llama7bBytes = 6.74e9 * 4;
    EXPECT_GT(llama7bBytes, double(DeviceModel::preset("4xv100-16gb-nvlink").devices[0].memoryBytes));
    EXPECT_GT(llama7bBytes, double(DeviceModel::preset("2xt4-16gb-pcie").devices[0].memoryBytes));
    EXPECT_LT(llama7bBytes, 4 * double(DeviceModel::preset("4xv100-16gb-nvlink").devices[0].memoryBytes));
    EXPECT_LT(llama7bBytes, double(DeviceModel::preset("8xa100-40gb-nvlink").devices[0].memoryBytes));
}

TEST(DeviceModel, RooflineOrGivenCost) {
    test::GraphBuilder b;
    int x = b.input("x", 9000);
    b.op("given", {x}, 9000, 0.5);
    b.op("flops", {x}, 9000, -1);
    Graph g = b.done();
    g.mutableNodes()[1].flops = 3e9;
    DeviceModel m("m", {{"a", 1e12, 1e-6, 1 << 30, 1e9, 2.0}}, LinkSpec{});
    EXPECT_DOUBLE_EQ(m.opCostS(g, 0, 0), 0.25);  // given cost / speed factor
    // max(3e9 / 1e12 = 3 ms, 18000 B / 1e9 = 18 us) + 1 us.
    EXPECT_DOUBLE_EQ(m.opCostS(g, 1, 0), 1e-6 + 3e-3);
    g.mutableNodes()[1].flops = 1;  // memory-bound now: 18 us + 1 us
    EXPECT_DOUBLE_EQ(m.opCostS(g, 1, 0), 1e-6 + 18e-6);
}

TEST(DeviceModel, JsonFile) {
    std::string path = writeTemp("devices_ok.json", R"({
      "name": "lab", "devices": [
        {"name": "a", "flops_per_s": 1e12, "memory_bytes": 1e9},
        {"name": "b", "flops_per_s": 2e12, "memory_bytes": 2e9}],
      "default_link": {"latency_s": 1e-5, "bandwidth": 1e9},
      "links": [{"from": "a", "to": "b", "latency_s": 2e-5, "bandwidth": 5e9}]})");
    DeviceModel m = DeviceModel::load(path);
    EXPECT_EQ(m.name, "lab");
    EXPECT_EQ(m.deviceCount(), 2);
    EXPECT_EQ(m.devices[1].memoryBytes, 2'000'000'000);
    EXPECT_DOUBLE_EQ(m.link(0, 1).bandwidth, 5e9);
    EXPECT_DOUBLE_EQ(m.link(1, 0).bandwidth, 1e9);
    DeviceModel round = DeviceModel::fromJson(m.toJson());
    EXPECT_DOUBLE_EQ(round.link(0, 1).latencyS, 2e-5);
}

TEST(DeviceModel, BadFilesNameTheFileAndTheProblem) {
    auto expectError = [](const std::string& path, const std::string& needle) {
        try {
            DeviceModel::load(path);
            FAIL() << path;
        } catch (const std::invalid_argument& e) {
            std::string msg = e.what();
            EXPECT_NE(msg.find(path), std::string::npos) << msg;
            EXPECT_NE(msg.find(needle), std::string::npos) << msg;
        }
    };
    expectError(writeTemp("devices_bad1.json", "{ not json"), "not valid JSON");
    expectError(writeTemp("devices_bad2.json", R"({"devices": []})"), "devices");
    expectError(writeTemp("devices_bad3.json", R"({"devices": [{"name": "a", "flops_per_s": -1}]})"), "flops_per_s");
    expectError(writeTemp("devices_bad4.json",
                          R"({"devices": [{"name": "a"}, {"name": "b"}], "links": [{"from": "a", "to": "z"}]})"),
                "unknown device 'z'");
    expectError(std::string(GRAPHOPT_BINARY_DIR) + "/no_such_devices.json", "no_such_devices.json");
    // Issue 20: values that used to be undefined behaviour (a double past int64_t converted), a
    // zero capacity, and a device list the simulator cannot take (the link table is d x d).
    expectError(writeTemp("devices_bad5.json", R"({"devices": [{"name": "a", "memory_bytes": 1e300}]})"),
                "memory_bytes");
    expectError(writeTemp("devices_bad6.json", R"({"devices": [{"name": "a", "memory_bytes": 0.5}]})"),
                "memory_bytes");
    std::string many = R"({"devices": [)";
    for (int i = 0; i < 65; ++i) many += std::string(i ? "," : "") + "{}";
    expectError(writeTemp("devices_bad7.json", many + "]}"), "at most 64");
    expectError(writeTemp("devices_bad8.json", R"({"devices": [{"name": 7}]})"), "'name' must be a string");
    expectError(writeTemp("devices_bad9.json", R"({"name": [], "devices": [{}]})"), "'name' must be a string");
    expectError(writeTemp("devices_bad10.json", R"({"devices": [{}], "default_link": 3})"), "default_link");
}

TEST(DeviceModel, SixtyFourDevicesAreFine) {
    std::string json = R"({"devices": [)";
    for (int i = 0; i < 64; ++i) json += std::string(i ? "," : "") + "{}";
    DeviceModel m = DeviceModel::load(writeTemp("devices_64.json", json + "]}"));
    EXPECT_EQ(m.deviceCount(), 64);
    EXPECT_EQ(m.devices[63].name, "dev63");
}

}  // namespace
}  // namespace graphopt
