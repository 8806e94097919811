#include "placement/partitioners/ChainDp.h"

#include <algorithm>
#include <bit>

#include "run/Rng.h"

namespace graphopt {

namespace {

// Open-addressing set of ideals keyed by a Zobrist hash (the xor of a random word per unit), so
// that adding a unit to an ideal updates its hash in O(1).
class IdealTable {
public:
    IdealTable(const IdealLattice& l) : l_(l) { slots_.assign(1024, -1); }

    int find(const uint64_t* bits, uint64_t hash) const {
        for (size_t i = hash & (slots_.size() - 1);; i = (i + 1) & (slots_.size() - 1)) {
            const int id = slots_[i];
            if (id < 0) return -1;
            if (hashes_[id] == hash && std::equal(bits, bits + l_.words, l_.bits.data() + size_t(id) * l_.words))
                return id;
        }
    }
    void insert(int id, uint64_t hash) {
        hashes_.push_back(hash);
        if (hashes_.size() * 2 > slots_.size()) {
            slots_.assign(slots_.size() * 2, -1);
            for (int j = 0; j < int(hashes_.size()) - 1; ++j) place(j);
        }
        place(id);
    }
    uint64_t hash(int id) const { return hashes_[id]; }

private:
    void place(int id) {
        size_t i = hashes_[id] & (slots_.size() - 1);
        while (slots_[i] >= 0) i = (i + 1) & (slots_.size() - 1);
        slots_[i] = id;
    }
    const IdealLattice& l_;
    std::vector<int> slots_;
    std::vector<uint64_t> hashes_;
};

bool has(const uint64_t* bits, int unit) { return (bits[unit >> 6] >> (unit & 63)) & 1; }

}  // namespace

LatticeStatus enumerateIdeals(const PartitionUnits& units, int64_t maxIdeals,
                              std::chrono::steady_clock::time_point deadline, const std::function<bool()>& cancelled,
                              IdealLattice& l) {
    const int U = units.count;
    l = IdealLattice{};
    l.words = std::max(1, (U + 63) / 64);
    std::vector<uint64_t> zobrist(U);
    Rng rng(0x1dea15);
    for (auto& z : zobrist) z = rng.next();
    IdealTable table(l);
    l.bits.assign(l.words, 0);
    l.cardinality.push_back(0);
    l.subs.emplace_back();
    table.insert(0, 0);
    std::vector<uint64_t> next(l.words);
    for (int id = 0; id < l.size(); ++id) {
        if ((id & 255) == 0) {
            if (cancelled && cancelled()) return LatticeStatus::Cancelled;
            if (std::chrono::steady_clock::now() > deadline) return LatticeStatus::OutOfTime;
        }
        for (int v = 0; v < U; ++v) {
            const uint64_t* cur = l.bits.data() + size_t(id) * l.words;
            if (has(cur, v)) continue;
            bool ready = true;
            for (int u : units.preds[v])
                if (!has(cur, u)) {
                    ready = false;
                    break;
                }
            if (!ready) continue;
            std::copy(cur, cur + l.words, next.begin());
            next[v >> 6] |= uint64_t(1) << (v & 63);
            const uint64_t h = table.hash(id) ^ zobrist[v];
            int found = table.find(next.data(), h);
            if (found < 0) {
                if (l.size() >= maxIdeals) return LatticeStatus::TooMany;
                found = l.size();
                l.bits.insert(l.bits.end(), next.begin(), next.end());
                l.cardinality.push_back(l.cardinality[id] + 1);
                l.subs.emplace_back();
                table.insert(found, h);
            }
            l.subs[found].push_back({id, v});
        }
    }
    return LatticeStatus::Complete;
}

IdealLattice prefixLattice(const PartitionUnits& units, const std::vector<int>& order) {
    IdealLattice l;
    l.words = std::max(1, (units.count + 63) / 64);
    l.bits.assign(size_t(order.size() + 1) * l.words, 0);
    l.subs.resize(order.size() + 1);
    l.cardinality.resize(order.size() + 1);
    for (size_t i = 0; i < order.size(); ++i) {
        uint64_t* b = l.bits.data() + (i + 1) * l.words;
        std::copy(b - l.words, b, b);
        b[order[i] >> 6] |= uint64_t(1) << (order[i] & 63);
        l.subs[i + 1] = {{int(i), order[i]}};
        l.cardinality[i + 1] = int(i + 1);
    }
    return l;
}

ChainSplit chainDp(const IdealLattice& lattice, BlockLoads& loads, const BlockCost& cost, int64_t maxSteps,
                   std::chrono::steady_clock::time_point deadline, const std::function<bool()>& cancelled) {
    const auto& classes = loads.classes();
    const int C = int(classes.size());
    // Mixed-radix states: digit c = devices of class c used.
    std::vector<int> stride(C), limit(C);
    int S = 1;
    for (int c = 0; c < C; ++c) {
        stride[c] = S;
        limit[c] = int(classes[c].devices.size());
        S *= limit[c] + 1;
    }
    auto digit = [&](int s, int c) { return (s / stride[c]) % (limit[c] + 1); };
    const int N = lattice.size();
    constexpr double inf = BlockLoads::kInfeasible;
    std::vector<double> best(size_t(N) * S, inf);
    // How best[I][s] was reached: the sub-ideal J and the class of block I \ J (J == I: no block).
    std::vector<std::pair<int, int>> back(size_t(N) * S, {-1, -1});
    for (int s = 0; s < S; ++s) best[s] = 0;  // the empty ideal needs nothing

    ChainSplit out;
    // The work done: the block updates (loads.steps()) and, per pair and per ideal, the cost's
    // and the relaxation's class-by-state updates.
    const int64_t loadSteps0 = loads.steps();
    int64_t ownSteps = 0;
    const int64_t pairSteps = int64_t(S) * C + C + 1;
    auto steps = [&] { return loads.steps() - loadSteps0 + ownSteps; };
    std::vector<double> blockCost(C);
    std::vector<int> stamp(N, -1);
    struct Frame {
        int ideal;
        size_t child;
    };
    std::vector<Frame> stack;
    auto relax = [&](int I, int J, const double* costs) {
        const double* from = best.data() + size_t(J) * S;
        double* to = best.data() + size_t(I) * S;
        std::pair<int, int>* how = back.data() + size_t(I) * S;
        for (int s = 1; s < S; ++s)
            for (int c = 0; c < C; ++c) {
                if (costs[c] == inf || digit(s, c) == 0) continue;
                const double candidate = std::max(from[s - stride[c]], costs[c]);
                if (candidate < to[s]) to[s] = candidate, how[s] = {J, c};
            }
    };
    for (int I = 1; I < N; ++I) {
        // Depth first over the sub-ideals of I: loads holds I \ J.
        loads.clear();
        stack.clear();
        stack.push_back({I, 0});
        stamp[I] = I;
        while (!stack.empty()) {
            Frame& f = stack.back();
            const auto& subs = lattice.subs[f.ideal];
            if (f.child == subs.size()) {
                stack.pop_back();
                if (!stack.empty()) loads.remove();
                continue;
            }
            const auto [J, unit] = subs[f.child++];
            if (stamp[J] == I) continue;
            stamp[J] = I;
            loads.add(unit);
            stack.push_back({J, 0});
            ownSteps += pairSteps;
            if ((++out.pairs & 4095) == 0) {
                out.steps = steps();
                if (cancelled && cancelled()) return out;
                if (maxSteps > 0 && out.steps > maxSteps) {
                    out.overSteps = true;
                    return out;
                }
                if (std::chrono::steady_clock::now() > deadline) return out;
            }
            cost(loads, J, blockCost.data());
            relax(I, J, blockCost.data());
        }
        // An empty block: one device fewer, the same ideal.
        double* here = best.data() + size_t(I) * S;
        std::pair<int, int>* how = back.data() + size_t(I) * S;
        ownSteps += int64_t(S) * C;
        for (int s = 1; s < S; ++s)
            for (int c = 0; c < C; ++c)
                if (digit(s, c) > 0 && here[s - stride[c]] < here[s]) here[s] = here[s - stride[c]], how[s] = {I, c};
    }
    out.complete = true;
    out.steps = steps();
    const int full = lattice.full();
    out.value = best[size_t(full) * S + (S - 1)];
    if (out.value == inf) return out;
    // Walk back from (all units, all devices); then the blocks, first to last, take the devices of
    // their class in order (a pipeline's first stage on the class's first device).
    std::vector<std::pair<int, int>> chain;  // (I, J) of each non-empty block, last first
    std::vector<int> classOfBlock;
    int I = full, s = S - 1;
    while (I != 0) {
        const auto [J, c] = back[size_t(I) * S + s];
        if (J != I) chain.push_back({I, J}), classOfBlock.push_back(c);
        s -= stride[c];
        I = J;
    }
    out.unitDevice.assign(size_t(lattice.words) * 64, -1);
    std::vector<int> nextDevice(C, 0);
    for (size_t b = chain.size(); b-- > 0;) {
        const int device = classes[classOfBlock[b]].devices[nextDevice[classOfBlock[b]]++];
        const uint64_t* a = lattice.bits.data() + size_t(chain[b].first) * lattice.words;
        const uint64_t* z = lattice.bits.data() + size_t(chain[b].second) * lattice.words;
        for (int w = 0; w < lattice.words; ++w)
            for (uint64_t m = a[w] & ~z[w]; m; m &= m - 1) out.unitDevice[w * 64 + std::countr_zero(m)] = device;
    }
    out.blocks = int(chain.size());
    return out;
}

}  // namespace graphopt
