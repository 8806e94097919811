// A learned model of kernel speed over one task's knob space (papers/ReLeASE.md, "Cost model").
// Model-based tuners refit it after every measured batch and let an explorer search it instead of
// the hardware. Scores are "higher is faster": throughput normalised by the best measured so far.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tuning/KnobSpace.h"
#include "tuning/Task.h"

namespace graphopt::tuning {

class CostModel {
public:
    virtual ~CostModel() = default;
    virtual std::string name() const = 0;
    // Refit on every measurement so far (configurations and their GFLOP/s; 0 = failed).
    virtual void fit(const std::vector<ConfigIndex>& configs, const std::vector<double>& gflops) = 0;
    // Predicted scores, one per configuration; all equal before the first fit.
    virtual std::vector<double> predict(const std::vector<ConfigIndex>& configs) const = 0;
    virtual bool fitted() const = 0;
};

}  // namespace graphopt::tuning
