#include "tuning/LearnedTuners.h"

#include <set>
#include <string>

#include "tuning/ModelBasedTuner.h"
#include "tuning/PpoExplorer.h"
#include "tuning/XgbCostModel.h"

namespace graphopt::tuning {

namespace {

// ReLeASE's parts and the parameters each reads.
struct ReleaseParts {
    ModelBasedOptions options;
    XgbOptions xgb;
    PpoParams ppo;
    ReleaseParts() {
        options.name = "release";
        options.adaptiveSampling = true;
        xgb.objective = XgbObjective::Regression;
    }
    void read(const nlohmann::json& params, ParamCollector& known) {
        // Off for the ablation of ReLeASE's parts (bench/tuning/tuner_comparison --variant): the
        // agent's best candidates make the plan, as AutoTVM's annealing does.
        options.adaptiveSampling =
            booleanParam(params, "adaptive_sampling", true,
                         "k-means over the agent's visited set picks what to measure (false: its best candidates)", known);
        options.readParams(params, known);
        xgb.readParams(params, known);
        ppo = PpoParams::fromJson(params, &known);
    }
};

}  // namespace

std::unique_ptr<Tuner> makeReleaseTuner(const TunerContext& context) {
    ReleaseParts parts;
    readTunerParams("release", context.params,
                    [&](const nlohmann::json& params, ParamCollector& known) { parts.read(params, known); });
    return makeModelBasedTuner(context, std::move(parts.options), makeXgbCostModel(context, parts.xgb),
                               std::make_unique<PpoExplorer>(parts.ppo));
}

void registerLearnedTuners() {
    EngineDescription d;
    d.name = "release";
    d.summary = "ReLeASE: a PPO agent searches over an XGBoost regression model; adaptive sampling (k-means) picks "
                "what to measure";
    d.params = describeTunerParams([](const nlohmann::json& params, ParamCollector& known) {
        ReleaseParts().read(params, known);
    });
    registerTuner(std::move(d), makeReleaseTuner);
}

}  // namespace graphopt::tuning
