// Measured op costs: what `graphopt profile` writes and `place --costs`,
// `execute` and the run panel read (docs/formats.md, "Measured costs").
//
// A cost file gives, for one kind of device (DeviceSpec::kind, "cpu" for this machine's cores) and
// one intra-op thread count, each node's measured latency in seconds, by node name. Placement uses
// them for every device of that kind (divided by the device's speed factor), in place of the
// roofline estimate; devices of other kinds keep their estimate.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "graph/Graph.h"

namespace graphopt::exec {

struct MeasuredOpCost {
    double medianS = 0;
    double minS = 0, maxS = 0;   // the spread of the timed calls
    int repeats = 0;
    std::string source = "libtorch";  // or "tuned run N" (a tuning run's best kernel)
};

struct NotProfiled {
    std::string node, op, reason;
};

struct MeasuredCosts {
    std::string model;        // the file profiled
    std::string graph;        // its graph's name
    std::string inputDims;    // the input dimensions it was profiled at (graph metadata onnx.input_dims)
    std::string deviceKind = "cpu";
    int threads = 1;
    std::string method = "forward-passes";  // or "isolated" (ProfileRun.h)
    std::string machine;      // CPU model, for the reader
    bool loaded = false;      // the machine was busy while profiling (load average above its cores)
    std::map<std::string, MeasuredOpCost> costs;  // node name -> cost
    std::vector<NotProfiled> notProfiled;         // kept at the model's estimate

    double totalS() const;
    nlohmann::ordered_json toJson() const;
    // Throws std::invalid_argument naming `path` and the bad field.
    static MeasuredCosts fromJson(const nlohmann::json& j, const std::string& path);
    static MeasuredCosts load(const std::string& path);
    // Through a sibling file renamed over `path`; std::runtime_error naming the file.
    void save(const std::string& path) const;

    // The placement parameters that apply these costs (PlacementRun: measured_costs_s and
    // measured_costs_kind). Throws std::invalid_argument when a node of the file is not in `g`
    // (a cost file of another model).
    nlohmann::json placementParams(const Graph& g, const std::string& path) const;
};

}  // namespace graphopt::exec
