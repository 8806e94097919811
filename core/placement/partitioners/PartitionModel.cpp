#include "placement/partitioners/PartitionModel.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <queue>
#include <stdexcept>

namespace graphopt {

namespace {

// Strongly connected components of a graph given as adjacency lists (iterative Tarjan); returns
// the component of each vertex.
std::vector<int> strongComponents(const std::vector<std::vector<int>>& succ) {
    const int n = int(succ.size());
    std::vector<int> index(n, -1), low(n, 0), comp(n, -1), stack;
    std::vector<uint8_t> onStack(n, 0);
    int next = 0, comps = 0;
    struct Frame {
        int v;
        size_t child;
    };
    std::vector<Frame> frames;
    for (int root = 0; root < n; ++root) {
        if (index[root] >= 0) continue;
        frames.push_back({root, 0});
        index[root] = low[root] = next++;
        stack.push_back(root);
        onStack[root] = 1;
        while (!frames.empty()) {
            Frame& f = frames.back();
            if (f.child < succ[f.v].size()) {
                const int w = succ[f.v][f.child++];
                if (index[w] < 0) {
                    index[w] = low[w] = next++;
                    stack.push_back(w);
                    onStack[w] = 1;
                    frames.push_back({w, 0});
                } else if (onStack[w]) {
                    low[f.v] = std::min(low[f.v], index[w]);
                }
                continue;
            }
            const int v = f.v;
            frames.pop_back();
            if (!frames.empty()) low[frames.back().v] = std::min(low[frames.back().v], low[v]);
            if (low[v] == index[v]) {
                int w;
                do {
                    w = stack.back();
                    stack.pop_back();
                    onStack[w] = 0;
                    comp[w] = comps;
                } while (w != v);
                ++comps;
            }
        }
    }
    return comp;
}

void addUnique(std::vector<int>& v, int x) {
    if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

}  // namespace

PartitionUnits buildPartitionUnits(const ScheduleProblem& p, const Graph& g) {
    const int n = p.n;
    const auto& nodes = g.nodes();
    PartitionUnits u;
    // The training structure holds only when no backward node feeds a forward one; otherwise
    // every node counts as forward (and the edges alone order the units).
    std::vector<uint8_t> backward(n, 0);
    for (int v = 0; v < n; ++v) backward[v] = nodes[v].isBackward;
    for (int v = 0; v < n && u.backwardToForward.empty(); ++v)
        for (int x : g.predecessors(v))
            if (backward[x] && !backward[v]) {
                u.backwardToForward = nodes[x].name + " -> " + nodes[v].name;
                break;
            }
    if (!u.backwardToForward.empty()) std::fill(backward.begin(), backward.end(), 0);
    // Groups: the forward nodes of a colocation class (a node without a class is one), with the
    // class's backward nodes riding along; a class with only backward nodes is a group of its own.
    std::vector<int> groupOf(n, -1), forwardGroupOfClass(n, -1), backwardGroupOfClass(n, -1);
    int groups = 0;
    std::vector<uint8_t> orphan;
    for (int v = 0; v < n; ++v) {
        const int cls = p.colocatedWith[v];
        if (!backward[v] && forwardGroupOfClass[cls] < 0) {
            forwardGroupOfClass[cls] = groups++;
            orphan.push_back(0);
        }
    }
    for (int v = 0; v < n; ++v) {
        const int cls = p.colocatedWith[v];
        if (forwardGroupOfClass[cls] >= 0) {
            groupOf[v] = forwardGroupOfClass[cls];
        } else {
            if (backwardGroupOfClass[cls] < 0) {
                backwardGroupOfClass[cls] = groups++;
                orphan.push_back(1);
            }
            groupOf[v] = backwardGroupOfClass[cls];
        }
    }
    // Order constraints between groups: forward -> forward edges, and the reversed backward edges
    // that touch a backward-only group.
    std::vector<std::vector<int>> succ(groups);
    for (int v = 0; v < n; ++v) {
        for (int x : g.predecessors(v)) {
            const int gx = groupOf[x], gv = groupOf[v];
            if (gx == gv) continue;
            if (!backward[x] && !backward[v])
                addUnique(succ[gx], gv);
            else if (backward[x] && backward[v] && (orphan[gx] || orphan[gv]))
                addUnique(succ[gv], gx);
        }
    }
    // Groups on a cycle of constraints become one unit; units are numbered by their lowest node.
    const std::vector<int> comp = strongComponents(succ);
    std::vector<int> unitOfComp(groups, -1);
    u.unitOf.assign(n, -1);
    for (int v = 0; v < n; ++v) {
        int& unit = unitOfComp[comp[groupOf[v]]];
        if (unit < 0) {
            unit = u.count++;
            u.members.emplace_back();
        }
        u.unitOf[v] = unit;
        u.members[unit].push_back(v);
    }
    u.preds.assign(u.count, {});
    for (int a = 0; a < groups; ++a)
        for (int b : succ[a]) {
            const int ua = unitOfComp[comp[a]], ub = unitOfComp[comp[b]];
            if (ua != ub) addUnique(u.preds[ub], ua);
        }
    for (auto& ps : u.preds) std::sort(ps.begin(), ps.end());
    // A topological order of the units, the lowest-numbered ready unit first.
    std::vector<int> waiting(u.count);
    std::vector<std::vector<int>> after(u.count);
    for (int x = 0; x < u.count; ++x) {
        waiting[x] = int(u.preds[x].size());
        for (int y : u.preds[x]) after[y].push_back(x);
    }
    std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
    for (int x = 0; x < u.count; ++x)
        if (!waiting[x]) ready.push(x);
    while (!ready.empty()) {
        const int x = ready.top();
        ready.pop();
        u.order.push_back(x);
        for (int y : after[x])
            if (--waiting[y] == 0) ready.push(y);
    }
    return u;
}

std::vector<DeviceClass> deviceClasses(const ScheduleProblem& p) {
    std::vector<DeviceClass> classes;
    auto same = [&](int a, int b) {
        if (p.capacity[a] != p.capacity[b] || p.paysTransfers[a] != p.paysTransfers[b]) return false;
        for (int v = 0; v < p.n; ++v)
            if (p.opCost[size_t(v) * p.d + a] != p.opCost[size_t(v) * p.d + b] || p.allowed(v, a) != p.allowed(v, b))
                return false;
        return true;
    };
    for (int k = 0; k < p.d; ++k) {
        auto it = std::find_if(classes.begin(), classes.end(), [&](const DeviceClass& c) { return same(c.rep(), k); });
        if (it == classes.end())
            classes.push_back({{k}});
        else
            it->devices.push_back(k);
    }
    return classes;
}

BlockLoads::BlockLoads(const ScheduleProblem& p, const PartitionUnits& units, std::vector<DeviceClass> classes,
                       double headroom, bool ignoreMemory, bool keepOutputs)
    : classes_(std::move(classes)), C_(int(classes_.size())), ignoreMemory_(ignoreMemory) {
    const int U = units.count;
    unitCompute_.assign(size_t(U) * C_, 0.0);
    unitAllowed_.assign(size_t(U) * C_, 1);
    unitBytes_.assign(U, 0);
    unitWorking_.assign(U, 0);
    for (int v = 0; v < p.n; ++v) {
        const int x = units.unitOf[v];
        for (int c = 0; c < C_; ++c) {
            const int k = classes_[c].rep();
            unitCompute_[size_t(x) * C_ + c] += p.opCost[size_t(v) * p.d + k];
            if (!p.allowed(v, k)) unitAllowed_[size_t(x) * C_ + c] = 0;
        }
        unitBytes_[x] += p.residentBytes[v];
        if (keepOutputs) {
            unitBytes_[x] += p.outBytes[v];
            continue;
        }
        int64_t working = p.tempBytes[v] + p.outBytes[v];
        for (int j = p.inStart[v]; j < p.inStart[v + 1]; ++j) working += p.tensorBytes[p.inTensors[j]];
        unitWorking_[x] = std::max(unitWorking_[x], working);
    }
    unitShared_.assign(U, {});
    auto share = [&](int64_t bytes, std::vector<int> us) {
        if (us.size() == 1) {
            unitBytes_[us[0]] += bytes;
        } else if (!us.empty()) {
            for (int x : us) unitShared_[x].push_back(int(shared_.size()));
            shared_.push_back({bytes, std::move(us)});
        }
    };
    if (keepOutputs)  // graph inputs, once on each device that reads them
        for (int t = p.firstInput; t < p.numTensors; ++t) {
            std::vector<int> us;
            for (int i = p.consStart[t]; i < p.consStart[t + 1]; ++i) addUnique(us, units.unitOf[p.consNodes[i]]);
            share(p.tensorBytes[t], std::move(us));
        }
    if (p.options.countWeights) {
        for (size_t w = 0; w < p.weightBytes.size(); ++w) {
            std::vector<int> us;
            for (int j = p.weightStart[w]; j < p.weightStart[w + 1]; ++j) addUnique(us, units.unitOf[p.weightNodes[j]]);
            share(p.weightBytes[w], std::move(us));
        }
    }
    usable_.resize(C_);
    paysTransfers_.resize(C_);
    for (int c = 0; c < C_; ++c) {
        const int k = classes_[c].rep();
        usable_[c] = int64_t(double(p.capacity[k]) * (1.0 - headroom));
        paysTransfers_[c] = p.paysTransfers[k];
    }
    unitCrossings_.assign(U, {});
    for (int t = 0; t < p.firstInput; ++t) {
        const int from = units.unitOf[p.tensorProducer[t]];
        std::vector<int> us = {from};
        for (int i = p.consStart[t]; i < p.consStart[t + 1]; ++i) addUnique(us, units.unitOf[p.consNodes[i]]);
        if (us.size() < 2) continue;
        Crossing cr{from, int(us.size()), keepOutputs ? p.tensorBytes[t] : 0, std::vector<double>(C_, 0.0)};
        for (int c = 0; c < C_; ++c) {
            const int a = classes_[c].rep();
            for (int b = 0; b < p.d; ++b)
                if (b != a) cr.seconds[c] = std::max(cr.seconds[c], p.transferS(t, a, b));
        }
        for (int x : us) unitCrossings_[x].push_back(int(crossings_.size()));
        crossings_.push_back(std::move(cr));
    }
    crossingIn_.assign(crossings_.size(), 0);
    sharedIn_.assign(shared_.size(), 0);
    inSet_.assign(U, 0);
    clear();
}

void BlockLoads::clear() {
    while (!stack_.empty()) remove();
    compute_.assign(C_, 0.0);
    transfer_.assign(C_, 0.0);
    outgoing_.assign(C_, 0.0);
    disallowed_.assign(C_, 0);
    bytes_ = 0;
}

void BlockLoads::count(int unit, int delta) {
    steps_ += int64_t(C_) * (1 + int64_t(unitCrossings_[unit].size())) + int64_t(unitShared_[unit].size()) + 1;
    for (int c = 0; c < C_; ++c) {
        compute_[c] += delta * unitCompute_[size_t(unit) * C_ + c];
        if (!unitAllowed_[size_t(unit) * C_ + c]) disallowed_[c] += delta;
    }
    bytes_ += delta * unitBytes_[unit];
    for (int s : unitShared_[unit]) {
        if (delta > 0 && sharedIn_[s]++ == 0) bytes_ += shared_[s].bytes;
        if (delta < 0 && --sharedIn_[s] == 0) bytes_ -= shared_[s].bytes;
    }
    for (int i : unitCrossings_[unit]) {
        const Crossing& cr = crossings_[i];
        const int before = crossingIn_[i];
        const int after = before + delta;
        crossingIn_[i] = after;
        // Mixed (some of its units inside, some outside): the block pays the transfer once.
        const bool wasMixed = before > 0 && before < cr.size, isMixed = after > 0 && after < cr.size;
        // The producer inside before and after; leaving the block: the producer inside, some
        // consumer outside; entering it: the producer outside, some consumer inside.
        const bool producerIn = inSet_[cr.producer] != 0;
        const bool pBefore = unit == cr.producer ? delta < 0 : producerIn;
        const bool pAfter = unit == cr.producer ? delta > 0 : producerIn;
        const bool wasOut = pBefore && before < cr.size, isOut = pAfter && after < cr.size;
        const bool wasIn = !pBefore && before > 0, isIn = !pAfter && after > 0;
        if (wasIn != isIn) bytes_ += (isIn ? 1 : -1) * cr.heldBytes;
        for (int c = 0; c < C_; ++c) {
            if (wasMixed != isMixed) transfer_[c] += (isMixed ? 1 : -1) * cr.seconds[c];
            if (wasOut != isOut) outgoing_[c] += (isOut ? 1 : -1) * cr.seconds[c];
        }
    }
}

void BlockLoads::add(int unit) {
    // inSet_ changes after count() so that count() sees the producer's old membership.
    count(unit, +1);
    inSet_[unit] = 1;
    stack_.push_back(unit);
    working_.push_back(std::max(working_.empty() ? 0 : working_.back(), unitWorking_[unit]));
}

void BlockLoads::remove() {
    const int unit = stack_.back();
    stack_.pop_back();
    working_.pop_back();
    count(unit, -1);
    inSet_[unit] = 0;
    if (stack_.empty()) {  // no drift from adding and subtracting the same seconds
        std::fill(compute_.begin(), compute_.end(), 0.0);
        std::fill(transfer_.begin(), transfer_.end(), 0.0);
        std::fill(outgoing_.begin(), outgoing_.end(), 0.0);
    }
}

double BlockLoads::load(int c) const {
    if (!allowed(c) || !fits(c)) return kInfeasible;
    return compute_[c] + transferS(c);
}

std::vector<int> placementFromUnits(const PartitionUnits& units, std::span<const int> unitDevice, int nodes) {
    std::vector<int> placement(nodes, 0);
    for (int v = 0; v < nodes; ++v) placement[v] = unitDevice[units.unitOf[v]];
    return placement;
}

}  // namespace graphopt
