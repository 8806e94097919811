// What the tuner suites share: one tuning run on the simulated CPU (fast, deterministic), and the
// set of configurations a run measured.
#pragma once

#include <iostream>
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
    for (const auto& m : r.measurements) s.insert(m.config);
    return s;
}

// `name` against random search at equal measurements (128, batches of 16) on two convs and a
// dense layer, seeds 1 and 2: the best GFLOP/s of each, compared case by case (printed).
struct AgainstRandom {
    double meanRatio = 0;  // mean of tuned / random best GFLOP/s
    int cases = 0;
    int wins = 0;          // tuned strictly faster
    int ties = 0;          // equal (random's first measurements, shared, held the best)
};

inline AgainstRandom againstRandom(const std::string& name, const nlohmann::json& params = nlohmann::json::object()) {
    const std::vector<TuningTask> tasks = {makeConv2d(1, 64, 56, 56, 64, 3, 1, 1),
                                           makeConv2d(1, 128, 28, 28, 128, 3, 1, 1), makeDense(64, 512, 256)};
    AgainstRandom r;
    double ratioSum = 0;
    for (const auto& t : tasks)
        for (uint64_t seed : {1, 2}) {
            const double tuned = runTuner(name, t, 128, seed, 16, params).bestGflops();
            const double random = runTuner("random", t, 128, seed, 16).bestGflops();
            ratioSum += tuned / random;
            r.wins += tuned > random;
            r.ties += tuned == random;
            ++r.cases;
            std::cout << "  " << t.describe() << " seed " << seed << ": " << tuned << " vs random " << random << "\n";
        }
    r.meanRatio = ratioSum / r.cases;
    std::cout << name << ": mean best-GFLOP/s ratio to random " << r.meanRatio << ", " << r.wins << " wins and "
              << r.ties << " ties of " << r.cases << "\n";
    return r;
}

}  // namespace graphopt::tuning::test
