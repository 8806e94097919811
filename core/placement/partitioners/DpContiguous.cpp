// Engine "dp-contiguous": the max-load-optimal contiguous split of Tarnawski et al., "Efficient
// Algorithms for Device Placement of DNN Graph Operators" (NeurIPS 2020), their throughput
// algorithm. A split is contiguous when its blocks can be ordered so that every edge goes from a
// block to itself or a later one; block i is then I_i \ I_{i-1} for a chain of ideals, and the
// dynamic program of ChainDp.h over all ideals finds the split of least max-load (every block's
// compute plus the transfers across its boundary; PartitionModel.h) in which every block fits
// its device's memory and runs only nodes its device may run.
//
// As in their program, colocated nodes are one unit and a training graph's backward nodes follow
// their forward nodes (PartitionModel.h), so the ideals are those of the folded forward graph:
// on the public workloads a few hundred to a few thousand.
//
// Where the ideals explode (a wide graph: k parallel branches of length L have (L+1)^k), the
// enumeration stops at max_ideals, or the program at max_steps (a count of its work, so the same
// graph stops at the same point on every machine and under any load), and the same program runs
// over the prefixes of one topological order (the optimal split of that order, no longer optimal
// over all contiguous splits); the result says so (info.exact false, info.note). time_limit_s is
// a safety net behind those two, for a machine far slower than this project's.
//
// Why steps: the program did 130-150 million steps a second on one afternoon and 235-280 million
// minutes later on the same VM, alike on graphs as different as wide-10 (116 units, 143 million
// ideal pairs; 2.15 billion steps in all, so exact under the default) and llama_7b on 2xt4 (1,610
// units, 29,190 ideals, 1.3 million pairs in 30 s), where a count of pairs differed a hundredfold.
//
// When no contiguous split fits the memory, it returns the best split that ignores memory and
// says so; the run reports it infeasible.
#include <chrono>

#include "placement/partitioners/ChainDp.h"
#include "placement/partitioners/Partitioners.h"

namespace graphopt {

namespace {

std::string statusText(LatticeStatus s, int64_t maxIdeals, double limitS) {
    switch (s) {
        case LatticeStatus::TooMany: return "more than " + std::to_string(maxIdeals) + " ideals";
        case LatticeStatus::OutOfTime: return "enumerating the ideals took longer than " + formatNumber(limitS) + " s";
        case LatticeStatus::Cancelled: return "cancelled";
        case LatticeStatus::Complete: break;
    }
    return "";
}

}  // namespace

SearchOutcome dpContiguousEngine(const SearchContext& ctx) {
    const ScheduleProblem& p = *ctx.problem;
    const int64_t maxIdeals = ctx.params.value("max_ideals", kDpContiguousMaxIdeals);
    const int64_t maxSteps = ctx.params.value("max_steps", kDpContiguousMaxSteps);
    const double limitS = ctx.params.value("time_limit_s", kDpContiguousTimeLimitS);
    const double headroom = ctx.params.value("memory_headroom", 0.0);
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(limitS));
    const std::function<bool()> cancelled = [&] { return ctx.cancelled(); };

    const PartitionUnits units = buildPartitionUnits(p, ctx.graph);
    BlockLoads loads(p, units, deviceClasses(p), headroom);
    const BlockCost maxLoad = [](const BlockLoads& l, int, double* out) {
        for (int c = 0; c < l.classCount(); ++c) out[c] = l.load(c);
    };

    nlohmann::json info = {{"units", units.count}, {"device_classes", loads.classCount()}};
    IdealLattice lattice;
    LatticeStatus status = enumerateIdeals(units, maxIdeals, deadline, cancelled, lattice);
    ChainSplit split;
    if (status == LatticeStatus::Complete) {
        info["ideals"] = lattice.size();
        split = chainDp(lattice, loads, maxLoad, maxSteps, deadline, cancelled);
        if (!split.complete && !ctx.cancelled()) status = LatticeStatus::OutOfTime;
        info["steps"] = split.steps;
        info["ideal_pairs"] = split.pairs;  // of the program over every ideal, also when it stopped
    }
    info["exact"] = status == LatticeStatus::Complete;
    if (status != LatticeStatus::Complete) {
        if (status == LatticeStatus::OutOfTime && info.contains("ideals"))
            info["note"] = "the program over " + std::to_string(lattice.size()) + " ideals " +
                           (split.overSteps ? "needs more than " + std::to_string(maxSteps) + " steps"
                                            : "ran past " + formatNumber(limitS) + " s") +
                           "; this is the best split of one topological order";
        else
            info["note"] = statusText(status, maxIdeals, limitS) + "; this is the best split of one topological order";
        lattice = prefixLattice(units, units.order);
        split = chainDp(lattice, loads, maxLoad, 0, std::chrono::steady_clock::time_point::max(), cancelled);
    }
    if (split.complete && split.value == BlockLoads::kInfeasible) {
        info["fits"] = false;
        info["note"] = std::string(info.value("note", "")) + (info.contains("note") ? "; " : "") +
                       "no contiguous split fits the devices' memory: this one ignores memory";
        BlockLoads anyMemory(p, units, deviceClasses(p), 0.0, /*ignoreMemory=*/true);
        split = chainDp(lattice, anyMemory, maxLoad, 0, std::chrono::steady_clock::time_point::max(), cancelled);
    }
    if (!info.contains("ideal_pairs")) info["ideal_pairs"] = split.pairs;
    info["blocks"] = split.blocks;
    if (split.value != BlockLoads::kInfeasible) info["max_load_s"] = split.value;
    std::vector<int> unitDevice = split.unitDevice;
    if (unitDevice.empty()) unitDevice.assign(units.count, 0);  // cancelled, or no device may run some unit
    return finishPartition(ctx, placementFromUnits(units, unitDevice, p.n), std::move(info));
}

}  // namespace graphopt
