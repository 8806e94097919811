#include "tuning/ModelBasedTuner.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <unordered_set>

#include "tuning/AnnealingExplorer.h"
#include "tuning/XgbCostModel.h"

namespace graphopt::tuning {

namespace {

// Without adaptive sampling, at most this many of the visited set are listed in a progress event
// (the visited set can hold tens of thousands); with it, the whole clustered pool (capped too).
constexpr size_t kMaxListedCandidates = 256;
constexpr size_t kMaxListedPool = 4096;

}  // namespace

void ModelBasedOptions::readParams(const nlohmann::json& params, ParamCollector& known) {
    planSize = static_cast<int>(
        integerParam(params, "plan_size", planSize, 1, 4096, "configurations planned per model fit", known));
    epsilon = numberParam(params, "epsilon", epsilon, 0.0, 1.0, "share of each plan drawn at random", known);
    // The model needs measurements; AutoTVM waits for one plan's worth.
    initialRandom = integerParam(params, "initial_random", params.contains("plan_size") ? planSize : initialRandom, 0,
                                 1000000, "random measurements before the model is used (follows plan_size when only that is given)", known);
    replanEveryBatch = booleanParam(params, "replan_every_batch", replanEveryBatch,
                                    "refit the model and replan after every measured batch", known);
    if (adaptiveSampling) {
        sampling.firstK = static_cast<int>(
            integerParam(params, "first_k", sampling.firstK, 1, 4096, "smallest k tried by k-means", known));
        sampling.kneeRatio = numberParam(params, "knee_ratio", sampling.kneeRatio, 1.0, 1e9,
                                         "loss ratio that marks the knee of the k-means loss curve", known);
        samplePool = static_cast<int>(integerParam(params, "sample_pool", samplePool, 0, 1000000,
                                                   "best visited configurations clustered (0 = all)", known));
    }
}

int64_t randomMeasurementsFirst(const std::string& tuner, const nlohmann::json& params) {
    const EngineDescription d = describeTuner(tuner);
    ModelBasedOptions o;
    bool hasPhase = false;
    for (const ParamSpec& p : d.params) {
        if (p.name == "initial_random") hasPhase = true, o.initialRandom = p.defaultValue.get<int64_t>();
        if (p.name == "plan_size") o.planSize = p.defaultValue.get<int>();
    }
    if (!hasPhase) return 0;
    const int64_t byDefault = o.initialRandom;
    try {
        ParamCollector known;
        o.readParams(params.is_object() ? params : nlohmann::json::object(), known);
    } catch (const std::invalid_argument&) {
        return byDefault;
    }
    return o.initialRandom;
}

ModelBasedTuner::ModelBasedTuner(const TunerContext& context, ModelBasedOptions options,
                                 std::unique_ptr<CostModel> model, std::unique_ptr<Explorer> explorer)
    : Tuner(context.space, context.seed),
      options_(std::move(options)),
      model_(std::move(model)),
      explorer_(std::move(explorer)) {
    if (!model_ || !explorer_) throw std::invalid_argument(options_.name + ": needs a cost model and an explorer");
    if (options_.planSize < 1 || options_.epsilon < 0 || options_.epsilon > 1 || options_.initialRandom < 0)
        throw std::invalid_argument(options_.name + ": need plan_size >= 1, 0 <= epsilon <= 1, initial_random >= 0");
}

void ModelBasedTuner::observe(const std::vector<MeasureResult>& results) {
    Tuner::observe(results);
    if (results.empty()) return;
    modelDirty_ = true;
    if (options_.replanEveryBatch) plan_.clear();
}

std::optional<int64_t> ModelBasedTuner::clusterOf(ConfigIndex c) const {
    auto it = clusters_.find(c);
    if (it == clusters_.end()) return std::nullopt;
    return it->second;
}

std::vector<ConfigIndex> ModelBasedTuner::proposeBatch(int n) {
    lastInfo_ = nlohmann::json::object();
    nlohmann::json plansMadeInfo = nlohmann::json::array();
    bool anyOk = false;
    for (const auto& r : history_) anyOk |= r.ok;
    const bool modelPhase = anyOk && static_cast<int64_t>(history_.size()) >= options_.initialRandom;

    std::vector<ConfigIndex> out;
    nlohmann::json randomPicks = nlohmann::json::array();
    int plansMade = 0;
    bool planFailed = false;  // a plan made in this call came back empty: random for the rest
    while (static_cast<int>(out.size()) < n && !exhausted()) {
        std::optional<ConfigIndex> c;
        const bool greedy = !modelPhase || !rng_.chance(options_.epsilon);
        if (modelPhase && greedy) {
            while (!c) {
                while (!plan_.empty() && proposed(plan_.front())) plan_.pop_front();
                if (!plan_.empty()) {
                    c = plan_.front();
                    plan_.pop_front();
                    break;
                }
                if (planFailed) break;
                plansMadeInfo.push_back(makePlan());
                ++plansMade;
                planFailed = plan_.empty();
            }
        }
        if (!c) {
            c = randomUnproposed();
            if (!c) break;
            if (modelPhase) randomPicks.push_back(*c);
        }
        markProposed(*c);
        out.push_back(*c);
    }
    lastInfo_["phase"] = modelPhase ? "model" : "random";
    lastInfo_["plan"] = plans_;
    lastInfo_["random"] = std::move(randomPicks);
    if (plansMade) {
        // The last plan as "exploration"; the rare earlier ones (a batch longer than a plan) too.
        lastInfo_["exploration"] = plansMadeInfo.back();
        if (plansMade > 1) {
            plansMadeInfo.erase(plansMadeInfo.end() - 1);
            // The pictures are drawn from the last plan; the earlier ones keep their summary.
            for (auto& earlier : plansMadeInfo) earlier.erase("candidates");
            lastInfo_["earlier_explorations"] = std::move(plansMadeInfo);
        }
    }
    return out;
}

nlohmann::json ModelBasedTuner::makePlan() {
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    ++plans_;
    plan_.clear();
    nlohmann::json info;
    info["plan"] = plans_;
    info["model"] = model_->name();
    info["explorer"] = explorer_->name();
    info["fitted_on"] = history_.size();

    if (modelDirty_) {
        std::vector<ConfigIndex> configs;
        std::vector<double> gflops;
        configs.reserve(history_.size());
        for (const auto& r : history_) {
            configs.push_back(r.config);
            gflops.push_back(r.ok ? r.gflops : 0.0);
        }
        model_->fit(configs, gflops);
        modelDirty_ = false;
    }
    const auto t1 = Clock::now();
    info["fit_s"] = std::chrono::duration<double>(t1 - t0).count();
    if (!model_->fitted()) {
        info["model_fitted"] = false;
        return info;
    }

    // Start the explorer from the best measured configurations.
    std::vector<const MeasureResult*> ok;
    for (const auto& r : history_)
        if (r.ok) ok.push_back(&r);
    std::stable_sort(ok.begin(), ok.end(), [](const MeasureResult* a, const MeasureResult* b) { return a->gflops > b->gflops; });
    ExploreRequest req;
    req.space = &space_;
    req.score = [this](const std::vector<ConfigIndex>& cs) { return model_->predict(cs); };
    req.measured = [this](ConfigIndex c) { return proposed(c); };
    req.wanted = options_.planSize;
    for (size_t i = 0; i < ok.size() && static_cast<int>(i) < options_.planSize; ++i) req.starts.push_back(ok[i]->config);

    std::vector<ScoredConfig> found = explorer_->explore(req, rng_);
    // Keep the Explorer contract even if an explorer slips: distinct and unmeasured only.
    std::vector<ScoredConfig> visited;
    {
        std::unordered_set<ConfigIndex> seen;
        for (const auto& s : found)
            if (s.config < space_.size() && !proposed(s.config) && seen.insert(s.config).second) visited.push_back(s);
    }
    const ExploreStats stats = explorer_->lastStats();
    info["explore_steps"] = stats.steps;
    info["explore_evaluations"] = stats.evaluations;
    info["visited"] = visited.size();
    const auto t2 = Clock::now();
    info["explore_s"] = std::chrono::duration<double>(t2 - t1).count();
    ++modelPlans_;

    // What the plan chooses from: the whole visited set (its best planSize are taken), or, with
    // adaptive sampling, the pool of its best samplePool, every one of which is clustered.
    std::vector<ScoredConfig>& cands = visited;
    if (options_.adaptiveSampling && options_.samplePool > 0 && static_cast<int>(cands.size()) > options_.samplePool)
        cands.resize(options_.samplePool);
    info["candidates_total"] = cands.size();

    std::vector<int64_t> candCluster(cands.size(), -1);
    nlohmann::json reps = nlohmann::json::array();
    size_t listLimit = kMaxListedCandidates;
    if (options_.adaptiveSampling && !cands.empty()) {
        const SampledBatch sb = adaptiveSample(space_, cands, options_.planSize,
                                               [this](ConfigIndex c) { return proposed(c); }, rng_, options_.sampling);
        const int64_t base = nextCluster_;
        nextCluster_ += sb.k;
        for (size_t i = 0; i < cands.size(); ++i) candCluster[i] = base + sb.candidateCluster[i];
        const std::vector<double> repScores = model_->predict(sb.representatives);
        for (size_t i = 0; i < sb.representatives.size(); ++i) {
            const ConfigIndex c = sb.representatives[i];
            const int64_t cluster = base + sb.representativeCluster[i];
            clusters_[c] = cluster;
            plan_.push_back(c);
            reps.push_back({{"config", c}, {"cluster", cluster}, {"score", repScores[i]},
                            {"synthesized", static_cast<bool>(sb.synthesized[i])}});
        }
        info["k"] = sb.k;
        nlohmann::json losses = nlohmann::json::array();
        for (const auto& [k, loss] : sb.losses) losses.push_back({{"k", k}, {"loss", loss}});
        info["kmeans_losses"] = std::move(losses);
        listLimit = kMaxListedPool;
    } else {
        for (size_t i = 0; i < cands.size() && static_cast<int>(i) < options_.planSize; ++i) {
            plan_.push_back(cands[i].config);
            reps.push_back({{"config", cands[i].config}, {"score", cands[i].score}});
        }
    }
    nlohmann::json listed = nlohmann::json::array();
    for (size_t i = 0; i < cands.size() && i < listLimit; ++i) {
        nlohmann::json e = {{"config", cands[i].config}, {"score", cands[i].score}};
        if (candCluster[i] >= 0) e["cluster"] = candCluster[i];
        listed.push_back(std::move(e));
    }
    info["candidates"] = std::move(listed);
    info["representatives"] = std::move(reps);
    info["sample_s"] = std::chrono::duration<double>(Clock::now() - t2).count();
    return info;
}

std::unique_ptr<Tuner> makeModelBasedTuner(const TunerContext& context, ModelBasedOptions options,
                                           std::unique_ptr<CostModel> model, std::unique_ptr<Explorer> explorer) {
    return std::make_unique<ModelBasedTuner>(context, std::move(options), std::move(model), std::move(explorer));
}

namespace {

// AutoTVM's parts and the parameters each reads.
struct AutoTvmParts {
    ModelBasedOptions options;
    XgbOptions xgb;
    AnnealingOptions annealing;
    explicit AutoTvmParts(bool adaptiveSampling) {
        options.name = adaptiveSampling ? "autotvm-as" : "autotvm";
        options.adaptiveSampling = adaptiveSampling;
        xgb.objective = XgbObjective::Rank;
    }
    void read(const nlohmann::json& params, ParamCollector& known) {
        options.readParams(params, known);
        xgb.readParams(params, known);
        annealing.readParams(params, known);
    }
};

}  // namespace

std::unique_ptr<Tuner> makeAutoTvmTuner(const TunerContext& context, bool adaptiveSampling) {
    AutoTvmParts parts(adaptiveSampling);
    readTunerParams(parts.options.name, context.params,
                    [&](const nlohmann::json& params, ParamCollector& known) { parts.read(params, known); });
    return makeModelBasedTuner(context, std::move(parts.options), makeXgbCostModel(context, parts.xgb),
                               std::make_unique<AnnealingExplorer>(parts.annealing));
}

std::vector<ParamSpec> autoTvmParams(bool adaptiveSampling) {
    return describeTunerParams([adaptiveSampling](const nlohmann::json& params, ParamCollector& known) {
        AutoTvmParts(adaptiveSampling).read(params, known);
    });
}

}  // namespace graphopt::tuning
