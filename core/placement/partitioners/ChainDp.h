// The dynamic program behind dp-contiguous and pipedream: the best split of the units into a
// chain of blocks, block i being I_i \ I_{i-1} for ideals I_0 = {} c I_1 c ... c I_m = all units
// (a contiguous split: its blocks can be run in this order with every edge going forward), each
// block on its own device, minimizing the largest block cost (the max-load).
//
//   best[I][used] = min over ideals J c I and device classes c with a device left in `used`:
//                   max(best[J][used - c], cost(I \ J, c)),
//
// `used` counting the devices taken from each class (Tarnawski et al., NeurIPS 2020,
// with the k accelerators and l CPUs generalised to classes of identical devices). A block may
// be empty, so fewer devices may be used. The lattice holds the ideals in order of size with,
// for each, its immediate sub-ideals (one unit less); the DP walks the sub-ideals J of each I
// depth first, so that I \ J grows and shrinks by one unit per step (BlockLoads).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "placement/partitioners/PartitionModel.h"

namespace graphopt {

struct IdealLattice {
    int words = 0;                // 64 units per word
    std::vector<uint64_t> bits;   // ideal i: bits[i * words, (i + 1) * words)
    std::vector<int> cardinality;
    // Immediate sub-ideals of ideal i: (sub-ideal, the unit it lacks).
    std::vector<std::vector<std::pair<int, int>>> subs;
    int size() const { return int(subs.size()); }
    int full() const { return size() - 1; }  // the last ideal holds every unit
};

enum class LatticeStatus { Complete, TooMany, OutOfTime, Cancelled };

// Every ideal of the units' order constraints, breadth first (so by size), stopping at
// maxIdeals, at the deadline or when `cancelled` says so.
LatticeStatus enumerateIdeals(const PartitionUnits& units, int64_t maxIdeals,
                              std::chrono::steady_clock::time_point deadline, const std::function<bool()>& cancelled,
                              IdealLattice& out);
// The prefixes of `order` (a topological order of the units): the ideals of one linear order.
IdealLattice prefixLattice(const PartitionUnits& units, const std::vector<int>& order);

struct ChainSplit {
    bool complete = false;  // false: stopped (deadline or cancelled) before the end
    double value = BlockLoads::kInfeasible;
    int64_t pairs = 0;                 // (I, J) pairs looked at
    int64_t steps = 0;                 // the work done (BlockLoads::steps plus the program's own updates)
    bool overSteps = false;            // stopped at maxSteps
    std::vector<int> unitDevice;       // device of every unit (valid when value is finite)
    int blocks = 0;                    // non-empty blocks
};

// cost(loads, J, out): the cost of the block in `loads` (I \ J) on every class, written to out
// (classCount values; BlockLoads::kInfeasible where it cannot go).
using BlockCost = std::function<void(const BlockLoads& loads, int J, double* out)>;

// maxSteps (0: no bound) stops it, incomplete, once it has done that much work (ChainSplit::steps),
// checked every 4096 pairs: a bound that stops at the same point on every machine, unlike the
// deadline (kept as a safety net).
ChainSplit chainDp(const IdealLattice& lattice, BlockLoads& loads, const BlockCost& cost, int64_t maxSteps,
                   std::chrono::steady_clock::time_point deadline, const std::function<bool()>& cancelled);

}  // namespace graphopt
