#include "placement/ScheduleSimulator.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace graphopt {

namespace {

constexpr int kArrival = 1;  // event kinds: 0 = an op ends, 1 = a transfer arrives

// Ready-queue entry: priority (as float bits, monotonic for non-negative floats) above the
// complemented node id, so a plain max-heap on the integer gives highest priority, then lowest id.
inline uint64_t readyKey(float prio, int node) {
    uint32_t bits;
    std::memcpy(&bits, &prio, sizeof bits);
    return (uint64_t(bits) << 32) | uint64_t(0xFFFFFFFFu - uint32_t(node));
}
inline int readyNode(uint64_t key) { return int(0xFFFFFFFFu - uint32_t(key & 0xFFFFFFFFu)); }

// Next-event candidate: the time's bits (monotonic for non-negative doubles) above the tie-break
// key, so the earliest event, ties broken by key, is the least 128-bit integer and the choice
// among the candidates compiles to conditional moves instead of hard-to-predict branches.
using EventKey = unsigned __int128;
inline EventKey eventKey(double time, int64_t key) {
    uint64_t bits;
    std::memcpy(&bits, &time, sizeof bits);
    return (EventKey(bits) << 64) | uint64_t(key);
}
inline double eventTime(EventKey e) {
    const uint64_t bits = uint64_t(e >> 64);
    double t;
    std::memcpy(&t, &bits, sizeof t);
    return t;
}

}  // namespace

ScheduleSimulator::ScheduleSimulator(std::shared_ptr<const ScheduleProblem> problem) : p_(std::move(problem)) {
    const auto& P = *p_;
    const size_t n = P.n, d = P.d, nt = P.numTensors;
    dev_.resize(n);
    prio_.resize(n);
    remaining_.resize(n);
    count_.resize(nt * d);
    pending_.resize(nt * d);
    linkFree_.resize(d * d);
    ready_.resize(std::max<size_t>(1, n * d));
    readySize_.resize(d);
    runNode_.resize(d);
    runEnd_.resize(d);
    // Every (tensor, device) pair is sent at most once.
    transfers_.resize(nt * d + 1);
    startingNow_.resize(nt * d + 1);
    cand_.resize(d * d);
    linkArrive_.resize(d * d);
    linkTail_.resize(d * d);
    level_.resize(d);
    peak_.resize(d);
    weightMark_.resize(d);
    keyScratch_.resize(n * (d + 1));
}

ScheduleCosts ScheduleSimulator::evaluate(std::span<const double> keys) {
    if (keys.size() != keyCount()) throw std::invalid_argument("ScheduleSimulator: wrong number of keys");
    return fast(keys.data());
}

ScheduleCosts ScheduleSimulator::fast(const double* keys) {
    // Runtime objective and no device can overflow whatever the schedule: the peak cannot change
    // the cost, so the memory accounting is skipped (about a third of the work).
    if (p_->d == 2) {
        if (p_->runtimeCannotOverflow) return run<false, false, 2>(keys, nullptr);
        return run<false, true, 2>(keys, nullptr);
    }
    if (p_->runtimeCannotOverflow) return run<false, false, 0>(keys, nullptr);
    return run<false, true, 0>(keys, nullptr);
}

ScheduleCosts ScheduleSimulator::simulate(std::span<const double> keys, ScheduleDetail* detail) {
    if (keys.size() != keyCount()) throw std::invalid_argument("ScheduleSimulator: wrong number of keys");
    if (!detail) return run<false, true, 0>(keys.data(), nullptr);
    return run<true, true, 0>(keys.data(), detail);
}

ScheduleCosts ScheduleSimulator::evaluatePlacement(std::span<const int> placement, std::span<const int> order,
                                                   ScheduleDetail* detail) {
    const int n = p_->n, d = p_->d;
    if (int(placement.size()) != n || int(order.size()) != n)
        throw std::invalid_argument("evaluatePlacement: placement and order must cover every node");
    std::fill(keyScratch_.begin(), keyScratch_.end(), 0.0);
    for (int v = 0; v < n; ++v) {
        if (placement[v] < 0 || placement[v] >= d) throw std::invalid_argument("evaluatePlacement: bad device");
        keyScratch_[size_t(v) * (d + 1) + placement[v]] = 1.0;
    }
    for (int r = 0; r < n; ++r) keyScratch_[size_t(order[r]) * (d + 1) + d] = 1.0 - double(r) / n;
    if (detail) return run<true, true, 0>(keyScratch_.data(), detail);
    return run<false, true, 0>(keyScratch_.data(), nullptr);
}

