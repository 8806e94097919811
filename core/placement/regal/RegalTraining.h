// Training and evaluation of REGAL's policy (papers/REGAL.md, "Training: a contextual bandit with
// REINFORCE"), in plain C++ over the PolicyModel interface (RegalPolicy.h).
//
// One epoch: every training graph once, in a seeded shuffled order. Per graph: the policy's
// probabilities, `samples` actions drawn from them, BRKGA with each action's KeyBias at the
// training budget; reward = (uniform - policy) / uniform, uniform = plain BRKGA cost at the same
// budget and seed (cached; all samples of a graph in an epoch share the seed). Advantage = reward -
// the graph's baseline (the mean reward of its other samples at the same seed; with one sample, the
// moving average of its rewards), divided by a running RMS of advantages (at least 0.5 %) so that
// runtime rewards (tens of %) and memory rewards (a few %) train at the same pace. Every `batchGraphs` graphs: one REINFORCE +
// entropy update (Adam, gradient clipping). After each epoch the greedy policy is validated
// against uniform BRKGA on held-out synthetic graphs (win rate, mean improvement).
//
// Deterministic for a seed: the network is initialized and run on one thread, every random choice
// comes from streams of the seed (the order of an epoch from one stream, each graph's sampled
// actions from a stream of its own), and BRKGA is deterministic for its seed whatever the threads.
// A checkpoint holds everything needed to go on exactly where it stopped.
//
// Data-parallel over ranks (run/Communicator.h): every rank holds the same network and trainer
// state; each batch's BRKGA runs (every sample of every graph, and the uniform runs not cached
// yet) are shared out by size (largest first to the least loaded rank), each rank runs its share,
// the costs are exchanged, every rank works out the rewards and advantages in the batch's order
// (the baselines and the running RMS are sequential), each rank computes the gradient shares of
// its graphs (PolicyModel::gradientShare; actions are redrawn from the graph's own stream where
// needed), the shares are exchanged and added up in the batch's order, and every rank takes the
// same Adam step. Nothing depends on which rank did what, so any number of ranks gives the
// weights of one process bit for bit.
// Validation graphs are shared out the same way, and so, before the first epoch, are the
// deterministic seed engines' solutions of every graph (shareSeedSolutions: each computed on one
// rank, kept on all) and imitation's elite runs (RegalImitation.h: eliteTargets). After every
// epoch the ranks compare a checksum of the weights and the optimizer state; a mismatch throws
// DistributedError.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "graph/Graph.h"
#include "graph/Loaders.h"
#include "placement/model/DeviceModel.h"
#include "placement/search/SearchContext.h"
#include "placement/search/SeedSolutions.h"
#include "placement/regal/RegalPolicy.h"
#include "placement/model/ScheduleProblem.h"
#include "run/Communicator.h"
#include "run/Run.h"

