// Baseline "heft": Heterogeneous Earliest Finish Time (Topcuoglu, Hariri, Wu 2002) for running
// time. Upward rank = mean compute cost over devices + the largest (mean transfer time + rank) over
// successors, mean transfer time averaged over the ordered links. Ops are taken in decreasing rank
// (among those whose predecessors are placed, so ties and zero costs stay topological) and each goes
// to the device where it would finish earliest, appended after that device's last op (no insertion
// into idle gaps). The estimate ignores link contention; the reported cost is the simulator's
// decoding of HEFT's placement with rank order as priorities (one evaluation).
//
// Memory: plain HEFT ignores it. With memory_aware, an op goes only to a device that still has
// room for it, counted per op: its weights once per device, its resident bytes and its outputs
// held to the end (m-etf, partitioners/BaechiPlacers.cpp, counts the same per unit and also the
// copies a device receives and the graph inputs it reads); when no device has room, it
// goes where it finishes earliest anyway (info.estimate_fits false; info.fits is the simulator's
// verdict).
#include <algorithm>
#include <limits>

#include "placement/PlacementEngines.h"

namespace graphopt {

SearchOutcome heftEngine(const SearchContext& ctx) {
    const ScheduleProblem& p = *ctx.problem;
    const Graph& g = ctx.graph;
    const int n = p.n, d = p.d;
    // Data bytes on each node-level edge u -> v, through v's inputs.
    std::vector<std::vector<std::pair<int, int64_t>>> inEdges(n);  // v -> (u, bytes); u = -1 unused
    for (int v = 0; v < n; ++v) {
        for (int j = p.inStart[v]; j < p.inStart[v + 1]; ++j) {
            const int t = p.inTensors[j];
            if (t >= p.firstInput) continue;
            const int u = p.tensorProducer[t];
            auto it = std::find_if(inEdges[v].begin(), inEdges[v].end(), [&](auto& e) { return e.first == u; });
            if (it == inEdges[v].end())
                inEdges[v].push_back({u, p.tensorBytes[t]});
            else
                it->second += p.tensorBytes[t];
        }
        for (int u : g.predecessors(v))
            if (std::none_of(inEdges[v].begin(), inEdges[v].end(), [&](auto& e) { return e.first == u; }))
                inEdges[v].push_back({u, -1});  // control edge: no data
    }
    double meanLatency = 0, meanInvBw = 0;
    if (d > 1) {
        for (int a = 0; a < d; ++a)
            for (int b = 0; b < d; ++b)
                if (a != b) meanLatency += p.linkLatency[a * d + b], meanInvBw += p.linkInvBandwidth[a * d + b];
        meanLatency /= d * (d - 1);
        meanInvBw /= d * (d - 1);
    }
    auto meanComm = [&](int64_t bytes) { return d > 1 && bytes >= 0 ? meanLatency + double(bytes) * meanInvBw : 0.0; };

    const std::vector<int> topo = g.topologicalOrder();
    std::vector<double> rank(n, 0);
    std::vector<std::vector<std::pair<int, int64_t>>> outEdges(n);
    for (int v = 0; v < n; ++v)
        for (auto& [u, b] : inEdges[v]) outEdges[u].push_back({v, b});
    for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
        const int v = *it;
        double w = 0;
        for (int k = 0; k < d; ++k) w += p.opCost[size_t(v) * d + k];
        double best = 0;
        for (auto& [s, b] : outEdges[v]) best = std::max(best, meanComm(b) + rank[s]);
        rank[v] = w / d + best;
    }

    // Memory per device, for memory_aware.
    const bool memoryAware = ctx.params.value("memory_aware", false);
    std::vector<std::vector<int>> weightsOf(n);
    if (p.options.countWeights)
        for (size_t w = 0; w < p.weightBytes.size(); ++w)
            for (int j = p.weightStart[w]; j < p.weightStart[w + 1]; ++j) weightsOf[p.weightNodes[j]].push_back(int(w));
    std::vector<int64_t> used(d, 0);
    std::vector<uint8_t> weightOn(p.weightBytes.size() * size_t(d), 0);
    auto needs = [&](int v, int k) {
        int64_t b = p.residentBytes[v] + p.outBytes[v];
        for (int w : weightsOf[v])
            if (!weightOn[size_t(w) * d + k]) b += p.weightBytes[w];
        return b;
    };
    bool fits = true;

    // Schedule: ready ops in decreasing rank, each to its earliest-finish device.
    std::vector<int> placement(n, 0), order, waiting(n);
    std::vector<double> finish(n, 0), deviceFree(d, 0);
    std::vector<int> ready;
    for (int v = 0; v < n; ++v) {
        waiting[v] = static_cast<int>(g.predecessors(v).size());
        if (!waiting[v]) ready.push_back(v);
    }
    while (!ready.empty()) {
        auto it = std::max_element(ready.begin(), ready.end(), [&](int a, int b) {
            return rank[a] < rank[b] || (rank[a] == rank[b] && a > b);
        });
        const int v = *it;
        *it = ready.back();
        ready.pop_back();
        int bestK = -1;
        double bestFinish = std::numeric_limits<double>::infinity();
        for (int pass = memoryAware ? 0 : 1; pass < 2 && bestK < 0; ++pass) {  // pass 0: where it fits
            for (int k = 0; k < d; ++k) {
                if (!p.allowed(v, k) || (pass == 0 && used[k] + needs(v, k) > p.capacity[k])) continue;
                double dataReady = 0;
                for (auto& [u, b] : inEdges[v]) {
                    double arrive = finish[u];
                    if (placement[u] != k && b >= 0)
                        arrive += p.linkLatency[placement[u] * d + k] + double(b) * p.linkInvBandwidth[placement[u] * d + k];
                    dataReady = std::max(dataReady, arrive);
                }
                const double f = std::max(dataReady, deviceFree[k]) + p.opCost[size_t(v) * d + k];
                if (f < bestFinish) bestFinish = f, bestK = k;
            }
        }
        if (memoryAware) {
            if (used[bestK] + needs(v, bestK) > p.capacity[bestK]) fits = false;
            used[bestK] += needs(v, bestK);
            for (int w : weightsOf[v]) weightOn[size_t(w) * d + bestK] = 1;
        }
        placement[v] = bestK;
        finish[v] = bestFinish;
        deviceFree[bestK] = bestFinish;
        order.push_back(v);
        for (int s : g.successors(v))
            if (--waiting[s] == 0) ready.push_back(s);
    }
    SearchOutcome out;
    out.keys = keysFromPlacementOrder(d, placement, order);
    auto sim = ctx.makeSimulator();
    const ScheduleCosts costs = sim->evaluate(out.keys);
    const double c = costs.cost;
    out.evaluations = 1;
    out.info["heft_estimate_s"] = n ? *std::max_element(finish.begin(), finish.end()) : 0.0;
    if (memoryAware) out.info["estimate_fits"] = fits, out.info["fits"] = costs.feasible;
    ctx.report(1, 1, c);
    return out;
}

}  // namespace graphopt
