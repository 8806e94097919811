// What a placement run produces. Self-contained (carries node and device names) so it can be
// printed, stored (toJson) and drawn without the Graph at hand.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "placement/model/ScheduleDetail.h"
#include "run/RunContract.h"

namespace graphopt {

struct PlacementResult : RunOutcome {
    std::string engine, objective, devices;  // devices: the device model's name
    int64_t budget = 0;
    uint64_t seed = 1;
    std::vector<std::string> nodeNames, deviceNames;
    std::vector<int> placement;  // device per node id
    std::vector<int> order;      // node ids in the order they started
    double cost = 0;             // objective (+ penalty when infeasible)
    double runtimeS = 0;         // makespan
    int64_t peakBytes = 0;       // max over devices
    std::vector<int64_t> devicePeakBytes;
    int64_t evaluations = 0;
    double wallS = 0;
    bool feasible = true;
    // Per device (by index): bytes over its memory limit at the peak, 0 where it fits.
    std::vector<int64_t> overLimitBytes;
    std::vector<int64_t> deviceCapacityBytes;  // each device's limit
    // Time per sample in a pipeline's steady state: the max-load of the placement (NeurIPS 2020),
    // seconds; set for every placement.
    double throughputS = 0;
    int microBatches = 1;
    bool cancelled = false;
    bool countWeights = true;
    ScheduleDetail schedule;
    nlohmann::json engineInfo = nlohmann::json::object();

    // objective, cost, runtime_s, peak_bytes, device_peak_bytes (by device name), evaluations,
    // wall_s, feasible, cancelled, placement (node name -> device name), order (node names), and
    // with includeSchedule the full schedule (ops, transfers, memory curves).
    nlohmann::json toJson(bool includeSchedule = false) const;
    // "fits (largest share: gpu0 at 81 % of 16.00 GiB)" or "infeasible: gpu1 over its 16.00 GiB
    // by 3.20 GiB" (every device over, by name), for summaries and tables.
    std::string feasibilityText() const;
    static PlacementResult fromJson(const nlohmann::json& j);  // inverse of toJson
    // A placement run's stored result (RunResult: costs, placement, schedule) back as a result.
    static PlacementResult fromRunResult(const RunResult& r);

    RunStatus status() const override { return cancelled ? RunStatus::Cancelled : RunStatus::Finished; }
    // cost: the objective; placement: node name -> device name; schedule: the full schedule;
    // costs: runtime_s, peak_bytes, device_peak_bytes, evaluations, wall_s, feasible, and the
    // run's settings (engine, objective, devices, budget, seed, count_weights, engine_info).
    RunResult toRunResult() const override;
    std::unique_ptr<RunOutcome> clone() const override { return std::make_unique<PlacementResult>(*this); }
};

}  // namespace graphopt
