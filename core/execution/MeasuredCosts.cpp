#include "execution/MeasuredCosts.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "graph/Loaders.h"

namespace graphopt::exec {

namespace {
constexpr const char* kFormat = "graphopt-op-costs";
}

double MeasuredCosts::totalS() const {
    double s = 0;
    for (const auto& [name, c] : costs) s += c.medianS;
    return s;
}

nlohmann::ordered_json MeasuredCosts::toJson() const {
    nlohmann::ordered_json j;
    j["format"] = kFormat;
    j["version"] = 1;
    j["model"] = model;
    j["graph"] = graph;
    if (!inputDims.empty()) j["input_dims"] = inputDims;
    j["device_kind"] = deviceKind;
    j["threads"] = threads;
    j["method"] = method;
    j["machine"] = machine;
    j["machine_loaded"] = loaded;
    j["total_s"] = totalS();
    nlohmann::ordered_json c = nlohmann::ordered_json::object();
    for (const auto& [name, m] : costs)
        c[name] = {{"median_s", m.medianS}, {"min_s", m.minS}, {"max_s", m.maxS}, {"repeats", m.repeats}, {"source", m.source}};
    j["costs"] = std::move(c);
    nlohmann::ordered_json np = nlohmann::ordered_json::array();
    for (const auto& n : notProfiled) np.push_back({{"node", n.node}, {"op", n.op}, {"reason", n.reason}});
    j["not_profiled"] = std::move(np);
    return j;
}

MeasuredCosts MeasuredCosts::fromJson(const nlohmann::json& j, const std::string& path) {
    auto bad = [&](const std::string& why) { return std::invalid_argument(path + ": " + why); };
    if (!j.is_object() || j.value("format", "") != kFormat)
        throw bad(std::string("not a cost file (expected \"format\": \"") + kFormat + "\"; `graphopt profile` writes one)");
    MeasuredCosts m;
    try {
        m.model = j.value("model", "");
        m.graph = j.value("graph", "");
        m.inputDims = j.value("input_dims", "");
        m.deviceKind = j.value("device_kind", "cpu");
        m.threads = j.value("threads", 1);
        m.method = j.value("method", "forward-passes");
        m.machine = j.value("machine", "");
        m.loaded = j.value("machine_loaded", false);
        if (!j.contains("costs") || !j["costs"].is_object()) throw bad("\"costs\" must map node names to costs");
        for (auto it = j["costs"].begin(); it != j["costs"].end(); ++it) {
            const auto& c = it.value();
            MeasuredOpCost oc;
            if (c.is_number()) {
                oc.medianS = c.get<double>();
            } else if (c.is_object() && c.contains("median_s") && c["median_s"].is_number()) {
                oc.medianS = c["median_s"].get<double>();
                oc.minS = c.value("min_s", oc.medianS);
                oc.maxS = c.value("max_s", oc.medianS);
                oc.repeats = c.value("repeats", 0);
                oc.source = c.value("source", "libtorch");
            } else {
                throw bad("costs['" + it.key() + "'] must be seconds or an object with \"median_s\"");
            }
            if (!std::isfinite(oc.medianS) || oc.medianS < 0) throw bad("costs['" + it.key() + "'] must be >= 0 seconds");
            m.costs[it.key()] = oc;
        }
        for (const auto& n : j.value("not_profiled", nlohmann::json::array()))
            m.notProfiled.push_back({n.value("node", ""), n.value("op", ""), n.value("reason", "")});
    } catch (const nlohmann::json::exception& e) {
        throw bad(std::string("a field has the wrong type (") + e.what() + ")");
    }
    return m;
}

MeasuredCosts MeasuredCosts::load(const std::string& path) { return fromJson(readJsonFileForLoader(path), path); }

void MeasuredCosts::save(const std::string& path) const {
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp);
        if (!out) throw std::runtime_error(path + ": cannot write the cost file");
        out << toJson().dump(1) << "\n";
        out.close();
        if (!out) throw std::runtime_error(path + ": writing the cost file failed (disk full?)");
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) throw std::runtime_error(path + ": cannot write the cost file (" + ec.message() + ")");
}

nlohmann::json MeasuredCosts::placementParams(const Graph& g, const std::string& path) const {
    nlohmann::json costsS = nlohmann::json::object();
    for (const auto& [name, c] : costs) {
        if (g.findNode(name) < 0)
            throw std::invalid_argument(path + ": node '" + name + "' is not in the graph '" + g.name +
                                        "' (a cost file of another model? it was made for '" + graph + "')");
        costsS[name] = c.medianS;
    }
    return {{"measured_costs_s", costsS}, {"measured_costs_kind", deviceKind}};
}

}  // namespace graphopt::exec
