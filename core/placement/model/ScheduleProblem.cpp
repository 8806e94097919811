#include "placement/model/ScheduleProblem.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "graph/GraphError.h"

namespace graphopt {

const char* objectiveName(PlacementObjective o) { return o == PlacementObjective::Runtime ? "runtime" : "memory"; }

PlacementObjective objectiveFromName(const std::string& s) {
    if (s == "runtime") return PlacementObjective::Runtime;
    if (s == "memory") return PlacementObjective::Memory;
    throw std::invalid_argument("unknown objective '" + s + "' (runtime or memory)");
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
    double worst = 0;  // every tensor (at most one copy per device), every weight, one temporary
    for (int64_t b : tensorBytes) worst += double(b);
    if (options.countWeights)
        for (int64_t b : weightBytes) worst += double(b);
    int64_t maxTemp = 0;
    for (int64_t b : tempBytes) maxTemp = std::max(maxTemp, b);
    worst += double(maxTemp);
    runtimeCannotOverflow = options.objective == PlacementObjective::Runtime;
    for (int k = 0; k < d; ++k)
        if (worst > double(capacity[k])) runtimeCannotOverflow = false;
}

}  // namespace graphopt
