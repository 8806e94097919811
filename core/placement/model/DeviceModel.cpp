#include "placement/model/DeviceModel.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace graphopt {

DeviceModel::DeviceModel(std::string n, std::vector<DeviceSpec> devs, LinkSpec defaultLink)
    : name(std::move(n)), devices(std::move(devs)) {
    links_.assign(devices.size() * devices.size(), defaultLink);
}

double DeviceModel::opCostS(const Graph& g, int node, int device) const {
    const Node& n = g.nodes()[node];
    const DeviceSpec& dev = devices[device];
    if (!n.costByKindS.empty()) {
        auto it = n.costByKindS.find(dev.kind);
        if (it != n.costByKindS.end()) return it->second / dev.speedFactor;
    }
    if (n.computeCostS >= 0) return n.computeCostS / dev.speedFactor;
    double bytes = 0;
    for (int t : n.inputs)
        if (t >= 0) bytes += double(g.tensors()[t].bytes);
    for (int t : n.outputs)
        if (t >= 0) bytes += double(g.tensors()[t].bytes);
    return dev.overheadS + std::max(n.flops / dev.flopsPerS, bytes / dev.memoryBandwidth);
}

double DeviceModel::transferS(int from, int to, int64_t bytes) const {
    if (from == to) return 0;
    const LinkSpec& l = link(from, to);
    return l.latencyS + double(bytes) / l.bandwidth;
}

std::vector<std::string> DeviceModel::presetNames() {
    return {"2xgpu-pcie",         "4xgpu-nvlink",     "cpu+gpu", "4xv100-16gb-nvlink", "8xa100-40gb-nvlink",
            "2xt4-16gb-pcie",     "cpu-cores"};
}

namespace {
// V100-like GPU: 15 TFLOP/s fp32, 16 GiB HBM2 at 900 GB/s, ~5 us launch overhead.
DeviceSpec gpu(const std::string& name) { return {name, 15e12, 5e-6, int64_t(16) << 30, 900e9, 1.0}; }

// Named machines, with the vendors' data-sheet figures (docs/formats.md, "Device presets", gives
// the sources): compute is the fp32 (non-tensor-core) peak, as the bundled models are fp32;
// memory in GiB as the cards have it; a link is one ordered pair of devices, per direction.
std::vector<DeviceSpec> gpus(int count, double flopsPerS, int64_t memoryGiB, double memoryBandwidth) {
    std::vector<DeviceSpec> out;
    for (int i = 0; i < count; ++i)
        out.push_back({"gpu" + std::to_string(i), flopsPerS, 5e-6, memoryGiB << 30, memoryBandwidth, 1.0});
    return out;
}
}  // namespace

DeviceModel DeviceModel::preset(const std::string& name) {
    if (name == "2xgpu-pcie")  // PCIe 3 x16: ~12 GB/s effective, ~10 us per transfer.
        return DeviceModel(name, {gpu("gpu0"), gpu("gpu1")}, LinkSpec{10e-6, 12e9});
    if (name == "4xgpu-nvlink")  // NVLink 2: ~50 GB/s per direction per link, a few us.
        return DeviceModel(name, {gpu("gpu0"), gpu("gpu1"), gpu("gpu2"), gpu("gpu3")}, LinkSpec{5e-6, 50e9});
    if (name == "cpu+gpu") {
        // A server CPU: ~1 TFLOP/s fp32, 64 GiB DDR4 at ~100 GB/s; given costs (measured on a
        // GPU-like reference) run 15x slower there.
        DeviceSpec cpu{"cpu", 1e12, 2e-6, int64_t(64) << 30, 100e9, 1.0 / 15};
        cpu.kind = "cpu";  // a workload's CPU-only nodes may run here
        return DeviceModel(name, {cpu, gpu("gpu")}, LinkSpec{10e-6, 12e9});
    }
    // V100 SXM2 16 GB: 15.7 TFLOP/s fp32, 900 GB/s HBM2. NVLink 2 is 300 GB/s per GPU in total
    // (6 links x 25 GB/s x 2 directions); four GPUs fully connected give each pair 2 links:
    // 50 GB/s per direction.
    if (name == "4xv100-16gb-nvlink") return DeviceModel(name, gpus(4, 15.7e12, 16, 900e9), LinkSpec{5e-6, 50e9});
    // A100 SXM4 40 GB: 19.5 TFLOP/s fp32 (156 with TF32 tensor cores), 1,555 GB/s HBM2. NVLink 3
    // is 600 GB/s per GPU in total; NVSwitch gives any pair all of it: 300 GB/s per direction.
    if (name == "8xa100-40gb-nvlink") return DeviceModel(name, gpus(8, 19.5e12, 40, 1555e9), LinkSpec{3e-6, 300e9});
    // T4 16 GB: 8.1 TFLOP/s fp32, 320 GB/s GDDR6, PCIe 3 x16: 15.75 GB/s per direction in
    // theory, ~12 GB/s measured; ~10 us per transfer.
    if (name == "2xt4-16gb-pcie") return DeviceModel(name, gpus(2, 8.1e12, 16, 320e9), LinkSpec{10e-6, 12e9});
    // Two cores of one CPU, as `graphopt execute` runs a placement (one pinned worker per core,
    // libtorch on one thread): the figures `graphopt calibrate` measured on a 2-core AMD EPYC
    // (AVX-512) host: libtorch's 3x3 conv at 70 GFLOP/s on one core, copies at 13.8 GB/s within a
    // core, and a hand-over to the other core of 37 us (a sleeping worker's wake-up) + bytes at
    // 6.7 GB/s. Memory: 4 GiB each, a share of the host's. Calibrate for the machine at hand.
    if (name == "cpu-cores") {
        std::vector<DeviceSpec> cores;
        for (int k = 0; k < 2; ++k) {
            DeviceSpec d{"core" + std::to_string(k), 70e9, 2e-6, int64_t(4) << 30, 13.8e9, 1.0};
            d.kind = "cpu";
            cores.push_back(d);
        }
        return DeviceModel(name, cores, LinkSpec{37e-6, 6.7e9});
    }
    std::string list;
    for (const auto& p : presetNames()) list += (list.empty() ? "" : ", ") + p;
    throw std::invalid_argument("unknown device preset '" + name + "' (presets: " + list +
                                "; or give a JSON file)");
}

