// TensorFlow CostGraphDef in protobuf text format -> Graph. The mapping is documented in
// docs/formats.md ("CostGraphDef text"); in short: one node per CostGraphDef node (op
// "CostGraphNode": the format has no op type), one tensor per output_info, inputs resolved through
// the `id` field, compute_cost microseconds -> seconds.
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <climits>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "graph/GraphError.h"
#include "graph/LoaderText.h"
#include "graph/Loaders.h"
#include "graph/cost_graph.pb.h"

namespace graphopt {

namespace {

namespace pb = google::protobuf;

// Keeps the first error (the one a user can act on) instead of letting protobuf log to stderr.
// Warnings (unknown fields, allowed on purpose so newer files load) are counted, not printed.
class FirstErrorCollector : public pb::io::ErrorCollector {
public:
    void AddError(int line, pb::io::ColumnNumber column, const std::string& message) override {
        if (!hasError) {
            hasError = true;
            // protobuf counts lines and columns from 0.
            text = "line " + std::to_string(line + 1) + " col " + std::to_string(column + 1) + ": " + message;
        }
    }
    void AddWarning(int, pb::io::ColumnNumber, const std::string&) override { ++warnings; }

    bool hasError = false;
    std::string text;
    int warnings = 0;
};

DType dtypeFromTf(int tf) {
    if (tf > 100) tf -= 100;  // reference types: DT_FLOAT_REF = DT_FLOAT + 100
    switch (tf) {
        case tf::DT_FLOAT: return DType::Float32;
        case tf::DT_DOUBLE: return DType::Float64;
        case tf::DT_INT32: return DType::Int32;
        case tf::DT_UINT8: return DType::UInt8;
        case tf::DT_INT16: return DType::Int16;
        case tf::DT_INT8: return DType::Int8;
        case tf::DT_INT64: return DType::Int64;
        case tf::DT_BOOL: return DType::Bool;
        case tf::DT_HALF: return DType::Float16;
        case tf::DT_BFLOAT16: return DType::BFloat16;
        default: return DType::Unknown;
    }
}

// Protobuf's text parser recurses per nested message, also when skipping unknown fields; refuse
// absurd nesting before it sees the text (CostGraphDef itself nests 4 levels deep).
void checkBraceDepth(const std::string& text, const std::string& path) {
    int depth = 0;
    char quote = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (quote) {
            if (c == '\\') ++i;
            else if (c == quote || c == '\n') quote = 0;
            continue;
        }
        if (c == '"' || c == '\'') quote = c;
        else if (c == '#') {
            while (i < text.size() && text[i] != '\n') ++i;
        } else if (c == '{' || c == '<') {
            if (++depth > 64) throw GraphError(path + ": messages nested more than 64 levels deep");
        } else if (c == '}' || c == '>') {
            --depth;
        }
    }
}

std::string nodeLabel(const tf::CostGraphDef::Node& n) {
    return "node '" + n.name() + "' (id " + std::to_string(n.id()) + ")";
}

// The loader proper; loadCostGraphText() below makes its error messages printable.
Graph loadCostGraph(const std::string& path) {
    const std::string text = readFileForLoader(path);
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) throw GraphError(path + ": the file is empty");
    if (text.find('\0') != std::string::npos)
        throw GraphError(path + ": binary data, not a CostGraphDef in protobuf text format");
    checkBraceDepth(text, path);

    tf::CostGraphDef def;
    FirstErrorCollector errors;
    pb::TextFormat::Parser parser;
    parser.RecordErrorsTo(&errors);
    parser.AllowUnknownField(true);  // newer TensorFlow versions add fields; ignore them
    parser.SetRecursionLimit(64);
    if (!parser.ParseFromString(text, &def)) {
        throw GraphError(path + ": " + (errors.hasError ? errors.text : "not a CostGraphDef in protobuf text format"));
    }
    if (def.node_size() == 0) throw GraphError(path + ": no nodes (empty file, or not a CostGraphDef)");

    // Ids are the `id` field, not positions in the file. A file that gives no ids at all (hand
    // written) numbers its nodes 0, 1, 2, ... in file order.
    bool anyId = false;
    for (const auto& n : def.node()) anyId = anyId || n.has_id();
    if (!anyId)
        for (int i = 0; i < def.node_size(); ++i) def.mutable_node(i)->set_id(i);
    std::map<int, int> indexOfId;
    for (int i = 0; i < def.node_size(); ++i) {
        const auto& n = def.node(i);
        if (n.name().empty())
            throw GraphError(path + ": node #" + std::to_string(i + 1) + " (id " + std::to_string(n.id()) +
                             ") has no name");
        auto [it, inserted] = indexOfId.emplace(n.id(), i);
        if (!inserted)
            throw GraphError(path + ": " + nodeLabel(n) + " reuses the id of node '" + def.node(it->second).name() +
                             "'");
    }

    Graph g;
    g.name = std::filesystem::path(path).stem().string();
    g.metadata["source_format"] = "costgraph-text";

