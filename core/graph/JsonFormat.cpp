// The native JSON format: everything a Graph holds, lossless (load(save(g)) equals g field by
// field). Specified in docs/formats.md ("Native JSON"). Reading checks every value's type and
// range and names the JSON path of the first problem: "g.json: $.nodes[3].inputs[1]: ...".
#include <nlohmann/json.hpp>

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "graph/GraphError.h"
#include "graph/JsonFieldReader.h"
#include "graph/LoaderText.h"
#include "graph/Loaders.h"

namespace graphopt {

namespace {

using OrderedJson = nlohmann::ordered_json;

constexpr const char* kFormatName = "graphopt-graph";
constexpr int kFormatVersion = 1;
constexpr int kMaxDepth = 32;  // the format itself nests 6 levels deep

// ---- writing ---------------------------------------------------------------------------------------

// JSON has no NaN or infinity; attribute floats may hold them (ONNX allows it), so they are
// written as the strings "NaN", "Infinity", "-Infinity".
OrderedJson floatToJson(double v) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
    return v;
}

OrderedJson attrToJson(const AttrValue& v) {
    OrderedJson j = OrderedJson::object();
    if (const auto* x = std::get_if<int64_t>(&v)) j["int"] = *x;
    else if (const auto* x = std::get_if<double>(&v)) j["float"] = floatToJson(*x);
    else if (const auto* x = std::get_if<std::string>(&v)) j["string"] = *x;
    else if (const auto* x = std::get_if<std::vector<int64_t>>(&v)) j["ints"] = *x;
    else if (const auto* x = std::get_if<std::vector<double>>(&v)) {
        OrderedJson a = OrderedJson::array();
        for (double d : *x) a.push_back(floatToJson(d));
        j["floats"] = std::move(a);
    } else if (const auto* x = std::get_if<std::vector<std::string>>(&v)) j["strings"] = *x;
    return j;
}

// ---- reading ---------------------------------------------------------------------------------------

std::string child(const std::string& where, const std::string& key) {
    bool plain = !key.empty() && !std::isdigit(static_cast<unsigned char>(key[0]));
    for (char c : key) plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    return plain ? where + "." + key : where + "[" + OrderedJson(key).dump(-1, ' ', false, OrderedJson::error_handler_t::replace) + "]";
}
std::string child(const std::string& where, size_t index) { return where + "[" + std::to_string(index) + "]"; }

class GraphReader : public JsonFieldReader<OrderedJson> {
public:
    using JsonFieldReader::JsonFieldReader;

    void expectObject(const OrderedJson& j, const std::string& where) const {
        if (!j.is_object()) fail(where, "expected an object, found " + jsonTypeName(j));
    }
    void expectArray(const OrderedJson& j, const std::string& where) const {
        if (!j.is_array()) fail(where, "expected an array, found " + jsonTypeName(j));
    }
    const std::string& string(const OrderedJson& j, const std::string& where) const {
        if (!j.is_string()) fail(where, "expected a string, found " + jsonTypeName(j));
        return j.get_ref<const std::string&>();
    }
    bool boolean(const OrderedJson& j, const std::string& where) const {
        if (!j.is_boolean()) fail(where, "expected true or false, found " + jsonTypeName(j));
        return j.get<bool>();
    }
    int64_t integer(const OrderedJson& j, const std::string& where, int64_t lo = std::numeric_limits<int64_t>::min(),
                    int64_t hi = std::numeric_limits<int64_t>::max()) const {
        if (!j.is_number_integer()) fail(where, "expected an integer, found " + jsonTypeName(j));
        // Positive integers parse as unsigned; compare them as such so 2^63 and above cannot wrap.
        const bool tooBig = j.is_number_unsigned() ? j.get<uint64_t>() > static_cast<uint64_t>(hi) : j.get<int64_t>() > hi;
        if (tooBig || (!j.is_number_unsigned() && j.get<int64_t>() < lo)) outOfRange(j, where, lo, hi);
        return j.get<int64_t>();
    }
    // A number, or one of the strings "NaN", "Infinity", "-Infinity" when allowNonFinite.
    double number(const OrderedJson& j, const std::string& where, bool allowNonFinite) const {
        if (j.is_number()) {
            const double v = j.get<double>();
            if (!allowNonFinite && !std::isfinite(v)) fail(where, "number " + j.dump() + " is out of range");
            return v;
        }
        if (allowNonFinite && j.is_string()) {
            const auto& s = j.get_ref<const std::string&>();
            if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
            if (s == "Infinity") return std::numeric_limits<double>::infinity();
            if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
        }
        fail(where, std::string("expected a number") + (allowNonFinite ? " (or \"NaN\", \"Infinity\", \"-Infinity\")" : "") +
                        ", found " + jsonTypeName(j));
    }