template <bool Record, bool Memory, int D>
ScheduleCosts ScheduleSimulator::run(const double* keys, ScheduleDetail* detail) {
    const ScheduleProblem& P = *p_;
    // D > 0: the device count fixed at compile time (the common 2-device case), so the per-device
    // loops unroll and the next-event choice is over a constant number of candidates.
    const int n = P.n, d = D > 0 ? D : P.d, nt = P.numTensors;
    int* dev = dev_.data();
    int* remaining = remaining_.data();
    int* count = count_.data();
    int* pending = pending_.data();
    int64_t* level = level_.data();
    int64_t* peak = peak_.data();
    const int* consStart = P.consStart.data();
    const int* consNodes = P.consNodes.data();

    // Decode placement and priorities.
    for (int v = 0; v < n; ++v) {
        const double* kv = keys + size_t(v) * (d + 1);
        int best = 0;
        double bk = kv[0];
        for (int k = 1; k < d; ++k)
            if (kv[k] > bk) bk = kv[k], best = k;
        dev[v] = best;
        double pr = kv[d];
        prio_[v] = pr > 0 ? float(pr) : 0.0f;
    }
    // Consumers per (tensor, device) and the releases each copy waits for: memory accounting only.
    // Which devices need a copy is found when the tensor is produced (a device mask built while
    // visiting its consumers), so the runtime-only decoding skips this pass over every edge.
    if constexpr (Memory) {
        std::fill(count_.begin(), count_.end(), 0);
        for (int t = 0; t < nt; ++t)
            for (int i = consStart[t]; i < consStart[t + 1]; ++i) ++count[t * d + dev[consNodes[i]]];
        for (int t = 0; t < nt; ++t) {
            int* pt = pending + t * d;
            const int* ct = count + t * d;
            int sends = 0;
            const int src = t < P.firstInput ? dev[P.tensorProducer[t]] : -1;
            for (int k = 0; k < d; ++k) {
                pt[k] = ct[k];
                if (k != src && ct[k] > 0) ++sends;
            }
            if (src >= 0) pt[src] += sends;
        }
    }

    std::fill(level_.begin(), level_.end(), 0);
    if constexpr (Record) detail->clear(n, d);
    auto alloc = [&](int k, int64_t bytes, double now) {
        if (!Memory || !bytes) return;
        level[k] += bytes;
        if (level[k] > peak[k]) peak[k] = level[k];
        if constexpr (Record) detail->memory[k].push_back({now, level[k]});
    };
    auto release = [&](int k, int64_t bytes, double now) {
        if (!Memory || !bytes) return;
        level[k] -= bytes;
        if constexpr (Record) detail->memory[k].push_back({now, level[k]});
    };
    // Graph inputs: on each consuming device from time 0. Weights: resident on each device that
    // runs a consumer.
    if constexpr (Memory)
        for (int t = P.firstInput; t < nt; ++t)
            for (int k = 0; k < d; ++k)
                if (count[t * d + k] > 0) level[k] += P.tensorBytes[t];
    if (Memory && P.options.countWeights) {
        std::fill(weightMark_.begin(), weightMark_.end(), 0);
        const int nw = static_cast<int>(P.weightBytes.size());
        for (int w = 0; w < nw; ++w)
            for (int i = P.weightStart[w]; i < P.weightStart[w + 1]; ++i) {
                int k = dev[P.weightNodes[i]];
                if (weightMark_[k] != w + 1) {
                    weightMark_[k] = w + 1;
                    level[k] += P.weightBytes[w];
                }
            }
    }
    for (int k = 0; k < d; ++k) {
        peak[k] = level[k];
        if constexpr (Record) detail->memory[k].push_back({0.0, level[k]});
    }

    std::memcpy(remaining, P.initialRemaining.data(), sizeof(int) * n);
    std::fill(readySize_.begin(), readySize_.end(), 0);
    std::fill(linkFree_.begin(), linkFree_.end(), 0.0);
    std::fill(runNode_.begin(), runNode_.end(), -1);
    std::fill(linkArrive_.begin(), linkArrive_.end(), -1);
    std::fill(linkTail_.begin(), linkTail_.end(), -1);
    int* runNode = runNode_.data();
    double* runEnd = runEnd_.data();
    int* linkArrive = linkArrive_.data();
    int* linkTail = linkTail_.data();
    int* readySize = readySize_.data();
    Transfer* xf = transfers_.data();
    int nx = 0;

    // Devices that may be able to start an op (an op ended there, or one became ready there);
    // dispatch looks at these only, in device order.
    uint64_t startable = 0;
    auto pushReady = [&](int v) {
        const int k = dev[v];
        startable |= uint64_t(1) << k;
        uint64_t* h = ready_.data() + size_t(k) * n;
        int i = readySize_[k]++;
        const uint64_t key = readyKey(prio_[v], v);
        while (i > 0) {
            int parent = (i - 1) >> 1;
            if (h[parent] >= key) break;
            h[i] = h[parent];
            i = parent;
        }
        h[i] = key;
    };
    // A tensor became present on device k for consumer c: c counts one input down if it runs on k,
    // and is ready when none is left. Branch-free on the (random) device test; a consumer on
    // another device is left alone (it may already be running, with a count of zero).
    auto inputArrived = [&](int c, int k) {
        const int here = dev[c] == k;
        remaining[c] -= here;
        if ((remaining[c] | (here ^ 1)) == 0) pushReady(c);
    };
    auto popReady = [&](int k) {
        uint64_t* h = ready_.data() + size_t(k) * n;
        const uint64_t top = h[0];
        const int size = --readySize_[k];
        const uint64_t last = h[size];
        int i = 0;
        for (;;) {
            int c = 2 * i + 1;
            if (c >= size) break;
            if (c + 1 < size && h[c + 1] > h[c]) ++c;
            if (h[c] <= last) break;
            h[i] = h[c];
            i = c;
        }
        h[i] = last;
        return readyNode(top);
    };

    int started = 0;
    double makespan = 0;
    // Transfer starts at the current time: their copies are allocated after every free at that
    // time, just before the ops start (frees before allocations at equal times).
    int nStarting = 0;
    int* starting = startingNow_.data();

    // The next event: the least of the ops running (at most one per device) and the head of each
    // link's FIFO queue (arrival times only grow along a link). Ties: op ends before arrivals, then
    // lower node id / (tensor, device) id. No event heap is needed.
    // Candidates: slot k < d is device k's running op, slot d + i the head of off-diagonal link i;
    // key = kind << 40 | id (kind 0 op end, 1 arrival), so one integer compare breaks time ties.
    const EventKey kNoEvent = eventKey(std::numeric_limits<double>::infinity(), std::numeric_limits<int64_t>::max());
    const int nSlots = d + static_cast<int>(P.offDiagonalLinks.size());
    EventKey* cand = cand_.data();
    for (int i = 0; i < nSlots; ++i) cand[i] = kNoEvent;
    auto linkSlot = [d](int a, int b) { return d + a * (d - 1) + (b < a ? b : b - 1); };
    EventKey best = kNoEvent;
    int bslot = -1;
    auto dispatch = [&](double now) {
        for (int i = 0; i < nStarting; ++i) {
            const Transfer& x = xf[starting[i]];
            alloc(int(x.id % d), P.tensorBytes[int(x.id / d)], now);
        }
        nStarting = 0;
        for (uint64_t m = startable; m; m &= m - 1) {
            const int k = std::countr_zero(m);
            if (runNode[k] >= 0 || readySize[k] == 0) continue;
            const int v = popReady(k);
            runNode[k] = v;
            ++started;
            alloc(k, P.outBytes[v] + P.tempBytes[v], now);
            const double end = now + P.opCost[size_t(v) * d + k];
            runEnd[k] = end;
            cand[k] = eventKey(end, v);
            if (cand[k] < best) best = cand[k], bslot = k;
            if constexpr (Record) {
                detail->ops[v] = {v, k, now, end};
                detail->order.push_back(v);
            }
        }
        startable = 0;
    };

    for (int v = 0; v < n; ++v)
        if (remaining[v] == 0) pushReady(v);

    const int* offLinks = P.offDiagonalLinks.data();
    double now = 0;
    bool dispatchDue = true;
    for (;;) {
        best = cand[0], bslot = 0;
        for (int i = 1; i < nSlots; ++i) {
            const bool earlier = cand[i] < best;
            best = earlier ? cand[i] : best;
            bslot = earlier ? i : bslot;
        }
        if (best == kNoEvent) bslot = -1;
        if (dispatchDue && (bslot < 0 || eventTime(best) > now)) {
            dispatch(now);  // merges the ops it starts into the choice of the next event
            dispatchDue = false;
        }
        if (bslot < 0) break;
        now = eventTime(best);
        dispatchDue = true;
        if (bslot < d) {  // an op ends
            const int k = bslot, v = runNode[k];
            runNode[k] = -1;
            startable |= uint64_t(1) << k;
            cand[k] = kNoEvent;
            if (now > makespan) makespan = now;
            release(k, P.tempBytes[v], now);
            if constexpr (Memory) for (int i = P.inStart[v]; i < P.inStart[v + 1]; ++i) {
                const int t = P.inTensors[i];
                if (--pending[t * d + k] == 0) {
                    const bool keep = P.tensorIsOutput[t] && dev[P.tensorProducer[t]] == k;
                    if (!keep) release(k, P.tensorBytes[t], now);
                }
            }
            for (int i = P.outStart[v]; i < P.outStart[v + 1]; ++i) {
                const int t = P.outTensors[i];
                uint64_t elsewhere = 0;  // devices other than k with a consumer: each gets a copy
                for (int j = consStart[t]; j < consStart[t + 1]; ++j) {
                    const int c = consNodes[j];
                    elsewhere |= uint64_t(1) << dev[c];
                    inputArrived(c, k);
                }
                elsewhere &= ~(uint64_t(1) << k);
                for (; elsewhere; elsewhere &= elsewhere - 1) {
                    const int k2 = std::countr_zero(elsewhere);
                    const int l = k * d + k2;
                    double& free = linkFree_[l];
                    const double start = free > now ? free : now;
                    const double end = start + P.linkLatency[l] + double(P.tensorBytes[t]) * P.linkInvBandwidth[l];
                    free = end;
                    xf[nx] = {start, end, int64_t(t) * d + k2, -1};
                    if (linkArrive[l] >= 0)
                        xf[linkTail[l]].next = nx;  // starts when the one before it arrives
                    else {
                        linkArrive[l] = nx;
                        cand[linkSlot(k, k2)] = eventKey(end, (int64_t(kArrival) << 40) | xf[nx].id);
                        if (Memory) starting[nStarting++] = nx;  // link idle: starts now
                    }
                    linkTail[l] = nx++;
                    if constexpr (Record)
                        detail->transfers.push_back({P.tensorGraphId[t], k, k2, start, end, P.tensorBytes[t]});
                }
                if (Memory && pending[t * d + k] == 0 && !P.tensorIsOutput[t]) release(k, P.tensorBytes[t], now);
            }
            for (int i = P.ctrlStart[v]; i < P.ctrlStart[v + 1]; ++i)
                if (--remaining[P.ctrlSucc[i]] == 0) pushReady(P.ctrlSucc[i]);
        } else {  // arrival
            const int l = offLinks[bslot - d];
            const int x = linkArrive[l];
            linkArrive[l] = xf[x].next;
            cand[bslot] = linkArrive[l] >= 0
                              ? eventKey(xf[linkArrive[l]].end, (int64_t(kArrival) << 40) | xf[linkArrive[l]].id)
                              : kNoEvent;
            if (Memory && linkArrive[l] >= 0) starting[nStarting++] = linkArrive[l];  // the next one starts now
            const int t = int(xf[x].id / d), k2 = int(xf[x].id % d);
            for (int j = consStart[t]; j < consStart[t + 1]; ++j) {
                inputArrived(consNodes[j], k2);
            }
            const int src = dev[P.tensorProducer[t]];
            if (Memory && --pending[t * d + src] == 0 && !P.tensorIsOutput[t]) release(src, P.tensorBytes[t], now);
        }
    }
    if (started != n) throw std::logic_error("ScheduleSimulator: some ops never became ready (is the graph a DAG?)");

    ScheduleCosts out;
    out.makespan = makespan;
    out.memoryTracked = Memory;
    double excess = 0;
    for (int k = 0; k < d; ++k) {
        out.peakBytes = std::max(out.peakBytes, peak[k]);
        if (peak[k] > P.capacity[k]) excess += double(peak[k] - P.capacity[k]) / double(P.capacity[k]);
    }
    const double base = P.options.objective == PlacementObjective::Runtime ? makespan : double(out.peakBytes);
    out.feasible = excess == 0;
    out.cost = out.feasible ? base : base * (P.options.infeasibleFactor + P.options.excessWeight * excess);
    if constexpr (Record) {
        detail->makespan = makespan;
        detail->devicePeakBytes.assign(peak_.begin(), peak_.end());
        for (int k = 0; k < d; ++k) detail->memory[k].push_back({makespan, level[k]});
    }
    return out;
}

template ScheduleCosts ScheduleSimulator::run<false, false, 0>(const double*, ScheduleDetail*);
template ScheduleCosts ScheduleSimulator::run<false, true, 0>(const double*, ScheduleDetail*);
template ScheduleCosts ScheduleSimulator::run<true, true, 0>(const double*, ScheduleDetail*);
template ScheduleCosts ScheduleSimulator::run<false, false, 2>(const double*, ScheduleDetail*);
template ScheduleCosts ScheduleSimulator::run<false, true, 2>(const double*, ScheduleDetail*);

}  // namespace graphopt
