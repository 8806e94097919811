// An explorer searches a cost model (not the hardware) for configurations worth measuring
// (papers/ReLeASE.md): AutoTVM's simulated annealing, or ReLeASE's PPO agent. A model-based tuner
// asks it for candidates, then either keeps the best-scored ones or hands them to adaptive
// sampling, which clusters them and measures one representative per cluster.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tuning/KnobSpace.h"
#include "run/Rng.h"

namespace graphopt::tuning {

// The cost model's scores for a batch of configurations (higher is predicted faster).
using ScoreFn = std::function<std::vector<double>(const std::vector<ConfigIndex>&)>;

struct ScoredConfig {
    ConfigIndex config = 0;
    double score = 0;
};

struct ExploreRequest {
    const KnobSpace* space = nullptr;
    ScoreFn score;
    // True for configurations already measured (or proposed): never returned as candidates.
    std::function<bool(ConfigIndex)> measured;
    int wanted = 64;  // how many candidates the caller would like (an explorer may return more)
    // Good places to start from (the best measured configurations, best first); may be empty.
    std::vector<ConfigIndex> starts;
};

struct ExploreStats {
    int steps = 0;            // annealing steps / agent steps taken
    int64_t evaluations = 0;  // cost-model evaluations
};

class Explorer {
public:
    virtual ~Explorer() = default;
    virtual std::string name() const = 0;
    // Distinct, unmeasured candidates, best score first. Deterministic for the state of `rng`.
    virtual std::vector<ScoredConfig> explore(const ExploreRequest& request, Rng& rng) = 0;
    virtual ExploreStats lastStats() const { return {}; }
};

}  // namespace graphopt::tuning
