#include "placement/model/ScheduleSimulator.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <functional>
#include <limits>
#include <stdexcept>

// The decoders' helpers are lambdas over the decoding's local state; inlined, that state stays in
// registers (GCC otherwise keeps several of them out of line, and the runtime-only decoding
// takes about a fifth more time).
#if defined(__GNUC__)
#define GRAPHOPT_INLINE __attribute__((always_inline))
#else
#define GRAPHOPT_INLINE
#endif

namespace graphopt {

namespace {

constexpr int kArrival = 1;  // event kinds: 0 = an op ends, 1 = a transfer arrives

// Ready-queue entry: the priority's double bits (monotonic for non-negative doubles, so keys that
// differ in the last bit stay ordered: a float here tied keys closer than ~6e-8) above the
// complemented node id, so a plain max-heap on the 128-bit integer gives highest priority, then
// lowest id. Never 0 (the node id part is not all ones), which the runtime-only decoder uses as
// "no entry".
using ReadyKey = unsigned __int128;
inline ReadyKey readyKey(uint64_t prioBits, int node) {
    return (ReadyKey(prioBits) << 32) | ReadyKey(0xFFFFFFFFu - uint32_t(node));
}
inline ReadyKey readyKey(double prio, int node) {
    uint64_t bits;
    std::memcpy(&bits, &prio, sizeof bits);
    return readyKey(bits, node);
}
inline int readyNode(ReadyKey key) { return int(0xFFFFFFFFu - uint32_t(uint64_t(key) & 0xFFFFFFFFu)); }

// Node v's keys kv[0, d]: its device, the argmax of the d affinities (ties to the lower device), and
// its priority as a non-negative double (NaN and negatives count as 0; the ready queues order by
// it, then by lower node id).
struct NodeKeys {
    int device;
    double priority;
};
inline NodeKeys decodeKeys(const double* kv, int d) {
    int best = 0;
    double bk = kv[0];
    for (int k = 1; k < d; ++k)
        if (kv[k] > bk) bk = kv[k], best = k;
    const double pr = kv[d];
    return {best, pr > 0 ? pr : 0.0};
}

// Binary heaps in plain arrays, for the ready and pending queues. above(a, b): a belongs nearer
// the top than b (strictly).
template <class T, class Above>
inline void heapPush(T* h, int size, T x, Above above) {  // size before the push
    int i = size;
    while (i > 0) {
        const int parent = (i - 1) >> 1;
        if (!above(x, h[parent])) break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = x;
}
template <class T, class Above>
inline T heapPop(T* h, int size, Above above) {  // size after the pop: h[size] is the last entry
    const T top = h[0];
    const T last = h[size];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= size) break;
        c += (c + 1 < size) & above(h[c + 1], h[c]);
        if (!above(h[c], last)) break;
        h[i] = h[c];
        i = c;
    }
    h[i] = last;
    return top;
}

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
    nodeState_.resize(n);
    nodeCost_.resize(n);
    released_.resize((n + 1) * d);
    releasedSize_.resize(d);
    runOut_.resize(d);
    next_.resize(d);
    arrive_.resize(d);
    readyHeap_.resize(d);
    staged_.resize(d);
    pendingHeap_.resize(d);
    load_.resize(d);
    mask_.resize(nt);
    if (P.pipeline) {
        pipeline_ = std::make_unique<ScheduleSimulator>(P.pipeline);
        expanded_.resize(size_t(P.pipeline->n) * (d + 1));
    }
}

ScheduleCosts ScheduleSimulator::evaluate(std::span<const double> keys) {
    if (keys.size() != keyCount()) throw std::invalid_argument("ScheduleSimulator: wrong number of keys");
    return decode(keys.data(), nullptr, true);
}

ScheduleCosts ScheduleSimulator::simulate(std::span<const double> keys, ScheduleDetail* detail) {
    if (keys.size() != keyCount()) throw std::invalid_argument("ScheduleSimulator: wrong number of keys");
    return decode(keys.data(), detail, false);
}

