// A placement to execute (`graphopt execute --placement RUN_ID|FILE`): each node's device and the
// order the schedule started them, read from a stored placement run or from the file
// `place --export` writes (docs/formats.md, "Placement export"), and matched by name to a graph
// and a device model.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "graph/Graph.h"
#include "placement/model/DeviceModel.h"
#include "placement/model/PlacementResult.h"

namespace graphopt::exec {

struct PlacedSchedule {
    std::vector<int> deviceOf;   // per node of the graph, a device of the model
    std::vector<int> priority;   // every node once, in the order the schedule started them
    std::string engine, source;  // what made it; where it was read from
};

// From a stored (or just computed) placement result. Throws std::invalid_argument naming `source`
// when a node of the graph is not placed, or a device is not in `devices` (placed on other devices).
PlacedSchedule placedScheduleFromResult(const PlacementResult& r, const Graph& g, const DeviceModel& devices,
                                        const std::string& source);
// From an export file's JSON ("format": "graphopt-placement"); the same errors, naming `path`.
PlacedSchedule placedScheduleFromExport(const nlohmann::json& j, const Graph& g, const DeviceModel& devices,
                                        const std::string& path);
PlacedSchedule loadPlacedSchedule(const std::string& path, const Graph& g, const DeviceModel& devices);

}  // namespace graphopt::exec
