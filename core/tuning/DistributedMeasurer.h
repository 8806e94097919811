// Kernel measurements spread over ranks (run/Communicator.h): rank 0 runs the tuner with a
// DistributedMeasurer, which sends each batch (the task and its configurations) to every rank,
// measures its own share with its local measurer while the others measure theirs (each rank with
// its own measure worker, on its own machine), and gathers the results in the batch's order.
// The other ranks sit in serveMeasurements until rank 0 says stop.
//
// Shares: configuration i of a batch goes to rank i % worldSize. A rank that dies or does not
// answer within the communicator's timeout costs the measurements it held: they come back as
// failures whose error names the rank and the reason, the run goes on, and from then on rank 0
// measures everything itself (a broken process group cannot be mended).
#pragma once

#include <string>
#include <vector>

#include "run/Communicator.h"
#include "tuning/Measurer.h"

namespace graphopt::tuning {

class DistributedMeasurer final : public Measurer {
public:
    // `comm` must be rank 0's; both must outlive this measurer. Its destructor tells the other
    // ranks to stop (when they can still be told).
    DistributedMeasurer(Communicator& comm, Measurer& local);
    ~DistributedMeasurer() override;
    std::string name() const override { return local_.name(); }
    std::vector<MeasureResult> measure(const TuningTask& task, const std::vector<ConfigIndex>& configs) override;

    // Tells the others to stop now (idempotent).
    void finish();
    // Why the other ranks were dropped ("" while they are all there).
    const std::string& lostRanks() const { return lost_; }

private:
    Communicator& comm_;
    Measurer& local_;
    bool finished_ = false;
    std::string lost_;
};

// The loop of ranks 1..N-1: measure the share of every batch rank 0 sends, until it says stop.
// Returns the number of measurements made; throws DistributedError when rank 0 is gone.
int64_t serveMeasurements(Communicator& comm, Measurer& local);

}  // namespace graphopt::tuning
