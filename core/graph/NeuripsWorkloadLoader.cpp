// The NeurIPS 2020 device placement workloads (Tarnawski et al., "Efficient Algorithms for Device
// Placement of DNN Graph Operators"; the format of their package's input files, docs/formats.md,
// "Partitioning workloads"). One JSON object: the machine (k accelerators with a memory limit, l
// CPU cores), nodes with a latency per device kind, edges with the time to move the source's
// output. The mapping keeps the paper's max-load rules: a node's latencies become its per-kind
// costs, an edge's cost its source tensor's given transfer time, the CPUs pay no transfers and
// their memory is not limited, and the accelerators hold their nodes' `size` for the whole run.
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "graph/GraphError.h"
#include "graph/JsonFieldReader.h"
#include "graph/LoaderText.h"
#include "graph/Loaders.h"
#include "graph/WorkloadFormats.h"

namespace graphopt {

namespace {

using Json = nlohmann::json;

// What DeviceModel supports (placement/model/DeviceModel.h: kMaxDevices; core/graph does not
// include placement headers, so the limit is repeated here and checked by a test).
constexpr int64_t kMaxDevices = 64;
// Memory of a CPU: the host's, not limited in the paper's model.
constexpr int64_t kUnlimitedBytes = int64_t(1) << 62;
// The device links: transfer times are given per tensor, so the links add nothing.
constexpr double kLinkBandwidth = 1e18;
// The largest integer a double holds exactly.
constexpr double kMaxExactInteger = 9007199254740992.0;  // 2^53

class WorkloadReader : public JsonFieldReader<Json> {
public:
    using JsonFieldReader::JsonFieldReader;

    // A finite number >= 0 (and <= hi).
    double amount(const Json& j, const std::string& where, double hi = std::numeric_limits<double>::max()) const {
        if (!j.is_number()) fail(where, "expected a number, found " + jsonTypeName(j));
        const double v = j.get<double>();
        if (!std::isfinite(v)) fail(where, "number " + j.dump() + " is out of range");
        if (v < 0) fail(where, "must not be negative (found " + j.dump() + ")");
        if (v > hi) fail(where, "number " + j.dump() + " is too large (at most " + Json(hi).dump() + ")");
        return v;
    }
    // An integer, or a number with an integral value (6.0), within [lo, hi].
    int64_t integral(const Json& j, const std::string& where, int64_t lo, int64_t hi) const {
        if (j.is_number_integer()) {
            const bool tooBig = j.is_number_unsigned() ? j.get<uint64_t>() > static_cast<uint64_t>(hi) : j.get<int64_t>() > hi;
            if (tooBig || (!j.is_number_unsigned() && j.get<int64_t>() < lo)) outOfRange(j, where, lo, hi);
            return j.get<int64_t>();
        }
        if (j.is_number_float()) {
            const double v = j.get<double>();
            if (!std::isfinite(v) || v != std::floor(v)) fail(where, "expected an integer, found " + j.dump());
            if (v < double(lo) || v > double(hi) || std::fabs(v) > kMaxExactInteger) outOfRange(j, where, lo, hi);
            return static_cast<int64_t>(v);
        }
        fail(where, "expected an integer, found " + jsonTypeName(j));
    }
    // true/false or 0/1 (the package writes both).
    bool flag(const Json& j, const std::string& where) const {
        if (j.is_boolean()) return j.get<bool>();
        if (j.is_number()) {
            const double v = j.get<double>();
            if (v == 0 || v == 1) return v == 1;
        }
        fail(where, "expected true, false, 0 or 1, found " + (j.is_number() ? j.dump() : jsonTypeName(j)));
    }
};

std::string at(const std::string& where, const char* key) { return where + "." + key; }
std::string at(const std::string& where, size_t i) { return where + "[" + std::to_string(i) + "]"; }

// Bytes of a `size` field: rounded to whole bytes, at most the most a graph may hold.
int64_t bytesFrom(const WorkloadReader& r, const Json& j, const std::string& where) {
    return static_cast<int64_t>(std::llround(r.amount(j, where, double(kMaxGraphBytes))));
}

std::string stemOf(const std::string& path) { return std::filesystem::path(path).stem().string(); }

std::string msText(double ms) {
    std::ostringstream os;
    os.precision(9);
    os << ms << " ms";
    return os.str();
}

struct FileNode {
    int64_t id = 0;
    std::string name;  // as given, "" when absent
    bool onAccelerator = true;
    double cpuMs = 0, acceleratorMs = 0;
    bool backward = false;
    std::optional<int64_t> colorClass;
    std::optional<int64_t> layerId;
    int64_t bytes = 0;
};

Graph loadNeuripsFile(const std::string& path) {
    const std::string text = readFileForLoader(path);
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) throwLoadError(path, "the file is empty");
    checkJsonNesting(text, path, 16);  // the format nests 3 levels deep
    Json root;
    try {
        root = Json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        throwLoadError(path, "not valid JSON: " + jsonErrorMessage(e));
    }
    const WorkloadReader r(path);
    const std::string top = "$";
    if (!root.is_object()) r.fail(top, "expected an object, found " + jsonTypeName(root));

