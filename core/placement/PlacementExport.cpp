#include "placement/PlacementExport.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <variant>

namespace graphopt {

namespace {

using Ordered = nlohmann::ordered_json;

constexpr const char* kIdAttr = "neurips.id";  // set by loadNeuripsWorkload

void checkPlacement(const Graph& g, const DeviceModel& devices, const std::vector<int>& placement) {
    if (placement.size() != g.nodeCount())
        throw std::invalid_argument("the placement has " + std::to_string(placement.size()) + " nodes, the graph " +
                                    std::to_string(g.nodeCount()));
    for (size_t v = 0; v < placement.size(); ++v)
        if (placement[v] < 0 || placement[v] >= devices.deviceCount())
            throw std::invalid_argument("node '" + g.nodes()[v].name + "' is placed on a device that does not exist");
}

// Nodes in the order the schedule started them; any the order lacks follow by id.
std::vector<int> scheduleOrder(const Graph& g, const PlacementResult& r) {
    std::vector<int> order;
    std::vector<bool> seen(g.nodeCount(), false);
    for (int v : r.order)
        if (v >= 0 && v < int(g.nodeCount()) && !seen[v]) order.push_back(v), seen[v] = true;
    for (int v = 0; v < int(g.nodeCount()); ++v)
        if (!seen[v]) order.push_back(v);
    return order;
}

int64_t neuripsId(const Node& n) {
    auto it = n.attrs.find(kIdAttr);
    if (it == n.attrs.end() || !std::holds_alternative<int64_t>(it->second))
        throw std::invalid_argument("node '" + n.name +
                                    "' has no NeurIPS id: only a NeurIPS 2020 workload (or its native JSON copy) "
                                    "can be exported as a NeurIPS split; use --export-format graphopt");
    return std::get<int64_t>(it->second);
}

double costS(const Node& n, const DeviceSpec& d) {
    auto it = n.costByKindS.find(d.kind);
    if (it != n.costByKindS.end()) return it->second;
    return n.computeCostS > 0 ? n.computeCostS : 0.0;
}

}  // namespace

PlacementExportFormat placementExportFormatFromName(const std::string& name) {
    if (name == "graphopt") return PlacementExportFormat::Graphopt;
    if (name == "neurips") return PlacementExportFormat::Neurips;
    throw std::invalid_argument("unknown export format '" + name + "' (expected graphopt or neurips)");
}

void checkPlacementExportable(const Graph& g, const DeviceModel&, PlacementExportFormat format) {
    if (format != PlacementExportFormat::Neurips) return;
    for (const Node& n : g.nodes()) (void)neuripsId(n);
}

std::vector<double> neuripsLoadsMs(const Graph& g, const DeviceModel& devices, const std::vector<int>& placement) {
    checkPlacement(g, devices, placement);
    std::vector<double> load(size_t(devices.deviceCount()), 0.0);
    for (size_t v = 0; v < g.nodeCount(); ++v)
        load[placement[v]] += costS(g.nodes()[v], devices.devices[placement[v]]) * 1000.0;
    for (size_t v = 0; v < g.nodeCount(); ++v) {
        const int from = placement[v];
        for (int t : g.nodes()[v].outputs) {
            const double c = g.tensors()[t].transferCostS;
            if (!(c > 0)) continue;
            std::set<int> receivers;
            for (const auto& [consumer, port] : g.consumers(t))
                if (placement[consumer] != from) receivers.insert(placement[consumer]);
            if (receivers.empty()) continue;
            if (devices.devices[from].paysTransfers) load[from] += c * 1000.0;
            for (int k : receivers)
                if (devices.devices[k].paysTransfers) load[k] += c * 1000.0;
        }
    }
    return load;
}

nlohmann::ordered_json placementExportJson(const Graph& g, const DeviceModel& devices, const PlacementResult& r) {
    checkPlacement(g, devices, r.placement);
    Ordered j = Ordered::object();
    j["format"] = "graphopt-placement";
    j["version"] = 1;
    j["graph"] = g.name;
    j["engine"] = r.engine;
    j["objective"] = r.objective;
    j["machine"] = devices.name;
    j["runtime_s"] = r.runtimeS;
    j["throughput_s"] = r.throughputS;
    j["peak_bytes"] = r.peakBytes;
    j["feasible"] = r.feasible;
    Ordered list = Ordered::array();
    std::vector<Ordered> nodesOf(size_t(devices.deviceCount()), Ordered::array());
    for (int v : scheduleOrder(g, r)) nodesOf[r.placement[v]].push_back(g.nodes()[v].name);
    for (int k = 0; k < devices.deviceCount(); ++k)
        list.push_back({{"name", devices.devices[k].name}, {"kind", devices.devices[k].kind}, {"nodes", nodesOf[k]}});
    j["devices"] = std::move(list);
    Ordered place = Ordered::object();
    for (size_t v = 0; v < g.nodeCount(); ++v) place[g.nodes()[v].name] = devices.devices[r.placement[v]].name;
    j["placement"] = std::move(place);
    return j;
}

nlohmann::json neuripsSplitJson(const Graph& g, const DeviceModel& devices, const PlacementResult& r) {
    checkPlacementExportable(g, devices, PlacementExportFormat::Neurips);
    const std::vector<double> load = neuripsLoadsMs(g, devices, r.placement);
    std::vector<std::vector<int64_t>> ids(size_t(devices.deviceCount()));
    for (size_t v = 0; v < g.nodeCount(); ++v) ids[r.placement[v]].push_back(neuripsId(g.nodes()[v]));
    nlohmann::json fpgas = nlohmann::json::array(), cpus = nlohmann::json::array();
    double maxLoad = 0;
    for (int k = 0; k < devices.deviceCount(); ++k) {
        std::sort(ids[k].begin(), ids[k].end());
        (devices.devices[k].kind == "cpu" ? cpus : fpgas).push_back({{"load", load[k]}, {"nodes", ids[k]}});
        maxLoad = std::max(maxLoad, load[k]);
    }
    return {{"maxLoad", maxLoad}, {"fpgas", fpgas}, {"cpus", cpus}};
}

void writePlacementExport(const std::string& path, const Graph& g, const DeviceModel& devices, const PlacementResult& r,
                          PlacementExportFormat format) {
    std::string text;
    if (format == PlacementExportFormat::Neurips) {
        text = neuripsSplitJson(g, devices, r).dump(4) + "\n";
    } else {
        text = placementExportJson(g, devices, r).dump(2) + "\n";
    }
    const std::string tmp = path + ".partial";
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        if (!f) throw std::runtime_error(path + ": cannot write: " + std::strerror(errno));
        f.write(text.data(), static_cast<std::streamsize>(text.size()));
        f.close();
        if (!f) {
            std::remove(tmp.c_str());
            throw std::runtime_error(path + ": cannot write: " + std::strerror(errno));
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::remove(tmp.c_str());
        throw std::runtime_error(path + ": cannot write: " + ec.message());
    }
}

}  // namespace graphopt