ScheduleCosts ScheduleSimulator::decode(const double* keys, ScheduleDetail* detail, bool maySkipMemory) {
    const ScheduleProblem& P = *p_;
    const bool throughput = P.options.objective == PlacementObjective::Throughput;
    ScheduleCosts c;
    if (pipeline_) {
        const double* ex = expandToPipeline(keys);
        if (throughput && maySkipMemory && P.memoryCannotOverflow) {
            c.makespan = 0;  // the max-load needs no schedule
            c.memoryTracked = false;
        } else {
            c = pipeline_->decode(ex, detail, maySkipMemory);
        }
        if (detail) {
            // Copy m of node v is node m*n + v of the pipeline; the order keeps micro-batch 0.
            const int n = P.n;
            for (auto& op : detail->ops) {
                op.microBatch = op.node / n;
                op.node %= n;
            }
            std::erase_if(detail->order, [n](int u) { return u >= n; });
            detail->microBatches = P.options.microBatches;
        }
    } else if (throughput && maySkipMemory && P.memoryCannotOverflow) {
        for (int v = 0; v < P.n; ++v) dev_[v] = decodeKeys(keys + size_t(v) * (P.d + 1), P.d).device;
        if (P.constrained) repairPlacement(keys, dev_.data());
        c.memoryTracked = false;
    } else if (detail) {
        c = run<true, 0>(keys, detail);
    } else if (maySkipMemory) {
        c = fast(keys);
    } else {
        c = run<false, 0>(keys, nullptr);
    }
    finishObjective(c);
    return c;
}

void ScheduleSimulator::finishObjective(ScheduleCosts& c) {
    if (p_->options.objective != PlacementObjective::Throughput) return;
    c.throughputS = maxLoad(dev_);
    c.cost = p_->penalized(c.throughputS, c.excess);
}

const double* ScheduleSimulator::expandToPipeline(const double* keys) {
    const ScheduleProblem& P = *p_;
    const int n = P.n, d = P.d, M = P.options.microBatches;
    for (int v = 0; v < n; ++v) {
        const NodeKeys nk = decodeKeys(keys + size_t(v) * (d + 1), d);
        dev_[v] = nk.device;
        prio_[v] = std::min(nk.priority, 1.0);
    }
    if (P.constrained) repairPlacement(keys, dev_.data());
    std::fill(expanded_.begin(), expanded_.end(), 0.0);
    for (int mb = 0; mb < M; ++mb)
        for (int v = 0; v < n; ++v) {
            double* kv = expanded_.data() + (size_t(mb) * n + v) * (d + 1);
            kv[dev_[v]] = 1.0;
            kv[d] = 2.0 * (M - 1 - mb) + prio_[v];
        }
    return expanded_.data();
}

void ScheduleSimulator::repairPlacement(const double* keys, int* dev) const {
    const ScheduleProblem& P = *p_;
    const int d = P.d;
    for (int v = 0; v < P.n; ++v) {
        const int rep = P.colocatedWith[v];
        if (rep != v) {  // the class's lowest node id came first and decided
            dev[v] = dev[rep];
            continue;
        }
        const uint64_t mask = P.allowedMask[v];
        if ((mask >> dev[v]) & 1) continue;
        const double* kv = keys + size_t(v) * (d + 1);
        int best = -1;
        for (uint64_t m = mask; m; m &= m - 1) {
            const int k = std::countr_zero(m);
            if (best < 0 || kv[k] > kv[best]) best = k;
        }
        dev[v] = best;
    }
}

double ScheduleSimulator::maxLoad(std::span<const int> placement) {
    const ScheduleProblem& P = *p_;
    const int d = P.d;
    if (int(placement.size()) != P.n) throw std::invalid_argument("maxLoad: the placement must cover every node");
    std::fill(load_.begin(), load_.end(), 0.0);
    for (int v = 0; v < P.n; ++v) load_[placement[v]] += P.opCost[size_t(v) * d + placement[v]];
    for (int t = 0; t < P.firstInput; ++t) {
        const int src = placement[P.tensorProducer[t]];
        uint64_t to = 0;
        for (int i = P.consStart[t]; i < P.consStart[t + 1]; ++i) to |= uint64_t(1) << placement[P.consNodes[i]];
        to &= ~(uint64_t(1) << src);
        if (!to) continue;
        double slowest = 0;
        for (; to; to &= to - 1) {
            const int k = std::countr_zero(to);
            const double x = P.transferS(t, src, k);
            if (P.paysTransfers[k]) load_[k] += x;
            slowest = std::max(slowest, x);
        }
        if (P.paysTransfers[src]) load_[src] += slowest;
    }
    return *std::max_element(load_.begin(), load_.end());
}

