// A tuner that measures what a learned cost model predicts to be fast (AutoTVM's
// ModelBasedTuner, and ReLeASE's): cost model + explorer + optional adaptive sampling +
// epsilon-greedy random picks.
//
// Plans: until `initialRandom` measurements exist (and at least one succeeded) a plan is
// `planSize` random configurations. After that, each plan refits the model on every measurement
// so far, lets the explorer search the model (starting from the best measured configurations),
// and takes from the set of configurations the search visited (Explorer.h) either
//   - its best `planSize` (AutoTVM), or
//   - with adaptive sampling (papers/ReLeASE.md), one representative per cluster of its best
//     `samplePool` configurations: k-means with k at the knee of 8, 16, ... up to
//     min(planSize, pool / 4) (AdaptiveSampling.h). A plan then measures k configurations, not
//     planSize, and the model is refitted after each k measurements.
// proposeBatch takes configurations from the current plan and makes the next plan when it runs
// out; each slot is a random unproposed configuration instead with probability `epsilon`. Never
// proposes a configuration twice.
//
// lastBatchInfo() describes the last proposeBatch; TuningRun puts it in the progress event as
// values["tuner"]:
//   phase         "random" (before the model is used) or "model"
//   plan          number of the plan the batch came from (1-based; 0 before the first)
//   random        configurations picked at random in the model phase (epsilon-greedy, fill-ins)
//   exploration   only when the batch needed a new plan: {plan, model, explorer, fitted_on,
//                 fit_s, explore_s, sample_s, explore_steps, explore_evaluations, visited (the
//                 size of the visited set), candidates_total (the configurations the plan chose
//                 from: the pool with adaptive sampling, else the visited set), candidates:
//                 [{config, score, cluster?}] (the pool, whole, with adaptive sampling; else the
//                 best 256), representatives: [{config, score, cluster?, synthesized?}] (what the
//                 plan measures), and with adaptive sampling k, kmeans_losses: [{k, loss}]}
//   earlier_explorations  the plans before it, when one batch needed several (batch > plan)
// clusterOf() numbers clusters across the whole run, so a measurement's cluster id is unique
// within its run (plan p's clusters follow plan p-1's).
//
// Registered tuners: "autotvm" (XGBoost rank model + simulated annealing, top plan_size, 5 %
// random) and "autotvm-as" (the same + adaptive sampling). ReLeASE registers "release" with
// makeModelBasedTuner(context, options, regression model, PPO explorer).
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuning/AdaptiveSampling.h"
#include "tuning/CostModel.h"
#include "tuning/Explorer.h"
#include "tuning/Tuner.h"
#include "tuning/TunerParams.h"

namespace graphopt::tuning {

struct ModelBasedOptions {
    std::string name = "model-based";  // what name() reports (the registry name)
    int planSize = 64;
    double epsilon = 0.05;
    int64_t initialRandom = 64;  // measurements before the model is used
    // false (AutoTVM): a new plan when the current one is used up; true: drop the rest of the plan
    // whenever results arrive, so every batch comes from a model refitted on everything so far.
    bool replanEveryBatch = false;
    bool adaptiveSampling = false;
    AdaptiveSamplingOptions sampling;
    // Adaptive sampling clusters the best `samplePool` configurations of the visited set (0: all
    // of it; k-means then costs time in proportion to the visited set).
    int samplePool = 512;
    // Reads plan_size, epsilon, initial_random, replan_every_batch, and with adaptive sampling
    // first_k, knee_ratio, sample_pool (the names it knows are added to `known`); throws
    // std::invalid_argument on bad values.
    void readParams(const nlohmann::json& params, ParamCollector& known);
};

// How many measurements the registered tuner `tuner` makes at random before its model is used,
// with `params` as a run would read them (its initial_random, following plan_size when only that
// is given); 0 for a tuner without that phase, and the defaults' value when `params` is not valid.
// Front ends use it to say when a budget never reaches the model.
int64_t randomMeasurementsFirst(const std::string& tuner, const nlohmann::json& params);

class ModelBasedTuner : public Tuner {
public:
    ModelBasedTuner(const TunerContext& context, ModelBasedOptions options, std::unique_ptr<CostModel> model,
                    std::unique_ptr<Explorer> explorer);
    std::string name() const override { return options_.name; }
    std::vector<ConfigIndex> proposeBatch(int n) override;
    void observe(const std::vector<MeasureResult>& results) override;
    nlohmann::json lastBatchInfo() const override { return lastInfo_; }
    std::optional<int64_t> clusterOf(ConfigIndex c) const override;

    const ModelBasedOptions& options() const { return options_; }
    const CostModel& model() const { return *model_; }
    Explorer& explorer() { return *explorer_; }
    int plans() const { return plans_; }          // plans made so far
    int modelPlans() const { return modelPlans_; }  // of which from the model

private:
    nlohmann::json makePlan();  // returns what it did, for lastBatchInfo()

    ModelBasedOptions options_;
    std::unique_ptr<CostModel> model_;
    std::unique_ptr<Explorer> explorer_;
    std::deque<ConfigIndex> plan_;
    bool modelDirty_ = false;  // measurements arrived since the last fit
    int plans_ = 0, modelPlans_ = 0;
    int64_t nextCluster_ = 0;
    std::unordered_map<ConfigIndex, int64_t> clusters_;
    nlohmann::json lastInfo_;
};

std::unique_ptr<Tuner> makeModelBasedTuner(const TunerContext& context, ModelBasedOptions options,
                                           std::unique_ptr<CostModel> model, std::unique_ptr<Explorer> explorer);

// AutoTVM: XGBoost rank model + simulated annealing, with or without adaptive sampling. Tuner
// parameters: plan_size, epsilon, initial_random, rounds, chains, steps, early_stop, temperature,
// and with adaptive sampling first_k, knee_ratio; anything else throws std::invalid_argument.
std::unique_ptr<Tuner> makeAutoTvmTuner(const TunerContext& context, bool adaptiveSampling);
// The parameters makeAutoTvmTuner reads, with their defaults.
std::vector<ParamSpec> autoTvmParams(bool adaptiveSampling);

}  // namespace graphopt::tuning
