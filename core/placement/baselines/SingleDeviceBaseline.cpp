// Baseline "single": every op on one device, in the graph's topological order (Kahn's algorithm,
// ties by node id). No transfers ever happen, so this is the no-parallelism reference for running
// time and the everything-in-one-place reference for memory. Each device is tried (one evaluation
// each) and the best kept, so a cpu+gpu setup does not pick the CPU by accident.
#include "placement/PlacementEngines.h"

#include <limits>

namespace graphopt {

SearchOutcome bestSingleDevice(const SearchContext& ctx, const std::vector<int>& order) {
    auto sim = ctx.makeSimulator();
    const int n = ctx.nodes(), d = ctx.deviceCount();
    SearchOutcome out;
    double best = std::numeric_limits<double>::infinity();
    for (int k = 0; k < d; ++k) {
        std::vector<int> placement(n, k);
        const double c = sim->evaluatePlacement(placement, order).cost;
        ++out.evaluations;
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
