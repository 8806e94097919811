// `graphopt profile`: every operator of a model timed with libtorch on this CPU, as a run like
// every other (recorded in the store, with progress and cancellation). The result is a cost file
// (MeasuredCosts) for device kind "cpu" at the run's thread count.
//
// Each node is called on tensors of the model's shapes (TorchProgram.h: the model's constants,
// random data elsewhere). By default the model runs `warmup` + `repeats` whole forward passes in
// topological order and each op is timed inside them, where a real run meets it (its weights cold
// in the cache, its input just written): the median over the timed passes is its cost, the
// fastest and slowest its spread. With params.isolated each op is instead called on its own,
// `warmup` calls and then at least `repeats` and more until 20 ms were spent on it (at most
// 1,000): warm caches, the figure a kernel benchmark gives, which underestimates a run (ResNet-18:
// -15 %, Inception-v3: -21 % on this host). A node that cannot run is listed with the reason and
// keeps the device model's estimate.
// Where the spec gives tuned costs (params.tuned_costs: node -> {seconds, run}), a tuning run's best
// kernel replaces libtorch's median for those nodes, and the cost says so.
#pragma once

#include <memory>
#include <string>

#include "execution/MeasuredCosts.h"
#include "graph/Loaders.h"
#include "run/RunContract.h"

namespace graphopt::exec {

struct ProfileResult : RunOutcome {
    MeasuredCosts costs;
    RunStatus runStatus = RunStatus::Finished;
    double wallS = 0;
    RunStatus status() const override { return runStatus; }
    RunResult toRunResult() const override;
    std::unique_ptr<RunOutcome> clone() const override { return std::make_unique<ProfileResult>(*this); }
};

class ProfileRun : public Run {
public:
    // spec.threads: libtorch's intra-op threads (0 = 1); spec.params: repeats (default 7), warmup
    // (default 2), isolated (default false), tuned_costs. `graph` and `constants` (loadOnnx's values) must outlive the run.
    ProfileRun(const Graph& graph, const ConstantValues& constants, RunSpec spec, std::string modelPath);
    const RunSpec& spec() const override { return spec_; }
    RunSubject subject() const override { return {&graph_, modelPath_, ""}; }
    std::unique_ptr<RunOutcome> execute(const RunReporter& reporter, const CancellationToken* cancel) override;
    ProfileResult run(const RunReporter& reporter = {}, const CancellationToken* cancel = nullptr);

    // "profile": the RunSpec kind these runs are stored under.
    static constexpr const char* kKind = "profile";

private:
    const Graph& graph_;
    const ConstantValues& constants_;
    RunSpec spec_;
    std::string modelPath_;
};

// Whether the machine is busy: the 1-minute load average exceeds the threads this process uses
// by more than half a core. (Which CPU it is: run/CpuIdentity.h.)
bool machineLoaded(int threadsInUse);

}  // namespace graphopt::exec