    const double memory = r.amount(r.require(root, "maxSizePerFPGA", top), at(top, "maxSizePerFPGA"));
    if (!(memory >= 1 && memory < 9223372036854775808.0))
        r.fail(at(top, "maxSizePerFPGA"), "an accelerator's memory must be between 1 byte and 2^63 - 1 bytes");
    const int64_t accelerators = r.integral(r.require(root, "maxFPGAs", top), at(top, "maxFPGAs"), 0, kMaxDevices);
    const int64_t cpus = r.integral(r.require(root, "maxCPUs", top), at(top, "maxCPUs"), 0, kMaxDevices);
    if (accelerators + cpus < 1) r.fail(top, "the workload has no devices (maxFPGAs and maxCPUs are both 0)");
    if (accelerators + cpus > kMaxDevices)
        r.fail(top, "the workload has " + std::to_string(accelerators + cpus) + " devices; at most " +
                        std::to_string(kMaxDevices) + " are supported");

    // ---- nodes ---------------------------------------------------------------------------------
    const std::string nodesAt = at(top, "nodes");
    const Json& nodes = r.require(root, "nodes", top);
    if (!nodes.is_array()) r.fail(nodesAt, "expected an array, found " + jsonTypeName(nodes));
    std::vector<FileNode> file;
    file.reserve(nodes.size());
    std::map<int64_t, int> indexOfId;
    for (size_t i = 0; i < nodes.size(); ++i) {
        const std::string where = at(nodesAt, i);
        const Json& j = nodes[i];
        if (!j.is_object()) r.fail(where, "expected an object, found " + jsonTypeName(j));
        FileNode n;
        n.id = r.integral(r.require(j, "id", where), at(where, "id"), INT32_MIN, INT32_MAX);
        if (!indexOfId.emplace(n.id, static_cast<int>(i)).second)
            r.fail(at(where, "id"), "duplicate node id " + std::to_string(n.id));
        if (const Json* v = r.optional(j, "name")) {
            if (!v->is_string()) r.fail(at(where, "name"), "expected a string, found " + jsonTypeName(*v));
            n.name = v->get<std::string>();
        }
        n.onAccelerator = r.flag(r.require(j, "supportedOnFpga", where), at(where, "supportedOnFpga"));
        n.cpuMs = r.amount(r.require(j, "cpuLatency", where), at(where, "cpuLatency"));
        n.acceleratorMs = r.amount(r.require(j, "fpgaLatency", where), at(where, "fpgaLatency"));
        n.backward = r.flag(r.require(j, "isBackwardNode", where), at(where, "isBackwardNode"));
        if (const Json* v = r.optional(j, "colorClass"))
            n.colorClass = r.integral(*v, at(where, "colorClass"), INT32_MIN, INT32_MAX);
        if (const Json* v = r.optional(j, "layerId")) n.layerId = r.integral(*v, at(where, "layerId"), INT32_MIN, INT32_MAX);
        // Optional in the authors' programs (0 when absent).
        if (const Json* v = r.optional(j, "size")) n.bytes = bytesFrom(r, *v, at(where, "size"));
        file.push_back(std::move(n));
    }

