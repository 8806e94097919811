#include "placement/model/ScheduleProblem.h"

#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>

#include "graph/GraphError.h"

namespace graphopt {

const char* objectiveName(PlacementObjective o) {
    switch (o) {
        case PlacementObjective::Runtime: return "runtime";
        case PlacementObjective::Memory: return "memory";
        case PlacementObjective::Throughput: return "throughput";
    }
    return "runtime";
}

PlacementObjective objectiveFromName(const std::string& s) {
    if (s == "runtime") return PlacementObjective::Runtime;
    if (s == "memory") return PlacementObjective::Memory;
    if (s == "throughput") return PlacementObjective::Throughput;
    throw std::invalid_argument("unknown objective '" + s + "' (runtime, memory or throughput)");
}

ScheduleProblem::ScheduleProblem(const Graph& g, const DeviceModel& m, ScheduleOptions opts) : options(opts) {
    n = static_cast<int>(g.nodeCount());
    d = m.deviceCount();
    if (d < 1) throw std::invalid_argument("device model '" + m.name + "' has no devices");
    // The simulator keeps sets of devices in 64-bit masks.
    if (d > 64)
        throw std::invalid_argument("device model '" + m.name + "' has " + std::to_string(d) +
                                    " devices; at most 64 are supported");
    // Every memory sum below and in the simulator (outputs per node, a device's level and peak)
    // is bounded by the graph's total bytes: refuse a graph whose total does not fit (a loaded
    // graph was checked already; one built in code may not have been).
    try {
        g.checkMemoryTotals();
    } catch (const GraphError& e) {
        throw std::invalid_argument(std::string("graph '") + g.name + "': " + e.what());
    }
    const int gt = static_cast<int>(g.tensorCount());
    const auto& tensors = g.tensors();
    const auto& nodes = g.nodes();

    // Local tensor ids: node outputs first (in node, port order), then consumed graph inputs.
    std::vector<int> local(gt, -1);
    for (int v = 0; v < n; ++v)
        for (int t : nodes[v].outputs)
            if (t >= 0 && local[t] < 0 && tensors[t].producer == v) {
                local[t] = static_cast<int>(tensorGraphId.size());
                tensorGraphId.push_back(t);
            }
    firstInput = static_cast<int>(tensorGraphId.size());
    std::vector<int> weightLocal(gt, -1);
    for (int t = 0; t < gt; ++t) {
        if (g.consumers(t).empty()) continue;
        if (tensors[t].kind == TensorKind::GraphInput) {
            local[t] = static_cast<int>(tensorGraphId.size());
            tensorGraphId.push_back(t);
        } else if (tensors[t].kind == TensorKind::Weight) {
            weightLocal[t] = static_cast<int>(weightBytes.size());
            weightBytes.push_back(tensors[t].bytes);
        }
    }
    numTensors = static_cast<int>(tensorGraphId.size());
    tensorBytes.resize(numTensors);
    tensorProducer.resize(numTensors);
    tensorIsOutput.resize(numTensors);
    for (int i = 0; i < numTensors; ++i) {
        const Tensor& t = tensors[tensorGraphId[i]];
        tensorBytes[i] = t.bytes;
        tensorProducer[i] = i < firstInput ? t.producer : -1;
        tensorIsOutput[i] = t.isGraphOutput && i < firstInput;
        if (tensorIsOutput[i]) outputBytesTotal += t.bytes;
    }

    opCost.resize(size_t(n) * d);
    tempBytes.resize(n);
    outBytes.assign(n, 0);
    initialRemaining.assign(n, 0);
    outStart.assign(1, 0);
    inStart.assign(1, 0);
    ctrlStart.assign(1, 0);
    std::vector<std::vector<int>> ctrlSuccs(n), weightUsers(weightBytes.size());
    std::vector<int> seen;
    for (int v = 0; v < n; ++v) {
        const Node& node = nodes[v];
        for (int k = 0; k < d; ++k) opCost[size_t(v) * d + k] = m.opCostS(g, v, k);
        tempBytes[v] = node.tempBytes;
        for (int t : node.outputs)
            if (t >= 0 && local[t] >= 0 && tensors[t].producer == v) {
                outTensors.push_back(local[t]);
                outBytes[v] += tensors[t].bytes;
            }
        outStart.push_back(static_cast<int>(outTensors.size()));
        seen.clear();
        for (int t : node.inputs) {
            if (t < 0) continue;
            if (std::find(seen.begin(), seen.end(), t) != seen.end()) continue;
            seen.push_back(t);
            if (weightLocal[t] >= 0) {
                weightUsers[weightLocal[t]].push_back(v);
            } else if (local[t] >= 0) {
                inTensors.push_back(local[t]);
                if (local[t] < firstInput) ++initialRemaining[v];
            }
        }
        inStart.push_back(static_cast<int>(inTensors.size()));
        std::vector<int> ctrl(node.controlInputs.begin(), node.controlInputs.end());
        std::sort(ctrl.begin(), ctrl.end());
        ctrl.erase(std::unique(ctrl.begin(), ctrl.end()), ctrl.end());
        for (int c : ctrl)
            if (c >= 0 && c < n && c != v) {
                ctrlSuccs[c].push_back(v);
                ++initialRemaining[v];
            }
    }
    for (int v = 0; v < n; ++v) {
        ctrlSucc.insert(ctrlSucc.end(), ctrlSuccs[v].begin(), ctrlSuccs[v].end());
        ctrlStart.push_back(static_cast<int>(ctrlSucc.size()));
    }
    // Consumers per local tensor, in node id order (deterministic).
    std::vector<std::vector<int>> cons(numTensors);
    for (int v = 0; v < n; ++v)
        for (int i = inStart[v]; i < inStart[v + 1]; ++i) cons[inTensors[i]].push_back(v);
    consStart.assign(1, 0);
    for (auto& c : cons) {
        consNodes.insert(consNodes.end(), c.begin(), c.end());
        consStart.push_back(static_cast<int>(consNodes.size()));
    }
    soleOutput.resize(n);
    for (int v = 0; v < n; ++v)
        if (outStart[v + 1] - outStart[v] == 1 && ctrlStart[v] == ctrlStart[v + 1]) {
            const int t = outTensors[outStart[v]];
            soleOutput[v] = {consStart[t], consStart[t + 1], tensorBytes[t]};
        }
    weightStart.assign(1, 0);
    for (auto& w : weightUsers) {
        weightNodes.insert(weightNodes.end(), w.begin(), w.end());
        weightStart.push_back(static_cast<int>(weightNodes.size()));
    }

    linkLatency.assign(size_t(d) * d, 0);
    linkInvBandwidth.assign(size_t(d) * d, 0);
    for (int a = 0; a < d; ++a)
        for (int b = 0; b < d; ++b)
            if (a != b) {
                linkLatency[a * d + b] = m.link(a, b).latencyS;
                linkInvBandwidth[a * d + b] = 1.0 / m.link(a, b).bandwidth;
                offDiagonalLinks.push_back(a * d + b);
            }
    minLinkLatency = std::numeric_limits<double>::infinity();
    for (int l : offDiagonalLinks) minLinkLatency = std::min(minLinkLatency, linkLatency[l]);
    if (offDiagonalLinks.empty()) minLinkLatency = 0;
    capacity.resize(d);
    for (int k = 0; k < d; ++k) capacity[k] = m.devices[k].memoryBytes;
    if (options.microBatches < 1)
        throw std::invalid_argument("micro-batches must be >= 1 (got " + std::to_string(options.microBatches) + ")");

    // Workload fields: given transfer times, resident bytes, the max-load's rule per device.
    tensorTransferS.assign(numTensors, -1.0);
    for (int i = 0; i < numTensors; ++i) {
        tensorTransferS[i] = tensors[tensorGraphId[i]].transferCostS;
        if (tensorTransferS[i] >= 0) givenTransfers = true;
    }
    residentBytes.assign(n, 0);
    for (int v = 0; v < n; ++v) {
        residentBytes[v] = nodes[v].residentBytes;
        if (residentBytes[v] > 0) anyResident = true;
    }
    paysTransfers.resize(d);
    for (int k = 0; k < d; ++k) paysTransfers[k] = m.devices[k].paysTransfers ? 1 : 0;

    // Constraints: the devices each node may use, intersected over its colocation class.
    const uint64_t all = d == 64 ? ~uint64_t(0) : (uint64_t(1) << d) - 1;
    allowedMask.assign(n, all);
    colocatedWith.resize(n);
    std::map<int, int> classRep;  // colocation class -> its lowest node id
    for (int v = 0; v < n; ++v) {
        const Node& node = nodes[v];
        if (!node.allowedKinds.empty()) {
            uint64_t mask = 0;
            for (int k = 0; k < d; ++k)
                if (std::find(node.allowedKinds.begin(), node.allowedKinds.end(), m.devices[k].kind) != node.allowedKinds.end())
                    mask |= uint64_t(1) << k;
            if (!mask) {
                std::string kinds;
                for (const auto& k : node.allowedKinds) kinds += (kinds.empty() ? "" : ", ") + k;
                throw std::invalid_argument("node '" + node.name + "' may run only on devices of kind " + kinds +
                                            ", and device setup '" + m.name + "' has none");
            }
            allowedMask[v] = mask;
        }
        colocatedWith[v] = v;
        if (node.colocationClass >= 0) {
            auto [it, fresh] = classRep.emplace(node.colocationClass, v);
            colocatedWith[v] = it->second;
        }
    }
    for (int v = 0; v < n; ++v) allowedMask[colocatedWith[v]] &= allowedMask[v];
    for (int v = 0; v < n; ++v) {
        const int rep = colocatedWith[v];
        if (!allowedMask[rep])
            throw std::invalid_argument("the colocation class of node '" + nodes[rep].name + "' (with node '" +
                                        nodes[v].name + "') has no device that every member may run on");
        allowedMask[v] = allowedMask[rep];
        if (rep != v || allowedMask[v] != all) constrained = true;
    }

    double worst = 0;  // every tensor (at most one copy per device), every weight, one temporary
    for (int64_t b : tensorBytes) worst += double(b);
    for (int64_t b : residentBytes) worst += double(b);
    if (options.countWeights)
        for (int64_t b : weightBytes) worst += double(b);
    int64_t maxTemp = 0;
    for (int64_t b : tempBytes) maxTemp = std::max(maxTemp, b);
    worst += double(maxTemp);
    if (options.microBatches > 1) {
        // Every micro-batch's tensors may be live at once; weights and resident bytes count once.
        double activations = 0;
        for (int64_t b : tensorBytes) activations += double(b);
        worst += activations * (options.microBatches - 1);
    }
    memoryCannotOverflow = true;
    for (int k = 0; k < d; ++k)
        if (worst > double(capacity[k])) memoryCannotOverflow = false;
    runtimeCannotOverflow = options.objective == PlacementObjective::Runtime && memoryCannotOverflow;
    computeCostBound();
}

void ScheduleProblem::computeCostBound() {
    double ops = 0, transfers = 0;
    for (int v = 0; v < n; ++v) ops += *std::max_element(opCost.begin() + size_t(v) * d, opCost.begin() + size_t(v + 1) * d);
    for (int t = 0; t < numTensors; ++t) {
        double slowest = 0;
        for (int l : offDiagonalLinks) slowest = std::max(slowest, transferS(t, l / d, l % d));
        transfers += slowest * std::max(1, d - 1);
    }
    switch (options.objective) {
        case PlacementObjective::Runtime: feasibleCostBound = ops + transfers; break;
        case PlacementObjective::Memory:
            feasibleCostBound = double(*std::max_element(capacity.begin(), capacity.end()));
            break;
        case PlacementObjective::Throughput: feasibleCostBound = ops + transfers * 2; break;
    }
    feasibleCostBound = std::max(feasibleCostBound, 1e-300) * (1 + 1e-9);
}

void ScheduleProblem::preparePipeline() {
    pipeline.reset();
    const int M = options.microBatches;
    if (M <= 1) return;
    auto q = std::make_shared<ScheduleProblem>();
    ScheduleProblem& P = *q;
    P.options = options;
    P.options.microBatches = 1;
    // The max-load is the outer problem's to compute; the pipeline only gives the peaks.
    if (P.options.objective == PlacementObjective::Throughput) P.options.objective = PlacementObjective::Runtime;
    // The pipeline is only decoded from one-hot keys that already honour the constraints.
    P.n = n * M;
    P.d = d;
    const int outs = firstInput, ins = numTensors - firstInput;
    P.numTensors = numTensors * M;
    P.firstInput = outs * M;
    // Local tensor t of micro-batch m: node outputs first, then graph inputs, micro-batch by
    // micro-batch within each.
    auto tensorOf = [&](int t, int mb) { return t < firstInput ? mb * outs + t : P.firstInput + mb * ins + (t - firstInput); };
    P.tensorBytes.resize(P.numTensors);
    P.tensorProducer.resize(P.numTensors);
    P.tensorIsOutput.resize(P.numTensors);
    P.tensorGraphId.resize(P.numTensors);
    P.tensorTransferS.resize(P.numTensors);
    P.tensorMicroBatch.resize(P.numTensors);
    for (int mb = 0; mb < M; ++mb)
        for (int t = 0; t < numTensors; ++t) {
            const int u = tensorOf(t, mb);
            P.tensorBytes[u] = tensorBytes[t];
            P.tensorProducer[u] = tensorProducer[t] >= 0 ? mb * n + tensorProducer[t] : -1;
            P.tensorIsOutput[u] = tensorIsOutput[t];
            P.tensorGraphId[u] = tensorGraphId[t];
            P.tensorTransferS[u] = tensorTransferS[t];
            P.tensorMicroBatch[u] = mb;
        }
    P.givenTransfers = givenTransfers;
    P.outputBytesTotal = outputBytesTotal * M;
    P.opCost.resize(size_t(P.n) * d);
    P.tempBytes.resize(P.n);
    P.outBytes.resize(P.n);
    P.initialRemaining.resize(P.n);
    P.residentBytes.assign(P.n, 0);
    P.outStart.assign(1, 0);
    P.inStart.assign(1, 0);
    P.ctrlStart.assign(1, 0);
    for (int mb = 0; mb < M; ++mb)
        for (int v = 0; v < n; ++v) {
            const int u = mb * n + v;
            std::copy_n(opCost.begin() + size_t(v) * d, d, P.opCost.begin() + size_t(u) * d);
            P.tempBytes[u] = tempBytes[v];
            P.outBytes[u] = outBytes[v];
            P.initialRemaining[u] = initialRemaining[v];
            if (mb == 0) P.residentBytes[u] = residentBytes[v];
            for (int i = outStart[v]; i < outStart[v + 1]; ++i) P.outTensors.push_back(tensorOf(outTensors[i], mb));
            P.outStart.push_back(static_cast<int>(P.outTensors.size()));
            for (int i = inStart[v]; i < inStart[v + 1]; ++i) P.inTensors.push_back(tensorOf(inTensors[i], mb));
            P.inStart.push_back(static_cast<int>(P.inTensors.size()));
            for (int i = ctrlStart[v]; i < ctrlStart[v + 1]; ++i) P.ctrlSucc.push_back(mb * n + ctrlSucc[i]);
            P.ctrlStart.push_back(static_cast<int>(P.ctrlSucc.size()));
        }
    P.anyResident = anyResident;
    // Consumers per tensor copy, in (copy) node id order like the original's.
    std::vector<std::vector<int>> cons(P.numTensors);
    for (int u = 0; u < P.n; ++u)
        for (int i = P.inStart[u]; i < P.inStart[u + 1]; ++i) cons[P.inTensors[i]].push_back(u);
    P.consStart.assign(1, 0);
    for (auto& c : cons) {
        P.consNodes.insert(P.consNodes.end(), c.begin(), c.end());
        P.consStart.push_back(static_cast<int>(P.consNodes.size()));
    }
    P.soleOutput.resize(P.n);
    for (int u = 0; u < P.n; ++u)
        if (P.outStart[u + 1] - P.outStart[u] == 1 && P.ctrlStart[u] == P.ctrlStart[u + 1]) {
            const int t = P.outTensors[P.outStart[u]];
            P.soleOutput[u] = {P.consStart[t], P.consStart[t + 1], P.tensorBytes[t]};
        }
    // Weights are shared: every copy of a consumer uses the one resident copy on its device.
    P.weightBytes = weightBytes;
    P.weightStart.assign(1, 0);
    for (size_t w = 0; w + 1 < weightStart.size(); ++w) {
        for (int mb = 0; mb < M; ++mb)
            for (int i = weightStart[w]; i < weightStart[w + 1]; ++i) P.weightNodes.push_back(mb * n + weightNodes[i]);
        P.weightStart.push_back(static_cast<int>(P.weightNodes.size()));
    }
    P.minLinkLatency = minLinkLatency;
    P.linkLatency = linkLatency;
    P.linkInvBandwidth = linkInvBandwidth;
    P.offDiagonalLinks = offDiagonalLinks;
    P.capacity = capacity;
    P.paysTransfers = paysTransfers;
    const uint64_t all = d == 64 ? ~uint64_t(0) : (uint64_t(1) << d) - 1;
    P.allowedMask.assign(P.n, all);
    P.colocatedWith.resize(P.n);
    for (int u = 0; u < P.n; ++u) P.colocatedWith[u] = u;
    P.memoryCannotOverflow = memoryCannotOverflow;
    P.runtimeCannotOverflow = runtimeCannotOverflow;
    P.computeCostBound();
    pipeline = std::move(q);
}

}  // namespace graphopt