    AttrValue attr(const OrderedJson& j, const std::string& where) const {
        expectObject(j, where);
        if (j.size() != 1)
            fail(where, "expected exactly one of \"int\", \"float\", \"string\", \"ints\", \"floats\", \"strings\"");
        // (Not `*j.items().begin()`: that refers into a temporary iterator.)
        const auto first = j.begin();
        const std::string key = first.key();
        const OrderedJson& v = first.value();
        const std::string at = child(where, key);
        if (key == "int") return integer(v, at);
        if (key == "float") return number(v, at, true);
        if (key == "string") return string(v, at);
        if (key == "ints" || key == "floats" || key == "strings") {
            expectArray(v, at);
            if (key == "ints") {
                std::vector<int64_t> out;
                for (size_t i = 0; i < v.size(); ++i) out.push_back(integer(v[i], child(at, i)));
                return out;
            }
            if (key == "floats") {
                std::vector<double> out;
                for (size_t i = 0; i < v.size(); ++i) out.push_back(number(v[i], child(at, i), true));
                return out;
            }
            std::vector<std::string> out;
            for (size_t i = 0; i < v.size(); ++i) out.push_back(string(v[i], child(at, i)));
            return out;
        }
        fail(where, "unknown attribute kind \"" + key + "\" (expected int, float, string, ints, floats or strings)");
    }
};

}  // namespace

