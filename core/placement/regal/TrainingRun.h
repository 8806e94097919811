// REGAL policy training as a run (core/run/RunContract.h): a RunSpec in, one ProgressEvent per
// epoch, a checkpoint file after every epoch, the policy file at the end, a TrainingResult out.
// `graphopt train-policy` and the GUI's training view are adapters over it.
//
// RunSpec: kind "training", engine "regal", objective runtime|memory, devices (preset or file),
// budget (BRKGA evaluations per training run), seed, threads (BRKGA workers), params: see
// trainingDescription() (epochs, samples, lr, ..., out, checkpoint, resume).
//
// Progress events: step = epoch, evaluations = BRKGA evaluations so far, bestCost = the best
// validation relative cost so far (mean over validation graphs of REGAL / uniform BRKGA cost;
// lower is better, 1 = no gain), values = {mean_reward, validation_win_rate,
// validation_mean_improvement, entropy, epoch_s, epoch_cpu_s, epoch_critical_cpu_s} (the last two:
// EpochReport::cpuS and criticalCpuS).
//
// Cancellation is checked before every training graph. A cancelled epoch is dropped: the
// checkpoint on disk stays the one of the last whole epoch (resume goes on from there) and no
// policy file is written.
//
// Over several ranks (run/Communicator.h) every rank runs the same TrainingRun with the same spec;
// rank 0 reads the checkpoint it resumes from and hands it to the others (so --resume works with
// any world size), and only rank 0 writes checkpoints and the policy file. The result's costs
// carry world_size.
//
// Defined in graphopt_nn (it builds the LibTorch network through makePolicyModel).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "placement/regal/RegalTraining.h"
#include "run/ParamSpec.h"
#include "run/RunContract.h"

namespace graphopt::regal {

// The parameters TrainingRun reads from RunSpec::params, with their defaults.
const EngineDescription& trainingDescription();

struct TrainingResult : RunOutcome {
    RunStatus runStatus = RunStatus::Finished;
    std::string policyPath;      // written only when the run finished
    std::string checkpointPath;  // the last whole epoch's checkpoint ("" before the first)
    int epochsDone = 0;
    int resumedFrom = 0;         // epochs already done in the checkpoint it resumed from
    EpochReport last;            // the last whole epoch
    double bestValidationImprovement = 0;
    // The epoch whose weights the policy file got (params.keep: the best validation epoch, or the
    // last); 0 before any.
    int keptEpoch = 0;
    int64_t evaluations = 0;
    double wallS = 0;
    int worldSize = 1;
    // Inputs that could not be used, and why: models of the train split (with the input sizes
    // asked for), data set graphs the policy cannot place (train/ and validation/); training went
    // on without them. toJson() lists them under "skipped".
    std::vector<UnusableInput> skipped;

    RunStatus status() const override { return runStatus; }
    RunResult toRunResult() const override;  // cost: 1 - the last validation mean improvement
    std::unique_ptr<RunOutcome> clone() const override { return std::make_unique<TrainingResult>(*this); }
    nlohmann::json toJson() const;
};

class TrainingRun : public Run {
public:
    // Validates the spec (objective, devices, params, that `resume` and the models folder exist)
    // and throws std::invalid_argument before anything is built. `command` is recorded in the
    // policy file (how it was made).
    // `comm`: the ranks to train with (nullptr = this process alone); it must outlive the run.
    explicit TrainingRun(RunSpec spec, std::string command = "", Communicator* comm = nullptr);

    const RunSpec& spec() const override { return spec_; }
    RunSubject subject() const override { return {nullptr, "", "REGAL policy training"}; }
    std::unique_ptr<RunOutcome> execute(const RunReporter& reporter, const CancellationToken* cancel) override;
    TrainingResult run(const RunReporter& reporter = {}, const CancellationToken* cancel = nullptr);

    // Lines about what it is doing ("preparing training graphs", "resumed after epoch 3").
    void setLog(std::function<void(const std::string&)> log) { log_ = std::move(log); }

private:
    RunSpec spec_;
    std::string command_;
    std::function<void(const std::string&)> log_;
    Communicator* comm_;
    LocalCommunicator local_;
};

}  // namespace graphopt::regal
