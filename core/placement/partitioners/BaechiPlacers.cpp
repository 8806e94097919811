// Engines "m-topo" and "m-etf": the memory-constrained placers of Baechi (Jeon et al., "Baechi:
// Fast Device Placement of Machine Learning Graphs", SoCC 2020).
//
// Memory, as Baechi counts it for training: an op holds its weights (once per device), its
// resident bytes and, with keep_outputs, its outputs for the whole step; a device takes an op only
// while the sum stays within its capacity. Colocated ops (and a training graph's backward ops with
// their forward ones: PartitionModel.h's units) go to one device, decided when the first of them
// is placed, with the memory of all of them.
//
// m-topo: the units in topological order fill device 0, then device 1, ...; a device is full at
//   min(its capacity, total memory / devices + the largest unit's memory), Baechi's cap that
//   spreads the model over every device. A unit a device may not run goes to the first device that
//   may run it and has room, without moving the fill on.
// m-etf: earliest task first (Hwang et al. 1989) with a memory check. Repeatedly, over every ready
//   op and every device that may run it and has room for its unit, the pair that can start
//   earliest is scheduled: start = max(device free, each input's arrival: its producer's finish
//   plus, from another device, the transfer time); ties to the op of larger upward rank (mean
//   costs), then the lower op and device. Transfers do not contend for links (as in ETF).
// When nothing fits, the op goes to the device it may run on with the most free memory, and the
// result says so (info.fits false); the run reports it infeasible.
#include <algorithm>
#include <limits>

#include "placement/partitioners/PartitionModel.h"
#include "placement/partitioners/Partitioners.h"

namespace graphopt {

namespace {

// One BlockLoads per device: the units placed there so far.
struct DeviceFill {
    DeviceFill(const ScheduleProblem& p, const PartitionUnits& units, bool keepOutputs) {
        const auto classes = deviceClasses(p);
        classOf.assign(p.d, 0);
        for (size_t c = 0; c < classes.size(); ++c)
            for (int k : classes[c].devices) classOf[k] = int(c);
        for (int k = 0; k < p.d; ++k) fill.emplace_back(p, units, classes, 0.0, false, keepOutputs);
    }
    // Whether unit x may run on k and fits beside what is there within `cap` bytes; keeps it there
    // when `keep`.
    bool tryAdd(int k, int x, int64_t cap, bool keep) {
        BlockLoads& f = fill[k];
        f.add(x);
        const int c = classOf[k];
        const bool ok = f.allowed(c) && f.bytes() <= std::min(cap, f.capacity(c));
        if (!ok || !keep) f.remove();
        return ok;
    }
    bool mayRun(int k, int x) {
        BlockLoads& f = fill[k];
        f.add(x);
        const bool ok = f.allowed(classOf[k]);
        f.remove();
        return ok;
    }
    int64_t freeBytes(int k) const { return fill[k].capacity(classOf[k]) - fill[k].bytes(); }
    // The device x may run on with the most free memory (it then goes there, over capacity).
    int roomiest(int x) {
        int best = -1;
        for (int k = 0; k < int(fill.size()); ++k)
            if (mayRun(k, x) && (best < 0 || freeBytes(k) > freeBytes(best))) best = k;
        if (best < 0) best = 0;
        fill[best].add(x);
        return best;
    }
    std::vector<int> classOf;
    std::vector<BlockLoads> fill;
};

constexpr int64_t kNoCap = std::numeric_limits<int64_t>::max();

}  // namespace

SearchOutcome mTopoEngine(const SearchContext& ctx) {
    const ScheduleProblem& p = *ctx.problem;
    const bool keepOutputs = ctx.params.value("keep_outputs", true);
    const PartitionUnits units = buildPartitionUnits(p, ctx.graph);
    // Baechi's cap: the total memory spread over the devices, plus the largest unit.
    BlockLoads all(p, units, deviceClasses(p), 0.0, true, keepOutputs);
    BlockLoads one(p, units, deviceClasses(p), 0.0, true, keepOutputs);
    int64_t largest = 0;
    for (int x = 0; x < units.count; ++x) {
        all.add(x);
        one.add(x);
        largest = std::max(largest, one.bytes());
        one.remove();
    }
    const int64_t cap = all.bytes() / p.d + largest;

    DeviceFill fill(p, units, keepOutputs);
    std::vector<int> unitDevice(units.count, 0);
    bool fits = true;
    int current = 0;
    for (int x : units.order) {
        int placed = -1;
        if (fill.mayRun(current, x)) {
            for (int k = current; k < p.d && placed < 0; ++k)
                if (fill.tryAdd(k, x, cap, true)) placed = k;
            if (placed >= 0) current = placed;
        } else {
            for (int k = 0; k < p.d && placed < 0; ++k)
                if (fill.tryAdd(k, x, cap, true)) placed = k;
        }
        if (placed < 0) {  // no device has room within the cap: within its capacity, then anywhere
            for (int k = 0; k < p.d && placed < 0; ++k)
                if (fill.tryAdd(k, x, kNoCap, true)) placed = k;
        }
        if (placed < 0) {
            placed = fill.roomiest(x);
            fits = false;
        }
        unitDevice[x] = placed;
    }
    nlohmann::json info = {{"cap_bytes", cap}, {"fits", fits}, {"units", units.count}};
    return finishPartition(ctx, placementFromUnits(units, unitDevice, p.n), std::move(info));
}

SearchOutcome mEtfEngine(const SearchContext& ctx) {
    const ScheduleProblem& p = *ctx.problem;
    const Graph& g = ctx.graph;
    const int n = p.n, d = p.d;
    const bool keepOutputs = ctx.params.value("keep_outputs", true);
    const PartitionUnits units = buildPartitionUnits(p, g);

    // Inputs of each node: (producer, local tensor) for data, (producer, -1) for control.
    std::vector<std::vector<std::pair<int, int>>> inputs(n);
    for (int v = 0; v < n; ++v) {
        for (int j = p.inStart[v]; j < p.inStart[v + 1]; ++j) {
            const int t = p.inTensors[j];
            if (t < p.firstInput) inputs[v].push_back({p.tensorProducer[t], t});
        }
        for (int u : g.predecessors(v))
            if (std::none_of(inputs[v].begin(), inputs[v].end(), [&](auto& e) { return e.first == u; }))
                inputs[v].push_back({u, -1});
    }
    // Upward rank with mean costs, for ties.
    std::vector<double> rank(n, 0.0);
    const std::vector<int> topo = g.topologicalOrder();
    for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
        double mean = 0, below = 0;
        for (int k = 0; k < d; ++k) mean += p.opCost[size_t(*it) * d + k];
        for (int s : g.successors(*it)) below = std::max(below, rank[s]);
        rank[*it] = mean / d + below;
    }

