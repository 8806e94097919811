// What the tuner suites share: one tuning run on the simulated CPU (fast, deterministic), and the
// set of configurations a run measured.
#pragma once

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuning/SimulatedMeasurer.h"
#include "tuning/Tuner.h"
#include "tuning/TuningRun.h"

namespace graphopt::tuning::test {

// `name` through the registry (tuners from graphopt_nn must be registered first), measured by the
// simulated CPU seeded with `seed`; `events`, when given, receives every progress event.
inline TuningResult runTuner(const std::string& name, const TuningTask& task, int64_t budget, uint64_t seed,
                             int batch = 8, const nlohmann::json& params = nlohmann::json::object(),
                             std::vector<ProgressEvent>* events = nullptr) {
    SimulatedMeasurer m(seed);
    TuningRunOptions o;
    o.budget = budget;
    o.batchSize = batch;
    o.seed = seed;
    TuningRun run(task, m, makeTuner(name, task, seed, params), o);
    return run.run([&](const ProgressEvent& e) {
        if (events) events->push_back(e);
    });
}

inline std::set<ConfigIndex> configsOf(const TuningResult& r) {
    std::set<ConfigIndex> s;
    for (const auto& m : r.measurements) s.insert(m.result.config);
    return s;
}

}  // namespace graphopt::tuning::test
