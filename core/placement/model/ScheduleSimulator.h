// The decoder of papers/REGAL.md ("Our formulation"), the hot path of every search.
//
// Keys: x in [0,1]^(n(d+1)); for node v, keys v(d+1)+k (k < d) are device affinities (argmax wins,
// ties to the lower device), key v(d+1)+d its priority. Event-driven list scheduling: each device
// runs one op at a time, the highest-priority ready op first (ties: lower node id); an op is ready
// on its device when every input is present there (graph inputs and weights are present from time
// 0, control inputs only need their node finished). When an op finishes, each output needed on
// another device is queued on that ordered link; a link carries one transfer at a time, FIFO, each
// taking latency + bytes / bandwidth. Running time = when the last op finishes.
//
// Memory per device (half-open intervals; at equal times frees count before allocations):
//  - a node's output: from its producer's start until its last consumer there has finished and
//    its last outgoing transfer has ended (graph outputs: to the end);
//  - a received copy: from its transfer's start until its last consumer there has finished;
//  - a graph input: from time 0 on each device that consumes it until its last consumer there;
//  - temporaries (Node::tempBytes): while the node runs;
//  - weights: the whole run, on every device running one of their consumers (switchable).
// Output aliasing (Tensor::aliasInputPort) is not modelled: an aliasing output counts its bytes.
//
// Cost: makespan (runtime) or the largest per-device peak (memory); over capacity: see
// ScheduleOptions. evaluate() allocates nothing: every buffer is sized in the constructor and
// reused; use one simulator per thread (they share the read-only ScheduleProblem).
// Cost O((n + e) log n + (n + e) d^2) per decoding: ready ops go through a binary heap per device;
// the next event is the least of the d running ops and the heads of the d(d-1) FIFO links.
//
// When memory cannot change the cost (see evaluate()), a second event loop decodes the same
// schedule with fewer events and shorter chains of dependent loads; see runtimeOnly() in the .cpp.
// A property test holds the two to identical costs.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "placement/model/ScheduleDetail.h"
#include "placement/model/ScheduleProblem.h"

namespace graphopt {

struct ScheduleCosts {
    double cost = 0;      // what the search minimises (objective + penalty)
    double makespan = 0;  // seconds
    int64_t peakBytes = 0;
    bool feasible = true;
    bool memoryTracked = true;  // false: evaluate() skipped the peak (see runtimeCannotOverflow)
    double excess = 0;          // sum over devices of (peak - capacity) / capacity where over
    double throughputS = 0;     // the max-load, with the throughput objective (else 0)
};

class ScheduleSimulator {
public:
    explicit ScheduleSimulator(std::shared_ptr<const ScheduleProblem> problem);

    const ScheduleProblem& problem() const { return *p_; }
    size_t keyCount() const { return size_t(p_->n) * (p_->d + 1); }

    // The search's call. For the runtime objective on devices that cannot overflow whatever the
    // schedule (ScheduleProblem::runtimeCannotOverflow) it skips the memory accounting and returns
    // peakBytes = 0 with memoryTracked = false; simulate() always tracks memory.
    ScheduleCosts evaluate(std::span<const double> keys);
    // Same decoding with memory always tracked, and fills `detail` when given (may allocate).
    ScheduleCosts simulate(std::span<const double> keys, ScheduleDetail* detail);
    // An explicit placement (device per node) and order (a permutation of the nodes; earlier =
    // higher priority). A topological order on one device runs in exactly that order.
    ScheduleCosts evaluatePlacement(std::span<const int> placement, std::span<const int> order,
                                    ScheduleDetail* detail = nullptr);

    // Of the last decoding (with micro-batches: the peaks of the whole pipeline).
    std::span<const int64_t> devicePeaks() const { return pipeline_ ? pipeline_->devicePeaks() : std::span<const int64_t>(peak_); }
    std::span<const int> placement() const { return dev_; }

    // The max-load of a placement (device per node), the throughput objective: each device's
    // load is the time of its ops plus communication; a tensor that leaves its device costs its
    // transfer time once to the sending device and once to each device that receives it, except
    // that a device with paysTransfers false (host memory) pays none (NeurIPS 2020; the
    // workloads' README). With a link model, the sender pays the slowest of its copies.
    double maxLoad(std::span<const int> placement);

private:
    struct Transfer {
        double start, end;
        int64_t id;  // tensor * d + destination device
        int next;    // next transfer queued on the same link, -1 at the tail
    };
    // Runtime-only decoder state: a node's release time (the latest availability of its inputs
    // on its device so far), its priority's double bits and its inputs still undetermined.
    struct NodeState {
        double readyAt;
        uint64_t prioBits;
        int remaining;
    };
    struct Pending {  // an op released to start no earlier than `at`
        double at;
        int node;
    };
    ScheduleCosts decode(const double* keys, ScheduleDetail* detail, bool maySkipMemory);
    ScheduleCosts fast(const double* keys);
    // Applies the problem's constraints to the decoded devices (see ScheduleProblem).
    void repairPlacement(const double* keys, int* dev) const;
    // Micro-batches: the original placement and priorities as one-hot keys of the pipeline problem
    // (copy m of a node before copy m + 1 on its device: priority 2(M - 1 - m) + p, p in [0, 1]).
    const double* expandToPipeline(const double* keys);
    void finishObjective(ScheduleCosts& c);
    template <bool Record, int D>
    ScheduleCosts run(const double* keys, ScheduleDetail* detail);
    template <int D>
    ScheduleCosts runtimeOnly(const double* keys);

    std::shared_ptr<const ScheduleProblem> p_;
    std::unique_ptr<ScheduleSimulator> pipeline_;  // decodes p_->pipeline
    std::vector<double> expanded_;                 // keys of the pipeline problem
    std::vector<double> load_;                     // per device, maxLoad()
    std::vector<uint64_t> mask_;                   // per tensor, maxLoad()
    // Buffers reused by every decoding.
    std::vector<int> dev_;
    std::vector<double> prio_;  // doubles: keys 1e-9 apart are still ordered
    std::vector<int> remaining_;
    std::vector<int> count_;    // numTensors*d: consumers of a tensor on a device
    std::vector<int> pending_;  // numTensors*d: releases still due before a copy is freed
    std::vector<double> linkFree_;
    // d heaps of capacity n; entries are (priority bits, complemented node id), see the .cpp.
    std::vector<unsigned __int128> ready_;
    std::vector<int> readySize_;
    std::vector<int> runNode_;    // per device: the op running, -1 when idle
    std::vector<double> runEnd_;  // per device: when it ends
    std::vector<Transfer> transfers_;
    std::vector<int> linkArrive_, linkTail_;  // per link: first transfer not arrived, last queued
    std::vector<int> startingNow_;
    // Next-event candidates (time and tie-break packed, see ScheduleSimulator.cpp): d devices,
    // then the d(d-1) links.
    std::vector<unsigned __int128> cand_;
    std::vector<int64_t> level_, peak_;
    std::vector<int> weightMark_;
    std::vector<double> keyScratch_;
    // runtimeOnly(): per node; per device a heap of pending releases (n + 1 slots each), the
    // running op's sole output and the next event's time.
    std::vector<NodeState> nodeState_;
    std::vector<double> nodeCost_;
    std::vector<Pending> released_;
    std::vector<int> releasedSize_;
    std::vector<ScheduleProblem::SoleOutput> runOut_;
    std::vector<double> next_, arrive_;
    std::vector<unsigned __int128*> readyHeap_;
    std::vector<unsigned __int128> staged_;
    std::vector<Pending*> pendingHeap_;
};

}  // namespace graphopt
