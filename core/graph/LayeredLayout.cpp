#include "graph/LayeredLayout.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <string>

namespace graphopt {

namespace {

struct Canceller {
    const std::function<bool()>& f;
    bool operator()() const { return f && f(); }
};

// Crossings between two adjacent ranks: edges as (upper position, lower position); after sorting
// by upper then lower position, every inversion of the lower positions is one crossing.
long crossingsBetween(std::vector<std::pair<int, int>>& ends, std::vector<int>& fenwick, int lowerSize) {
    std::sort(ends.begin(), ends.end());
    fenwick.assign(static_cast<size_t>(lowerSize) + 1, 0);
    long crossings = 0, seen = 0;
    for (const auto& [upper, lower] : ends) {
        long notGreater = 0;  // earlier edges ending at or left of `lower`
        for (int i = lower + 1; i > 0; i -= i & -i) notGreater += fenwick[static_cast<size_t>(i)];
        crossings += seen - notGreater;
        for (int i = lower + 1; i <= lowerSize; i += i & -i) ++fenwick[static_cast<size_t>(i)];
        ++seen;
    }
    return crossings;
}

// Least-squares positions for one rank: minimise sum (x_i - want_i)^2 subject to
// x_{i+1} - x_i >= gap_i. With y_i = x_i - (gap_0 + ... + gap_{i-1}) the constraint is y
// nondecreasing, which pool-adjacent-violators solves exactly in linear time.
void projectRank(const std::vector<double>& want, const std::vector<double>& gap, std::vector<double>& x) {
    const size_t n = want.size();
    std::vector<double> offset(n, 0.0);
    for (size_t i = 1; i < n; ++i) offset[i] = offset[i - 1] + gap[i - 1];
    struct Block {
        double sum;
        int count;
        double mean() const { return sum / count; }
    };
    std::vector<Block> blocks;
    blocks.reserve(n);
    for (size_t i = 0; i < n; ++i) {
        blocks.push_back({want[i] - offset[i], 1});
        while (blocks.size() > 1 && blocks[blocks.size() - 2].mean() > blocks.back().mean()) {
            blocks[blocks.size() - 2].sum += blocks.back().sum;
            blocks[blocks.size() - 2].count += blocks.back().count;
            blocks.pop_back();
        }
    }
    x.resize(n);
    size_t i = 0;
    for (const Block& b : blocks)
        for (int k = 0; k < b.count; ++k, ++i) x[i] = b.mean() + offset[i];
}

// Phases 1 and 2, and which edges become stubs: what the layered layout and dot's input share.
struct Ranked {
    std::vector<char> reversed;               // per input edge
    std::vector<std::pair<int, int>> pairs;   // oriented, deduplicated
    std::vector<int> pairOfEdge;              // per input edge; -1 for a self loop
    std::vector<std::vector<int>> succ, pred; // over pairs
    std::vector<int> topo, rank;
    int ranks = 0;
    std::vector<char> stubbed;                // per pair
};

Ranked rankGraph(const LayeredInput& input, const LayeredOptions& options) {
    const int n = static_cast<int>(input.sizes.size());
    // --- 1. orientation: reverse DFS back edges ---------------------------------------------------
    std::vector<std::vector<int>> out(static_cast<size_t>(n));  // edge indices by source
    for (size_t e = 0; e < input.edges.size(); ++e) {
        const auto [a, b] = input.edges[e];
        if (a < 0 || b < 0 || a >= n || b >= n) throw std::runtime_error("layered layout: edge to a node that does not exist");
        if (a != b) out[a].push_back(static_cast<int>(e));
    }
    std::vector<char> reversed(input.edges.size(), 0), state(static_cast<size_t>(n), 0);  // 0 new, 1 on stack, 2 done
    {
        std::vector<std::pair<int, size_t>> stack;
        for (int root = 0; root < n; ++root) {
            if (state[root]) continue;
            stack.push_back({root, 0});
            state[root] = 1;
            while (!stack.empty()) {
                auto& [v, next] = stack.back();
                if (next < out[v].size()) {
                    const int e = out[v][next++];
                    const int w = input.edges[e].second;
                    if (state[w] == 1) reversed[e] = 1;
                    else if (state[w] == 0) {
                        state[w] = 1;
                        stack.push_back({w, 0});
                    }
                } else {
                    state[v] = 2;
                    stack.pop_back();
                }
            }
        }
    }
    // Oriented, deduplicated pairs; each input edge maps to its pair.
    std::vector<std::pair<int, int>> pairs;
    std::vector<int> pairOfEdge(input.edges.size(), -1);
    {
        std::vector<std::pair<std::pair<int, int>, int>> keyed;
        for (size_t e = 0; e < input.edges.size(); ++e) {
            auto [a, b] = input.edges[e];
            if (a == b) continue;
            if (reversed[e]) std::swap(a, b);
            keyed.push_back({{a, b}, static_cast<int>(e)});
        }
        std::sort(keyed.begin(), keyed.end());
        for (const auto& [ab, e] : keyed) {
            if (pairs.empty() || pairs.back() != ab) pairs.push_back(ab);
            pairOfEdge[e] = static_cast<int>(pairs.size()) - 1;
        }
    }

    // --- 2. layering ------------------------------------------------------------------------------
    std::vector<std::vector<int>> succ(static_cast<size_t>(n)), pred(static_cast<size_t>(n));
    for (const auto& [a, b] : pairs) {
        succ[a].push_back(b);
        pred[b].push_back(a);
    }
    std::vector<int> topo;
    topo.reserve(static_cast<size_t>(n));
    {
        std::vector<int> indeg(static_cast<size_t>(n));
        for (int v = 0; v < n; ++v) indeg[v] = static_cast<int>(pred[v].size());
        for (int v = 0; v < n; ++v)
            if (indeg[v] == 0) topo.push_back(v);
        for (size_t i = 0; i < topo.size(); ++i)
            for (int w : succ[topo[i]])
                if (--indeg[w] == 0) topo.push_back(w);
    }
    std::vector<int> rank(static_cast<size_t>(n), 0);
    for (int v : topo)
        for (int w : succ[v]) rank[w] = std::max(rank[w], rank[v] + 1);
    for (auto it = topo.rbegin(); it != topo.rend(); ++it) {  // sources next to their first consumer
        const int v = *it;
        if (!pred[v].empty() || succ[v].empty()) continue;
        int lowest = rank[succ[v][0]];
        for (int w : succ[v]) lowest = std::min(lowest, rank[w]);
        rank[v] = lowest - 1;
    }
    const int ranks = n == 0 ? 0 : *std::max_element(rank.begin(), rank.end()) + 1;

    // Stubs: long edges out of nodes that feed many others take no part in ordering or positions.
    std::vector<char> stubbed(pairs.size(), 0);
    if (options.stubFanOut > 0)
        for (size_t p = 0; p < pairs.size(); ++p) {
            const auto [a, b] = pairs[p];
            stubbed[p] = static_cast<int>(succ[a].size()) >= options.stubFanOut && rank[b] - rank[a] >= options.stubSpan;
        }
    // A bend per rank crossed can explode on graphs with many long edges (a chain of thousands
    // with skips across it): past the cap the longest edges become stubs, longest first.
    {
        std::vector<std::pair<int, size_t>> routed;  // (span, pair)
        long bends = 0;
        for (size_t p = 0; p < pairs.size(); ++p)
            if (!stubbed[p]) {
                const int span = rank[pairs[p].second] - rank[pairs[p].first];
                bends += span - 1;
                if (span > 1) routed.push_back({span, p});
            }
        if (bends > options.maxBends) {
            std::sort(routed.begin(), routed.end(), std::greater<>());
            for (const auto& [span, p] : routed) {
                if (bends <= options.maxBends) break;
                stubbed[p] = 1;
                bends -= span - 1;
            }
        }
    }

    return {std::move(reversed), std::move(pairs), std::move(pairOfEdge), std::move(succ), std::move(pred),
            std::move(topo), std::move(rank), ranks, std::move(stubbed)};
}

}  // namespace

std::vector<char> stubbedEdges(const LayeredInput& input, const LayeredOptions& options) {
    const Ranked r = rankGraph(input, options);
    std::vector<char> out(input.edges.size(), 0);
    for (size_t e = 0; e < input.edges.size(); ++e)
        if (r.pairOfEdge[e] >= 0) out[e] = r.stubbed[static_cast<size_t>(r.pairOfEdge[e])];
    return out;
}

LayeredInput nodeGraphInput(const Graph& g) {
    LayeredInput in;
    in.sizes.reserve(g.nodeCount());
    for (const Node& node : g.nodes()) in.sizes.push_back(nodeBoxSize(node));
    for (int v = 0; v < static_cast<int>(g.nodeCount()); ++v)
        for (int w : g.successors(v)) in.edges.emplace_back(v, w);
    return in;
}

GraphLayout layeredLayout(const LayeredInput& input, const LayeredOptions& options,
                          const std::function<bool()>& cancelledFn) {
    const Canceller cancelled{cancelledFn};
    const bool sideways = options.direction == LayoutOptions::Direction::LeftToRight;
    const int n = static_cast<int>(input.sizes.size());
    // Lay out top to bottom; a left-to-right layout is the same with the axes swapped.
    std::vector<double> width(static_cast<size_t>(n)), height(static_cast<size_t>(n));
    for (int v = 0; v < n; ++v) {
        width[v] = sideways ? input.sizes[v].second : input.sizes[v].first;
        height[v] = sideways ? input.sizes[v].first : input.sizes[v].second;
    }

    if (cancelled()) return {};
    Ranked ranked = rankGraph(input, options);
    const auto& reversed = ranked.reversed;
    const auto& pairs = ranked.pairs;
    const auto& pairOfEdge = ranked.pairOfEdge;
    const auto& topo = ranked.topo;
    const auto& rank = ranked.rank;
    const int ranks = ranked.ranks;
    const auto& stubbed = ranked.stubbed;
    if (cancelled()) return {};

    // --- 3. dummies ---------------------------------------------------------------------------------
    // Layered nodes: 0..n-1 real, then dummies. `chain[p]` is the pair's path of layered nodes.
    constexpr double kDummyWidth = 6;
    std::vector<int> lrank(rank.begin(), rank.end());
    std::vector<double> lwidth(width.begin(), width.end());
    std::vector<std::vector<int>> up(static_cast<size_t>(n)), down(static_cast<size_t>(n));
    std::vector<std::vector<int>> chain(pairs.size());
    for (size_t p = 0; p < pairs.size(); ++p) {
        if (stubbed[p]) continue;
        const auto [a, b] = pairs[p];
        int prev = a;
        chain[p].push_back(a);
        for (int r = rank[a] + 1; r < rank[b]; ++r) {
            const int d = static_cast<int>(lrank.size());
            lrank.push_back(r);
            lwidth.push_back(kDummyWidth);
            up.emplace_back();
            down.emplace_back();
            down[prev].push_back(d);
            up[d].push_back(prev);
            chain[p].push_back(d);
            prev = d;
        }
        down[prev].push_back(b);
        up[b].push_back(prev);
        chain[p].push_back(b);
    }
    const int total = static_cast<int>(lrank.size());
    if (cancelled()) return {};

    // --- 4. ordering --------------------------------------------------------------------------------
    // Initial order: DFS preorder from the sources, so a branch's boxes start side by side.
    std::vector<std::vector<int>> layers(static_cast<size_t>(ranks));
    {
        std::vector<char> seen(static_cast<size_t>(total), 0);
        std::vector<int> stack;
        auto visitFrom = [&](int root) {
            if (seen[root]) return;
            stack.push_back(root);
            seen[root] = 1;
            while (!stack.empty()) {
                const int v = stack.back();
                stack.pop_back();
                layers[lrank[v]].push_back(v);
                for (auto it = down[v].rbegin(); it != down[v].rend(); ++it)
                    if (!seen[*it]) {
                        seen[*it] = 1;
                        stack.push_back(*it);
                    }
            }
        };
        for (int v : topo)
            if (up[v].empty()) visitFrom(v);
        for (int v = 0; v < total; ++v) visitFrom(v);
    }
    std::vector<int> pos(static_cast<size_t>(total));
    auto renumber = [&](int r) {
        for (size_t i = 0; i < layers[r].size(); ++i) pos[layers[r][i]] = static_cast<int>(i);
    };
    for (int r = 0; r < ranks; ++r) renumber(r);
    std::vector<int> fenwick;
    std::vector<std::pair<int, int>> ends;
    auto countCrossings = [&] {
        long c = 0;
        for (int r = 0; r + 1 < ranks; ++r) {
            ends.clear();
            for (int v : layers[r])
                for (int w : down[v]) ends.push_back({pos[v], pos[w]});
            c += crossingsBetween(ends, fenwick, static_cast<int>(layers[r + 1].size()));
        }
        return c;
    };
    long best = countCrossings();
    std::vector<std::vector<int>> bestLayers = layers;
    std::vector<double> key;
    std::vector<int> tmp;
    for (int sweep = 0; sweep < options.orderingSweeps && best > 0; ++sweep) {
        if (cancelled()) return {};
        const bool goingDown = sweep % 2 == 0;
        for (int step = 1; step < ranks; ++step) {
            const int r = goingDown ? step : ranks - 1 - step;
            auto& layer = layers[r];
            key.resize(static_cast<size_t>(total));
            for (int v : layer) {
                const auto& nb = goingDown ? up[v] : down[v];
                if (nb.empty()) {
                    key[v] = pos[v];
                    continue;
                }
                double s = 0;
                for (int w : nb) s += pos[w];
                // Scaled to this rank's positions so nodes without neighbours keep their place.
                key[v] = s / static_cast<double>(nb.size());
            }
            // Neighbour positions live in the other rank; rescale them onto this rank's range.
            const auto& other = layers[goingDown ? r - 1 : r + 1];
            const double scale = other.size() > 1 ? static_cast<double>(layer.size() - 1) / static_cast<double>(other.size() - 1) : 1.0;
            for (int v : layer)
                if (!(goingDown ? up[v] : down[v]).empty()) key[v] *= scale;
            tmp = layer;
            std::stable_sort(tmp.begin(), tmp.end(), [&](int a, int b) { return key[a] < key[b]; });
            layer.swap(tmp);
            renumber(r);
        }
        const long c = countCrossings();
        if (c < best) {
            best = c;
            bestLayers = layers;
        }
    }
    layers.swap(bestLayers);
    for (int r = 0; r < ranks; ++r) renumber(r);

    // --- 5. x positions -----------------------------------------------------------------------------
    std::vector<double> x(static_cast<size_t>(total), 0.0);
    std::vector<std::vector<double>> gaps(static_cast<size_t>(ranks));
    for (int r = 0; r < ranks; ++r) {
        const auto& layer = layers[r];
        double at = 0;
        for (size_t i = 0; i < layer.size(); ++i) {
            if (i > 0) {
                const double g = (lwidth[layer[i - 1]] + lwidth[layer[i]]) / 2 + options.nodeSep;
                gaps[r].push_back(g);
                at += g;
            }
            x[layer[i]] = at;
        }
    }
    // Centre every rank on the widest one before pulling.
    {
        double widest = 0;
        for (int r = 0; r < ranks; ++r)
            if (!layers[r].empty()) widest = std::max(widest, x[layers[r].back()]);
        for (int r = 0; r < ranks; ++r)
            if (!layers[r].empty()) {
                const double shift = (widest - x[layers[r].back()]) / 2;
                for (int v : layers[r]) x[v] += shift;
            }
    }
    std::vector<double> want, placed;
    for (int sweep = 0; sweep < options.positionSweeps; ++sweep) {
        if (cancelled()) return {};
        const int kind = sweep % 3;  // 0: towards predecessors, 1: successors, 2: both
        const bool goingDown = kind != 1;
        for (int step = 0; step < ranks; ++step) {
            const int r = goingDown ? step : ranks - 1 - step;
            const auto& layer = layers[r];
            want.resize(layer.size());
            for (size_t i = 0; i < layer.size(); ++i) {
                const int v = layer[i];
                double s = 0;
                int c = 0;
                if (kind != 1)
                    for (int w : up[v]) s += x[w], ++c;
                if (kind != 0)
                    for (int w : down[v]) s += x[w], ++c;
                want[i] = c ? s / c : x[v];
            }
            projectRank(want, gaps[r], placed);
            for (size_t i = 0; i < layer.size(); ++i) x[layer[i]] = placed[i];
        }
    }

    // --- 6. coordinates and routes ------------------------------------------------------------------
    constexpr double kMargin = 4;
    double left = 0, right = 0;
    bool any = false;
    for (int v = 0; v < total; ++v) {
        const double half = lwidth[v] / 2;
        if (!any || x[v] - half < left) left = x[v] - half;
        if (!any || x[v] + half > right) right = x[v] + half;
        any = true;
    }
    std::vector<double> rankY(static_cast<size_t>(ranks), 0.0), rankH(static_cast<size_t>(ranks), 0.0);
    for (int v = 0; v < n; ++v) rankH[rank[v]] = std::max(rankH[rank[v]], height[v]);
    double at = kMargin;
    for (int r = 0; r < ranks; ++r) {
        rankY[r] = at + rankH[r] / 2;
        at += rankH[r] + options.rankSep;
    }
    const double drawingHeight = ranks ? at - options.rankSep + kMargin : 0;
    const double drawingWidth = any ? right - left + 2 * kMargin : 0;
    auto px = [&](int v) { return x[v] - left + kMargin; };

    GraphLayout outLayout;
    constexpr double kStubLength = 14, kStubSpacing = 7;
    int stubs = 0;
    std::vector<int> stubsInto(static_cast<size_t>(n), 0), stubIndex(input.edges.size(), 0);
    for (size_t e = 0; e < input.edges.size(); ++e)
        if (pairOfEdge[e] >= 0 && stubbed[static_cast<size_t>(pairOfEdge[e])])
            stubIndex[e] = stubsInto[input.edges[e].second]++;
    outLayout.nodes.resize(static_cast<size_t>(n));
    for (int v = 0; v < n; ++v) outLayout.nodes[v] = {px(v), rankY[rank[v]], width[v], height[v]};
    for (size_t e = 0; e < input.edges.size(); ++e) {
        if (pairOfEdge[e] < 0) continue;  // self loop
        EdgeRoute route;
        route.src = input.edges[e].first;
        route.dst = input.edges[e].second;
        route.bezier = false;
        const size_t p = static_cast<size_t>(pairOfEdge[e]);
        if (stubbed[p]) {  // a short segment into the consumer (its top, or its bottom when reversed)
            const int to = input.edges[e].second;
            const double sign = reversed[e] ? 1.0 : -1.0;
            const double edgeY = rankY[rank[to]] + sign * height[to] / 2;
            // Side by side when several stubs enter one box.
            const double x = px(to) + (stubIndex[e] - (stubsInto[to] - 1) / 2.0) * kStubSpacing;
            route.points = {{x, edgeY + sign * kStubLength}, {x, edgeY}};
            route.stub = true;
            outLayout.edges.push_back(std::move(route));
            ++stubs;
            continue;
        }
        const auto& path = chain[p];
        for (size_t k = 0; k < path.size(); ++k) {
            const int v = path[k];
            double y = rankY[lrank[v]];
            if (k == 0) y += height[v] / 2;               // leaves the bottom of the upper box
            if (k + 1 == path.size()) y -= height[v] / 2;  // enters the top of the lower box
            route.points.push_back({px(v), y});
        }
        if (reversed[e]) std::reverse(route.points.begin(), route.points.end());
        outLayout.edges.push_back(std::move(route));
    }
    outLayout.width = drawingWidth;
    outLayout.height = drawingHeight;
    if (sideways) {
        std::swap(outLayout.width, outLayout.height);
        for (NodeBox& b : outLayout.nodes) {
            std::swap(b.x, b.y);
            std::swap(b.width, b.height);
        }
        for (EdgeRoute& r : outLayout.edges)
            for (LayoutPoint& p : r.points) std::swap(p.x, p.y);
    }
    outLayout.settings = "fast layered layout: " + std::to_string(ranks) + " ranks, " + std::to_string(total - n) +
                         " bends, " + std::to_string(stubs) + " stubs, " + std::to_string(best) + " crossings";
    return outLayout;
}

GraphLayout layoutGraphFast(const Graph& g, const LayoutOptions& options, const std::function<bool()>& cancelled) {
    const LayeredInput in = nodeGraphInput(g);
    LayeredOptions lo;
    lo.direction = options.direction;
    return layeredLayout(in, lo, cancelled);
}

}  // namespace graphopt
