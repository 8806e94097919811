// A placement run (papers/REGAL.md), the placement kind of the run contract (run/RunContract.h):
// Graph + RunSpec in, PlacementResult out. The CLI runs it on its own thread and the GUI on a
// worker thread; it reports ProgressEvents through the reporter (on the run's thread), checks the
// token every generation or batch, and returns the best found so far when cancelled.
//
// RunSpec fields used: engine (any registered: see PlacementEngines.h), objective (runtime|memory),
// devices (preset or JSON file; or pass a DeviceModel), budget (decoder evaluations), seed, threads
// (0 = all cores), params: placementRunParams() (count_weights, measured_costs_s) and the engine's
// own (describePlacementEngine(engine).params); anything else is refused.
#pragma once

#include <optional>

#include "graph/Graph.h"
#include "placement/model/DeviceModel.h"
#include "placement/model/PlacementResult.h"
#include "placement/model/ScheduleProblem.h"
#include "run/RunContract.h"

namespace graphopt {

// The problem a placement run decodes: the device model's costs for the spec's objective and
// params (count_weights, micro_batches), with measured_costs_s replacing the estimate of those
// nodes on the devices of kind measured_costs_kind (every device when it is empty), divided by each
// device's speed factor. Throws std::invalid_argument for a bad parameter, naming it.
std::shared_ptr<ScheduleProblem> compilePlacementProblem(const Graph& graph, const DeviceModel& devices,
                                                         const RunSpec& spec);

class PlacementRun : public Run {
public:
    // `graph` must outlive the run. Throws std::invalid_argument for a bad spec (unknown engine,
    // objective or devices, a parameter the engine does not know or of the wrong type) so callers
    // can refuse before starting a thread. `modelPath` is what the store records as the graph's file.
    PlacementRun(const Graph& graph, RunSpec spec, std::string modelPath = "");
    PlacementRun(const Graph& graph, RunSpec spec, DeviceModel devices, std::string modelPath = "");

    const RunSpec& spec() const override { return spec_; }
    RunSubject subject() const override { return {&graph_, modelPath_, ""}; }
    const DeviceModel& devices() const { return devices_; }
    PlacementResult run(const RunReporter& reporter = {}, const CancellationToken* cancel = nullptr);
    PlacementResult run(const ProgressCallback& progress, const CancellationToken* cancel = nullptr) {
        return run(RunReporter{progress, {}, {}, {}}, cancel);
    }
    std::unique_ptr<RunOutcome> execute(const RunReporter& reporter, const CancellationToken* cancel) override;

private:
    const Graph& graph_;
    RunSpec spec_;
    DeviceModel devices_;
    std::string modelPath_;
};

}  // namespace graphopt
