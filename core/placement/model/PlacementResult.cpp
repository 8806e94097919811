#include "placement/model/PlacementResult.h"

#include <map>
#include <stdexcept>

#include "run/Units.h"

namespace graphopt {

std::string PlacementResult::feasibilityText() const {
    std::string over;
    for (size_t k = 0; k < overLimitBytes.size(); ++k) {
        if (overLimitBytes[k] <= 0) continue;
        const std::string name = k < deviceNames.size() ? deviceNames[k] : "device " + std::to_string(k);
        over += (over.empty() ? "" : "; ") + name;
        if (k < deviceCapacityBytes.size()) over += " over its " + humanBytes(double(deviceCapacityBytes[k]));
        over += " by " + humanBytes(double(overLimitBytes[k]));
    }
    if (!over.empty()) return "infeasible: " + over;
    if (!feasible) return "infeasible";
    int fullest = -1;
    double share = 0;
    // Devices of practically unlimited memory (a workload's host CPU: 2^60 bytes and more) are not
    // worth a share.
    for (size_t k = 0; k < deviceCapacityBytes.size() && k < devicePeakBytes.size(); ++k)
        if (deviceCapacityBytes[k] > 0 && deviceCapacityBytes[k] < (int64_t(1) << 60) && devicePeakBytes[k] > 0 &&
            double(devicePeakBytes[k]) / double(deviceCapacityBytes[k]) >= share)
            share = double(devicePeakBytes[k]) / double(deviceCapacityBytes[k]), fullest = int(k);
    if (fullest < 0) return "fits";
    const std::string name = size_t(fullest) < deviceNames.size() ? deviceNames[fullest] : "device";
    const int pct = int(share * 100 + 0.5);
    return "fits (fullest: " + name + " at " + (share < 0.01 && share > 0 ? std::string("<1") : std::to_string(pct)) +
           " % of " + humanBytes(double(deviceCapacityBytes[fullest])) + ")";
}

nlohmann::json PlacementResult::toJson(bool includeSchedule) const {
    nlohmann::json place = nlohmann::json::object(), ord = nlohmann::json::array(),
                   peaks = nlohmann::json::object();
    for (size_t v = 0; v < placement.size() && v < nodeNames.size(); ++v)
        place[nodeNames[v]] = deviceNames.at(placement[v]);
    for (int v : order) ord.push_back(nodeNames.at(v));
    for (size_t k = 0; k < devicePeakBytes.size() && k < deviceNames.size(); ++k)
        peaks[deviceNames[k]] = devicePeakBytes[k];
    nlohmann::json over = nlohmann::json::object(), caps = nlohmann::json::object();
    for (size_t k = 0; k < overLimitBytes.size() && k < deviceNames.size(); ++k) over[deviceNames[k]] = overLimitBytes[k];
    for (size_t k = 0; k < deviceCapacityBytes.size() && k < deviceNames.size(); ++k)
        caps[deviceNames[k]] = deviceCapacityBytes[k];
    nlohmann::json j = {{"engine", engine},
                        {"objective", objective},
                        {"devices", devices},
                        {"device_names", deviceNames},
                        {"budget", budget},
                        {"seed", seed},
                        {"cost", cost},
                        {"runtime_s", runtimeS},
                        {"peak_bytes", peakBytes},
                        {"device_peak_bytes", peaks},
                        {"evaluations", evaluations},
                        {"wall_s", wallS},
                        {"feasible", feasible},
                        {"over_limit_bytes", over},
                        {"device_capacity_bytes", caps},
                        {"throughput_s", throughputS},
                        {"micro_batches", microBatches},
                        {"cancelled", cancelled},
                        {"count_weights", countWeights},
                        {"placement", place},
                        {"order", ord},
                        {"engine_info", engineInfo}};
    if (includeSchedule) {
        nlohmann::json s = schedule.toJson();
        s["node_names"] = nodeNames;
        j["schedule"] = std::move(s);
    }
    return j;
}

RunResult PlacementResult::toRunResult() const {
    // toJson(true) holds every figure once; the store splits it into cost, placement, schedule
    // and the named figures.
    nlohmann::json j = toJson(true);
    RunResult r;
    r.cost = cost;
    r.placement = std::move(j["placement"]);
    r.schedule = std::move(j["schedule"]);
    for (const char* moved : {"cost", "placement", "schedule", "order"}) j.erase(moved);
    r.costs = std::move(j);
    return r;
}

PlacementResult PlacementResult::fromRunResult(const RunResult& stored) {
    nlohmann::json j = stored.costs.is_object() ? stored.costs : nlohmann::json::object();
    if (stored.cost) j["cost"] = *stored.cost;
    if (!stored.placement.is_null()) j["placement"] = stored.placement;
    if (!stored.schedule.is_null()) j["schedule"] = stored.schedule;
    PlacementResult r = fromJson(j);
    if (r.order.empty()) r.order = r.schedule.order;  // the store keeps the order in the schedule
    return r;
}

PlacementResult PlacementResult::fromJson(const nlohmann::json& j) {
    PlacementResult r;
    r.engine = j.value("engine", "");
    r.objective = j.value("objective", "");
    r.devices = j.value("devices", "");
    r.budget = j.value("budget", int64_t{0});
    r.seed = j.value("seed", uint64_t{1});
    r.deviceNames = j.value("device_names", std::vector<std::string>{});
    r.cost = j.value("cost", 0.0);
    r.runtimeS = j.value("runtime_s", 0.0);
    r.peakBytes = j.value("peak_bytes", int64_t{0});
    r.evaluations = j.value("evaluations", int64_t{0});
    r.wallS = j.value("wall_s", 0.0);
    r.feasible = j.value("feasible", true);
    r.throughputS = j.value("throughput_s", 0.0);
    r.microBatches = j.value("micro_batches", 1);
    r.cancelled = j.value("cancelled", false);
    r.countWeights = j.value("count_weights", true);
    r.engineInfo = j.value("engine_info", nlohmann::json::object());
    std::map<std::string, int> devIndex, nodeIndex;
    for (size_t k = 0; k < r.deviceNames.size(); ++k) devIndex[r.deviceNames[k]] = int(k);
    if (j.contains("device_peak_bytes"))
        for (const auto& name : r.deviceNames) r.devicePeakBytes.push_back(j["device_peak_bytes"].value(name, int64_t{0}));
    if (j.contains("over_limit_bytes"))  // runs stored before feasibility was reported have none
        for (const auto& name : r.deviceNames) r.overLimitBytes.push_back(j["over_limit_bytes"].value(name, int64_t{0}));
    if (j.contains("device_capacity_bytes"))
        for (const auto& name : r.deviceNames)
            r.deviceCapacityBytes.push_back(j["device_capacity_bytes"].value(name, int64_t{0}));
    // Node ids follow the order of the (name-sorted) placement object unless a schedule says otherwise.
    if (j.contains("schedule") && j["schedule"].contains("node_names"))
        r.nodeNames = j["schedule"]["node_names"].get<std::vector<std::string>>();
    else if (j.contains("placement"))
        for (auto it = j["placement"].begin(); it != j["placement"].end(); ++it) r.nodeNames.push_back(it.key());
    for (size_t v = 0; v < r.nodeNames.size(); ++v) nodeIndex[r.nodeNames[v]] = int(v);
    if (j.contains("placement")) {
        r.placement.assign(r.nodeNames.size(), 0);
        for (auto it = j["placement"].begin(); it != j["placement"].end(); ++it) {
            auto dv = devIndex.find(it.value().get<std::string>());
            if (dv == devIndex.end()) throw std::invalid_argument("placement names an unknown device");
            r.placement[nodeIndex.at(it.key())] = dv->second;
        }
    }
    if (j.contains("order"))
        for (const auto& name : j["order"]) r.order.push_back(nodeIndex.at(name.get<std::string>()));
    if (j.contains("schedule")) {
        const auto& s = j["schedule"];
        r.schedule.makespan = s.value("makespan", 0.0);
        for (const auto& o : s.value("ops", nlohmann::json::array()))
            r.schedule.ops.push_back({o["node"], o["device"], o["start"], o["end"], o.value("micro_batch", 0)});
        r.schedule.microBatches = s.value("micro_batches", 1);
        r.schedule.order = s.value("order", std::vector<int>{});
        for (const auto& t : s.value("transfers", nlohmann::json::array()))
            r.schedule.transfers.push_back(
                {t["tensor"], t["from"], t["to"], t["start"], t["end"], t["bytes"], t.value("micro_batch", 0)});
        for (const auto& curve : s.value("memory", nlohmann::json::array())) {
            std::vector<MemoryPoint> c;
            for (const auto& p : curve) c.push_back({p[0].get<double>(), p[1].get<int64_t>()});
            r.schedule.memory.push_back(std::move(c));
        }
        r.schedule.devicePeakBytes = s.value("device_peak_bytes", std::vector<int64_t>{});
    }
    return r;
}

}  // namespace graphopt