void saveJson(const Graph& g, const std::string& path) {
    const int nt = static_cast<int>(g.tensorCount());
    const int nn = static_cast<int>(g.nodeCount());
    std::string out;
    try {
        OrderedJson head = OrderedJson::object();
        head["format"] = kFormatName;
        head["version"] = kFormatVersion;
        head["name"] = g.name;
        head["metadata"] = g.metadata;
        // One tensor and one node per line: readable, diffable, and small for 10,000-node graphs.
        std::string headText = head.dump(2);
        headText.resize(headText.size() - 2);  // drop "\n}"
        out += headText + ",\n  \"tensors\": [";
        for (int i = 0; i < nt; ++i) {
            const Tensor& t = g.tensors()[i];
            OrderedJson j = OrderedJson::object();
            j["name"] = t.name;
            j["kind"] = tensorKindName(t.kind);
            j["dtype"] = dtypeName(t.dtype);
            j["shape"] = t.shape;
            j["shapeKnown"] = t.shapeKnown;
            j["bytes"] = t.bytes;
            j["isGraphOutput"] = t.isGraphOutput;
            j["aliasInputPort"] = t.aliasInputPort;
            // The workload fields are written only when set, so other graphs' files stay as they were.
            if (t.transferCostS >= 0) {
                if (!std::isfinite(t.transferCostS))
                    throw GraphError(path + ": tensor '" + t.name + "' has a non-finite transfer cost");
                j["transferCostS"] = t.transferCostS;
            }
            out += (i ? ",\n    " : "\n    ") + j.dump();
        }
        out += nt ? "\n  ],\n  \"nodes\": [" : "],\n  \"nodes\": [";
        for (int i = 0; i < nn; ++i) {
            const Node& n = g.nodes()[i];
            OrderedJson j = OrderedJson::object();
            j["name"] = n.name;
            j["op"] = n.op;
            OrderedJson attrs = OrderedJson::object();
            for (const auto& [k, v] : n.attrs) attrs[k] = attrToJson(v);
            j["attrs"] = std::move(attrs);
            OrderedJson inputs = OrderedJson::array(), outputs = OrderedJson::array(), control = OrderedJson::array();
            for (int t : n.inputs) {
                if (t < -1 || t >= nt) throw GraphError(path + ": node '" + n.name + "' reads a tensor that does not exist");
                inputs.push_back(t < 0 ? OrderedJson(nullptr) : OrderedJson(g.tensors()[t].name));
            }
            for (int t : n.outputs) {
                if (t < 0 || t >= nt) throw GraphError(path + ": node '" + n.name + "' writes a tensor that does not exist");
                outputs.push_back(g.tensors()[t].name);
            }
            for (int c : n.controlInputs) {
                if (c < 0 || c >= nn)
                    throw GraphError(path + ": node '" + n.name + "' has a control input that does not exist");
                control.push_back(g.nodes()[c].name);
            }
            j["inputs"] = std::move(inputs);
            j["outputs"] = std::move(outputs);
            j["controlInputs"] = std::move(control);
            if (!std::isfinite(n.flops) || !std::isfinite(n.computeCostS))
                throw GraphError(path + ": node '" + n.name + "' has a non-finite flops or compute cost");
            j["flops"] = n.flops;
            j["computeCostS"] = n.computeCostS;
            j["tempBytes"] = n.tempBytes;
            if (!n.costByKindS.empty()) {
                OrderedJson costs = OrderedJson::object();
                for (const auto& [kind, c] : n.costByKindS) {
                    if (!std::isfinite(c)) throw GraphError(path + ": node '" + n.name + "' has a non-finite cost on '" + kind + "'");
                    costs[kind] = c;
                }
                j["costByKindS"] = std::move(costs);
            }
            if (!n.allowedKinds.empty()) j["allowedKinds"] = n.allowedKinds;
            if (n.colocationClass >= 0) j["colocationClass"] = n.colocationClass;
            if (n.residentBytes != 0) j["residentBytes"] = n.residentBytes;
            if (n.isBackward) j["isBackward"] = true;
            out += (i ? ",\n    " : "\n    ") + j.dump();
        }
        out += nn ? "\n  ]\n}\n" : "]\n}\n";
    } catch (const nlohmann::json::exception& e) {
        // Typically a name that is not valid UTF-8.
        throw GraphError(path + ": cannot write JSON: " + jsonErrorMessage(e));
    }

    // Write a sibling file and rename it over the target, so a failed write never leaves half a file.
    const std::string tmp = path + ".tmp";
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        if (!f) throw GraphError(path + ": cannot write: " + std::strerror(errno));
        f.write(out.data(), static_cast<std::streamsize>(out.size()));
        f.close();
        if (!f) {
            std::remove(tmp.c_str());
            throw GraphError(path + ": cannot write: " + std::strerror(errno));
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::remove(tmp.c_str());
        throw GraphError(path + ": cannot write: " + ec.message());
    }
}

namespace {

// The loader proper; loadJson() below makes its error messages printable.
Graph loadJsonFile(const std::string& path) {
    const std::string text = readFileForLoader(path);
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) throw GraphError(path + ": the file is empty");
    checkJsonNesting(text, path, kMaxDepth);
    OrderedJson root;
    try {
        root = OrderedJson::parse(text);
    } catch (const nlohmann::json::exception& e) {
        throw GraphError(path + ": not valid JSON: " + jsonErrorMessage(e));
    }
    const GraphReader r(path);
    const std::string top = "$";
    r.expectObject(root, top);
    {
        const OrderedJson& format = r.require(root, "format", top);
        if (!format.is_string() || format.get_ref<const std::string&>() != kFormatName)
            r.fail(child(top, "format"), std::string("expected \"") + kFormatName + "\", found " + format.dump());
        const int64_t version = r.integer(r.require(root, "version", top), child(top, "version"), 1, INT_MAX);
        if (version > kFormatVersion)
            r.fail(child(top, "version"), "version " + std::to_string(version) +
                                              " was written by a newer GraphOpt (this one reads version " +
                                              std::to_string(kFormatVersion) + ")");
    }

