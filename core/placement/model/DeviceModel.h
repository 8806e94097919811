// The machine a graph is placed on: devices and the links between them (papers/REGAL.md,
// "Devices"). Presets name setups a user recognises; anything else comes from a JSON file.
//
// Op cost on a device (seconds): the node's given/measured cost (Node::computeCostS, scaled by the
// device's speed factor) when there is one, else a roofline estimate
//   overhead + max(flops / throughput, bytes touched / memory bandwidth).
// Transfer time of b bytes on a link: latency + b / bandwidth.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "graph/Graph.h"

namespace graphopt {

struct DeviceSpec {
    std::string name;
    double flopsPerS = 15e12;          // sustained compute throughput
    double overheadS = 5e-6;           // fixed cost per op (kernel launch, dispatch)
    int64_t memoryBytes = int64_t(16) << 30;
    double memoryBandwidth = 900e9;    // bytes/s, for the roofline
    double speedFactor = 1.0;          // divides given costs (Node::computeCostS, costByKindS)
    // What sort of device this is ("gpu", "accelerator", "cpu", ...): selects a node's cost in
    // Node::costByKindS and whether Node::allowedKinds lets it run here.
    std::string kind = "gpu";
    // The throughput objective's communication rule: a device whose memory is the host's (the
    // NeurIPS workloads' CPU) pays no transfer time; every other device pays it.
    bool paysTransfers = true;
};

struct LinkSpec {
    double latencyS = 10e-6;
    double bandwidth = 12e9;  // bytes/s
};

class DeviceModel {
public:
    static constexpr int kMaxDevices = 64;  // what the schedule simulator supports (fromJson refuses more)

    std::string name;
    std::vector<DeviceSpec> devices;

    DeviceModel() = default;
    DeviceModel(std::string name, std::vector<DeviceSpec> devices, LinkSpec defaultLink);

    int deviceCount() const { return static_cast<int>(devices.size()); }
    const LinkSpec& link(int from, int to) const { return links_[from * deviceCount() + to]; }
    void setLink(int from, int to, LinkSpec l) { links_[from * deviceCount() + to] = l; }

    double opCostS(const Graph& g, int node, int device) const;
    double transferS(int from, int to, int64_t bytes) const;

    // "2xgpu-pcie" (default), "4xgpu-nvlink", "cpu+gpu".
    static std::vector<std::string> presetNames();
    // The preset every command and view starts from: "2xgpu-pcie".
    static const char* defaultPresetName() { return "2xgpu-pcie"; }
    static DeviceModel preset(const std::string& name);  // throws std::invalid_argument
    // A preset name, or else a path to a JSON file (see fromJson). Errors name the preset or file.
    static DeviceModel load(const std::string& presetOrFile);
    static DeviceModel loadFile(const std::string& path);
    // {"name": .., "devices": [{"name", "flops_per_s", "overhead_s", "memory_bytes",
    //   "memory_bandwidth", "speed_factor"}], "default_link": {"latency_s", "bandwidth"},
    //  "links": [{"from": name, "to": name, "latency_s", "bandwidth"}]}
    // Throws std::invalid_argument with a message naming the missing or bad field.
    //  device fields "kind" (string, default "gpu") and "pays_transfers" (bool, default true) too.
    static DeviceModel fromJson(const nlohmann::json& j);
    // A graph that brings its own machine (a NeurIPS 2020 workload: its accelerators and CPUs)
    // carries it as device JSON in Graph::metadata[kGraphDevicesKey]; nullopt when it has none.
    static constexpr const char* kGraphDevicesKey = "device_setup";
    static std::optional<DeviceModel> fromGraph(const Graph& g);
    // The devices a run names to use the graph's own setup (RunSpec::devices; the GUI's "from the
    // model" entry).
    static constexpr const char* kFromModel = "from-model";
    nlohmann::json toJson() const;

private:
    std::vector<LinkSpec> links_;  // d*d, ordered pairs (diagonal unused)
};

}  // namespace graphopt
