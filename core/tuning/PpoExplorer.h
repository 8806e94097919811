// ReLeASE's adaptive exploration (papers/ReLeASE.md): a PPO agent walks the knob space over the
// cost model instead of the hardware.
//
//   state   each knob's index divided by (its size - 1)       KnobSpace::normalized()
//   action  per knob: decrement / stay / increment            KnobSpace::move()
//   reward  the cost model's score of the configuration the step leads to
//   policy  2 x 20 tanh, then one 3-way softmax head per knob; value 3 x 20 tanh
//   PPO     Adam lr 1e-3, 3 epochs, minibatch 32, gamma 0.9, GAE lambda 0.99, clip 0.2,
//           entropy coefficient 0.3 (on the mean per-knob entropy)
//
// Every explore() runs `episodes` episodes side by side (one batched forward per step); a share
// (`restartFraction`) start from the request's `starts` (the best measured configurations) and
// the previous explore()'s best candidates, alternately, the rest from random configurations. An
// episode ends after `steps` steps or as soon as at least `stopFraction` of the knobs stay where
// they are (chose "stay", or pushed against a bound). Then PPO updates the agent on (a sample of)
// the steps taken, and the explorer returns the distinct configurations the episodes visited,
// unmeasured ones only, best score first. The agent persists across explore() calls of one tuning run, so it keeps
// learning while the cost model is refitted under it.
//
// Deterministic for the state of the Rng passed to explore(): the first call draws the weights'
// initial values from it, every sampled action comes from it, and LibTorch runs on one intra-op
// thread. No LibTorch type appears here; the network lives in PpoExplorer.cpp (graphopt_nn).
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuning/Explorer.h"
#include "tuning/TunerParams.h"

namespace graphopt::tuning {

struct PpoParams {
    int episodes = 128;        // parallel episodes per explore()
    int steps = 500;           // steps per episode at most
    double stopFraction = 0.75;
    int epochs = 3;
    int minibatch = 32;
    // Steps PPO learns from per explore(): a uniform sample of the rollout when it is longer
    // (0 = every step). Keeps the update's time bounded when episodes run long.
    int updateSamples = 2048;
    double lr = 1e-3;
    double gamma = 0.9;
    double lambda = 0.99;
    double clip = 0.2;
    double entropy = 0.3;
    double valueCoef = 0.5;
    int hidden = 20;
    // Share of the episodes that start from the request's starts and the previous best candidates.
    double restartFraction = 0.25;
    // The best visited configurations returned at most: 0 = the whole visited set.
    int candidates = 0;

    // Keys (all optional): episodes, steps, stop_fraction, epochs, minibatch, update_samples, lr,
    // gamma, lambda, clip, entropy, value_coef, hidden, restart_fraction, candidates. Other keys
    // are ignored (the tuner's other parts read them); the parameters read are described in
    // `known` when given. Throws std::invalid_argument on bad values.
    static PpoParams fromJson(const nlohmann::json& j, ParamCollector* known = nullptr);
    nlohmann::json toJson() const;
};

// What one explore() did, for reports and tests.
struct PpoStats {
    int explore = 0;              // 1-based count of explore() calls
    int episodes = 0;
    int64_t steps = 0;            // agent steps (transitions) in the rollout
    int endedEarly = 0;           // episodes ended by the stop rule before `steps`
    double meanReward = 0;        // mean reward per step over the rollout
    double meanFinalScore = 0;    // mean score of the episodes' last configurations
    int64_t evaluations = 0;      // configurations scored by the cost model
    int64_t visited = 0;          // distinct configurations visited
    int candidates = 0;           // returned
    double policyLoss = 0, valueLoss = 0, entropy = 0;  // last epoch's means
    double rolloutS = 0, updateS = 0;                    // wall time of the two phases
    nlohmann::json toJson() const;
};

class PpoExplorer : public Explorer {
public:
    explicit PpoExplorer(PpoParams params = {});
    ~PpoExplorer() override;
    PpoExplorer(const PpoExplorer&) = delete;
    PpoExplorer& operator=(const PpoExplorer&) = delete;

    std::string name() const override { return "ppo"; }
    // The first call fixes the space (knob count) the agent is built for; a later call with a
    // space of another knob count throws std::invalid_argument.
    std::vector<ScoredConfig> explore(const ExploreRequest& request, Rng& rng) override;
    ExploreStats lastStats() const override;

    const PpoParams& params() const { return params_; }
    const PpoStats& lastPpoStats() const { return last_; }
    const std::vector<PpoStats>& history() const { return history_; }
    // Sum of rollout and update time over every explore() so far.
    double totalSeconds() const;

private:
    struct Agent;  // the networks and the optimizer (PpoExplorer.cpp)
    PpoParams params_;
    std::unique_ptr<Agent> agent_;
    std::vector<ConfigIndex> previousBest_;
    PpoStats last_;
    std::vector<PpoStats> history_;
};

}  // namespace graphopt::tuning