    // ---- edges ---------------------------------------------------------------------------------
    const std::string edgesAt = at(top, "edges");
    const Json& edges = r.require(root, "edges", top);
    if (!edges.is_array()) r.fail(edgesAt, "expected an array, found " + jsonTypeName(edges));
    struct Out {
        bool any = false;
        double maxCostMs = 0, minCostMs = 0;
        int64_t bytes = 0;
        std::vector<int> consumers;  // node indexes, each once, in edge order
    };
    std::vector<Out> out(file.size());
    std::set<std::pair<int, int>> seen;
    for (size_t i = 0; i < edges.size(); ++i) {
        const std::string where = at(edgesAt, i);
        const Json& e = edges[i];
        if (!e.is_object()) r.fail(where, "expected an object, found " + jsonTypeName(e));
        auto endpoint = [&](const char* key) {
            const int64_t id = r.integral(r.require(e, key, where), at(where, key), INT32_MIN, INT32_MAX);
            auto it = indexOfId.find(id);
            if (it == indexOfId.end()) r.fail(at(where, key), "no node has id " + std::to_string(id));
            return it->second;
        };
        const int src = endpoint("sourceId");
        const int dst = endpoint("destId");
        if (src == dst) r.fail(where, "an edge from node " + std::to_string(file[src].id) + " to itself");
        const double cost = r.amount(r.require(e, "cost", where), at(where, "cost"));
        int64_t bytes = 0;
        if (const Json* v = r.optional(e, "size")) bytes = bytesFrom(r, *v, at(where, "size"));
        Out& o = out[src];
        o.maxCostMs = o.any ? std::max(o.maxCostMs, cost) : cost;
        o.minCostMs = o.any ? std::min(o.minCostMs, cost) : cost;
        o.bytes = std::max(o.bytes, bytes);
        o.any = true;
        if (seen.emplace(src, dst).second) o.consumers.push_back(dst);  // parallel edges move the tensor once
    }

    // ---- names: the file's when given and unique, else "node<id>" (made unique) ----------------
    std::map<std::string, int> nameCount;
    for (const auto& n : file)
        if (!n.name.empty()) ++nameCount[n.name];
    std::set<std::string> used;
    for (const auto& n : file)
        if (!n.name.empty() && nameCount[n.name] == 1) used.insert(n.name);
    std::vector<std::string> names(file.size());
    int renamed = 0;
    for (size_t i = 0; i < file.size(); ++i) {
        const FileNode& n = file[i];
        if (!n.name.empty() && nameCount[n.name] == 1) {
            names[i] = n.name;
            continue;
        }
        if (!n.name.empty()) ++renamed;
        std::string name = "node" + std::to_string(n.id);
        for (int k = 2; used.count(name); ++k) name = "node" + std::to_string(n.id) + "_" + std::to_string(k);
        used.insert(name);
        names[i] = name;
    }

    // ---- colour classes: dense ids for the classes with two or more members ---------------------
    std::map<int64_t, int> classSize;
    for (const auto& n : file)
        if (n.colorClass) ++classSize[*n.colorClass];
    std::map<int64_t, int> denseClass;
    for (const auto& n : file)
        if (n.colorClass && classSize[*n.colorClass] > 1) denseClass.emplace(*n.colorClass, int(denseClass.size()));

    // ---- the graph -----------------------------------------------------------------------------
    Graph g;
    g.name = stemOf(path);
    std::vector<int> tensorOf(file.size(), -1);
    std::string warnings;
    int disagreeing = 0;
    for (size_t i = 0; i < file.size(); ++i) {
        if (!out[i].any) continue;
        Tensor t;
        t.name = names[i] + ":0";
        t.kind = TensorKind::Activation;
        t.dtype = DType::Unknown;
        // The edges' `size` is debug information in this format: the paper's memory is the static
        // sum of the nodes' sizes (Node::residentBytes), so a copy in flight takes no memory here.
        // The size is kept beside the transfer time for the views (edge_size_bytes in metadata).
        t.bytes = 0;
        t.transferCostS = out[i].maxCostMs / 1000.0;
        tensorOf[i] = g.addTensor(std::move(t));
        if (out[i].bytes > 0) g.metadata["edge_size_bytes." + names[i] + ":0"] = std::to_string(out[i].bytes);
        if (out[i].maxCostMs - out[i].minCostMs > 1e-6 * std::max(1.0, out[i].maxCostMs)) {
            if (++disagreeing == 1)
                warnings = "the edges leaving node " + std::to_string(file[i].id) + " have different costs (" +
                           msText(out[i].minCostMs) + " to " + msText(out[i].maxCostMs) + "); the largest is used";
        }
    }
    if (disagreeing > 1) warnings += " (and for " + std::to_string(disagreeing - 1) + " more nodes)";
    std::vector<std::vector<int>> inputs(file.size());
    for (size_t i = 0; i < file.size(); ++i)
        for (int dst : out[i].consumers) inputs[dst].push_back(tensorOf[i]);
    for (size_t i = 0; i < file.size(); ++i) {
        const FileNode& f = file[i];
        Node n;
        n.name = names[i];
        n.op = f.backward ? "backward" : "forward";
        n.attrs["neurips.id"] = f.id;
        if (f.layerId) n.attrs["neurips.layer_id"] = *f.layerId;
        if (f.colorClass) n.attrs["neurips.color_class"] = *f.colorClass;
        n.inputs = std::move(inputs[i]);
        if (tensorOf[i] >= 0) n.outputs = {tensorOf[i]};
        n.costByKindS["accelerator"] = f.acceleratorMs / 1000.0;
        n.costByKindS["cpu"] = f.cpuMs / 1000.0;
        // Devices of other kinds (a --devices preset's GPUs) run it in the accelerator's time: the
        // package's "FPGA" is any accelerator, and its layer graphs were profiled on GPUs.
        n.computeCostS = f.acceleratorMs / 1000.0;
        if (!f.onAccelerator) n.allowedKinds = {"cpu"};
        if (f.colorClass) {
            auto it = denseClass.find(*f.colorClass);
            if (it != denseClass.end()) n.colocationClass = it->second;
        }
        n.residentBytes = f.bytes;
        n.isBackward = f.backward;
        g.addNode(std::move(n));
    }

