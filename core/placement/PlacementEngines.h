// The placement engines and their registry. Every engine maps a SearchContext to the best
// chromosome it found, and describes itself (name, summary, parameters with type, default, range
// and help: run/ParamSpec.h). The run looks engines up by name, so a new engine (REGAL: BRKGA plus
// a learned KeyBias) plugs in with registerPlacementEngine() and no change to PlacementRun; the
// CLI's help, the GUI's run panel and the README's engine list come from the descriptions.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "placement/search/BrkgaSearch.h"
#include "placement/search/SearchContext.h"
#include "placement/search/SearchEngines.h"
#include "run/ParamSpec.h"

namespace graphopt {

using PlacementEngine = std::function<SearchOutcome(const SearchContext&)>;

// Replaces an engine of the same name. Thread-safe.
void registerPlacementEngine(EngineDescription description, PlacementEngine engine);
// Throws std::invalid_argument listing the known engines.
PlacementEngine findPlacementEngine(const std::string& name);
EngineDescription describePlacementEngine(const std::string& name);
std::vector<std::string> placementEngineNames();
std::vector<EngineDescription> placementEngineDescriptions();  // by name

// Parameters every placement run reads, whatever the engine (PlacementRun): count_weights and
// measured_costs_s.
const std::vector<ParamSpec>& placementRunParams();
// BRKGA's parameters (population, elite_fraction, mutant_fraction, rho_e), shared by every engine
// built on BRKGA (brkga, regal).
const std::vector<ParamSpec>& brkgaParams();

// BRKGA on the simulator; params: population, elite_fraction, mutant_fraction, rho_e.
// `bias` carries REGAL's per-key Beta mutants and per-key crossover probabilities.
SearchOutcome brkgaEngine(const SearchContext& ctx, const KeyBias& bias = {});
// The engines whose solutions BRKGA's parameter seed_heuristics starts the population from:
// heft, xla-best and single.
const std::vector<std::string>& seedHeuristicEngines();
// Throws std::invalid_argument unless `name` can seed BRKGA's population (BRKGA's parameter
// seed_engines): a known engine that does not search by BRKGA itself.
void checkSeedEngine(const std::string& name);
// The engines BRKGA with these parameters starts from, in order: seed_heuristics' (when true),
// then seed_engines' not already named. Each is checked (checkSeedEngine).
std::vector<std::string> seedEngineNames(const nlohmann::json& params);

// Baselines (each file says what it does and what it leaves out).
SearchOutcome singleDeviceEngine(const SearchContext& ctx);   // SingleDeviceBaseline.cpp
SearchOutcome xlaListEngine(const SearchContext& ctx);        // MemorySchedulers.cpp
SearchOutcome xlaDfsEngine(const SearchContext& ctx);
SearchOutcome xlaPostOrderEngine(const SearchContext& ctx);
SearchOutcome xlaBestEngine(const SearchContext& ctx);
SearchOutcome heftEngine(const SearchContext& ctx);           // HeftScheduler.cpp

// Runs `order` on each device in turn (all nodes on one device) and keeps the best: one
// evaluation per device. Shared by the single-device baselines.
SearchOutcome bestSingleDevice(const SearchContext& ctx, const std::vector<int>& order);

// Orders used by the memory schedulers, exposed for tests: permutations of the node ids that
// respect every dependency.
std::vector<int> xlaListOrder(const ScheduleProblem& p);
std::vector<int> xlaDfsOrder(const ScheduleProblem& p, const Graph& g);
std::vector<int> postOrder(const Graph& g);

}  // namespace graphopt
