#include "placement/PlacementEngines.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>

#include "placement/partitioners/Partitioners.h"
#include "placement/search/SeedSolutions.h"
#include "placement/search/WorkerPool.h"

namespace graphopt {

namespace {

struct Entry {
    EngineDescription description;
    PlacementEngine engine;
};

struct Registry {
    std::mutex mutex;
    std::map<std::string, Entry> engines;
};

// The engines every build has; REGAL registers itself from graphopt_nn (registerRegalEngine).
std::vector<Entry> builtinEngines() {
    const auto evals = ParamSpec::number("max_evaluations", 2e6, 1, 1e12,
                                         "refuse graphs whose placements and orders outnumber this");
    std::vector<Entry> engines = {
        {{"brkga", "Biased random-key genetic algorithm over the schedule simulator (REGAL's search, uniform keys)",
          brkgaParams(), /*steps=*/true},
         [](const SearchContext& c) { return brkgaEngine(c); }},
        {{"random", "Random keys, as many as the budget allows; the best one is kept", {}}, randomSearchEngine},
        {{"local", "Hill climbing on the keys from a random start, one key changed at a time", {}}, localSearchEngine},
        {{"list", "XLA-style list scheduler on one device: the op that frees the most bytes first", {}}, xlaListEngine},
        {{"dfs", "XLA-style depth-first post-order on one device", {}}, xlaDfsEngine},
        {{"postorder", "Plain post-order on one device", {}}, xlaPostOrderEngine},
        {{"xla-best", "Best of the three XLA-style memory schedulers on each device", {}}, xlaBestEngine},
        {{"heft", "HEFT: earliest-finish-time list scheduling over all devices (running time)",
          {ParamSpec::boolean("memory_aware", false,
                              "place an op only on a device with room for it (weights once per device, resident "
                              "bytes and outputs held to the end; m-etf also counts received copies)")}},
         heftEngine},
        {{"single", "Everything on one device, in topological order; the best device is kept", {}}, singleDeviceEngine},
        {{"exhaustive", "Every placement and order: the true optimum, for tiny graphs only", {evals}}, exhaustiveEngine},
    };
    const std::map<std::string, PlacementEngine> partitioners = {
        {"dp-contiguous", dpContiguousEngine}, {"pipedream", pipeDreamEngine}, {"m-topo", mTopoEngine},
        {"m-etf", mEtfEngine},                 {"greedy-latency", greedyLatencyEngine},
    };
    for (auto& d : partitionerDescriptions()) {
        PlacementEngine e = partitioners.at(d.name);
        engines.push_back({std::move(d), std::move(e)});
    }
    // The heuristics and the partitioners read neither the seed, nor the budget, nor the thread
    // count; the searches do.
    const std::set<std::string> searches = {"brkga", "random", "local", "exhaustive"};
    for (auto& e : engines) e.description.deterministic = !searches.count(e.description.name);
    return engines;
}

Registry& registry() {
    static Registry r;
    static std::once_flag builtins;
    std::call_once(builtins, [] {
        for (auto& e : builtinEngines()) r.engines[e.description.name] = std::move(e);
    });
    return r;
}

const Entry& findEntry(Registry& r, const std::string& name) {
    auto it = r.engines.find(name);
    if (it != r.engines.end()) return it->second;
    std::string list;
    for (const auto& [n, e] : r.engines) list += (list.empty() ? "" : "|") + n;
    throw std::invalid_argument("unknown placement engine '" + name + "' (" + list + ")");
}

}  // namespace

const std::vector<ParamSpec>& placementRunParams() {
    static const std::vector<ParamSpec> p = {
        ParamSpec::boolean("count_weights", true, "count weights in device memory (peak memory and capacity)"),
        ParamSpec::integer("micro_batches", 1, 1, 1024,
                           "micro-batches that flow through the placement as a pipeline (GPipe's forward pass): "
                           "each node runs once per micro-batch on its device, weights count once"),
        ParamSpec::object("measured_costs_s",
                          "{node name: seconds}: measured costs that replace the device model's estimate "
                          "(`graphopt profile`'s cost file, kernel tuning)"),
        ParamSpec::string("measured_costs_kind", "",
                          "the device kind measured_costs_s was measured on (\"cpu\"): only devices of that kind "
                          "take them; empty = every device"),
    };
    return p;
}

const std::vector<ParamSpec>& brkgaParams() {
    static const std::vector<ParamSpec> p = {
        ParamSpec::integer("population", BrkgaParams{}.population, 2, 1'000'000, "chromosomes per generation"),
        ParamSpec::number("elite_fraction", BrkgaParams{}.eliteFraction, 0, 1, "share of the population kept as elite"),
        ParamSpec::number("mutant_fraction", BrkgaParams{}.mutantFraction, 0, 1,
                          "share replaced by new random (REGAL: policy-drawn) chromosomes each generation"),
        ParamSpec::number("rho_e", BrkgaParams{}.rhoE, 0, 1,
                          "probability a child takes an elite parent's key (REGAL: per node from the policy)"),
        ParamSpec::boolean("seed_heuristics", false,
                           "start the population with the solutions of heft, xla-best and single (their "
                           "evaluations count in the budget): the result is never worse than theirs"),
        ParamSpec::list("seed_engines",
                        "engines whose solutions start the population too, e.g. [\"dp-contiguous\", \"m-etf\"] "
                        "(after seed_heuristics' three; their evaluations count in the budget)"),
    };
    return p;
}

void registerPlacementEngine(EngineDescription description, PlacementEngine engine) {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    const std::string name = description.name;
    r.engines[name] = {std::move(description), std::move(engine)};
}

PlacementEngine findPlacementEngine(const std::string& name) {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    return findEntry(r, name).engine;
}

EngineDescription describePlacementEngine(const std::string& name) {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    return findEntry(r, name).description;
}

std::vector<std::string> placementEngineNames() {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    std::vector<std::string> names;
    for (const auto& [n, e] : r.engines) names.push_back(n);
    return names;
}

std::vector<EngineDescription> placementEngineDescriptions() {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    std::vector<EngineDescription> out;
    for (const auto& [n, e] : r.engines) out.push_back(e.description);
    return out;
}

const std::vector<std::string>& seedHeuristicEngines() {
    static const std::vector<std::string> names = {"heft", "xla-best", "single"};
    return names;
}

void checkSeedEngine(const std::string& name) {
    if (name == "brkga" || name == "regal")
        throw std::invalid_argument("seed_engines: '" + name + "' searches itself; give heuristics and partitioners");
    findPlacementEngine(name);  // refuses an unknown name, listing the known ones
}

std::vector<std::string> seedEngineNames(const nlohmann::json& params) {
    std::vector<std::string> names;
    if (params.value("seed_heuristics", false)) names = seedHeuristicEngines();
    if (auto it = params.find("seed_engines"); it != params.end() && it->is_array())
        for (const auto& name : *it) {
            const std::string s = name.get<std::string>();
            checkSeedEngine(s);
            if (std::find(names.begin(), names.end(), s) == names.end()) names.push_back(s);
        }
    return names;
}

SearchOutcome brkgaEngine(const SearchContext& ctx, const KeyBias& bias) {
    BrkgaParams bp;
    bp.population = ctx.params.value("population", bp.population);
    bp.eliteFraction = ctx.params.value("elite_fraction", bp.eliteFraction);
    bp.mutantFraction = ctx.params.value("mutant_fraction", bp.mutantFraction);
    bp.rhoE = ctx.params.value("rho_e", bp.rhoE);
    bp.uniformMutantShare = ctx.params.value("uniform_mutant_share", bp.uniformMutantShare);  // regal's parameter
    BrkgaSearch search(ctx.keyCount(), bp, bias);
    int64_t heuristicEvaluations = 0;
    nlohmann::json seeded = nlohmann::json::array();
    const std::vector<std::string> seedNames = seedEngineNames(ctx.params);
    if (!seedNames.empty()) {
        // The seeds' engines run quietly (no progress, no steps) on the same problem, with their
        // default parameters; or their kept solutions stand in (ctx.seedSolutions), charged the
        // same evaluations.
        SearchContext quiet = ctx;
        quiet.progress = {};
        quiet.step = {};
        quiet.params = nlohmann::json::object();
        std::vector<std::vector<double>> seeds;
        for (const std::string& name : seedNames) {
            if (heuristicEvaluations >= ctx.budget || ctx.cancelled()) break;
            const auto runSeed = [&] { return findPlacementEngine(name)(quiet); };
            SearchOutcome h = ctx.seedSolutions ? ctx.seedSolutions->get(name, describePlacementEngine(name).deterministic,
                                                                        quiet, runSeed)
                                                : runSeed();
            heuristicEvaluations += h.evaluations;
            seeds.push_back(std::move(h.keys));
            seeded.push_back(name);
        }
        search.setInitialChromosomes(std::move(seeds));
    }

    WorkerPool pool(ctx.threads);
    std::vector<std::unique_ptr<ScheduleSimulator>> sims;
    std::vector<KeyDecoder> decoders;
    for (int w = 0; w < pool.size(); ++w) {
        sims.push_back(ctx.makeSimulator());
        ScheduleSimulator* s = sims.back().get();
        decoders.push_back([s](std::span<const double> keys) { return s->evaluate(keys).cost; });
    }
    const int64_t budget = std::max<int64_t>(0, ctx.budget - heuristicEvaluations);
    BrkgaOutcome r = search.run(decoders, pool, budget, ctx.seed, [&](const BrkgaGeneration& gen) {
        const int64_t evaluations = gen.evaluations + heuristicEvaluations;
        nlohmann::json costs = nlohmann::json::array();
        std::string origins;  // step mode: one letter per individual, aligned with the costs
        for (size_t i = 0; i < gen.populationCosts.size(); ++i) {
            if (!std::isfinite(gen.populationCosts[i])) continue;  // not evaluated: the budget ran out
            costs.push_back(gen.populationCosts[i]);
            origins += brkgaOriginLetter(gen.populationOrigins[i]);
        }
        nlohmann::json values = {{"population_costs", std::move(costs)}};
        if (ctx.stepping()) values["population_origins"] = std::move(origins);
        ctx.report(gen.generation, evaluations, gen.bestCost, std::move(values));
        if (ctx.stepping()) ctx.step(gen.generation, evaluations, gen.bestKeys);
        return !ctx.cancelled();
    });
    SearchOutcome out;
    out.keys = std::move(r.bestKeys);
    out.evaluations = r.evaluations + heuristicEvaluations;
    out.cancelled = r.stopped;
    out.info = {{"generations", r.generations},
                {"seeded_with", seeded},
                {"population", bp.population},
                {"elite_fraction", bp.eliteFraction},
                {"mutant_fraction", bp.mutantFraction},
                {"rho_e", bp.rhoE},
                {"biased", !bias.betaAlpha.empty() || !bias.inheritProb.empty()}};
    return out;
}

}  // namespace graphopt
