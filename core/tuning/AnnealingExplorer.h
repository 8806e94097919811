// AutoTVM's explorer: simulated annealing on the cost model (papers/ReLeASE.md).
//
// `chains` points walk the space in parallel. A step moves every point by changing one random knob
// to another random value; the model scores the new points, and each chain accepts its move with
// probability exp(min((new - old) / T, 1)), T falling linearly from `startTemperature` to 0 over
// `steps`. The walk stops early after `earlyStop` steps in which no visited point entered the
// best `wanted` distinct unmeasured points seen. explore() returns every distinct unmeasured point
// the chains visited (the visited set, best score first): its top `wanted` are AutoTVM's plan
// candidates, the whole set is what adaptive sampling clusters.
//
// Start points: the request's `starts` (best measured configurations first, at most half the
// chains), then the points where the previous call's chains ended (AutoTVM keeps them between
// batches), then random points.
#pragma once

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuning/Explorer.h"
#include "tuning/TunerParams.h"

namespace graphopt::tuning {

struct AnnealingOptions {
    int chains = 128;
    int steps = 500;
    int earlyStop = 50;
    double startTemperature = 1.0;
    bool keepChains = true;
    // Reads chains, steps, early_stop, temperature (the names it knows are added to `known`);
    // throws std::invalid_argument on values out of range.
    void readParams(const nlohmann::json& params, ParamCollector& known);
};

class AnnealingExplorer : public Explorer {
public:
    explicit AnnealingExplorer(AnnealingOptions options = {}) : options_(options) {}
    std::string name() const override { return "annealing"; }
    std::vector<ScoredConfig> explore(const ExploreRequest& request, Rng& rng) override;
    ExploreStats lastStats() const override { return stats_; }
    const AnnealingOptions& options() const { return options_; }

private:
    AnnealingOptions options_;
    ExploreStats stats_;
    std::vector<ConfigIndex> chainPoints_;  // where the chains ended last time
    ConfigIndex chainSpaceSize_ = 0;        // the space they belong to
};

}  // namespace graphopt::tuning