namespace graphopt::regal {

// A graph ready for the policy and for BRKGA, on the devices it was prepared for (its problem and
// features were built for them, so every search on it uses them: graphs of a training set may
// each bring their own memory limits).
struct PolicyGraph {
    std::string name;
    std::shared_ptr<const Graph> graph;
    std::shared_ptr<const DeviceModel> devices;
    std::shared_ptr<const ScheduleProblem> problem;
    PolicyFeatures features;
    // The BRKGA seed engines' solutions on this problem, computed by the first run that needs
    // them and reused by every later run on the graph (contextFor passes it on).
    std::shared_ptr<SeedSolutions> seedSolutions = std::make_shared<SeedSolutions>();
};
// `microBatches` > 1: the graph is placed as a pipeline of that many micro-batches
// (ScheduleOptions::microBatches), as `graphopt place --micro-batches` places it.
PolicyGraph preparePolicyGraph(std::string name, Graph g, const DeviceModel& devices, PlacementObjective objective,
                               int microBatches = 1);

// A quiet search context for BRKGA on the graph (no progress, no cancellation, no stepping).
SearchContext contextFor(const PolicyGraph& g, int64_t budget, uint64_t seed, int threads,
                         const nlohmann::json& params);

// One point of a search's best-so-far curve: evaluations used (heuristic seeds included) and the
// best cost after them.
struct CurvePoint {
    int64_t evaluations = 0;
    double bestCost = 0;
};

// Best cost of BRKGA on the graph with `bias` (empty = plain BRKGA); `params`: population, ...
// `curve`, when given, gets the best cost after the initial population and after every generation.
double runBrkga(const PolicyGraph& g, const KeyBias& bias, int64_t budget, uint64_t seed,
                int threads, const nlohmann::json& params = nlohmann::json::object(),
                std::vector<CurvePoint>* curve = nullptr);

// The engine parameters that start every BRKGA run from other engines' solutions:
// seed_heuristics (heft, xla-best and single) and seed_engines (any heuristics and partitioners,
// e.g. dp-contiguous, whose contiguous splits BRKGA finds hard on the throughput objective).
// An empty object when neither is asked for.
nlohmann::json brkgaSeedParams(bool seedHeuristics, const std::vector<std::string>& seedEngines);

// Evaluations a search needed to reach `target` or better: the first point of `curve` at or below
// it (a relative 1e-12 of slack for the sums of a schedule), or -1 when it never did.
int64_t evaluationsToReach(const std::vector<CurvePoint>& curve, double target);

// The training set: synthetic graphs (every family x `sizes` x `graphSeeds`) plus the "train"
// list of `modelsDir`/splits.json (none when modelsDir is empty). Validation: one synthetic graph
// per family, 120 nodes, seeds never used for training. The test split is never read.
struct TrainingSetOptions {
    std::vector<int> sizes = {30, 80, 160};
    int graphSeeds = 2;
    std::string modelsDir;  // resources/models, or "" for synthetic graphs only
    int validationNodes = 120;
    // A data set written by bench/regal/regal_dataset (RegalDataset.h), or "": its train/*.json
    // graphs join the training set and its validation/*.json graphs are the validation set in
    // place of the synthetic ones; each graph is placed on the device setup it carries (the
    // policy's devices with memory that binds), which must have as many devices as the policy
    // unless `anyDeviceCount` (a per-device policy: any graph of the data set, whatever its
    // device count).
    std::string datasetDir;
    bool anyDeviceCount = false;
    // Input sizes for the models of the train split (--batch, --input-shape); the synthetic
    // graphs are generated as they are.
    LoadOptions modelInputs;
};
// A model file a command over many inputs could not use, and why (the loader's message without
// the file name in front); such commands report each one and go on with the rest.
struct UnusableInput {
    std::string file, reason;
};
UnusableInput unusableInput(const std::string& file, const std::string& message);
// Why a graph that carries its own device setup `own` cannot be placed by a policy for
// `policyDevices` ("" when it can): a fixed policy places on its own number of devices only; a
// per-device one (`anyDeviceCount`) on any.
std::string deviceCountMismatch(const DeviceModel& own, const DeviceModel& policyDevices, bool anyDeviceCount);
// With `unusable`, a model of the train split that cannot be loaded (with o.modelInputs), and a
// data set graph the policy cannot place (a fixed policy and another device count, no device
// setup), is put there and left out; without, it is an error (GraphError, std::invalid_argument).
std::vector<PolicyGraph> buildTrainingSet(const TrainingSetOptions& o, const DeviceModel& devices, PlacementObjective objective,
                                          std::vector<UnusableInput>* unusable = nullptr);
// The same for the data set's validation graphs; none left to validate on is always an error.
std::vector<PolicyGraph> buildValidationSet(const TrainingSetOptions& o, const DeviceModel& devices, PlacementObjective objective,
                                            std::vector<UnusableInput>* unusable = nullptr);
// The file names listed under `split` ("train" or "test") in DIR/splits.json.
std::vector<std::string> splitFiles(const std::string& modelsDir, const std::string& split);

struct TrainOptions {
    std::string objective = "runtime";
    std::string devices = DeviceModel::defaultPresetName();
    int epochs = 10;
    uint64_t seed = 1;
    int64_t budget = 1500;   // BRKGA evaluations per training run
    int samples = 4;         // actions sampled per graph and epoch
    int batchGraphs = 4;     // graphs per update
    int seedsPerGraph = 2;   // BRKGA seeds cycled through (uniform costs cached per seed)
    int threads = 2;         // BRKGA worker threads
    double baselineDecay = 0.8;
    // Every BRKGA run (uniform, policy, validation) starts from the heft, xla-best and single
    // solutions (engine parameter seed_heuristics), as eval-policy --seed-heuristics evaluates.
    bool seedHeuristics = false;
    std::vector<std::string> seedEngines;  // ... and from these engines' solutions (seed_engines)
    TrainHyper hyper;
    // seed_heuristics and seed_engines only when set, so older checkpoints still match
    nlohmann::json toJson() const;
};

struct EpochReport {
    int epoch = 0;  // 1-based
    double meanReward = 0;
    double validationWinRate = 0;          // share of validation graphs where REGAL is strictly better
    double validationMeanImprovement = 0;  // mean of (uniform - regal) / uniform
    double entropy = 0;
    double seconds = 0;
    int64_t evaluations = 0;  // BRKGA evaluations in this epoch (uniform cache included)
    // CPU seconds of the epoch's rollouts, gradients and validation on all ranks, and the same
    // along the critical path (per phase the slowest rank's): the epoch's time if every rank had a
    // core of its own. Their ratio is what more ranks can gain; the wall clock also says what the
    // machine gave.
    double cpuS = 0, criticalCpuS = 0;
    bool cancelled = false;   // stopped part-way: the trainer's state is not a whole epoch's
};

// Which of `ranks` ranks works on each item of estimated cost `work`: largest first, to the least
// loaded rank (ties: the earlier item, the lower rank); the same answer on every rank.
std::vector<int> shareOutByWork(const std::vector<double>& work, int ranks);

// Work on every graph that only one rank need do, its result needed on all: in rounds of
// `perRank` graphs per rank, each rank runs `work(i)` on its graphs of the round (shared out by
// size), the ranks exchange the results, and every rank calls `use(i, result)` for every graph of
// the round in order, then `onRound(graphs done)`. So no rank waits at an exchange for more than
// one round's imbalance, and the outcome does not depend on the rank count. A rank cancelled
// before a round stops every rank after that round's exchange, with nothing of it used. Returns
// the graphs done (all of them unless cancelled).
size_t shareOutGraphs(const std::vector<PolicyGraph>& graphs, Communicator& comm, const CancellationToken* cancel,
                      int perRank, const std::function<std::string(size_t)>& work,
                      const std::function<void(size_t, const std::string&)>& use,
                      const std::function<void(size_t done)>& onRound = {});

// The solutions of BRKGA's deterministic seed engines (params' seed_heuristics and seed_engines)
// on every graph, each computed on one rank (shareOutGraphs) and kept in every rank's copy of the
// graph (PolicyGraph::seedSolutions), as BRKGA runs them (default parameters, `budget`,
// `threads`). Seeded training over ranks then never runs them again, on any rank: without this
// every rank ran dp-contiguous on nearly every graph. Engines that search are left to the runs.
// Returns false when cancelled.
bool shareSeedSolutions(const std::vector<PolicyGraph>& graphs, const nlohmann::json& params, int64_t budget,
                        int threads, Communicator& comm, const CancellationToken* cancel = nullptr,
                        const std::function<void(size_t done)>& onRound = {});

class PolicyTrainer {
public:
    // `comm`: the ranks to train with (nullptr = this process alone); it must outlive the trainer.
    PolicyTrainer(PolicyModel& model, TrainOptions options, std::vector<PolicyGraph> train,
                  std::vector<PolicyGraph> validation, Communicator* comm = nullptr);
    int epochsDone() const { return epochsDone_; }
    // One epoch. `cancel` is checked before every training graph (with several ranks: before every
    // batch, and all ranks stop when one is cancelled); a cancelled epoch returns with
    // `cancelled` set, leaves epochsDone() as it was and the trainer part-way through the epoch
    // (checkpoint() then does not describe a whole epoch: keep the previous checkpoint).
    EpochReport runEpoch(const CancellationToken* cancel = nullptr);
    // Model parameters, optimizer state, baselines, uniform cache and options.
    nlohmann::json checkpoint() const;
    // Throws std::invalid_argument when the checkpoint belongs to other options or another network.
    void restore(const nlohmann::json& checkpoint);

