// Baseline "single": every op on one device, in the graph's topological order (Kahn's algorithm,
// ties by node id). No transfers ever happen, so this is the no-parallelism reference for running
// time and the everything-in-one-place reference for memory. Each device is tried (one evaluation
// each) and the best kept, so a cpu+gpu setup does not pick the CPU by accident. A device the
// whole graph does not fit on is named in info.infeasible_devices (its peak and the excess), so a
// result that kept another device says why. Nodes that may not run on the device (a workload's
// CPU-only nodes) stay where the decoder's repair puts them.
#include "placement/PlacementEngines.h"

#include <algorithm>
#include <limits>

namespace graphopt {

SearchOutcome bestSingleDevice(const SearchContext& ctx, const std::vector<int>& order) {
    auto sim = ctx.makeSimulator();
    const int n = ctx.nodes(), d = ctx.deviceCount();
    SearchOutcome out;
    double best = std::numeric_limits<double>::infinity();
    for (int k = 0; k < d; ++k) {
        std::vector<int> placement(n, k);
        const ScheduleCosts costs = sim->evaluatePlacement(placement, order);
        const double c = costs.cost;
        ++out.evaluations;
        if (!costs.feasible) {
            const auto peaks = sim->devicePeaks();
            const int64_t cap = ctx.problem->capacity[k];
            out.info["infeasible_devices"].push_back({{"device", ctx.devices.devices[k].name},
                                                     {"peak_bytes", peaks[k]},
                                                     {"capacity_bytes", cap},
                                                     {"over_limit_bytes", std::max<int64_t>(0, peaks[k] - cap)},
                                                     {"runtime_s", costs.makespan},
                                                     {"throughput_s", sim->maxLoad(sim->placement())}});
        }
        if (c < best) {
            best = c;
            out.keys = keysFromPlacementOrder(d, placement, order);
            out.info["device"] = ctx.devices.devices[k].name;
        }
    }
    ctx.report(1, out.evaluations, best);
    return out;
}

SearchOutcome singleDeviceEngine(const SearchContext& ctx) { return bestSingleDevice(ctx, ctx.graph.topologicalOrder()); }

}  // namespace graphopt
