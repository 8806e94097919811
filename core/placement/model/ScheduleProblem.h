// A Graph compiled for the schedule simulator: the immutable, flat (CSR) arrays the decoder reads
// on every evaluation, and the per-device op costs from a DeviceModel. Built once per run and
// shared (read-only) by every simulator thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/Graph.h"
#include "placement/model/DeviceModel.h"

namespace graphopt {

// Runtime: the simulator's makespan (of all micro-batches); Memory: the largest per-device peak;
// Throughput: the max-load of the placement, time per sample in a pipeline's steady state
// (Tarnawski et al., NeurIPS 2020; see model/MaxLoad.h).
enum class PlacementObjective { Runtime, Memory, Throughput };
const char* objectiveName(PlacementObjective o);
PlacementObjective objectiveFromName(const std::string& s);  // throws std::invalid_argument

struct ScheduleOptions {
    PlacementObjective objective = PlacementObjective::Runtime;
    bool countWeights = true;  // weights resident on every device that runs one of their consumers
    // Infeasible (a device over capacity): cost = base * (infeasibleFactor + excessWeight * r),
    // r = sum over devices of excess / capacity. Any overflow at least doubles the cost and the
    // penalty keeps growing with the excess, so the search can climb out.
    double infeasibleFactor = 2.0;
    double excessWeight = 10.0;
    // M micro-batches of the graph flow through the same placement (a GPipe forward pass): each
    // node runs M times on its device, weights count once, activations per micro-batch in flight.
    int microBatches = 1;
};

struct ScheduleProblem {
    ScheduleProblem(const Graph& g, const DeviceModel& m, ScheduleOptions options);

    ScheduleOptions options;
    int n = 0;         // nodes
    int d = 0;         // devices
    int numTensors = 0;  // "placed" tensors: node outputs, then consumed graph inputs
    int firstInput = 0;  // local ids >= firstInput are graph inputs

    std::vector<double> opCost;          // n*d seconds
    std::vector<int64_t> tempBytes;      // n
    std::vector<int64_t> outBytes;       // n: bytes of a node's output tensors
    std::vector<int> initialRemaining;   // n: data inputs with a producer + control inputs

    // CSR adjacency (start arrays have one more entry than rows).
    std::vector<int> outStart, outTensors;  // node -> local tensors it produces
    std::vector<int> inStart, inTensors;    // node -> local tensors it reads (deduped; no weights)
    std::vector<int> ctrlStart, ctrlSucc;   // node -> control successors
    std::vector<int> consStart, consNodes;  // local tensor -> distinct consumer nodes

    // Per node with exactly one output tensor and no control successors (nearly every node): that
    // tensor's consumers, consNodes[consBegin, consEnd), and its bytes, so that the runtime-only
    // decoder reaches them in one load. consEnd = -1 for the other nodes.
    struct SoleOutput {
        int consBegin = 0, consEnd = -1;
        int64_t bytes = 0;
    };
    std::vector<SoleOutput> soleOutput;  // n
    double minLinkLatency = 0;           // over the links between distinct devices

    std::vector<int64_t> tensorBytes;     // numTensors
    std::vector<int> tensorProducer;      // numTensors, -1 for graph inputs
    std::vector<uint8_t> tensorIsOutput;  // numTensors
    std::vector<int> tensorGraphId;       // numTensors -> Graph tensor id

    std::vector<int64_t> weightBytes;          // weights with at least one consumer
    std::vector<int> weightStart, weightNodes; // weight -> distinct consumer nodes
    int64_t outputBytesTotal = 0;              // graph outputs produced by nodes

    std::vector<double> linkLatency, linkInvBandwidth;  // d*d
    std::vector<int> offDiagonalLinks;                   // a*d+b for a != b
    std::vector<int64_t> capacity;                      // d

    // Runtime objective, and on every device all tensors + weights + the largest temporary fit:
    // no schedule can overflow, so memory never changes the cost.
    bool runtimeCannotOverflow = false;

    int edgesTotal() const { return static_cast<int>(consNodes.size() + ctrlSucc.size()); }
};

}  // namespace graphopt
