// REGAL's learned proposal (papers/REGAL.md, "REGAL = BRKGA + a learned, input-dependent
// proposal"), without LibTorch: what the policy reads (features), what it outputs (per-node
// categorical choices), how an action becomes a BRKGA KeyBias, and the abstract PolicyModel that
// the LibTorch network (RegalNet.cpp, in graphopt_nn) implements. Training and evaluation
// (RegalTraining.h) only see this interface.
//
// Action space, per node v with K = d+1 keys: for each key a choice among betaChoices() (the
// Beta(alpha, beta) its mutant keys are drawn from; index 0 is (1,1) = uniform), and one choice
// among crossoverChoices() (the probability each of v's keys comes from the elite parent). The
// log-probability of an action is the exact sum of the categorical log-probabilities.
//
// Two shapes of network (PolicyConfig::heads). "fixed": one output layer gives all d+1 keys of a
// node at once, so a policy serves only the device count it was trained for. "per-device": the
// d device keys of node v are scored one (v, k) pair at a time by a head shared by all devices,
// from v's embedding and device k's own features (its speed, memory and links, and its place in
// the device list), and the priority key by a head of its own; one policy then serves any number
// of devices (the profiled workloads bring 4 to 22).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "graph/Graph.h"
#include "placement/search/BrkgaSearch.h"
#include "placement/model/DeviceModel.h"
#include "run/Rng.h"
#include "placement/model/ScheduleProblem.h"

