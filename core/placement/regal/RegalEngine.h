// The "regal" placement engine and the LibTorch policy behind it, declared without LibTorch.
// Defined in graphopt_nn (RegalEngine.cpp, RegalNet.cpp): link graphopt_nn to use them.
//
// The engine: load the policy (params.policy, else the shipped one for the objective and device
// preset, see findDefaultPolicy), compute the features, take the most probable choice for every
// node (greedy), and run BRKGA with the resulting KeyBias. Inference time counts in the run's
// wall time and is reported in the result's engine info (inference_s).
#pragma once

#include <memory>
#include <string>

#include "placement/regal/RegalPolicy.h"

namespace graphopt {

// Registers "regal" with registerPlacementEngine(). Call once at start-up (the CLI's main does).
void registerRegalEngine();

namespace regal {

// A fresh network, initialized from `seed` (deterministic; LibTorch runs on one intra-op thread).
std::unique_ptr<PolicyModel> makePolicyModel(const PolicyConfig& config, uint64_t seed);
// Reads a policy file into a network; errors are std::invalid_argument "PATH: reason".
std::unique_ptr<PolicyModel> loadPolicyModel(const std::string& path, PolicyFile* file = nullptr);

// What a policy proposes for every node of a graph, as the engine would use it: the network's
// probabilities and the greedy action (per key a Beta(alpha, beta), per node a crossover
// probability). The teaching view draws it. `policyPath` "" = the shipped policy for the
// objective and the device model's name. Throws std::invalid_argument on a bad policy or a
// policy made for another number of devices.
struct PolicyExplanation {
    std::string policyPath;
    int keysPerNode = 0;
    PolicyOutput probabilities;
    PolicyAction action;
};
PolicyExplanation explainPolicy(const Graph& g, const DeviceModel& devices, const std::string& objective,
                                const std::string& policyPath);

}  // namespace regal
}  // namespace graphopt
