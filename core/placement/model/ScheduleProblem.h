// A Graph compiled for the schedule simulator: the immutable, flat (CSR) arrays the decoder reads
// on every evaluation, and the per-device op costs from a DeviceModel. Built once per run and
// shared (read-only) by every simulator thread.
#pragma once

#include <cstdint>
#include <memory>
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
    // Infeasible (a device over capacity): cost = B * (infeasibleFactor + excessWeight * r) + base,
    // r = sum over devices of excess / capacity, B = ScheduleProblem::feasibleCostBound (no
    // feasible solution costs more). So every infeasible solution ranks behind every feasible one,
    // and among infeasible ones the cost keeps falling with the excess: the search can climb out.
    double infeasibleFactor = 2.0;
    double excessWeight = 10.0;
    // M micro-batches of the graph flow through the same placement (a GPipe forward pass): each
    // node runs M times on its device, weights count once, activations per micro-batch in flight.
    int microBatches = 1;
};

struct ScheduleProblem {
    // Throws std::invalid_argument when a node (or a colocation class) may run on none of the
    // devices, naming the node and the kinds it needs.
    ScheduleProblem(const Graph& g, const DeviceModel& m, ScheduleOptions options);
    ScheduleProblem() = default;  // for preparePipeline()

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

    // Every tensor, weight and resident byte plus the largest temporary fits on every device: no
    // schedule can overflow. With the runtime objective memory then never changes the cost.
    bool memoryCannotOverflow = false;
    bool runtimeCannotOverflow = false;

    // --- placement constraints (Node::allowedKinds, Node::colocationClass) ---------------------
    // The decoder repairs a chromosome that breaks them: a colocation class goes where its lowest
    // node id's keys send it, and a node (or class) takes the device of largest affinity among the
    // devices it may use (the intersection over the class). Every engine's result therefore
    // honours them; heuristics also consult allowed() directly.
    std::vector<uint64_t> allowedMask;  // n: devices the node (its whole class) may run on
    std::vector<int> colocatedWith;     // n: the lowest node id of its class (itself without one)
    bool constrained = false;
    bool allowed(int v, int k) const { return (allowedMask[v] >> k) & 1; }

    std::vector<int64_t> residentBytes;  // n: Node::residentBytes, on its device for the whole run
    bool anyResident = false;
    // Given transfer times (Tensor::transferCostS), per local tensor; < 0 = the link model.
    std::vector<double> tensorTransferS;
    bool givenTransfers = false;
    std::vector<uint8_t> paysTransfers;  // d: DeviceSpec::paysTransfers (the max-load's rule)
    // Seconds to move local tensor t from device a to device b (a != b).
    double transferS(int t, int a, int b) const {
        const double given = givenTransfers ? tensorTransferS[t] : -1.0;
        return given >= 0 ? given : linkLatency[a * d + b] + double(tensorBytes[t]) * linkInvBandwidth[a * d + b];
    }

    // --- micro-batches (ScheduleOptions::microBatches = M > 1) ---------------------------------
    // The problem the simulator decodes: M copies of every node (copy m of node v is node m*n + v),
    // of every node output and graph input, sharing the weights and each node's resident bytes.
    // Built by preparePipeline() once the op costs are final; null for M = 1. The engines and
    // heuristics read this problem (one micro-batch); only the simulator reads the pipeline.
    std::shared_ptr<const ScheduleProblem> pipeline;
    std::vector<int> tensorMicroBatch;  // numTensors of a pipeline problem; empty otherwise
    void preparePipeline();

    // At least the cost of any feasible solution under the objective: for running time the sum
    // over ops of their slowest device's cost plus every transfer on every link (a list schedule
    // always has a device or a link busy), for peak memory the largest capacity, for the max-load
    // every op's slowest cost plus every transfer paid by every device.
    double feasibleCostBound = 0;
    double penalized(double base, double excess) const {
        return excess == 0 ? base : feasibleCostBound * (options.infeasibleFactor + options.excessWeight * excess) + base;
    }
    void computeCostBound();

    int edgesTotal() const { return static_cast<int>(consNodes.size() + ctrlSucc.size()); }
};

}  // namespace graphopt
