#include "tuning/Tuner.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <stdexcept>

#include "tuning/ModelBasedTuner.h"
#include "tuning/TemplateSpace.h"

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

GaParams GaParams::fromJson(const nlohmann::json& j) {
    GaParams p;
    p.populationSize = j.value("population", p.populationSize);
    p.eliteCount = j.value("elites", p.eliteCount);
    p.mutationProb = j.value("mutation", p.mutationProb);
    if (p.populationSize < 2 || p.eliteCount < 0 || p.eliteCount >= p.populationSize || p.mutationProb < 0 ||
        p.mutationProb > 1)
        throw std::invalid_argument("ga: need population >= 2, 0 <= elites < population, 0 <= mutation <= 1");
    return p;
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

std::map<std::string, TunerFactory>& registry() {
    static std::map<std::string, TunerFactory> r = {
        {"random", [](const TunerContext& c) -> std::unique_ptr<Tuner> {
             return std::make_unique<RandomTuner>(c.space, c.seed);
         }},
        {"grid", [](const TunerContext& c) -> std::unique_ptr<Tuner> {
             return std::make_unique<GridTuner>(c.space, c.seed);
         }},
        {"ga", [](const TunerContext& c) -> std::unique_ptr<Tuner> {
             return std::make_unique<GaTuner>(c.space, c.seed, GaParams::fromJson(c.params));
         }},
        {"autotvm", [](const TunerContext& c) { return makeAutoTvmTuner(c, false); }},
        {"autotvm-as", [](const TunerContext& c) { return makeAutoTvmTuner(c, true); }},
    };
    return r;
}

}  // namespace

void registerTuner(const std::string& name, TunerFactory factory) {
    std::lock_guard lock(registryMutex());
    registry()[name] = std::move(factory);
}

std::vector<std::string> tunerNames() {
    std::lock_guard lock(registryMutex());
    std::vector<std::string> names;
    for (const auto& [name, f] : registry()) names.push_back(name);
    return names;
}

std::unique_ptr<Tuner> makeTuner(const std::string& name, const TunerContext& context) {
    TunerFactory f;
    {
        std::lock_guard lock(registryMutex());
        auto it = registry().find(name);
        if (it != registry().end()) f = it->second;
    }
    if (!f) {
        std::string known;
        for (const auto& n : tunerNames()) known += (known.empty() ? "" : ", ") + n;
        throw std::invalid_argument("unknown tuner '" + name + "' (known: " + known + ")");
    }
    if (!context.params.is_object()) throw std::invalid_argument("tuner parameters must be a JSON object");
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
