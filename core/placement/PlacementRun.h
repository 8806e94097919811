// A placement run (papers/REGAL.md): Graph + RunSpec in, PlacementResult out. A plain object that
// the CLI runs on its own thread and the GUI on a worker thread; it reports ProgressEvents through
// the callback (on the run's thread), checks the token every generation or batch, and returns the
// best found so far when cancelled.
//
// RunSpec fields used: engine (any registered: see PlacementEngines.h), objective (runtime|memory),
// devices (preset or JSON file; or pass a DeviceModel), budget (decoder evaluations), seed, threads
// (0 = all cores), params: population, elite_fraction, mutant_fraction, rho_e (BRKGA),
// count_weights (bool, default true), max_evaluations (exhaustive), measured_costs_s ({node name:
// seconds}, measured costs that replace the device model's estimate, e.g. from kernel tuning).
#pragma once

#include <optional>

#include "graph/Graph.h"
#include "placement/DeviceModel.h"
#include "placement/PlacementResult.h"
#include "run/Run.h"

namespace graphopt {

class PlacementRun {
public:
    // `graph` must outlive the run. Throws std::invalid_argument for a bad spec (unknown engine,
    // objective or devices) so callers can refuse before starting a thread.
    PlacementRun(const Graph& graph, RunSpec spec, ProgressCallback progress = {},
                 const CancellationToken* cancel = nullptr);
    PlacementRun(const Graph& graph, RunSpec spec, DeviceModel devices, ProgressCallback progress = {},
                 const CancellationToken* cancel = nullptr);

    const RunSpec& spec() const { return spec_; }
    const DeviceModel& devices() const { return devices_; }
    PlacementResult run();

private:
    const Graph& graph_;
    RunSpec spec_;
    DeviceModel devices_;
    ProgressCallback progress_;
    const CancellationToken* cancel_;
};

}  // namespace graphopt