    Graph g;
    if (const OrderedJson* name = r.optional(root, "name")) g.name = r.string(*name, child(top, "name"));
    if (const OrderedJson* meta = r.optional(root, "metadata")) {
        const std::string at = child(top, "metadata");
        r.expectObject(*meta, at);
        for (const auto& [k, v] : meta->items()) g.metadata[k] = r.string(v, child(at, k));
    }

    const std::string tensorsAt = child(top, "tensors");
    const OrderedJson& tensors = r.require(root, "tensors", top);
    r.expectArray(tensors, tensorsAt);
    std::map<std::string, int> tensorIds;
    for (size_t i = 0; i < tensors.size(); ++i) {
        const std::string at = child(tensorsAt, i);
        const OrderedJson& j = tensors[i];
        r.expectObject(j, at);
        Tensor t;
        t.name = r.string(r.require(j, "name", at), child(at, "name"));
        if (const OrderedJson* v = r.optional(j, "kind")) {
            auto kind = tensorKindFromName(r.string(*v, child(at, "kind")));
            if (!kind) r.fail(child(at, "kind"), "expected \"activation\", \"input\" or \"weight\", found " + v->dump());
            t.kind = *kind;
        }
        if (const OrderedJson* v = r.optional(j, "dtype")) {
            const std::string& name = r.string(*v, child(at, "dtype"));
            t.dtype = dtypeFromName(name);
            if (t.dtype == DType::Unknown && name != dtypeName(DType::Unknown))
                r.fail(child(at, "dtype"), "unknown dtype \"" + name + "\"");
        }
        if (const OrderedJson* v = r.optional(j, "shape")) {
            r.expectArray(*v, child(at, "shape"));
            for (size_t k = 0; k < v->size(); ++k) t.shape.push_back(r.integer((*v)[k], child(child(at, "shape"), k)));
        }
        if (const OrderedJson* v = r.optional(j, "shapeKnown")) t.shapeKnown = r.boolean(*v, child(at, "shapeKnown"));
        if (const OrderedJson* v = r.optional(j, "bytes")) t.bytes = r.integer(*v, child(at, "bytes"), 0);
        if (const OrderedJson* v = r.optional(j, "isGraphOutput")) t.isGraphOutput = r.boolean(*v, child(at, "isGraphOutput"));
        if (const OrderedJson* v = r.optional(j, "aliasInputPort"))
            t.aliasInputPort = static_cast<int>(r.integer(*v, child(at, "aliasInputPort"), -1, INT_MAX));
        if (const OrderedJson* v = r.optional(j, "transferCostS")) t.transferCostS = r.number(*v, child(at, "transferCostS"), false);
        if (!tensorIds.emplace(t.name, static_cast<int>(i)).second)
            r.fail(child(at, "name"), "duplicate tensor name \"" + t.name + "\"");
        g.addTensor(std::move(t));
    }

