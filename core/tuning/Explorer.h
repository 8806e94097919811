// An explorer searches a cost model (not the hardware) for configurations worth measuring
// (papers/ReLeASE.md): AutoTVM's simulated annealing, or ReLeASE's PPO agent. A model-based tuner
// asks it for the configurations its search visited, then either keeps the best-scored ones or
// hands the best of them to adaptive sampling, which clusters them and measures one
// representative per cluster.
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
    // How many candidates the caller's plan measures at most; an explorer may use it to decide
    // when its search has converged (annealing's early stop), and returns more.
    int wanted = 64;
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
    // The visited set: every distinct, unmeasured configuration the search scored, best score
    // first (ties: lower index first). Usually many more than `wanted`: the caller keeps the top
    // of it (AutoTVM's plan) or clusters it (adaptive sampling). Deterministic for the state of
    // `rng`.
    virtual std::vector<ScoredConfig> explore(const ExploreRequest& request, Rng& rng) = 0;
    virtual ExploreStats lastStats() const { return {}; }
};

}  // namespace graphopt::tuning
