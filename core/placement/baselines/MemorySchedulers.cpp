// Baselines for peak memory, after XLA's single-device memory schedulers (papers/REGAL.md,
// "Baselines"). Each computes one order, then runs it on each device in turn with every op on that
// device (bestSingleDevice), so no placement search happens: they show what scheduling alone buys.
//  - "list": greedy list scheduling; among ready ops pick the one with the largest
//    (bytes freed - bytes defined), where bytes freed counts inputs whose last unscheduled consumer
//    is this op (graph outputs are never freed) and bytes defined are its outputs. Ties: lower id.
//    XLA's ListScheduler also weighs buffers shared between outputs; we have no aliasing, so not.
//  - "dfs": depth-first post-order from the sinks, visiting the operands with the most extra users
//    (users beyond the first, summed over the operand's ancestors) and then the largest cumulative
//    bytes first, as XLA's DFSMemoryScheduler does; cumulative bytes over-count shared ancestors,
//    as XLA's do.
//  - "postorder": plain depth-first post-order from the sinks, operands in node id order.
//  - "xla-best": the best of the three under the run's objective.
#include <algorithm>
#include <limits>

#include "placement/PlacementEngines.h"

namespace graphopt {

std::vector<int> xlaListOrder(const ScheduleProblem& p) {
    const int n = p.n;
    std::vector<int> remaining(p.initialRemaining), usesLeft(p.numTensors), ready, order;
    for (int t = 0; t < p.numTensors; ++t) usesLeft[t] = p.consStart[t + 1] - p.consStart[t];
    for (int v = 0; v < n; ++v)
        if (remaining[v] == 0) ready.push_back(v);
    order.reserve(n);
    while (!ready.empty()) {
        size_t bestI = 0;
        int64_t bestScore = std::numeric_limits<int64_t>::min();
        for (size_t i = 0; i < ready.size(); ++i) {
            const int v = ready[i];
            int64_t score = -p.outBytes[v];
            for (int j = p.inStart[v]; j < p.inStart[v + 1]; ++j) {
                const int t = p.inTensors[j];
                if (usesLeft[t] == 1 && !p.tensorIsOutput[t]) score += p.tensorBytes[t];
            }
            if (score > bestScore || (score == bestScore && v < ready[bestI])) bestScore = score, bestI = i;
        }
        const int v = ready[bestI];
        ready[bestI] = ready.back();
        ready.pop_back();
        order.push_back(v);
        for (int j = p.inStart[v]; j < p.inStart[v + 1]; ++j) --usesLeft[p.inTensors[j]];
        for (int j = p.outStart[v]; j < p.outStart[v + 1]; ++j) {
            const int t = p.outTensors[j];
            for (int c = p.consStart[t]; c < p.consStart[t + 1]; ++c)
                if (--remaining[p.consNodes[c]] == 0) ready.push_back(p.consNodes[c]);
        }
        for (int j = p.ctrlStart[v]; j < p.ctrlStart[v + 1]; ++j)
            if (--remaining[p.ctrlSucc[j]] == 0) ready.push_back(p.ctrlSucc[j]);
    }
    return order;
}

namespace {
// Iterative depth-first post-order: each root, then each node's predecessors in `predOrder` order.
std::vector<int> dfsPostOrder(const Graph& g, const std::vector<int>& roots,
                              const std::vector<std::vector<int>>& predOrder) {
    const int n = static_cast<int>(g.nodeCount());
    std::vector<char> state(n, 0);  // 0 new, 1 on stack, 2 emitted
    std::vector<std::pair<int, size_t>> stack;
    std::vector<int> order;
    order.reserve(n);
    for (int r : roots) {
        if (state[r]) continue;
        stack.push_back({r, 0});
        state[r] = 1;
        while (!stack.empty()) {
            auto& [v, i] = stack.back();
            if (i < predOrder[v].size()) {
                const int u = predOrder[v][i++];
                if (!state[u]) {
                    state[u] = 1;
                    stack.push_back({u, 0});
                }
            } else {
                state[v] = 2;
                order.push_back(v);
                stack.pop_back();
            }
        }
    }
    return order;
}

std::vector<int> sinks(const Graph& g) {
    std::vector<int> r;
    for (int v = 0; v < int(g.nodeCount()); ++v)
        if (g.successors(v).empty()) r.push_back(v);
    return r;
}
}  // namespace

std::vector<int> xlaDfsOrder(const ScheduleProblem& p, const Graph& g) {
    const int n = p.n;
    std::vector<double> totalBytes(n, 0), extraUsers(n, 0);
    for (int v : g.topologicalOrder()) {
        totalBytes[v] = double(p.outBytes[v]);
        extraUsers[v] = std::max<double>(0, double(g.successors(v).size()) - 1);
        for (int u : g.predecessors(v)) {
            totalBytes[v] = std::min(1e300, totalBytes[v] + totalBytes[u]);
            extraUsers[v] = std::min(1e300, extraUsers[v] + extraUsers[u]);
        }
    }
    auto first = [&](int a, int b) {
        if (extraUsers[a] != extraUsers[b]) return extraUsers[a] > extraUsers[b];
        if (totalBytes[a] != totalBytes[b]) return totalBytes[a] > totalBytes[b];
        return a < b;
    };
    std::vector<std::vector<int>> predOrder(n);
    for (int v = 0; v < n; ++v) {
        predOrder[v] = g.predecessors(v);
        std::sort(predOrder[v].begin(), predOrder[v].end(), first);
    }
    std::vector<int> roots = sinks(g);
    std::sort(roots.begin(), roots.end(), first);
    return dfsPostOrder(g, roots, predOrder);
}

std::vector<int> postOrder(const Graph& g) {
    std::vector<std::vector<int>> predOrder(g.nodeCount());
    for (int v = 0; v < int(g.nodeCount()); ++v) predOrder[v] = g.predecessors(v);  // sorted by id
    return dfsPostOrder(g, sinks(g), predOrder);
}

SearchOutcome xlaListEngine(const SearchContext& ctx) { return bestSingleDevice(ctx, xlaListOrder(*ctx.problem)); }
SearchOutcome xlaDfsEngine(const SearchContext& ctx) { return bestSingleDevice(ctx, xlaDfsOrder(*ctx.problem, ctx.graph)); }
SearchOutcome xlaPostOrderEngine(const SearchContext& ctx) { return bestSingleDevice(ctx, postOrder(ctx.graph)); }

SearchOutcome xlaBestEngine(const SearchContext& ctx) {
    const char* names[] = {"list", "dfs", "postorder"};
    SearchOutcome outs[] = {xlaListEngine(ctx), xlaDfsEngine(ctx), xlaPostOrderEngine(ctx)};
    auto sim = ctx.makeSimulator();
    int best = 0;
    double bestCost = std::numeric_limits<double>::infinity();
    int64_t evals = 0;
    for (int i = 0; i < 3; ++i) {
        evals += outs[i].evaluations;
        const double c = sim->evaluate(outs[i].keys).cost;  // re-decoding a known chromosome: not counted
        if (c < bestCost) bestCost = c, best = i;
    }
    SearchOutcome out = std::move(outs[best]);
    out.evaluations = evals;
    out.info["scheduler"] = names[best];
    return out;
}

}  // namespace graphopt