namespace graphopt::regal {

struct BetaChoice {
    double alpha, beta;
};
const std::vector<BetaChoice>& betaChoices();     // index 0 = (1,1)
const std::vector<double>& crossoverChoices();    // {0.5, 0.6, 0.7, 0.8, 0.9}
int defaultCrossoverChoice();                     // index of 0.7 (BRKGA's rho_e)
// Op types with an embedding of their own; anything else maps to index 0 ("other").
const std::vector<std::string>& opVocabulary();
int opIndex(const std::string& op);

// Per-node numeric features, then graph-level context features repeated on every node.
constexpr int kNodeNumericFeatures = 19;
constexpr int kContextFeatures = 8;
constexpr int kNumericFeatures = kNodeNumericFeatures + kContextFeatures;
// Per-device and per-(node, device) features, read by the per-device head (see extractFeatures
// for what each is).
constexpr int kDeviceFeatures = 6;
constexpr int kPairFeatures = 2;

struct PolicyFeatures {
    int n = 0;  // nodes
    int d = 0;  // devices
    std::vector<int> op;             // n: index into opVocabulary()
    std::vector<float> numeric;      // n * kNumericFeatures, row-major
    std::vector<int> edgeSrc, edgeDst;  // node-level edges (data and control, deduplicated)
    std::vector<float> device;       // d * kDeviceFeatures, row-major
    std::vector<float> pair;         // n * d * kPairFeatures, row-major (node, then device)
};

// `problem` must be compiled from `g` and `devices` (its op costs and weight users are used).
PolicyFeatures extractFeatures(const Graph& g, const DeviceModel& devices, const ScheduleProblem& problem);

enum class PolicyHeads { Fixed, PerDevice };
const char* policyHeadsName(PolicyHeads h);       // "fixed", "per-device"
PolicyHeads policyHeadsFromName(const std::string& name);  // throws std::invalid_argument

struct PolicyConfig {
    // d: each node has d+1 keys. With per-device heads, the device count the policy was trained
    // on (most often), for the record: it serves any.
    int devices = 2;
    int hidden = 32;
    int rounds = 3;       // message-passing rounds
    int opEmbedding = 8;
    PolicyHeads heads = PolicyHeads::Fixed;
    bool servesDevices(int d) const { return heads == PolicyHeads::PerDevice ? d >= 1 : d == devices; }
    // "2 devices" or "any number of devices", for messages.
    std::string devicesServed() const;
    // "heads" is written only for per-device policies, so a fixed policy's file reads as before.
    nlohmann::json toJson() const;
    static PolicyConfig fromJson(const nlohmann::json& j);  // throws std::invalid_argument
};

// The network's parameters for a config, by name and shape, in the order RegalNet.cpp creates
// them (a test holds the two together). readPolicyFile checks a file's parameters against it.
std::vector<std::pair<std::string, std::vector<int64_t>>> parameterShapes(const PolicyConfig& config);

// Probabilities from the network for one graph.
struct PolicyOutput {
    int n = 0, keysPerNode = 0;
    std::vector<float> betaProbs;   // n * keysPerNode * betaChoices().size()
    std::vector<float> crossProbs;  // n * crossoverChoices().size()
};

struct PolicyAction {
    std::vector<int> beta;   // n * keysPerNode, indices into betaChoices()
    std::vector<int> cross;  // n, indices into crossoverChoices()
};

PolicyAction sampleAction(const PolicyOutput& out, Rng& rng);
// The stream a placement run draws its sampled action from: Rng::stream(seed, kActionStream, 0).
constexpr uint64_t kActionStream = 0xAC7104ull;
PolicyAction greedyAction(const PolicyOutput& out);  // the most probable choice everywhere
double actionLogProb(const PolicyOutput& out, const PolicyAction& a);
KeyBias biasFromAction(const PolicyAction& a, int keysPerNode);

struct PolicySample {
    const PolicyFeatures* features = nullptr;
    PolicyAction action;
    double advantage = 0;
};

struct TrainHyper {
    double learningRate = 3e-3;
    double entropyCoef = 0.01;
    double clipNorm = 1.0;
};

struct UpdateStats {
    double loss = 0, entropy = 0, gradNorm = 0;
};

// A share of one REINFORCE step: the gradient of the batch loss's terms of some of its samples
// (each divided by the batch's sample count), flattened in parameter order. Shares computed apart,
// in other processes too, and added up in a fixed order give the step's gradient exactly as
// wherever they were computed: this is how training spreads over ranks without changing a bit.
struct GradientShare {
    std::vector<float> gradient;
    double loss = 0;        // the terms' part of the batch loss
    double entropySum = 0;  // sum over the samples of the policy's mean entropy
};

// The network behind the policy. Not thread-safe: one caller at a time.
class PolicyModel {
public:
    virtual ~PolicyModel() = default;
    virtual const PolicyConfig& config() const = 0;
    virtual PolicyOutput predict(const PolicyFeatures& f) = 0;
    // One REINFORCE step with an entropy bonus over the batch (Adam, gradient clipping):
    // loss = mean over samples of -(advantage * log pi(action) / n) - entropyCoef * mean entropy.
    // The same as gradientShare over the whole batch followed by applyGradient.
    virtual UpdateStats reinforce(const std::vector<PolicySample>& batch, const TrainHyper& h) = 0;
    virtual GradientShare gradientShare(const std::vector<PolicySample>& samples, int batchSamples, const TrainHyper& h) = 0;
    // One Adam step with `gradient` (parameterCount() values), clipped to h.clipNorm first.
    // UpdateStats::loss and entropy are left 0: they belong to the shares.
    virtual UpdateStats applyGradient(const std::vector<float>& gradient, const TrainHyper& h) = 0;
    virtual size_t parameterCount() const = 0;
    // {name: {"shape": [...], "data": [...]}}; setParameters throws std::invalid_argument naming
    // the parameter when a name, shape or value does not fit.
    virtual nlohmann::json parameters() const = 0;
    virtual void setParameters(const nlohmann::json& params) = 0;
    virtual nlohmann::json optimizerState() const = 0;
    virtual void setOptimizerState(const nlohmann::json& state) = 0;
};

// A policy file: {"format": "graphopt-regal-policy", "version": 1, "objective", "devices",
// "config", "parameters", "training": {...}}.
struct PolicyFile {
    std::string objective, devices;
    PolicyConfig config;
    nlohmann::json parameters, training;
};
// Throws std::invalid_argument "PATH: reason" when the file is missing, not JSON, or not a policy,
// or when its parameters do not have the names, shapes and number of values the config implies
// (parameterShapes; their values are checked when a network takes them).
PolicyFile readPolicyFile(const std::string& path);
void writePolicyFile(const std::string& path, const PolicyFile& f);  // atomically (temp + rename)

// The shipped policy for an objective and device preset: regal-OBJECTIVE-DEVICES.json looked up in
// policySearchDirs() (run/ResourceLocator.h: $GRAPHOPT_POLICY_DIR, then the bundled policies of
// an installed program or of the source tree); when there is none for that preset, the policy of
// the preset a data set's setup was made from (kMemoryShareSuffix below), then the per-device
// policy regal-OBJECTIVE-any.json (kAnyDevices). Throws std::invalid_argument listing
// where it looked when neither exists.
constexpr const char* kAnyDevices = "any";
// What regal::withMemoryShare (RegalDataset.h) appends to a preset's name: "PRESET, memory 59 % of
// the graph's". findDefaultPolicy serves such a setup with PRESET's policy, trained on them.
constexpr const char* kMemoryShareSuffix = ", memory ";
std::string policyFileName(const std::string& objective, const std::string& devices);
std::string findDefaultPolicy(const std::string& objective, const std::string& devices);

}  // namespace graphopt::regal