    // ---- the machine, in DeviceModel's JSON (DeviceModel::fromGraph reads it) -------------------
    Json devices = Json::array();
    for (int64_t k = 0; k < accelerators; ++k)
        devices.push_back({{"name", "acc" + std::to_string(k)},
                           {"kind", "accelerator"},
                           {"memory_bytes", static_cast<int64_t>(memory)},
                           {"pays_transfers", true}});
    for (int64_t k = 0; k < cpus; ++k)
        devices.push_back({{"name", "cpu" + std::to_string(k)},
                           {"kind", "cpu"},
                           {"memory_bytes", kUnlimitedBytes},
                           {"pays_transfers", false}});
    const Json setup = {{"name", g.name + " (" + std::to_string(accelerators) + " accelerators, " +
                                     std::to_string(cpus) + (cpus == 1 ? " CPU)" : " CPUs)")},
                        {"devices", devices},
                        {"default_link", {{"latency_s", 0.0}, {"bandwidth", kLinkBandwidth}}}};
    g.metadata["device_setup"] = setup.dump();
    g.metadata["source_format"] = "neurips2020";
    if (!warnings.empty()) g.metadata["warning"] = warnings;
    if (renamed > 0)
        g.metadata["neurips.renamed_nodes"] = std::to_string(renamed) + " nodes whose name is not unique are named node<id>";
    finalizeLoadedGraph(g, path);
    return g;
}

// ---- detection: the top-level keys, read as a stream of events --------------------------------

class TopLevelKeys : public nlohmann::json_sax<Json> {
public:
    bool sawSize = false, sawNodes = false, sawFormat = false, notObject = false;

    bool key(string_t& k) override {
        if (depth_ != 1) return true;
        if (k == "maxSizePerFPGA") sawSize = true;
        if (k == "nodes") sawNodes = true;
        if (k == "format") sawFormat = true;
        return !(sawFormat || (sawSize && sawNodes));  // stop once the answer is known
    }
    bool start_object(std::size_t) override { return open(true); }
    bool start_array(std::size_t) override { return open(false); }
    bool end_object() override { return --depth_, true; }
    bool end_array() override { return --depth_, true; }
    bool null() override { return scalar(); }
    bool boolean(bool) override { return scalar(); }
    bool number_integer(number_integer_t) override { return scalar(); }
    bool number_unsigned(number_unsigned_t) override { return scalar(); }
    bool number_float(number_float_t, const string_t&) override { return scalar(); }
    bool string(string_t&) override { return scalar(); }
    bool binary(binary_t&) override { return scalar(); }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

private:
    bool open(bool object) {
        if (depth_ == 0 && !object) return notObject = true, false;
        ++depth_;
        return true;
    }
    bool scalar() {
        if (depth_ == 0) return notObject = true, false;
        return true;
    }
    int depth_ = 0;
};

}  // namespace

bool isNeuripsWorkloadFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    TopLevelKeys keys;
    try {
        Json::sax_parse(in, &keys, nlohmann::detail::input_format_t::json, false);
    } catch (const std::exception&) {
        return false;
    }
    return keys.sawSize && keys.sawNodes && !keys.sawFormat && !keys.notObject;
}

Graph loadNeuripsWorkload(const std::string& path) {
    return withPrintableErrors(path, [&] { return loadNeuripsFile(path); });
}

}  // namespace graphopt
