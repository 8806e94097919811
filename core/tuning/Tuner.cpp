#include "tuning/Tuner.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <stdexcept>

#include "tuning/ModelBasedTuner.h"
#include "tuning/TemplateSpace.h"
#include "tuning/TunerParams.h"

namespace graphopt::tuning {

void Tuner::observe(const std::vector<MeasureResult>& results) {
    history_.insert(history_.end(), results.begin(), results.end());
}

std::optional<ConfigIndex> Tuner::randomUnproposed() {
    if (exhausted()) return std::nullopt;
    if (!remainingBuilt_ && proposed_.size() * 2 < space_.size()) {
        for (;;) {
            const ConfigIndex c = space_.random(rng_);
            if (!proposed_.count(c)) return c;
        }
    }
    if (!remainingBuilt_) {
        // Only reached for spaces small enough that half of them were proposed.
        for (ConfigIndex c = 0; c < space_.size(); ++c)
            if (!proposed_.count(c)) remaining_.push_back(c);
        remainingBuilt_ = true;
    }
    while (!remaining_.empty()) {
        const size_t i = static_cast<size_t>(rng_.below(remaining_.size()));
        const ConfigIndex c = remaining_[i];
        remaining_[i] = remaining_.back();
        remaining_.pop_back();
        if (!proposed_.count(c)) return c;
    }
    return std::nullopt;
}

std::vector<ConfigIndex> RandomTuner::proposeBatch(int n) {
    std::vector<ConfigIndex> out;
    for (int i = 0; i < n; ++i) {
        auto c = randomUnproposed();
        if (!c) break;
        markProposed(*c);
        out.push_back(*c);
    }
    return out;
}

std::vector<ConfigIndex> GridTuner::proposeBatch(int n) {
    std::vector<ConfigIndex> out;
    while (static_cast<int>(out.size()) < n && next_ < space_.size()) {
        const ConfigIndex c = next_++;
        if (markProposed(c)) out.push_back(c);
    }
    return out;
}

namespace {

void readGaParams(const nlohmann::json& j, ParamCollector& known, GaParams& p) {
    p.populationSize = int(integerParam(j, "population", p.populationSize, 2, 100000, "configurations per generation", known));
    p.eliteCount = int(integerParam(j, "elites", p.eliteCount, 0, 100000, "best configurations kept per generation", known));
    p.mutationProb = numberParam(j, "mutation", p.mutationProb, 0, 1, "probability that a knob is redrawn", known);
}

}  // namespace

GaParams GaParams::fromJson(const nlohmann::json& j) {
    GaParams p;
    readTunerParams("ga", j, [&](const nlohmann::json& params, ParamCollector& known) { readGaParams(params, known, p); });
    if (p.eliteCount >= p.populationSize) throw std::invalid_argument("ga: elites must be fewer than the population");
    return p;
}

std::vector<ParamSpec> GaParams::describe() {
    return describeTunerParams([](const nlohmann::json& params, ParamCollector& known) {
        GaParams p;
        readGaParams(params, known, p);
    });
}

GaTuner::GaTuner(KnobSpace space, uint64_t seed, GaParams params) : Tuner(std::move(space), seed), params_(params) {
    // Generation 0: random configurations.
    for (int i = 0; i < params_.populationSize; ++i) {
        auto c = randomUnproposed();
        if (!c) break;
        markProposed(*c);  // reserved now so the generation has no duplicates
        pending_.push_back(*c);
    }
    generationMembers_ = pending_;
    std::reverse(pending_.begin(), pending_.end());  // proposed in generation order (pop_back)
}

std::vector<ConfigIndex> GaTuner::proposeBatch(int n) {
    std::vector<ConfigIndex> out;
    while (static_cast<int>(out.size()) < n) {
        if (pending_.empty()) {
            if (exhausted()) break;
            breed();
            if (pending_.empty()) break;
        }
        out.push_back(pending_.back());
        pending_.pop_back();
    }
    return out;
}

void GaTuner::observe(const std::vector<MeasureResult>& results) {
    Tuner::observe(results);
    for (const auto& r : results) scores_[r.config] = r.ok ? r.gflops : 0.0;
}

void GaTuner::breed() {
    // Parents: this generation's measured members (elites included), by score.
    std::vector<ConfigIndex> parents;
    std::vector<double> weights;
    for (ConfigIndex c : generationMembers_) {
        auto it = scores_.find(c);
        if (it == scores_.end()) continue;
        parents.push_back(c);
        weights.push_back(it->second);
    }
    ++generation_;
    std::vector<size_t> order(parents.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return weights[a] > weights[b]; });
    elites_.clear();
    for (size_t i = 0; i < order.size() && static_cast<int>(elites_.size()) < params_.eliteCount; ++i)
        elites_.push_back(parents[order[i]]);

