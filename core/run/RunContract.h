// The one contract every kind of run implements: placement (PlacementRun), kernel tuning
// (tuning::TuningRun) and policy training (regal::TrainingRun).
//
//   a spec in        the constructor takes a RunSpec (and what it runs on: a graph, a task, ...)
//                    and refuses a bad one with std::invalid_argument before anything starts;
//   run(...)         on the caller's thread (a worker thread in the GUI), reporting through a
//                    RunReporter as it goes and checking the CancellationToken at every step;
//   a typed result   PlacementResult, TuningResult, TrainingResult: each a RunOutcome that knows
//                    its status and how it becomes a stored run (toRunResult()).
//
// RecordedRun (store/RecordedRun.h) attaches the run store to any Run; the CLI commands and the GUI's
// BackgroundJob are thin adapters over these two.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "run/Run.h"
#include "run/RunRecords.h"

namespace graphopt {

class Graph;
class RunOutcome;

// Where a run reports while it runs. Every member may be empty; all are called on the run's thread.
struct RunReporter {
    ProgressCallback progress;                                     // after every step / batch / epoch
    std::function<void(const TuningMeasurement&)> measurement;     // every measurement, as it completes
    // After a group of measurements (a batch), before the run moves on: a recorder makes them
    // durable here, so a killed run keeps every measurement completed before the kill.
    std::function<void()> checkpoint;
    // Step mode (teaching): runs that can pause between steps (placement by BRKGA or REGAL: after
    // every generation) call it with the best result so far, right after that step's progress
    // event. It may block: the GUI's step mode waits in it (run/StepGate.h) for the next click.
    // Runs that cannot pause never call it. When set, such runs also add teaching detail to their
    // progress events (BRKGA: where each individual of the population came from).
    std::function<void(const RunOutcome& bestSoFar)> step;

    void report(const ProgressEvent& e) const {
        if (progress) progress(e);
    }
    void measured(const TuningMeasurement& m) const {
        if (measurement) measurement(m);
    }
    void commit() const {
        if (checkpoint) checkpoint();
    }
    void stepped(const RunOutcome& bestSoFar) const {
        if (step) step(bestSoFar);
    }
};

// A finished (or cancelled, or failed) run's result.
class RunOutcome {
public:
    virtual ~RunOutcome() = default;
    virtual RunStatus status() const = 0;  // Finished, Cancelled or Failed
    virtual std::string error() const { return {}; }  // why it failed (status Failed)
    // What the store keeps of it (cost lower is better; figures by name).
    virtual RunResult toRunResult() const = 0;
    // A copy, for handing a snapshot to another thread (step mode).
    virtual std::unique_ptr<RunOutcome> clone() const = 0;
};

// What a run is about, for the store: the graph it ran on (none for training) and a note.
struct RunSubject {
    const Graph* graph = nullptr;
    std::string modelPath;
    std::string note;
};

class Run {
public:
    virtual ~Run() = default;
    virtual const RunSpec& spec() const = 0;
    virtual RunSubject subject() const = 0;
    // Runs to the end, to cancellation or to failure. A run that cannot go on returns an outcome
    // with status Failed when it has something to keep (e.g. measurements so far), and throws
    // otherwise.
    virtual std::unique_ptr<RunOutcome> execute(const RunReporter& reporter, const CancellationToken* cancel) = 0;
};

}  // namespace graphopt
