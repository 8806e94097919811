// What a measurer does: time configurations of a task's template and say how fast each ran.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuning/KnobSpace.h"
#include "tuning/Task.h"

namespace graphopt::tuning {

struct MeasureResult {
    ConfigIndex config = 0;
    bool ok = false;
    double latencyS = 0;   // median latency of one kernel run (ok only)
    double gflops = 0;     // task FLOPs / latency (0 when failed)
    double compileS = 0;   // time to build the kernel (0 for the simulated measurer)
    int repeats = 0;       // timed runs behind the median
    std::string error;     // why it failed: compile error, wrong output, timeout, crash
    nlohmann::json toJson() const;
    static MeasureResult fromJson(const nlohmann::json& j);
};

class Measurer {
public:
    virtual ~Measurer() = default;
    virtual std::string name() const = 0;
    // One result per configuration, in order. Failures are results with ok=false, never
    // exceptions (an exception means the measurer itself cannot work, e.g. no worker binary).
    virtual std::vector<MeasureResult> measure(const TuningTask& task, const std::vector<ConfigIndex>& configs) = 0;
};

}  // namespace graphopt::tuning
