// What the partitioners (dp-contiguous, pipedream, m-topo, m-etf, greedy-latency) share: the
// graph folded into units that must stay together, the devices grouped into classes of identical
// devices, and the max-load of a block of units on a device class.
//
// Units. A colocation class (Node::colocationClass) is one unit, except that in a training graph
// (Node::isBackward) its backward nodes ride along with its forward nodes: the order constraints
// between units come from forward -> forward edges only, and a backward node goes wherever its
// class's forward nodes go (Tarnawski et al., NeurIPS 2020: a layer's backward pass runs where its
// forward pass ran). A backward class with no forward node is a unit of its own whose order
// constraints are its backward edges reversed (the mirror image of the forward pass). Units
// that the constraints put on a cycle (a class with nodes before and after another class) are
// merged. What remains is a DAG of units whose ideals (downward-closed sets) are what a contiguous
// split is made of.
//
// Device classes. Devices are interchangeable for a partitioner when every node costs the same on
// them, they may run the same nodes, and they have the same memory and the same transfer rule.
//
// Block cost (the max-load of ScheduleSimulator::maxLoad and the workloads' README): the time
// of the block's nodes on the class's device plus, when the device pays transfers, each tensor
// that crosses the block's boundary once (out of the block: the sender pays; into it: the receiver
// pays once, however many of its nodes read it). The transfer time of a tensor is its given time
// (Tensor::transferCostS) or, with a link model, the slowest link out of the class's device, so the
// block's cost does not depend on where the other blocks go; with uniform links (every preset's
// accelerators, every workload) it is exactly the simulator's max-load. The block's memory is the
// static part the simulator also counts: its nodes' resident bytes, the weights they read (once
// each) and the largest working set (inputs, temporaries and outputs) of one of its nodes, against the
// class's capacity times (1 - memory_headroom).
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "graph/Graph.h"
#include "placement/model/ScheduleProblem.h"

namespace graphopt {

struct PartitionUnits {
    int count = 0;
    std::vector<int> unitOf;                // node -> unit
    std::vector<std::vector<int>> members;  // unit -> nodes, ascending
    std::vector<std::vector<int>> preds;    // unit -> units that must be in any ideal containing it
    std::vector<int> order;                 // the units in a topological order of `preds` (ties: lowest node)
    // "a -> b" when a backward node feeds a forward node: then the graph is not taken as a
    // training graph (every node counts as forward).
    std::string backwardToForward;
};

PartitionUnits buildPartitionUnits(const ScheduleProblem& p, const Graph& g);

struct DeviceClass {
    std::vector<int> devices;  // ascending; devices[0] stands for the class
    int rep() const { return devices.front(); }
};
std::vector<DeviceClass> deviceClasses(const ScheduleProblem& p);

// The load of a block of units on each device class, kept up to date as units enter and leave
// the block. Units enter and leave in stack order (the last one in is the first one out), which
// is how the partitioners walk their splits: the DP over ideals extends a block by one unit per
// step of a depth-first walk, the planners grow it along an order.
class BlockLoads {
public:
    static constexpr double kInfeasible = std::numeric_limits<double>::infinity();

    // headroom in [0, 1): share of each capacity left for what the static estimate leaves out
    // (activations in flight); ignoreMemory: every block fits; keepOutputs: a block's memory counts
    // every output of its nodes, every copy it receives and every graph input it reads as held to
    // the end (Baechi's training assumption) instead of the largest working set of one node.
    BlockLoads(const ScheduleProblem& p, const PartitionUnits& units, std::vector<DeviceClass> classes,
               double headroom = 0.0, bool ignoreMemory = false, bool keepOutputs = false);

    int classCount() const { return int(classes_.size()); }
    const std::vector<DeviceClass>& classes() const { return classes_; }

    void add(int unit);
    void remove();  // the unit added last
    void clear();
    int size() const { return int(stack_.size()); }
    bool contains(int unit) const { return inSet_[unit]; }
    // The elementary updates add() and remove() have made so far (one per class per unit, shared
    // weight and crossing touched): a count of work that does not depend on the machine, for
    // bounds that must give the same answer everywhere (chainDp's maxSteps).
    int64_t steps() const { return steps_; }

    // The block's max-load on class c: kInfeasible when a node may not run there or the block
    // does not fit.
    double load(int c) const;
    double computeS(int c) const { return compute_[c]; }
    double transferS(int c) const { return paysTransfers_[c] ? transfer_[c] : 0.0; }
    // Seconds of the tensors produced inside the block and read outside it, on class c's links
    // whatever the class pays (PipeDream's boundary after a stage).
    double outgoingS(int c) const { return outgoing_[c]; }
    int64_t bytes() const { return bytes_ + (working_.empty() ? 0 : working_.back()); }
    bool allowed(int c) const { return disallowed_[c] == 0; }
    bool fits(int c) const { return ignoreMemory_ || bytes() <= usable_[c]; }
    int64_t capacity(int c) const { return usable_[c]; }

private:
    void count(int unit, int delta);

    std::vector<DeviceClass> classes_;
    int C_ = 0;
    bool ignoreMemory_ = false;
    std::vector<double> unitCompute_;   // unit * classes
    std::vector<uint8_t> unitAllowed_;  // unit * classes
    std::vector<int64_t> unitBytes_;    // resident bytes and the weights only the unit reads
    std::vector<int64_t> unitWorking_;  // the largest working set of one of its nodes
    std::vector<int64_t> usable_;       // per class
    std::vector<uint8_t> paysTransfers_;
    // A tensor read by another unit than its producer's: the distinct units of the producer and
    // the consumers, and its transfer time per class.
    struct Crossing {
        int producer;
        int size;           // distinct units, producer included
        int64_t heldBytes;  // keepOutputs: a received copy is held to the end too
        std::vector<double> seconds;
    };
    std::vector<Crossing> crossings_;
    std::vector<int> crossingIn_;                  // units of the crossing inside the block
    std::vector<std::vector<int>> unitCrossings_;  // unit -> crossings it takes part in (once each)
    struct SharedWeight {
        int64_t bytes;
        std::vector<int> units;
    };
    int64_t steps_ = 0;
    std::vector<SharedWeight> shared_;
    std::vector<int> sharedIn_;
    std::vector<std::vector<int>> unitShared_;
    // State of the block.
    std::vector<uint8_t> inSet_;
    std::vector<int> stack_;
    std::vector<int64_t> working_;  // the largest working set with each prefix of the stack
    std::vector<double> compute_, transfer_, outgoing_;
    std::vector<int> disallowed_;
    int64_t bytes_ = 0;
};

// Placement (device per node) from the device of each unit.
std::vector<int> placementFromUnits(const PartitionUnits& units, std::span<const int> unitDevice, int nodes);

}  // namespace graphopt
