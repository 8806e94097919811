#include "placement/PlacementEngines.h"

#include <cmath>
#include <map>
#include <mutex>
#include <stdexcept>

#include "placement/WorkerPool.h"

namespace graphopt {

namespace {
struct Registry {
    std::mutex mutex;
    std::map<std::string, PlacementEngine> engines;
};
Registry& registry() {
    static Registry r;
    static std::once_flag builtins;
    std::call_once(builtins, [] {
        r.engines["brkga"] = [](const SearchContext& c) { return brkgaEngine(c); };
        r.engines["random"] = randomSearchEngine;
        r.engines["local"] = localSearchEngine;
        r.engines["list"] = xlaListEngine;
        r.engines["dfs"] = xlaDfsEngine;
        r.engines["postorder"] = xlaPostOrderEngine;
        r.engines["xla-best"] = xlaBestEngine;
        r.engines["heft"] = heftEngine;
        r.engines["single"] = singleDeviceEngine;
        r.engines["exhaustive"] = exhaustiveEngine;
    });
    return r;
}
}  // namespace

void registerPlacementEngine(const std::string& name, PlacementEngine engine) {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    r.engines[name] = std::move(engine);
}

PlacementEngine findPlacementEngine(const std::string& name) {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    auto it = r.engines.find(name);
    if (it != r.engines.end()) return it->second;
    std::string list;
    for (const auto& [n, e] : r.engines) list += (list.empty() ? "" : "|") + n;
    throw std::invalid_argument("unknown placement engine '" + name + "' (" + list + ")");
}

std::vector<std::string> placementEngineNames() {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    std::vector<std::string> names;
    for (const auto& [n, e] : r.engines) names.push_back(n);
    return names;
}

SearchOutcome brkgaEngine(const SearchContext& ctx, const KeyBias& bias) {
    BrkgaParams bp;
    bp.population = ctx.params.value("population", bp.population);
    bp.eliteFraction = ctx.params.value("elite_fraction", bp.eliteFraction);
    bp.mutantFraction = ctx.params.value("mutant_fraction", bp.mutantFraction);
    bp.rhoE = ctx.params.value("rho_e", bp.rhoE);
    BrkgaSearch search(ctx.keyCount(), bp, bias);

    WorkerPool pool(ctx.threads);
    std::vector<std::unique_ptr<ScheduleSimulator>> sims;
    std::vector<KeyDecoder> decoders;
    for (int w = 0; w < pool.size(); ++w) {
        sims.push_back(ctx.makeSimulator());
        ScheduleSimulator* s = sims.back().get();
        decoders.push_back([s](std::span<const double> keys) { return s->evaluate(keys).cost; });
    }
    BrkgaOutcome r = search.run(decoders, pool, ctx.budget, ctx.seed, [&](const BrkgaGeneration& gen) {
        nlohmann::json costs = nlohmann::json::array();
        for (double c : gen.populationCosts)
            if (std::isfinite(c)) costs.push_back(c);
        ctx.report(gen.generation, gen.evaluations, gen.bestCost, {{"population_costs", std::move(costs)}});
        return !ctx.cancelled();
    });
    SearchOutcome out;
    out.keys = std::move(r.bestKeys);
    out.evaluations = r.evaluations;
    out.cancelled = r.stopped;
    out.info = {{"generations", r.generations},
                {"population", bp.population},
                {"elite_fraction", bp.eliteFraction},
                {"mutant_fraction", bp.mutantFraction},
                {"rho_e", bp.rhoE},
                {"biased", !bias.betaAlpha.empty() || !bias.inheritProb.empty()}};
    return out;
}

}  // namespace graphopt
