// Writing a placement for other tools (`graphopt place --export FILE`; docs/formats.md,
// "Placement export"):
//  - graphopt: node -> device and each device's nodes in the order the schedule starts them;
//  - neurips: the split format of the NeurIPS 2020 device placement package (Tarnawski et al.),
//    {"maxLoad", "fpgas": [{"load", "nodes": [id...]}], "cpus": [...]}, which its programs read
//    back (`dp -expert FILE`, `greedy -computeLatency FILE`) to score the split. Loads are in
//    milliseconds, computed by the paper's max-load rule (workloads/README.md).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "graph/Graph.h"
#include "placement/model/DeviceModel.h"
#include "placement/model/PlacementResult.h"

namespace graphopt {

enum class PlacementExportFormat { Graphopt, Neurips };

// "graphopt" or "neurips"; std::invalid_argument otherwise.
PlacementExportFormat placementExportFormatFromName(const std::string& name);

// Throws std::invalid_argument when the graph cannot be written in that format (neurips: a graph
// that is not a NeurIPS workload, whose nodes carry no original id), so a command can refuse
// before it runs.
void checkPlacementExportable(const Graph& g, const DeviceModel& devices, PlacementExportFormat format);

// (ordered: the file reads top-down, format and figures first, then devices, then placement)
nlohmann::ordered_json placementExportJson(const Graph& g, const DeviceModel& devices, const PlacementResult& r);
nlohmann::json neuripsSplitJson(const Graph& g, const DeviceModel& devices, const PlacementResult& r);

// The paper's max-load of a placement, per device (milliseconds): a device's nodes' latencies for
// its kind (Node::costByKindS, else computeCostS) plus, when it pays transfers, cost(u) once for
// every node u it sends to another device and once for every node u on another device it
// receives from.
std::vector<double> neuripsLoadsMs(const Graph& g, const DeviceModel& devices, const std::vector<int>& placement);

// Writes the chosen format to `path` (through a sibling file renamed over it); std::runtime_error
// naming the file when it cannot.
void writePlacementExport(const std::string& path, const Graph& g, const DeviceModel& devices, const PlacementResult& r,
                          PlacementExportFormat format);

}  // namespace graphopt