DeviceModel DeviceModel::load(const std::string& presetOrFile) {
    for (const auto& p : presetNames())
        if (p == presetOrFile) return preset(p);
    std::ifstream probe(presetOrFile);
    if (!probe) {
        std::string list;
        for (const auto& p : presetNames()) list += (list.empty() ? "" : ", ") + p;
        throw std::invalid_argument("devices '" + presetOrFile + "' is neither a preset (" + list +
                                    ") nor a readable JSON file");
    }
    return loadFile(presetOrFile);
}

DeviceModel DeviceModel::loadFile(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::invalid_argument(path + ": cannot open device file");
    std::stringstream ss;
    ss << in.rdbuf();
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(ss.str());
    } catch (const std::exception& e) {
        throw std::invalid_argument(path + ": not valid JSON (" + e.what() + ")");
    }
    try {
        DeviceModel m = fromJson(j);
        if (m.name.empty()) m.name = path;
        return m;
    } catch (const std::exception& e) {
        throw std::invalid_argument(path + ": " + e.what());
    }
}

namespace {
double positive(const nlohmann::json& j, const char* key, double fallback, const std::string& where) {
    if (!j.contains(key)) return fallback;
    if (!j[key].is_number()) throw std::invalid_argument(where + ": '" + key + "' must be a number");
    double v = j[key].get<double>();
    if (!(v > 0)) throw std::invalid_argument(where + ": '" + key + "' must be > 0");
    return v;
}
double nonNegative(const nlohmann::json& j, const char* key, double fallback, const std::string& where) {
    if (!j.contains(key)) return fallback;
    if (!j[key].is_number()) throw std::invalid_argument(where + ": '" + key + "' must be a number");
    double v = j[key].get<double>();
    if (!(v >= 0)) throw std::invalid_argument(where + ": '" + key + "' must be >= 0");
    return v;
}
LinkSpec linkFrom(const nlohmann::json& j, LinkSpec fallback, const std::string& where) {
    if (!j.is_object()) throw std::invalid_argument(where + " must be an object");
    return {nonNegative(j, "latency_s", fallback.latencyS, where), positive(j, "bandwidth", fallback.bandwidth, where)};
}
}  // namespace

