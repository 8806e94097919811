// Gradient-boosted trees over schedule features, through XGBoost's C API (papers/ReLeASE.md,
// "Cost model"): AutoTVM's ranking model (rank:pairwise) for its annealing explorer, or a
// regression (reg:squarederror) whose prediction the ReLeASE agent takes as its reward.
//
// fit() trains a fresh booster on every measurement so far (AutoTVM retrains from scratch after
// each batch) with targets y / max(y) (GFLOP/s over the best so far, failures 0). Parameters are
// the paper's (max_depth 3, eta 0.3, gamma 1e-4, min_child_weight 1, lambda 1), one thread and a
// fixed seed so that a run is replayed exactly. Every XGBoost call is checked; a failure throws
// std::runtime_error carrying XGBGetLastError(). XGBoost's headers stay in the .cpp.
//
// Features are kept per configuration, as TVM's XGBoost model keeps them (its feature cache): the
// annealing explorer scores the same neighbours again and again (in an AutoTVM run on a ResNet-18
// conv most of its scoring calls are repeats), and a configuration's features never change, while
// computing them builds its whole loop nest. The cache holds at most `featureCacheSize` rows and
// is emptied when full; it changes no prediction (the rows are the floats XGBoost is given).
#pragma once

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuning/CostModel.h"
#include "tuning/TunerParams.h"

namespace graphopt::tuning {

struct TunerContext;

enum class XgbObjective { Rank, Regression };

struct XgbOptions {
    XgbObjective objective = XgbObjective::Rank;
    int rounds = 60;  // boosting rounds per fit
    int maxDepth = 3;
    double eta = 0.3;
    double gamma = 1e-4;
    double minChildWeight = 1;
    double lambda = 1;
    uint64_t seed = 1;
    size_t featureCacheSize = 100000;  // feature rows kept (0: none)
    // Reads "rounds" from tuner parameters (the names it knows are added to `known`).
    void readParams(const nlohmann::json& params, ParamCollector& known);
};

// A configuration's features (scheduleFeatures for a task, the normalized knob indices for a bare
// space); every call returns the same length.
using FeatureFn = std::function<std::vector<double>(ConfigIndex)>;

class XgbCostModel : public CostModel {
public:
    XgbCostModel(FeatureFn features, XgbOptions options = {});
    ~XgbCostModel() override;
    XgbCostModel(const XgbCostModel&) = delete;
    XgbCostModel& operator=(const XgbCostModel&) = delete;

    std::string name() const override;  // "xgb-rank" or "xgb-reg"
    // Stays unfitted when no measurement succeeded (nothing to learn from).
    void fit(const std::vector<ConfigIndex>& configs, const std::vector<double>& gflops) override;
    std::vector<double> predict(const std::vector<ConfigIndex>& configs) const override;
    bool fitted() const override { return booster_ != nullptr; }
    // Predictions for raw feature rows (tests; predict() computes the rows with the FeatureFn).
    std::vector<double> predictFeatures(const std::vector<std::vector<double>>& rows) const;
    int fits() const { return fits_; }
    // How often a configuration's features were computed, and how often they came from the cache.
    struct FeatureCacheStats {
        int64_t computed = 0;
        int64_t reused = 0;
    };
    FeatureCacheStats featureCacheStats() const { return cacheStats_; }
    const XgbOptions& options() const { return options_; }

private:
    void freeBooster();
    // The configuration's feature row as XGBoost takes it, from the cache or computed (and kept).
    const std::vector<float>& featureRow(ConfigIndex config) const;
    std::vector<double> predictRows(const std::vector<float>& data, size_t rows) const;
    FeatureFn features_;
    XgbOptions options_;
    void* booster_ = nullptr;  // BoosterHandle
    size_t featureCount_ = 0;
    int fits_ = 0;
    mutable std::unordered_map<ConfigIndex, std::vector<float>> featureCache_;
    mutable std::vector<float> uncachedRow_;  // featureRow's answer when the cache is off
    mutable FeatureCacheStats cacheStats_;
};

// The features of the context's task (scheduleFeatures), or of its bare space (normalized knobs).
FeatureFn contextFeatures(const TunerContext& context);
std::unique_ptr<XgbCostModel> makeXgbCostModel(const TunerContext& context, XgbOptions options = {});

}  // namespace graphopt::tuning