    // Pass 1: output tensors, so inputs can refer to any node regardless of file order.
    std::vector<std::vector<int>> outputsOf(def.node_size());
    for (int i = 0; i < def.node_size(); ++i) {
        const auto& n = def.node(i);
        for (int p = 0; p < n.output_info_size(); ++p) {
            const auto& o = n.output_info(p);
            Tensor t;
            t.name = n.name() + ":" + std::to_string(p);
            t.dtype = o.has_dtype() ? dtypeFromTf(o.dtype()) : DType::Unknown;
            if (o.has_shape() && !o.shape().unknown_rank()) {
                t.shapeKnown = true;
                for (const auto& d : o.shape().dim()) t.shape.push_back(d.size() < 0 ? -1 : d.size());
            }
            // A negative size means "not measured": fall back to the shape (0 when unknown).
            t.bytes = o.size() >= 0 ? o.size() : (t.shapeKnown ? shapeBytes(t.shape, t.dtype) : 0);
            // Kept only when it names an existing input (see below); -1 = no alias.
            t.aliasInputPort = o.alias_input_port() >= 0 && o.alias_input_port() <= INT_MAX
                                   ? static_cast<int>(o.alias_input_port())
                                   : -1;
            outputsOf[i].push_back(g.addTensor(std::move(t)));
        }
    }

    // Pass 2: nodes.
    for (int i = 0; i < def.node_size(); ++i) {
        const auto& n = def.node(i);
        Node node;
        node.name = n.name();
        node.op = "CostGraphNode";
        node.outputs = outputsOf[i];
        for (int k = 0; k < n.input_info_size(); ++k) {
            const auto& in = n.input_info(k);
            auto it = indexOfId.find(in.preceding_node());
            if (it == indexOfId.end())
                throw GraphError(path + ": " + nodeLabel(n) + " input " + std::to_string(k) +
                                 " reads node id " + std::to_string(in.preceding_node()) + ", which does not exist");
            const int producer = it->second;
            // TensorFlow writes control dependencies as port -1 in some dumps: keep them as control inputs.
            if (in.preceding_port() == -1) {
                node.controlInputs.push_back(producer);
                continue;
            }
            if (in.preceding_port() < 0 || in.preceding_port() >= static_cast<int>(outputsOf[producer].size()))
                throw GraphError(path + ": " + nodeLabel(n) + " input " + std::to_string(k) + " reads port " +
                                 std::to_string(in.preceding_port()) + " of node '" + def.node(producer).name() +
                                 "', which has " + std::to_string(outputsOf[producer].size()) + " outputs");
            node.inputs.push_back(outputsOf[producer][in.preceding_port()]);
        }
        for (int c : n.control_input()) {
            auto it = indexOfId.find(c);
            if (it == indexOfId.end())
                throw GraphError(path + ": " + nodeLabel(n) + " has control input id " + std::to_string(c) +
                                 ", which does not exist");
            node.controlInputs.push_back(it->second);
        }
        if (n.has_compute_cost()) {
            if (n.compute_cost() < 0)
                throw GraphError(path + ": " + nodeLabel(n) + " has a negative compute_cost (" +
                                 std::to_string(n.compute_cost()) + ")");
            node.computeCostS = static_cast<double>(n.compute_cost()) * 1e-6;
        }
        if (n.temporary_memory_size() < 0)
            throw GraphError(path + ": " + nodeLabel(n) + " has a negative temporary_memory_size (" +
                             std::to_string(n.temporary_memory_size()) + ")");
        node.tempBytes = n.temporary_memory_size();

        // What the Graph has no field for stays available as attributes.
        node.attrs["id"] = int64_t{n.id()};
        if (!n.device().empty()) node.attrs["device"] = n.device();
        if (n.has_persistent_memory_size()) node.attrs["persistent_memory_size"] = n.persistent_memory_size();
        if (n.has_compute_time()) node.attrs["compute_time"] = n.compute_time();
        if (n.has_memory_time()) node.attrs["memory_time"] = n.memory_time();
        if (n.has_is_final()) node.attrs["is_final"] = int64_t{n.is_final()};
        if (n.has_inaccurate()) node.attrs["inaccurate"] = int64_t{n.inaccurate()};

        for (int t : node.outputs) {
            int& alias = g.mutableTensors()[t].aliasInputPort;
            if (alias >= static_cast<int>(node.inputs.size())) alias = -1;
        }
        g.addNode(std::move(node));
    }

    // Outputs of nodes whose results nobody reads are the graph's outputs.
    std::vector<char> read(g.tensorCount(), 0);
    for (const auto& node : g.nodes())
        for (int t : node.inputs) read[t] = 1;
    for (const auto& node : g.nodes()) {
        bool anyRead = false;
        for (int t : node.outputs) anyRead = anyRead || read[t];
        if (!anyRead)
            for (int t : node.outputs) g.mutableTensors()[t].isGraphOutput = true;
    }

    finalizeLoadedGraph(g, path);
    return g;
}

}  // namespace

Graph loadCostGraphText(const std::string& path) {
    return withPrintableErrors(path, [&] { return loadCostGraph(path); });
}

}  // namespace graphopt
