// One tuning run: a task, a measurer, a tuner, a budget of measurements and a seed. Runs on the
// caller's thread (the GUI puts it on a worker thread), reports a ProgressEvent after every batch
// and checks the CancellationToken before every batch.
//
// Progress events: step = batch number (1-based), evaluations = measurements so far, bestCost =
// best latency in seconds so far (0 while nothing succeeded), values = {"best_gflops",
// "batch_configs", "batch_gflops", "batch_ok"}, plus "tuner": the tuner's lastBatchInfo() when it
// has one (model-based tuners: the explorer's candidates, clusters and representatives), and
// "batch_clusters" (cluster per measurement, null where none) when any measurement has a cluster.
//
// A measurer that cannot work at all (it throws) ends the run with status Failed and the
// message in `error`; measurements made until then are kept.
//
// The result keeps every measurement (configuration, knob values, latency, GFLOP/s, error, the
// batch and the run's elapsed time when it finished) so the run store can persist all of them.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run/Run.h"
#include "tuning/Measurer.h"
#include "tuning/Task.h"
#include "tuning/Tuner.h"

namespace graphopt::tuning {

struct TuningRunOptions {
    int64_t budget = 64;  // measurements
    int batchSize = 8;
    uint64_t seed = 1;    // recorded; the tuner was seeded with it by the caller
};

struct TuningMeasurement {
    MeasureResult result;
    int batch = 0;
    double elapsedS = 0;  // since the run started, when this measurement was recorded
    std::optional<int64_t> cluster;  // the adaptive-sampling cluster it represents (Tuner::clusterOf)
};

struct TuningResult {
    TuningTask task;
    std::string tuner, measurer;
    TuningRunOptions options;
    RunStatus status = RunStatus::Running;
    std::string error;  // why the run failed (status Failed), e.g. the measure worker cannot start
    double elapsedS = 0;
    std::vector<TuningMeasurement> measurements;
    int best = -1;  // index into measurements of the fastest successful one, -1 if none

    bool hasBest() const { return best >= 0; }
    double bestGflops() const { return hasBest() ? measurements[best].result.gflops : 0; }
    double bestLatencyS() const { return hasBest() ? measurements[best].result.latencyS : 0; }
    int failures() const;
    RunSpec spec() const;  // engine = tuner, kind = "tuning", objective = "latency"
    // Keys: task, tuner, measurer, seed, budget, batch_size, status, elapsed_s, best_gflops,
    // best_latency_s, best_config (knob values, null if none), best_config_index, failures,
    // measurements (every one: config, knobs, ok, latency_s, gflops, compile_s, repeats, error,
    // batch, elapsed_s, cluster when it has one).
    nlohmann::json toJson() const;
};

class TuningRun {
public:
    TuningRun(TuningTask task, Measurer& measurer, std::unique_ptr<Tuner> tuner, TuningRunOptions options);
    TuningResult run(const ProgressCallback& progress = {}, const CancellationToken* cancel = nullptr);
    Tuner& tuner() { return *tuner_; }

private:
    TuningTask task_;
    Measurer& measurer_;
    std::unique_ptr<Tuner> tuner_;
    TuningRunOptions options_;
};

}  // namespace graphopt::tuning
