// One tuning run, the tuning kind of the run contract (run/RunContract.h): a task, a measurer, a
// tuner, a budget of measurements and a seed. Runs on the caller's thread (the GUI puts it on a
// worker thread), reports every measurement as it completes, a ProgressEvent after every batch,
// and checks the CancellationToken before every batch.
//
// Made from a RunSpec like a placement run (kind "tuning", engine = tuner, objective "latency",
// budget = measurements, seed, params: tuningRunDescription()) on a graph, or for tests and
// benchmarks directly from a task, a measurer and a tuner.
//
// Progress events: step = batch number (1-based), evaluations = measurements so far, bestCost =
// best latency in seconds so far (0 while nothing succeeded), values = {"best_gflops",
// "batch_configs", "batch_gflops", "batch_ok"}, plus "tuner": the tuner's lastBatchInfo() when it
// has one (model-based tuners: the explorer's candidates, clusters and representatives), and
// "batch_clusters" (cluster per measurement, null where none) when any measurement has a cluster.
// The batch's measurements are reported (RunReporter::measured) and committed
// (RunReporter::commit) before its progress event.
//
// A measurer that cannot work at all (it throws) ends the run with status Failed and the
// message in `error`; measurements made until then are kept.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run/ParamSpec.h"
#include "run/RunContract.h"
#include "tuning/Measurer.h"
#include "tuning/Task.h"
#include "tuning/Tuner.h"

namespace graphopt::tuning {

// The parameters a tuning RunSpec carries: task_index, measurer, batch_size, tuner_params,
// min_time, timeout, worker.
const EngineDescription& tuningRunDescription();

// The measurer a tuning spec names (params.measurer: "halide" with min_time, timeout and worker,
// or "sim" seeded with the run's seed).
std::unique_ptr<Measurer> makeMeasurer(const RunSpec& spec);

struct TuningRunOptions {
    int64_t budget = 64;  // measurements
    int batchSize = 8;
    uint64_t seed = 1;    // recorded; the tuner was seeded with it by the caller
};

struct TuningResult : RunOutcome {
    TuningTask task;
    std::string tuner, measurer;
    TuningRunOptions options;
    RunStatus runStatus = RunStatus::Running;
    std::string failure;  // why the run failed (status Failed), e.g. the measure worker cannot start
    double elapsedS = 0;
    std::vector<TuningMeasurement> measurements;
    int best = -1;  // index into measurements of the fastest successful one, -1 if none

    bool hasBest() const { return best >= 0; }
    double bestGflops() const { return hasBest() ? measurements[best].gflops : 0; }
    double bestLatencyS() const { return hasBest() ? measurements[best].latencyS : 0; }
    int failures() const;
    RunSpec spec() const;  // engine = tuner, kind = "tuning", objective = "latency"
    // Keys: task, tuner, measurer, seed, budget, batch_size, status, elapsed_s, best_gflops,
    // best_latency_s, best_config (knob values, null if none), best_config_index, failures,
    // measurements (every one: config, knobs, ok, latency_s, gflops, compile_s, repeats, error,
    // batch, elapsed_s, cluster when it has one).
    nlohmann::json toJson() const;

    RunStatus status() const override { return runStatus; }
    std::string error() const override { return failure; }
    // cost: the best latency (none when nothing succeeded); costs: toJson() without the
    // measurements (the store keeps those one by one, as they came).
    RunResult toRunResult() const override;
    std::unique_ptr<RunOutcome> clone() const override { return std::make_unique<TuningResult>(*this); }
};

class TuningRun : public Run {
public:
    // From a spec, on `graph` (which must outlive the run): the task is extractTasks(graph)[
    // params.task_index]. Throws std::invalid_argument for a bad spec (unknown tuner or measurer, a
    // task index out of range, parameters the run or the tuner does not know). `measurer`, when
    // given, is used instead of making the one params.measurer names (e.g. one worker process
    // shared by every task of `graphopt tune --all`); it must outlive the run.
    TuningRun(const Graph& graph, RunSpec spec, std::string modelPath = "", Measurer* measurer = nullptr);
    // For tests and benchmarks: a task, a measurer (outliving the run) and a tuner.
    TuningRun(TuningTask task, Measurer& measurer, std::unique_ptr<Tuner> tuner, TuningRunOptions options);

    const RunSpec& spec() const override { return spec_; }
    RunSubject subject() const override { return {graph_, modelPath_, ""}; }
    const TuningTask& task() const { return task_; }
    TuningResult run(const RunReporter& reporter = {}, const CancellationToken* cancel = nullptr);
    TuningResult run(const ProgressCallback& progress, const CancellationToken* cancel = nullptr) {
        return run(RunReporter{progress, {}, {}, {}}, cancel);
    }
    std::unique_ptr<RunOutcome> execute(const RunReporter& reporter, const CancellationToken* cancel) override;
    Tuner& tuner() { return *tuner_; }

private:
    RunSpec spec_;
    const Graph* graph_ = nullptr;
    std::string modelPath_;
    TuningTask task_;
    std::unique_ptr<Measurer> ownMeasurer_;
    Measurer* measurer_ = nullptr;
    std::unique_ptr<Tuner> tuner_;
    TuningRunOptions options_;
};

}  // namespace graphopt::tuning