ScheduleCosts ScheduleSimulator::fast(const double* keys) {
    // Runtime objective and no device can overflow whatever the schedule: the peak cannot change
    // the cost, so the runtime-only decoder runs (no memory accounting, no transfer events). It
    // knows neither constraints nor given transfer times: problems with them take run<>.
    const bool skipMemory = p_->runtimeCannotOverflow && !p_->constrained && !p_->givenTransfers;
    if (p_->d == 2) {
        if (skipMemory) return runtimeOnly<2>(keys);
        return run<false, 2>(keys, nullptr);
    }
    if (skipMemory) return runtimeOnly<0>(keys);
    return run<false, 0>(keys, nullptr);
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
    return decode(keyScratch_.data(), detail, false);
}

template <bool Record, int D>
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
        const NodeKeys nk = decodeKeys(keys + size_t(v) * (d + 1), d);
        dev[v] = nk.device;
        prio_[v] = nk.priority;
    }
    if (P.constrained) repairPlacement(keys, dev);
    // Consumers per (tensor, device) and the releases each copy waits for.
    {
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
        if (!bytes) return;
        level[k] += bytes;
        if (level[k] > peak[k]) peak[k] = level[k];
        if constexpr (Record) detail->memory[k].push_back({now, level[k]});
    };
    auto release = [&](int k, int64_t bytes, double now) {
        if (!bytes) return;
        level[k] -= bytes;
        if constexpr (Record) detail->memory[k].push_back({now, level[k]});
    };
    // Graph inputs: on each consuming device from time 0. Weights: resident on each device that
    // runs a consumer.
    for (int t = P.firstInput; t < nt; ++t)
        for (int k = 0; k < d; ++k)
            if (count[t * d + k] > 0) level[k] += P.tensorBytes[t];
    if (P.options.countWeights) {
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
    if (P.anyResident)
        for (int v = 0; v < n; ++v) level[dev[v]] += P.residentBytes[v];
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
        heapPush(ready_.data() + size_t(k) * n, readySize_[k]++, readyKey(prio_[v], v), std::greater<ReadyKey>());
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
        return readyNode(heapPop(ready_.data() + size_t(k) * n, --readySize_[k], std::greater<ReadyKey>()));
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
            for (int i = P.inStart[v]; i < P.inStart[v + 1]; ++i) {
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
                    // The same arithmetic, in the same order, as runtimeOnly(): costs stay bit-identical.
                    const double given = P.givenTransfers ? P.tensorTransferS[t] : -1.0;
                    const double end = given >= 0 ? start + given
                                                  : start + P.linkLatency[l] + double(P.tensorBytes[t]) * P.linkInvBandwidth[l];
                    free = end;
                    xf[nx] = {start, end, int64_t(t) * d + k2, -1};
                    if (linkArrive[l] >= 0)
                        xf[linkTail[l]].next = nx;  // starts when the one before it arrives
                    else {
                        linkArrive[l] = nx;
                        cand[linkSlot(k, k2)] = eventKey(end, (int64_t(kArrival) << 40) | xf[nx].id);
                        starting[nStarting++] = nx;  // link idle: starts now
                    }
                    linkTail[l] = nx++;
                    if constexpr (Record)
                        detail->transfers.push_back({.tensor = P.tensorGraphId[t], .from = k, .to = k2, .start = start,
                                                     .end = end, .bytes = P.tensorBytes[t],
                                                     .microBatch = P.tensorMicroBatch.empty() ? 0 : P.tensorMicroBatch[t]});
                }
                if (pending[t * d + k] == 0 && !P.tensorIsOutput[t]) release(k, P.tensorBytes[t], now);
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
            if (linkArrive[l] >= 0) starting[nStarting++] = linkArrive[l];  // the next one starts now
            const int t = int(xf[x].id / d), k2 = int(xf[x].id % d);
            for (int j = consStart[t]; j < consStart[t + 1]; ++j) {
                inputArrived(consNodes[j], k2);
            }
            const int src = dev[P.tensorProducer[t]];
            if (--pending[t * d + src] == 0 && !P.tensorIsOutput[t]) release(src, P.tensorBytes[t], now);
        }
    }
    if (started != n) throw std::logic_error("ScheduleSimulator: some ops never became ready (is the graph a DAG?)");

    ScheduleCosts out;
    out.makespan = makespan;
    out.memoryTracked = true;
    double excess = 0;
    for (int k = 0; k < d; ++k) {
        out.peakBytes = std::max(out.peakBytes, peak[k]);
        if (peak[k] > P.capacity[k]) excess += double(peak[k] - P.capacity[k]) / double(P.capacity[k]);
    }
    const double base = P.options.objective == PlacementObjective::Memory ? double(out.peakBytes) : makespan;
    out.feasible = excess == 0;
    out.excess = excess;
    out.cost = P.penalized(base, excess);
    if constexpr (Record) {
        detail->makespan = makespan;
        detail->devicePeakBytes.assign(peak_.begin(), peak_.end());
        for (int k = 0; k < d; ++k) detail->memory[k].push_back({makespan, level[k]});
    }
    return out;
}

