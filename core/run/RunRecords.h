// What a run leaves behind, in the form the run store keeps: its final outcome (RunResult) and,
// for tuning runs, every kernel measurement as it completes (TuningMeasurement).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace graphopt {

// A run's final outcome. `cost` is the objective's value (lower is better); `costs` holds every
// figure by name (runtime_s, peak_bytes, evaluations, wall_s, ...).
struct RunResult {
    std::optional<double> cost;
    nlohmann::json costs = nlohmann::json::object();
    nlohmann::json placement;  // e.g. {"node": device}
    nlohmann::json schedule;   // e.g. node names in schedule order, or the full simulated schedule
};

// One kernel measurement of a tuning run: what the tuning run reports as it goes, what it keeps in
// its result, and what the store writes (one row each).
struct TuningMeasurement {
    std::string task;         // the task's description (TuningTask::describe())
    int64_t config = -1;      // index in the task's knob space (-1: not known)
    std::string knobs;        // the configuration's knob values as text ("tile_x=8 ...")
    bool ok = false;
    double latencyS = 0;      // median latency of one kernel run (ok only)
    double gflops = 0;        // task FLOPs / latency (0 when failed)
    double compileS = 0;      // time to build the kernel
    int repeats = 0;          // timed runs behind the median
    std::string error;        // why it failed: compile error, wrong output, timeout, crash
    std::optional<int64_t> cluster;  // the adaptive-sampling cluster it represents
    int batch = 0;            // 1-based batch of the run
    double elapsedS = 0;      // since the run started, when it was recorded
};

}  // namespace graphopt