    DeviceFill fill(p, units, keepOutputs);
    std::vector<int> unitDevice(units.count, -1), placement(n, 0), waiting(n);
    std::vector<double> finish(n, 0.0), deviceFree(d, 0.0);
    std::vector<int> ready;
    for (int v = 0; v < n; ++v) {
        waiting[v] = int(g.predecessors(v).size());
        if (!waiting[v]) ready.push_back(v);
    }
    auto startOn = [&](int v, int k) {
        double at = deviceFree[k];
        for (auto [u, t] : inputs[v]) {
            double arrive = finish[u];
            if (t >= 0 && placement[u] != k) arrive += p.transferS(t, placement[u], k);
            at = std::max(at, arrive);
        }
        return at;
    };
    bool fits = true;
    double makespan = 0;
    std::vector<int> order;
    while (!ready.empty()) {
        int bestV = -1, bestK = -1;
        double bestStart = 0;
        for (int v : ready) {
            const int x = units.unitOf[v];
            for (int k = 0; k < d; ++k) {
                if (unitDevice[x] >= 0 ? unitDevice[x] != k : !fill.tryAdd(k, x, kNoCap, false)) continue;
                const double s = startOn(v, k);
                const bool better = bestV < 0 || s < bestStart ||
                                    (s == bestStart && (rank[v] > rank[bestV] || (rank[v] == rank[bestV] && v < bestV)));
                if (better) bestV = v, bestK = k, bestStart = s;
            }
        }
        if (bestV < 0) {  // no ready op fits anywhere: the lowest one goes where there is most room
            bestV = *std::min_element(ready.begin(), ready.end());
            bestK = fill.roomiest(units.unitOf[bestV]);
            unitDevice[units.unitOf[bestV]] = bestK;
            bestStart = startOn(bestV, bestK);
            fits = false;
        } else if (unitDevice[units.unitOf[bestV]] < 0) {
            fill.tryAdd(bestK, units.unitOf[bestV], kNoCap, true);
            unitDevice[units.unitOf[bestV]] = bestK;
        }
        placement[bestV] = bestK;
        finish[bestV] = bestStart + p.opCost[size_t(bestV) * d + bestK];
        deviceFree[bestK] = finish[bestV];
        makespan = std::max(makespan, finish[bestV]);
        order.push_back(bestV);
        ready.erase(std::find(ready.begin(), ready.end(), bestV));
        for (int s : g.successors(bestV))
            if (--waiting[s] == 0) ready.push_back(s);
    }
    nlohmann::json info = {{"fits", fits}, {"etf_estimate_s", makespan}, {"units", units.count}};
    return finishPartition(ctx, placement, std::move(info), order);
}

}  // namespace graphopt
