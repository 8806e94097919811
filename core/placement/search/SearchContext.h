// What a placement engine gets from the run: the compiled problem, budget, seed, threads,
// engine parameters, progress reporting and cancellation. Engines return keys (the chromosome of
// papers/REGAL.md); the run decodes them once more for the full schedule.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include <nlohmann/json.hpp>

#include "graph/Graph.h"
#include "placement/model/DeviceModel.h"
#include "placement/model/ScheduleProblem.h"
#include "placement/model/ScheduleSimulator.h"
#include "run/Run.h"

namespace graphopt {

class SeedSolutions;

struct SearchContext {
    const Graph& graph;
    const DeviceModel& devices;
    std::shared_ptr<const ScheduleProblem> problem;
    int64_t budget = 0;
    uint64_t seed = 1;
    int threads = 1;                  // resolved: >= 1
    nlohmann::json params;            // RunSpec::params
    ProgressCallback progress;        // may be empty
    const CancellationToken* cancel = nullptr;
    std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
    // Step mode (RunReporter::step): engines that can pause call it after each step's report
    // (BRKGA: each generation) with the step, the evaluations so far and the best keys; it may
    // block. Empty when nobody steps.
    std::function<void(int64_t step, int64_t evaluations, std::span<const double> bestKeys)> step;
    // The seed engines' solutions kept for this problem (BRKGA's seed_heuristics, seed_engines);
    // empty: every BRKGA run runs its seed engines itself.
    std::shared_ptr<SeedSolutions> seedSolutions;

    bool cancelled() const { return cancel && cancel->isCancelled(); }
    bool stepping() const { return static_cast<bool>(step); }
    double elapsedS() const;
    void report(int64_t step, int64_t evaluations, double bestCost,
                nlohmann::json values = nlohmann::json::object()) const;
    std::unique_ptr<ScheduleSimulator> makeSimulator() const { return std::make_unique<ScheduleSimulator>(problem); }
    int nodes() const { return problem->n; }
    int deviceCount() const { return problem->d; }
    size_t keyCount() const { return size_t(problem->n) * (problem->d + 1); }
};

struct SearchOutcome {
    std::vector<double> keys;  // best chromosome found
    int64_t evaluations = 0;   // decoder evaluations used
    bool cancelled = false;
    nlohmann::json info = nlohmann::json::object();  // engine-specific notes (e.g. chosen variant)
};

// Chromosome for an explicit placement and order (earlier in `order` = higher priority).
std::vector<double> keysFromPlacementOrder(int devices, const std::vector<int>& placement,
                                           const std::vector<int>& order);

}  // namespace graphopt
