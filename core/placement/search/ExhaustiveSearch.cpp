// Baseline "exhaustive": the true optimum for tiny graphs. Tries every placement (d^n) with every
// topological order as the priority order. That covers everything the decoder can produce: any
// decoded schedule is reproduced by the placement it used and the topological order in which its
// ops started (a device only ever compares ops that are ready together, and the one it started
// first also started earlier), so the minimum over these pairs is the minimum over all keys.
// The budget does not apply; the search refuses graphs where the pairs exceed `max_evaluations`
// (param, default 2,000,000), i.e. about 10 nodes on 2 devices.
#include <limits>
#include <sstream>
#include <stdexcept>

#include "placement/search/SearchEngines.h"

namespace graphopt {

namespace {
// Number of topological orders (linear extensions), by dynamic programming over subsets.
double countTopologicalOrders(const Graph& g) {
    const int n = static_cast<int>(g.nodeCount());
    std::vector<uint32_t> predMask(n, 0);
    for (int v = 0; v < n; ++v)
        for (int u : g.predecessors(v)) predMask[v] |= 1u << u;
    std::vector<double> ways(size_t(1) << n, 0.0);
    ways[0] = 1;
    for (uint32_t s = 0; s < (1u << n); ++s) {
        if (ways[s] == 0) continue;
        for (int v = 0; v < n; ++v)
            if (!(s >> v & 1) && (predMask[v] & s) == predMask[v]) ways[s | (1u << v)] += ways[s];
    }
    return ways.back();
}
}  // namespace

SearchOutcome exhaustiveEngine(const SearchContext& ctx) {
    const Graph& g = ctx.graph;
    const int n = ctx.nodes(), d = ctx.deviceCount();
    const double limit = ctx.params.value("max_evaluations", 2e6);
    auto refuse = [&](const std::string& why) {
        throw std::invalid_argument("exhaustive search is only for tiny graphs (about 10 nodes, 2 devices): " + why);
    };
    if (n > 16) refuse("this graph has " + std::to_string(n) + " nodes");
    double placements = 1;
    for (int i = 0; i < n; ++i) placements *= d;
    const double pairs = placements * countTopologicalOrders(g);
    if (pairs > limit) {
        std::ostringstream os;
        os.precision(3);
        os << n << " nodes on " << d << " devices give " << pairs << " (placement, order) pairs, over the limit of "
           << limit;
        refuse(os.str());
    }

    auto sim = ctx.makeSimulator();
    SearchOutcome out;
    double best = std::numeric_limits<double>::infinity();
    std::vector<int> order, placement(n, 0), waiting(n), bestPlacement(n, 0), bestOrder;
    for (int v = 0; v < n; ++v) waiting[v] = static_cast<int>(g.predecessors(v).size());
    std::vector<char> used(n, 0);
    bool stop = false;

    auto tryAllPlacements = [&] {
        std::fill(placement.begin(), placement.end(), 0);
        for (;;) {
            const double c = sim->evaluatePlacement(placement, order).cost;
            if (c < best) best = c, bestPlacement = placement, bestOrder = order;
            if (++out.evaluations % 4096 == 0) {
                ctx.report(out.evaluations / 4096, out.evaluations, best);
                if (ctx.cancelled()) {
                    stop = true;
                    return;
                }
            }
            int i = 0;  // next placement in base-d counting
            while (i < n && ++placement[i] == d) placement[i++] = 0;
            if (i == n) return;
        }
    };
    // Backtracking over topological orders (ready nodes in id order).
    auto extend = [&](auto&& self) -> void {
        if (stop) return;
        if (int(order.size()) == n) {
            tryAllPlacements();
            return;
        }
        for (int v = 0; v < n && !stop; ++v) {
            if (used[v] || waiting[v]) continue;
            used[v] = 1;
            order.push_back(v);
            for (int s : g.successors(v)) --waiting[s];
            self(self);
            for (int s : g.successors(v)) ++waiting[s];
            order.pop_back();
            used[v] = 0;
        }
    };
    extend(extend);
    out.cancelled = stop;
    if (bestOrder.empty() && n > 0) {
        bestOrder = g.topologicalOrder();  // cancelled before the first decoding
    }
    out.keys = keysFromPlacementOrder(d, bestPlacement, bestOrder);
    out.info["pairs"] = pairs;
    ctx.report(out.evaluations / 4096 + 1, out.evaluations, best);
    return out;
}

}  // namespace graphopt