    // Of the weights and the optimizer state, hex: equal on every rank after every epoch.
    std::string weightChecksum() const;

private:
    double uniformCost(const PolicyGraph& g, uint64_t seed, int64_t& evaluations);
    // The engine parameters of every BRKGA run (seed_heuristics, seed_engines when the options say so).
    nlohmann::json runParams() const { return brkgaSeedParams(o_.seedHeuristics, o_.seedEngines); }
    bool agreeToStop(const CancellationToken* cancel);
    void checkSameWeights(int epoch);

    PolicyModel& model_;
    TrainOptions o_;
    std::vector<PolicyGraph> train_, validation_;
    int epochsDone_ = 0;
    std::map<std::string, double> baseline_;      // graph name -> moving average of rewards
    double advantageMeanSquare_ = 0;              // running mean of advantage^2 (0 = none yet)
    std::map<std::string, double> uniformCache_;  // "graph#seed" -> cost
    LocalCommunicator local_;
    Communicator* comm_;
};

// Evaluation of a policy against plain BRKGA (and optionally tuned BRKGA and baselines).
struct EvalOptions {
    int64_t budget = 5000;
    int seeds = 3;  // BRKGA seeds 1..seeds
    int threads = 2;
    std::vector<std::string> baselines;                 // engine names, e.g. heft, single, xla-best
    nlohmann::json tunedParams;                         // BRKGA params; null = no tuned column
    bool sampleActions = false;  // draw the action from the policy (seeded by the BRKGA seed) instead of greedy
    // Uniform BRKGA, REGAL and tuned BRKGA alike start from the heft, xla-best and single solutions
    // (engine parameter seed_heuristics), so none can end worse than those baselines.
    bool seedHeuristics = false;
    std::vector<std::string> seedEngines;  // ... and all three from these engines' solutions too
    // REGAL's runs only: the share of its policy-drawn chromosomes drawn uniform instead (the regal
    // engine's parameter uniform_mutant_share; uniform BRKGA draws every one uniform anyway).
    double uniformMutantShare = 0;
};

struct GraphEvaluation {
    std::string name;
    int nodes = 0;
    int64_t budget = 0;
    std::vector<double> uniform, regal, tuned;  // per seed
    // Per seed: the evaluations REGAL needed to reach that seed's uniform BRKGA final cost (the
    // paper's "seconds instead of hours"), -1 when it never did within the budget.
    std::vector<int64_t> regalEvaluationsToUniform;
    std::map<std::string, double> baselines;    // engine -> cost (seed 1)
    double uniformS = 0, regalS = 0, inferenceS = 0, tunedS = 0;
    nlohmann::json toJson() const;
};

GraphEvaluation evaluatePolicy(PolicyModel& model, const PolicyGraph& g, const EvalOptions& o);
// {"mean_improvement_pct", "median_improvement_pct", "win_rate"} against uniform BRKGA, and the
// same three against tuned BRKGA and the best baseline when present, both as an object
// ("vs_tuned", "vs_best_baseline") and, as before, as flat keys with that prefix
// ("vs_best_baseline_win_rate", ...). Improvement per graph = mean over seeds of
// (other - regal) / other; win rate = share of (graph, seed) pairs where REGAL is strictly better.
// "evaluations_to_uniform_final": how soon REGAL reached uniform BRKGA's final cost, as
// {"reached_rate" (share of (graph, seed) pairs that got there within the budget),
//  "median_budget_fraction" (median over pairs of evaluations / budget; a pair that never got
//  there counts as 2), "within_third_rate" (share of graphs whose median over seeds is at most a
//  third of the budget)}.
nlohmann::json summarizeEvaluations(const std::vector<GraphEvaluation>& evals);

// Small grid search over BRKGA's population, elite/mutant fractions and rho_e on `graphs`: the
// parameters with the lowest mean cost relative to the defaults (seeds 1..seeds). `log` gets one
// line per configuration.
nlohmann::json tuneBrkgaGrid(const std::vector<PolicyGraph>& graphs, int64_t budget, int seeds,
                             int threads, const std::function<void(const std::string&)>& log = {});

}  // namespace graphopt::regal