// The runtime-only decoder: the same schedule as run<> (same placement, same choice of op whenever
// a device is free, same FIFO transfers), found with fewer events, because without memory accounting
// no transfer needs an event of its own:
//  - A transfer's arrival time is known when its producer ends (its link is FIFO and its start is
//    max(link free, now)), so an op end counts down every consumer at once, local ones with input
//    time `now`, remote ones with the arrival time. An op whose last input is determined is
//    released at the latest of its input times into its device's pending heap (earliest first).
//  - A free device moves the releases due by then into its ready heap and starts the best, exactly
//    as run<> does after processing every event at that time.
//  - A device's next event is its running op's end or, idle, its earliest pending release (a
//    wake-up). Lookahead removes most wake-ups: an idle device whose earliest release is at `a`
//    starts at `a` at once when nothing can be released to it before `a`, i.e. when every other
//    device's next event plus the smallest link latency is later than `a` (what another device
//    sends arrives at least one latency after one of its ops ends). Control edges release at the
//    end time itself, so a graph with any turns lookahead off.
// Simultaneous events are all processed before any device chooses, as in run<>. Per event the work
// is one op end: its sole output's consumers are one load away (ScheduleProblem::soleOutput), and
// a release that is due alone, with nothing else ready, starts without a ready-heap round trip.
// Costs are bit-identical to run<> (same arithmetic in the same order); SchedulePropertyTest
// holds them to it. Cost O((n + e) log n + n d^2) per decoding.
template <int D>
ScheduleCosts ScheduleSimulator::runtimeOnly(const double* keys) {
    const ScheduleProblem& P = *p_;
    const int n = P.n, d = D > 0 ? D : P.d;
    constexpr double inf = std::numeric_limits<double>::infinity();
    int* dev = dev_.data();
    NodeState* N = nodeState_.data();
    double* cost = nodeCost_.data();
    const int* initial = P.initialRemaining.data();
    const double* opCost = P.opCost.data();
    std::fill(peak_.begin(), peak_.end(), 0);

    // Per-device state. With the device count known at compile time it lives on the stack: the
    // compiler then knows that no store to a node's state changes it and keeps it in registers.
    constexpr int kLocal = D > 0 ? D : 1;
    int readySizeLocal[kLocal], pendingSizeLocal[kLocal], runNodeLocal[kLocal];
    double nextLocal[kLocal], linkFreeLocal[kLocal * kLocal], arriveLocal[kLocal];
    ScheduleProblem::SoleOutput runOutLocal[kLocal];
    int* readySize = D > 0 ? readySizeLocal : readySize_.data();
    int* pendingSize = D > 0 ? pendingSizeLocal : releasedSize_.data();
    int* runNode = D > 0 ? runNodeLocal : runNode_.data();
    double* next = D > 0 ? nextLocal : next_.data();
    double* linkFree = D > 0 ? linkFreeLocal : linkFree_.data();
    double* arrive = D > 0 ? arriveLocal : arrive_.data();
    ScheduleProblem::SoleOutput* runOut = D > 0 ? runOutLocal : runOut_.data();
    std::fill_n(readySize, d, 0);
    std::fill_n(pendingSize, d, 0);
    std::fill_n(runNode, d, -1);
    std::fill_n(next, d, inf);
    std::fill_n(linkFree, d * d, 0.0);
    // Heap arrays per device: ready ops (n slots each), pending releases (n + 1 each).
    ReadyKey* readyHeapLocal[kLocal];
    Pending* pendingHeapLocal[kLocal];
    ReadyKey** readyHeap = D > 0 ? readyHeapLocal : readyHeap_.data();
    Pending** pendingHeap = D > 0 ? pendingHeapLocal : pendingHeap_.data();
    for (int k = 0; k < d; ++k) {
        readyHeap[k] = ready_.data() + size_t(k) * n;
        pendingHeap[k] = released_.data() + size_t(k) * (n + 1);
        pendingHeap[k][0].at = inf;
    }
    auto keyOf = [N](int v) GRAPHOPT_INLINE { return readyKey(N[v].prioBits, v); };
    // A device's ready ops: the best waits in `staged` (0: none), the others in the heap, so that
    // the usual round trip (one op released, then started) never touches the heap.
    ReadyKey stagedLocal[kLocal];
    ReadyKey* staged = D > 0 ? stagedLocal : staged_.data();
    std::fill_n(staged, d, ReadyKey(0));
    auto pushReady = [&](int k, ReadyKey key) GRAPHOPT_INLINE {
        const ReadyKey s0 = staged[k];
        staged[k] = key > s0 ? key : s0;
        if (s0 != 0) heapPush(readyHeap[k], readySize[k]++, key > s0 ? s0 : key, std::greater<ReadyKey>());
    };
    auto anyReady = [&](int k) GRAPHOPT_INLINE { return staged[k] != 0; };
    auto popReady = [&](int k) GRAPHOPT_INLINE {
        // staged is the best, or the heap's top is: the heap holds only what lost to staged.
        const ReadyKey best = staged[k];
        staged[k] = readySize[k] > 0 ? heapPop(readyHeap[k], --readySize[k], std::greater<ReadyKey>()) : ReadyKey(0);
        return readyNode(best);
    };
    // Pending heaps: earliest first, n + 1 slots each, the one past the end always {inf}, so that
    // the top of an empty heap reads as never.
    auto earlier = [](const Pending& a, const Pending& b) { return a.at < b.at; };
    auto pushPending = [&](int k, double at, int v) GRAPHOPT_INLINE {
        heapPush(pendingHeap[k], pendingSize[k]++, Pending{at, v}, earlier);
        pendingHeap[k][pendingSize[k]].at = inf;
    };
    auto pendingTop = [&](int k) GRAPHOPT_INLINE { return pendingHeap[k][0].at; };
    auto popPending = [&](int k) GRAPHOPT_INLINE {
        const int v = heapPop(pendingHeap[k], --pendingSize[k], earlier).node;
        pendingHeap[k][pendingSize[k]].at = inf;
        return v;
    };

    const ScheduleProblem::SoleOutput* sole = P.soleOutput.data();
    const int* consStart = P.consStart.data();
    const int* consNodes = P.consNodes.data();
    const double* latency = P.linkLatency.data();
    const double* invBandwidth = P.linkInvBandwidth.data();
    const bool lookahead = P.ctrlSucc.empty();
    const double minLatency = P.minLinkLatency;
    double now = 0, makespan = 0;
    int started = 0;

    // An input of c is determined: present on c's device from `at`. The last one releases c.
    auto release = [&](int c, double at) GRAPHOPT_INLINE {
        NodeState& s = N[c];
        s.readyAt = at > s.readyAt ? at : s.readyAt;
        if (--s.remaining == 0) {
            if (s.readyAt <= now)
                pushReady(dev[c], keyOf(c));
            else
                pushPending(dev[c], s.readyAt, c);
        }
    };
    auto start = [&](int k, int v, double at) GRAPHOPT_INLINE {
        runNode[k] = v;
        next[k] = at + cost[v];
        runOut[k] = sole[v];
        ++started;
    };
    // Device k starts at f the best op released by f. Commonly one release is due and nothing else
    // is ready: it starts without passing through the ready heap.
    auto startAt = [&](int k, double f) GRAPHOPT_INLINE {
        if (!anyReady(k)) {
            const int v = popPending(k);
            if (pendingTop(k) > f) return start(k, v, f);
            pushReady(k, keyOf(v));
        }
        while (pendingTop(k) <= f) pushReady(k, keyOf(popPending(k)));
        start(k, popReady(k), f);
    };
    // The devices other than k, for i = 1 .. d-1 (for two devices, k ^ 1 without a branch).
    auto other = [d](int k, int i) GRAPHOPT_INLINE {
        const int j = k + i;
        return j >= d ? j - d : j;
    };
    // What another device sends can reach k no earlier than this (see above).
    auto earliestArrival = [&](int k) GRAPHOPT_INLINE {
        double m = inf;
        for (int i = 1; i < d; ++i) m = std::min(m, next[other(k, i)]);
        return m + minLatency;
    };
    // An idle device: starts now, or at its earliest pending release when lookahead allows, or
    // waits for that release.
    auto settle = [&](int k) GRAPHOPT_INLINE {
        const double a = pendingTop(k);
        if (anyReady(k) || a <= now) return startAt(k, now);
        if (lookahead && a < earliestArrival(k)) return startAt(k, a);
        next[k] = a;
    };
    // The consumers consNodes[b, e) of a tensor of `bytes` produced on k at `now`: a copy goes to
    // every other device with a consumer (FIFO on the link, as in run<>), and each consumer counts
    // the input down with its time of arrival on its device.
    auto produce = [&](int k, int b, int e, int64_t bytes) GRAPHOPT_INLINE {
        if constexpr (D == 2) {
            // One other device: the arrival time there is computed up front, and the link is
            // taken once, after the loop, if a consumer was there.
            const int l = k * 2 + (k ^ 1);
            const double begin = linkFree[l] > now ? linkFree[l] : now;
            const double end = begin + latency[l] + double(bytes) * invBandwidth[l];
            int remote = 0;
            for (int j = b; j < e; ++j) {
                const int c = consNodes[j];
                const int here = dev[c] == k;
                remote |= here ^ 1;
                release(c, here ? now : end);
            }
            linkFree[l] = remote ? end : linkFree[l];
        } else {
            uint64_t devices = 0;
            for (int j = b; j < e; ++j) devices |= uint64_t(1) << dev[consNodes[j]];
            arrive[k] = now;
            for (uint64_t m = devices & ~(uint64_t(1) << k); m; m &= m - 1) {
                const int k2 = std::countr_zero(m);
                const int l = k * d + k2;
                const double begin = linkFree[l] > now ? linkFree[l] : now;
                linkFree[l] = arrive[k2] = begin + latency[l] + double(bytes) * invBandwidth[l];
            }
            for (int j = b; j < e; ++j) release(consNodes[j], arrive[dev[consNodes[j]]]);
        }
    };
    auto opEnd = [&](int k) GRAPHOPT_INLINE {
        const int v = runNode[k];
        runNode[k] = -1;
        makespan = now;
        const ScheduleProblem::SoleOutput out = runOut[k];
        if (out.consEnd >= 0) return produce(k, out.consBegin, out.consEnd, out.bytes);
        for (int i = P.outStart[v]; i < P.outStart[v + 1]; ++i) {
            const int t = P.outTensors[i];
            produce(k, consStart[t], consStart[t + 1], P.tensorBytes[t]);
        }
        for (int i = P.ctrlStart[v]; i < P.ctrlStart[v + 1]; ++i) release(P.ctrlSucc[i], now);
    };

    // Decode placement and priorities; ops without inputs to wait for are ready at once.
    for (int v = 0; v < n; ++v) {
        const NodeKeys nk = decodeKeys(keys + size_t(v) * (d + 1), d);
        dev[v] = nk.device;
        uint64_t bits;
        std::memcpy(&bits, &nk.priority, sizeof bits);
        N[v] = {0.0, bits, initial[v]};
        cost[v] = opCost[size_t(v) * d + nk.device];
        if (initial[v] == 0) pushReady(nk.device, keyOf(v));
    }
    for (int k = 0; k < d; ++k) settle(k);
    for (;;) {
        int k = 0;
        for (int j = 1; j < d; ++j) k = next[j] < next[k] ? j : k;
        now = next[k];
        if (now == inf) break;
        bool simultaneous = false;
        for (int i = 1; i < d; ++i) simultaneous |= next[other(k, i)] == now;
        if (simultaneous) [[unlikely]] {
            for (int j = 0; j < d; ++j)
                if (next[j] == now && runNode[j] >= 0) opEnd(j);
        } else if (runNode[k] >= 0) {
            opEnd(k);  // else a wake-up: k's earliest pending release is due
        }
        // k first (it is idle now), then any other idle device: releases may have reached it,
        // and k's new next event may let its lookahead start it.
        if (runNode[k] < 0) settle(k);
        for (int i = 1; i < d; ++i)
            if (const int j = other(k, i); runNode[j] < 0) settle(j);
    }
    if (started != n) throw std::logic_error("ScheduleSimulator: some ops never became ready (is the graph a DAG?)");

    ScheduleCosts out;
    out.makespan = makespan;
    out.memoryTracked = false;
    out.cost = makespan;
    return out;
}

template ScheduleCosts ScheduleSimulator::run<false, 0>(const double*, ScheduleDetail*);
template ScheduleCosts ScheduleSimulator::run<true, 0>(const double*, ScheduleDetail*);
template ScheduleCosts ScheduleSimulator::runtimeOnly<0>(const double*);
template ScheduleCosts ScheduleSimulator::runtimeOnly<2>(const double*);
template ScheduleCosts ScheduleSimulator::run<false, 2>(const double*, ScheduleDetail*);

}  // namespace graphopt