    std::vector<ConfigIndex> children;
    const int want = params_.populationSize - static_cast<int>(elites_.size());
    const size_t knobs = space_.knobCount();
    int attempts = 0;
    while (static_cast<int>(children.size()) < want && !parents.empty() && attempts < want * 20) {
        ++attempts;
        const KnobIndices a = space_.decode(parents[rng_.weighted(weights)]);
        const KnobIndices b = space_.decode(parents[rng_.weighted(weights)]);
        const size_t point = knobs ? static_cast<size_t>(rng_.below(knobs)) : 0;
        KnobIndices child(knobs);
        for (size_t i = 0; i < knobs; ++i) child[i] = i < point ? a[i] : b[i];
        for (size_t i = 0; i < knobs; ++i)
            if (rng_.chance(params_.mutationProb))
                child[i] = static_cast<int>(rng_.below(space_.knob(i).size()));
        const ConfigIndex c = space_.encode(child);
        if (!markProposed(c)) continue;
        children.push_back(c);
    }
    while (static_cast<int>(children.size()) < want) {
        auto c = randomUnproposed();
        if (!c) break;
        markProposed(*c);
        children.push_back(*c);
    }
    generationMembers_ = elites_;
    generationMembers_.insert(generationMembers_.end(), children.begin(), children.end());
    pending_.assign(children.rbegin(), children.rend());
}

namespace {

std::mutex& registryMutex() {
    static std::mutex m;
    return m;
}

struct Entry {
    EngineDescription description;
    TunerFactory factory;
};

std::map<std::string, Entry>& registry() {
    static std::map<std::string, Entry> r = {
        {"random",
         {{"random", "Random search without repeats", {}},
          [](const TunerContext& c) -> std::unique_ptr<Tuner> { return std::make_unique<RandomTuner>(c.space, c.seed); }}},
        {"grid",
         {{"grid", "Every configuration in index order", {}},
          [](const TunerContext& c) -> std::unique_ptr<Tuner> { return std::make_unique<GridTuner>(c.space, c.seed); }}},
        {"ga",
         {{"ga", "AutoTVM's genetic tuner: elites kept, children bred by fitness, knobs mutated", GaParams::describe()},
          [](const TunerContext& c) -> std::unique_ptr<Tuner> {
              return std::make_unique<GaTuner>(c.space, c.seed, GaParams::fromJson(c.params));
          }}},
        {"autotvm",
         {{"autotvm", "AutoTVM: XGBoost rank model searched by simulated annealing; the plan's top candidates measured",
           autoTvmParams(false)},
          [](const TunerContext& c) { return makeAutoTvmTuner(c, false); }}},
        {"autotvm-as",
         {{"autotvm-as", "AutoTVM with adaptive sampling: k-means over the configurations the annealing visited picks what to measure",
           autoTvmParams(true)},
          [](const TunerContext& c) { return makeAutoTvmTuner(c, true); }}},
    };
    return r;
}

const Entry* findEntry(const std::string& name) {
    auto it = registry().find(name);
    return it == registry().end() ? nullptr : &it->second;
}

std::string knownTuners() {
    std::string known;
    for (const auto& [n, e] : registry()) known += (known.empty() ? "" : ", ") + n;
    return known;
}

}  // namespace

void registerTuner(EngineDescription description, TunerFactory factory) {
    std::lock_guard lock(registryMutex());
    const std::string name = description.name;
    registry()[name] = {std::move(description), std::move(factory)};
}

std::vector<std::string> tunerNames() {
    std::lock_guard lock(registryMutex());
    std::vector<std::string> names;
    for (const auto& [name, e] : registry()) names.push_back(name);
    return names;
}

std::vector<EngineDescription> tunerDescriptions() {
    std::lock_guard lock(registryMutex());
    std::vector<EngineDescription> out;
    for (const auto& [name, e] : registry()) out.push_back(e.description);
    return out;
}

EngineDescription describeTuner(const std::string& name) {
    std::lock_guard lock(registryMutex());
    if (const Entry* e = findEntry(name)) return e->description;
    throw std::invalid_argument("unknown tuner '" + name + "' (known: " + knownTuners() + ")");
}

std::unique_ptr<Tuner> makeTuner(const std::string& name, const TunerContext& context) {
    TunerFactory f;
    EngineDescription description;
    {
        std::lock_guard lock(registryMutex());
        const Entry* e = findEntry(name);
        if (!e) throw std::invalid_argument("unknown tuner '" + name + "' (known: " + knownTuners() + ")");
        f = e->factory;
        description = e->description;
    }
    // Unknown names and wrong types are refused the same way for every tuner.
    checkParams(name, description.params, context.params);
    return f(context);
}

std::unique_ptr<Tuner> makeTuner(const std::string& name, const TuningTask& task, uint64_t seed,
                                 const nlohmann::json& params) {
    return makeTuner(name, TunerContext{templateSpace(task), task, seed, params});
}

std::unique_ptr<Tuner> makeTuner(const std::string& name, const KnobSpace& space, uint64_t seed,
                                 const nlohmann::json& params) {
    return makeTuner(name, TunerContext{space, std::nullopt, seed, params});
}

}  // namespace graphopt::tuning