DeviceModel DeviceModel::fromJson(const nlohmann::json& j) {
    if (!j.is_object()) throw std::invalid_argument("device model must be a JSON object");
    if (!j.contains("devices") || !j["devices"].is_array() || j["devices"].empty())
        throw std::invalid_argument("'devices' must be a non-empty array");
    // The schedule simulator keeps device sets in 64-bit masks, and the link table is d x d.
    if (j["devices"].size() > size_t(kMaxDevices))
        throw std::invalid_argument("'devices' lists " + std::to_string(j["devices"].size()) + " devices; at most " +
                                    std::to_string(kMaxDevices) + " are supported");
    std::vector<DeviceSpec> devs;
    for (size_t i = 0; i < j["devices"].size(); ++i) {
        const auto& dj = j["devices"][i];
        std::string where = "devices[" + std::to_string(i) + "]";
        if (!dj.is_object()) throw std::invalid_argument(where + " must be an object");
        DeviceSpec d;
        d.name = "dev" + std::to_string(i);
        if (dj.contains("name")) {
            if (!dj["name"].is_string()) throw std::invalid_argument(where + ": 'name' must be a string");
            d.name = dj["name"].get<std::string>();
        }
        d.flopsPerS = positive(dj, "flops_per_s", d.flopsPerS, where);
        d.overheadS = nonNegative(dj, "overhead_s", d.overheadS, where);
        // Converted to an integer: a value past int64_t would be undefined, below 1 a zero capacity.
        const double memory = positive(dj, "memory_bytes", double(d.memoryBytes), where);
        if (!(memory >= 1 && memory < 9223372036854775808.0))
            throw std::invalid_argument(where + ": 'memory_bytes' must be between 1 and 2^63 - 1");
        d.memoryBytes = int64_t(memory);
        d.memoryBandwidth = positive(dj, "memory_bandwidth", d.memoryBandwidth, where);
        d.speedFactor = positive(dj, "speed_factor", d.speedFactor, where);
        if (dj.contains("kind")) {
            if (!dj["kind"].is_string() || dj["kind"].get<std::string>().empty())
                throw std::invalid_argument(where + ": 'kind' must be a non-empty string");
            d.kind = dj["kind"].get<std::string>();
        }
        if (dj.contains("pays_transfers")) {
            if (!dj["pays_transfers"].is_boolean())
                throw std::invalid_argument(where + ": 'pays_transfers' must be true or false");
            d.paysTransfers = dj["pays_transfers"].get<bool>();
        }
        for (const auto& prev : devs)
            if (prev.name == d.name) throw std::invalid_argument("duplicate device name '" + d.name + "'");
        devs.push_back(d);
    }
    LinkSpec def;
    if (j.contains("default_link")) def = linkFrom(j["default_link"], def, "default_link");
    if (j.contains("name") && !j["name"].is_string()) throw std::invalid_argument("'name' must be a string");
    DeviceModel m(j.contains("name") ? j["name"].get<std::string>() : std::string(), devs, def);
    auto indexOf = [&](const nlohmann::json& v, const std::string& where) {
        if (!v.is_string()) throw std::invalid_argument(where + " must name a device");
        for (int i = 0; i < m.deviceCount(); ++i)
            if (m.devices[i].name == v.get<std::string>()) return i;
        throw std::invalid_argument(where + " names unknown device '" + v.get<std::string>() + "'");
    };
    if (j.contains("links")) {
        if (!j["links"].is_array()) throw std::invalid_argument("'links' must be an array");
        for (size_t i = 0; i < j["links"].size(); ++i) {
            const auto& lj = j["links"][i];
            std::string where = "links[" + std::to_string(i) + "]";
            if (!lj.is_object() || !lj.contains("from") || !lj.contains("to"))
                throw std::invalid_argument(where + " needs 'from' and 'to'");
            int a = indexOf(lj["from"], where + ".from"), b = indexOf(lj["to"], where + ".to");
            if (a == b) throw std::invalid_argument(where + " links a device to itself");
            m.setLink(a, b, linkFrom(lj, def, where));
        }
    }
    return m;
}

std::optional<DeviceModel> DeviceModel::fromGraph(const Graph& g) {
    auto it = g.metadata.find(kGraphDevicesKey);
    if (it == g.metadata.end()) return std::nullopt;
    try {
        return fromJson(nlohmann::json::parse(it->second));
    } catch (const std::exception& e) {
        throw std::invalid_argument("graph '" + g.name + "': its device setup is not valid: " + e.what());
    }
}

nlohmann::json DeviceModel::toJson() const {
    nlohmann::json devs = nlohmann::json::array(), links = nlohmann::json::array();
    for (const auto& d : devices)
        devs.push_back({{"name", d.name},
                        {"flops_per_s", d.flopsPerS},
                        {"overhead_s", d.overheadS},
                        {"memory_bytes", d.memoryBytes},
                        {"memory_bandwidth", d.memoryBandwidth},
                        {"speed_factor", d.speedFactor},
                        {"kind", d.kind},
                        {"pays_transfers", d.paysTransfers}});
    for (int a = 0; a < deviceCount(); ++a)
        for (int b = 0; b < deviceCount(); ++b)
            if (a != b)
                links.push_back({{"from", devices[a].name},
                                 {"to", devices[b].name},
                                 {"latency_s", link(a, b).latencyS},
                                 {"bandwidth", link(a, b).bandwidth}});
    return {{"name", name}, {"devices", devs}, {"links", links}};
}

}  // namespace graphopt