    const std::string nodesAt = child(top, "nodes");
    const OrderedJson& nodes = r.require(root, "nodes", top);
    r.expectArray(nodes, nodesAt);
    // Names first: control inputs may refer to nodes further down.
    std::map<std::string, int> nodeIds;
    for (size_t i = 0; i < nodes.size(); ++i) {
        const std::string at = child(nodesAt, i);
        r.expectObject(nodes[i], at);
        const std::string& name = r.string(r.require(nodes[i], "name", at), child(at, "name"));
        if (!nodeIds.emplace(name, static_cast<int>(i)).second)
            r.fail(child(at, "name"), "duplicate node name \"" + name + "\"");
    }
    auto tensorRefs = [&](const OrderedJson& arr, const std::string& at, bool allowNull) {
        r.expectArray(arr, at);
        std::vector<int> ids;
        for (size_t k = 0; k < arr.size(); ++k) {
            if (allowNull && arr[k].is_null()) {
                ids.push_back(-1);
                continue;
            }
            const std::string& name = r.string(arr[k], child(at, k));
            auto it = tensorIds.find(name);
            if (it == tensorIds.end()) r.fail(child(at, k), "no tensor named \"" + name + "\"");
            ids.push_back(it->second);
        }
        return ids;
    };
    for (size_t i = 0; i < nodes.size(); ++i) {
        const std::string at = child(nodesAt, i);
        const OrderedJson& j = nodes[i];
        Node n;
        n.name = j["name"].get<std::string>();
        if (const OrderedJson* v = r.optional(j, "op")) n.op = r.string(*v, child(at, "op"));
        if (const OrderedJson* v = r.optional(j, "attrs")) {
            const std::string attrsAt = child(at, "attrs");
            r.expectObject(*v, attrsAt);
            for (const auto& [k, a] : v->items()) n.attrs[k] = r.attr(a, child(attrsAt, k));
        }
        if (const OrderedJson* v = r.optional(j, "inputs")) n.inputs = tensorRefs(*v, child(at, "inputs"), true);
        if (const OrderedJson* v = r.optional(j, "outputs")) n.outputs = tensorRefs(*v, child(at, "outputs"), false);
        if (const OrderedJson* v = r.optional(j, "controlInputs")) {
            const std::string cat = child(at, "controlInputs");
            r.expectArray(*v, cat);
            for (size_t k = 0; k < v->size(); ++k) {
                const std::string& name = r.string((*v)[k], child(cat, k));
                auto it = nodeIds.find(name);
                if (it == nodeIds.end()) r.fail(child(cat, k), "no node named \"" + name + "\"");
                n.controlInputs.push_back(it->second);
            }
        }
        if (const OrderedJson* v = r.optional(j, "flops")) {
            n.flops = r.number(*v, child(at, "flops"), false);
            if (!(n.flops >= 0)) r.fail(child(at, "flops"), "must not be negative");
        }
        if (const OrderedJson* v = r.optional(j, "computeCostS")) n.computeCostS = r.number(*v, child(at, "computeCostS"), false);
        if (const OrderedJson* v = r.optional(j, "tempBytes")) n.tempBytes = r.integer(*v, child(at, "tempBytes"), 0);
        if (const OrderedJson* v = r.optional(j, "costByKindS")) {
            const std::string cat = child(at, "costByKindS");
            r.expectObject(*v, cat);
            for (const auto& [kind, c] : v->items()) {
                if (kind.empty()) r.fail(cat, "a device kind must not be empty");
                const double cost = r.number(c, child(cat, kind), false);
                if (!(cost >= 0)) r.fail(child(cat, kind), "must not be negative");
                n.costByKindS[kind] = cost;
            }
        }
        if (const OrderedJson* v = r.optional(j, "allowedKinds")) {
            const std::string kat = child(at, "allowedKinds");
            r.expectArray(*v, kat);
            for (size_t k = 0; k < v->size(); ++k) {
                const std::string& kind = r.string((*v)[k], child(kat, k));
                if (kind.empty()) r.fail(child(kat, k), "a device kind must not be empty");
                n.allowedKinds.push_back(kind);
            }
        }
        if (const OrderedJson* v = r.optional(j, "colocationClass"))
            n.colocationClass = static_cast<int>(r.integer(*v, child(at, "colocationClass"), -1, INT_MAX));
        if (const OrderedJson* v = r.optional(j, "residentBytes")) n.residentBytes = r.integer(*v, child(at, "residentBytes"), 0);
        if (const OrderedJson* v = r.optional(j, "isBackward")) n.isBackward = r.boolean(*v, child(at, "isBackward"));
        g.addNode(std::move(n));
    }

    try {
        g.finalize();
        g.validate();
    } catch (const GraphError& e) {
        throw GraphError(path + ": " + e.what());
    }
    return g;
}

}  // namespace

Graph loadJson(const std::string& path) {
    return withPrintableErrors(path, [&] { return loadJsonFile(path); });
}

}  // namespace graphopt
