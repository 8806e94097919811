// Per-node credit for REGAL's policy (issue 19): imitation of elite chromosomes.
//
// REINFORCE with one reward per graph (RegalTraining.h) spreads that reward over every node's
// choice alike, and converged to rules that do not depend on the node ("everything on one GPU").
// Imitation gives every node a target of its own: long BRKGA runs on a training graph (several
// seeds, optionally started from the heuristics' solutions) end in elite chromosomes; where the
// elites agree on a node's device, the target puts that device's affinity key on a Beta skewed
// towards 1 and the other devices' towards 0, and raises the node's crossover probability; where
// a node is consistently scheduled early or late, its priority key is skewed the same way. The
// policy is fitted to these targets by maximum likelihood (the REINFORCE step with advantage 1
// and no entropy bonus is exactly the gradient of log pi(target)), which warm-starts it before
// REINFORCE on the bandit reward. Only training graphs are read.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "placement/regal/RegalTraining.h"
#include "run/Communicator.h"

namespace graphopt::regal {

struct ImitationOptions {
    int epochs = 0;            // supervised passes over the training graphs (0 = no imitation)
    int64_t budget = 5000;     // BRKGA evaluations per elite run
    int seeds = 3;             // elite runs per graph (BRKGA seeds 1..seeds)
    bool seedHeuristics = true;  // the elite runs start from heft, xla-best and single
    std::vector<std::string> seedEngines;  // ... and from these engines' solutions
    int batchGraphs = 4;       // graphs per update
    int threads = 2;
    double learningRate = 3e-3;
    uint64_t seed = 1;         // the order graphs are visited in
    nlohmann::json toJson() const;
};

// The best chromosomes of `seeds` BRKGA runs on `g` (one per seed).
std::vector<std::vector<double>> eliteChromosomes(const PolicyGraph& g,
                                                  const ImitationOptions& o);

// The target action the elites imply for every node (see the file comment). `elites` are
// chromosomes of g's key layout (n * (d + 1) keys).
PolicyAction eliteTargetAction(const PolicyGraph& g, const std::vector<std::vector<double>>& elites);

// Every graph's target action from its elite runs, those runs shared out among the ranks of
// `comm` in rounds of `perRank` graphs per rank (shareOutGraphs in RegalTraining.h): every rank
// gets the same targets, whatever the rank count. Fewer targets than graphs when cancelled.
std::vector<PolicyAction> eliteTargets(const std::vector<PolicyGraph>& graphs, const ImitationOptions& o,
                                       Communicator& comm, const CancellationToken* cancel = nullptr,
                                       const std::function<void(size_t done)>& onRound = {}, int perRank = 4);

struct ImitationReport {
    int epoch = 0;
    double loss = 0;       // mean negative log-likelihood per node of the targets
    double agreement = 0;  // share of the targets' choices the greedy policy now makes
    double seconds = 0;
};

// Fits `model` to the targets for o.epochs passes; `onEpoch` after each. Returns the last report.
ImitationReport imitateTargets(PolicyModel& model, const std::vector<PolicyGraph>& graphs,
                               const std::vector<PolicyAction>& targets, const ImitationOptions& o,
                               const std::function<void(const ImitationReport&)>& onEpoch = {},
                               const CancellationToken* cancel = nullptr);

// Share of the target's choices (beta per key, crossover per node) that `action` makes.
double actionAgreement(const PolicyAction& action, const PolicyAction& target);

}  // namespace graphopt::regal
