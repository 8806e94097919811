// REGAL's data set rule (papers/REGAL.md; issue 31): a training graph is kept only when it has
// room for improvement. The paper kept a graph when BRKGA with a low evaluation limit did not fit
// the hardware but BRKGA with a high limit did, or when the high limit's result was at least 20 %
// better; graphs where a short search already finds the best answer ("one device") teach the
// policy nothing.
//
// The devices of a generated graph are made to bind: every device's memory is a share of what the
// whole graph needs on one device (its peak there in topological order), so no device can hold
// it alone and the placement has to split it.
//
// Plain C++ (graphopt_core): BRKGA through the placement engines, the simulator for feasibility.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "graph/Graph.h"
#include "placement/model/DeviceModel.h"
#include "placement/regal/RegalTraining.h"

namespace graphopt::regal {

struct RoomRule {
    int64_t lowBudget = 500;     // BRKGA evaluations of the "low limit"
    int64_t highBudget = 10000;  // and of the "high limit"
    double minGain = 0.20;       // the high limit's cost at least this share below the low's
    nlohmann::json toJson() const;
};

struct RoomVerdict {
    bool keep = false;
    // "fits only with the high limit", "high limit 23.4 % better", or why not: "no room: ..."
    std::string reason;
    double lowCost = 0, highCost = 0;  // the objective's cost (infeasible ones carry the penalty)
    bool lowFeasible = false, highFeasible = false;
    double gain = 0;  // (low - high) / low when both are feasible, else 0
    nlohmann::json toJson() const;
};

// BRKGA at both limits from `seed` (the same seed for both), judged by the rule.
RoomVerdict roomForImprovement(const PolicyGraph& g, const RoomRule& rule, uint64_t seed,
                               int threads);

// Peak bytes of the whole graph on devices' first device, in topological order, weights counted
// (what one device would need; its capacity is taken as unlimited for the measurement).
int64_t singleDevicePeakBytes(const Graph& g, const DeviceModel& devices);

// `devices` with every device's memory set to `share` of `needBytes` (share in (0, 1]: below 1 no
// device holds the graph alone). Throws std::invalid_argument on a share outside (0, 1] or a
// need <= 0.
DeviceModel withMemoryShare(DeviceModel devices, int64_t needBytes, double share);

}  // namespace graphopt::regal
