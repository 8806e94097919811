// The Tuner interface every search strategy implements (random, grid and genetic here; AutoTVM's
// annealing and the ReLeASE agent plug in the same way), after AutoTVM's tuner: the run asks for a
// batch of configurations, measures them, and hands the results back.
//
// Contract: proposeBatch never returns a configuration it returned before (no repeated
// measurements), returns fewer than asked, possibly none, only when the tuner has nothing left to
// propose; observe receives the results of proposed configurations (in any order, each once).
// All randomness comes from the tuner's own seeded Rng.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuning/KnobSpace.h"
#include "tuning/Measurer.h"
#include "run/Rng.h"
#include "tuning/Task.h"
#include "run/ParamSpec.h"

namespace graphopt::tuning {

class Tuner {
public:
    Tuner(KnobSpace space, uint64_t seed) : space_(std::move(space)), rng_(seed) {}
    virtual ~Tuner() = default;
    virtual std::string name() const = 0;

    virtual std::vector<ConfigIndex> proposeBatch(int n) = 0;
    virtual void observe(const std::vector<MeasureResult>& results);
    // What the last proposeBatch did, for progress events and plots (model-based tuners: the
    // explorer's candidates, clusters, representatives); null when a tuner has nothing to say.
    virtual nlohmann::json lastBatchInfo() const { return nullptr; }
    // The cluster a proposed configuration stands for (adaptive sampling), unique within the run.
    virtual std::optional<int64_t> clusterOf(ConfigIndex) const { return std::nullopt; }

    const KnobSpace& space() const { return space_; }
    bool proposed(ConfigIndex c) const { return proposed_.count(c) != 0; }
    size_t proposedCount() const { return proposed_.size(); }
    bool exhausted() const { return proposed_.size() >= space_.size(); }
    // Everything observed so far, in observation order.
    const std::vector<MeasureResult>& history() const { return history_; }

protected:
    // Records c as proposed; false if it already was.
    bool markProposed(ConfigIndex c) { return proposed_.insert(c).second; }
    // A uniformly random configuration never proposed (not marked); nullopt when none is left.
    // Rejection sampling while most of the space is free, then a shuffled list of what is left.
    std::optional<ConfigIndex> randomUnproposed();

    KnobSpace space_;
    Rng rng_;
    std::unordered_set<ConfigIndex> proposed_;
    std::vector<MeasureResult> history_;

private:
    std::vector<ConfigIndex> remaining_;  // filled once half the space is proposed
    bool remainingBuilt_ = false;
};

// Random search without repeats.
class RandomTuner : public Tuner {
public:
    using Tuner::Tuner;
    std::string name() const override { return "random"; }
    std::vector<ConfigIndex> proposeBatch(int n) override;
};

// Every configuration in index order (knob 0 varies fastest).
class GridTuner : public Tuner {
public:
    using Tuner::Tuner;
    std::string name() const override { return "grid"; }
    std::vector<ConfigIndex> proposeBatch(int n) override;

private:
    ConfigIndex next_ = 0;
};

// AutoTVM's genetic tuner: a population of knob vectors; the next generation keeps the elites and
// breeds children from parents drawn with probability proportional to their GFLOP/s (single-point
// crossover over the knob list, then each knob replaced by a random value with the mutation
// probability). Children already measured are bred again; when breeding keeps failing, random
// unmeasured configurations fill the generation.
struct GaParams {
    int populationSize = 100;
    int eliteCount = 3;
    double mutationProb = 0.1;
    static GaParams fromJson(const nlohmann::json& j);
    static std::vector<ParamSpec> describe();
};

class GaTuner : public Tuner {
public:
    GaTuner(KnobSpace space, uint64_t seed, GaParams params = {});
    std::string name() const override { return "ga"; }
    std::vector<ConfigIndex> proposeBatch(int n) override;
    void observe(const std::vector<MeasureResult>& results) override;
    int generation() const { return generation_; }

private:
    void breed();
    GaParams params_;
    std::vector<ConfigIndex> pending_;     // this generation's configurations not yet proposed
    std::vector<ConfigIndex> generationMembers_;  // this generation (elites included)
    std::vector<ConfigIndex> elites_;
    std::unordered_map<ConfigIndex, double> scores_;  // GFLOP/s, 0 for failures
    int generation_ = 0;
};

// What a tuner is built from. `task` is absent when a tuner searches a bare KnobSpace (tests);
// tuners that need it (cost-model features, see scheduleFeatures()) throw std::invalid_argument
// then.
struct TunerContext {
    KnobSpace space;
    std::optional<TuningTask> task;
    uint64_t seed = 1;
    nlohmann::json params = nlohmann::json::object();  // tuner-specific (e.g. ga: population)
};

// Tuners by name, so that later tuners (autotvm, release) plug into `graphopt tune --tuner`
// without touching the CLI: registerTuner(description, factory) at start-up. The description
// (name, summary, parameters) feeds the CLI's help, the GUI and the README; makeTuner refuses
// parameters it does not describe.
using TunerFactory = std::function<std::unique_ptr<Tuner>(const TunerContext&)>;
void registerTuner(EngineDescription description, TunerFactory factory);
std::vector<std::string> tunerNames();
std::vector<EngineDescription> tunerDescriptions();  // by name
// Throws std::invalid_argument naming the known tuners when `name` is not one.
EngineDescription describeTuner(const std::string& name);
// Throws std::invalid_argument naming the known tuners when `name` is not one.
std::unique_ptr<Tuner> makeTuner(const std::string& name, const TunerContext& context);
// The task's template space (templateSpace(task)).
std::unique_ptr<Tuner> makeTuner(const std::string& name, const TuningTask& task, uint64_t seed,
                                 const nlohmann::json& params = nlohmann::json::object());
// A bare space (no task).
std::unique_ptr<Tuner> makeTuner(const std::string& name, const KnobSpace& space, uint64_t seed,
                                 const nlohmann::json& params = nlohmann::json::object());

}  // namespace graphopt::tuning
