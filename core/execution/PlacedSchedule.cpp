#include "execution/PlacedSchedule.h"

#include <map>
#include <stdexcept>

#include "graph/Loaders.h"

namespace graphopt::exec {

namespace {

int deviceIndex(const DeviceModel& devices, const std::string& name, const std::string& source) {
    for (int k = 0; k < devices.deviceCount(); ++k)
        if (devices.devices[size_t(k)].name == name) return k;
    std::string list;
    for (const auto& d : devices.devices) list += (list.empty() ? "" : ", ") + d.name;
    throw std::invalid_argument(source + ": the placement uses device '" + name + "', which " + devices.name +
                                " does not have (" + list + "); place on the devices you execute on");
}

// Every node placed once; the order completed with unlisted nodes in graph order.
void finish(PlacedSchedule& s, const Graph& g, const std::string& source) {
    for (size_t v = 0; v < g.nodeCount(); ++v)
        if (s.deviceOf[v] < 0)
            throw std::invalid_argument(source + ": node '" + g.nodes()[v].name + "' is not placed (a placement of another model?)");
    std::vector<char> listed(g.nodeCount(), 0);
    for (int v : s.priority) listed[size_t(v)] = 1;
    for (int v : g.topologicalOrder())
        if (!listed[size_t(v)]) s.priority.push_back(v);
}

int nodeIndex(const Graph& g, const std::string& name, const std::string& source) {
    const int v = g.findNode(name);
    if (v < 0) throw std::invalid_argument(source + ": node '" + name + "' is not in the graph '" + g.name + "'");
    return v;
}

}  // namespace

PlacedSchedule placedScheduleFromResult(const PlacementResult& r, const Graph& g, const DeviceModel& devices,
                                        const std::string& source) {
    PlacedSchedule s;
    s.engine = r.engine;
    s.source = source;
    s.deviceOf.assign(g.nodeCount(), -1);
    if (r.placement.size() != r.nodeNames.size()) throw std::invalid_argument(source + ": the result holds no placement");
    for (size_t i = 0; i < r.nodeNames.size(); ++i)
        s.deviceOf[size_t(nodeIndex(g, r.nodeNames[i], source))] =
            deviceIndex(devices, r.deviceNames.at(size_t(r.placement[i])), source);
    std::vector<char> seen(g.nodeCount(), 0);
    for (int i : r.order) {
        if (i < 0 || size_t(i) >= r.nodeNames.size()) continue;
        const int v = nodeIndex(g, r.nodeNames[size_t(i)], source);
        if (!seen[size_t(v)]) s.priority.push_back(v), seen[size_t(v)] = 1;
    }
    finish(s, g, source);
    return s;
}

PlacedSchedule placedScheduleFromExport(const nlohmann::json& j, const Graph& g, const DeviceModel& devices,
                                        const std::string& path) {
    if (!j.is_object() || j.value("format", "") != "graphopt-placement")
        throw std::invalid_argument(path + ": not a placement export (\"format\": \"graphopt-placement\"; `graphopt place --export` writes one)");
    PlacedSchedule s;
    s.engine = j.value("engine", "");
    s.source = path;
    s.deviceOf.assign(g.nodeCount(), -1);
    try {
        // Each device's nodes in start order; merged by the order's position within each device
        // (round robin keeps every device's own order, which is all the executor needs).
        std::vector<std::vector<int>> lists;
        for (const auto& d : j.at("devices")) {
            const int k = deviceIndex(devices, d.at("name").get<std::string>(), path);
            std::vector<int> nodes;
            for (const auto& name : d.value("nodes", nlohmann::json::array())) {
                const int v = nodeIndex(g, name.get<std::string>(), path);
                if (s.deviceOf[size_t(v)] >= 0) throw std::invalid_argument(path + ": node '" + name.get<std::string>() + "' is placed twice");
                s.deviceOf[size_t(v)] = k;
                nodes.push_back(v);
            }
            lists.push_back(std::move(nodes));
        }
        // A global order from the per-device orders and the data dependencies: repeatedly take the
        // first node of any device list whose predecessors are all taken (Kahn over the union of
        // both orders); a cycle means a device order contradicts the graph.
        std::vector<size_t> head(lists.size(), 0);
        std::vector<char> taken(g.nodeCount(), 0);
        size_t total = 0;
        for (const auto& l : lists) total += l.size();
        while (s.priority.size() < total) {
            bool progress = false;
            for (size_t k = 0; k < lists.size(); ++k) {
                while (head[k] < lists[k].size()) {
                    const int v = lists[k][head[k]];
                    bool ok = true;
                    for (int p : g.predecessors(v))
                        if (!taken[size_t(p)] && s.deviceOf[size_t(p)] >= 0) ok = false;
                    if (!ok) break;
                    taken[size_t(v)] = 1;
                    s.priority.push_back(v);
                    ++head[k];
                    progress = true;
                }
            }
            if (!progress) {
                const int v = lists[0].empty() ? 0 : lists[0][std::min(head[0], lists[0].size() - 1)];
                throw std::invalid_argument(path + ": the devices' orders contradict the graph (near node '" +
                                            g.nodes()[size_t(v)].name + "': each device must list its nodes in an order the data allows)");
            }
        }
    } catch (const nlohmann::json::exception& e) {
        throw std::invalid_argument(path + ": a field is missing or has the wrong type (" + std::string(e.what()) + ")");
    }
    finish(s, g, path);
    return s;
}

PlacedSchedule loadPlacedSchedule(const std::string& path, const Graph& g, const DeviceModel& devices) {
    return placedScheduleFromExport(readJsonFileForLoader(path), g, devices, path);
}

}  // namespace graphopt::exec
