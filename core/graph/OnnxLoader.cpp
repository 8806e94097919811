// ONNX models, read with ONNX's own protobuf classes (Debian libonnx-dev).
//
// Which graph inputs are weights: ONNX lists parameters either as initializers or, when a model
// is exported without weights (torch.onnx.export(export_params=False), as our bundled models
// are), as plain graph inputs. We decide, in order:
//   1. an input that has an initializer is a weight;
//   2. if the model's metadata has "graphopt.data_inputs" (our export script writes it), every
//      other input not named there is a weight;
//   3. otherwise an input consumed only in parameter slots of known ops (Conv's W and B, Gemm's
//      B and C, BatchNormalization's scale/bias/mean/var, ...) is a weight.
// Constant nodes become weight tensors too: their values are fixed parameters, not work.
//
// Weights stored as ONNX external data (data_location = EXTERNAL, the convention for models over
// 2 GB: the bytes live in another file named by external_data's "location") are never read:
// like every initializer, they are sized from their declared type and dims, so the data file may
// be absent. Nothing here calls ONNX's external-data loading or its checker (which, in 1.12,
// refuses a model whose data file is missing); shape inference works on the ModelProto alone.
// Folding treats an external initializer as a weight of unknown value (onnxfold).
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <cstring>
#include <filesystem>
#include <functional>
#include <set>
#include <unordered_map>

#include "graph/GraphError.h"
#include "graph/Loaders.h"
#include "graph/OnnxFolding.h"

namespace graphopt {

namespace {

DType fromOnnxType(int t) {
    switch (t) {
        case onnx::TensorProto::FLOAT: return DType::Float32;
        case onnx::TensorProto::FLOAT16: return DType::Float16;
        case onnx::TensorProto::BFLOAT16: return DType::BFloat16;
        case onnx::TensorProto::DOUBLE: return DType::Float64;
        case onnx::TensorProto::INT8: return DType::Int8;
        case onnx::TensorProto::UINT8: return DType::UInt8;
        case onnx::TensorProto::INT16: return DType::Int16;
        case onnx::TensorProto::INT32: return DType::Int32;
        case onnx::TensorProto::INT64: return DType::Int64;
        case onnx::TensorProto::BOOL: return DType::Bool;
        default: return DType::Unknown;
    }
}

struct TypeInfo {
    DType dtype = DType::Unknown;
    std::vector<int64_t> shape;
    bool shapeKnown = false;
};

TypeInfo typeInfoOf(const onnx::ValueInfoProto& vi) {
    TypeInfo info;
    if (!vi.has_type() || !vi.type().has_tensor_type()) return info;
    const auto& tt = vi.type().tensor_type();
    info.dtype = fromOnnxType(tt.elem_type());
    if (!tt.has_shape()) return info;
    info.shapeKnown = true;
    for (const auto& d : tt.shape().dim()) {
        if (d.has_dim_value() && d.dim_value() >= 0)
            info.shape.push_back(d.dim_value());
        else {
            info.shape.push_back(-1);  // symbolic or missing dimension
            info.shapeKnown = false;
        }
    }
    return info;
}

// Input ports that hold parameters, per op type (see rule 3 above).
bool isParameterSlot(const std::string& op, int port) {
    static const std::unordered_map<std::string, int> firstParamPort = {
        {"Conv", 1}, {"ConvTranspose", 1}, {"Gemm", 1}, {"BatchNormalization", 1},
        {"InstanceNormalization", 1}, {"LayerNormalization", 1}, {"PRelu", 1}, {"QLinearConv", 1},
        {"GroupNormalization", 1},
    };
    auto it = firstParamPort.find(op);
    return it != firstParamPort.end() && port >= it->second;
}

AttrValue attrValueOf(const onnx::AttributeProto& a) {
    switch (a.type()) {
        case onnx::AttributeProto::INT: return AttrValue(int64_t(a.i()));
        case onnx::AttributeProto::FLOAT: return AttrValue(double(a.f()));
        case onnx::AttributeProto::STRING: return AttrValue(a.s());
        case onnx::AttributeProto::INTS: return AttrValue(std::vector<int64_t>(a.ints().begin(), a.ints().end()));
        case onnx::AttributeProto::FLOATS: {
            std::vector<double> v(a.floats().begin(), a.floats().end());
            return AttrValue(std::move(v));
        }
        case onnx::AttributeProto::STRINGS:
            return AttrValue(std::vector<std::string>(a.strings().begin(), a.strings().end()));
        case onnx::AttributeProto::TENSOR:
            // Keep the shape only: a Graph describes work, not values.
            return AttrValue(std::vector<int64_t>(a.t().dims().begin(), a.t().dims().end()));
        default: return AttrValue(std::string("<") + onnx::AttributeProto::AttributeType_Name(a.type()) + ">");
    }
}

// The value of a Constant node as a weight tensor's type and shape.
TypeInfo constantTypeInfo(const onnx::NodeProto& n) {
    TypeInfo info;
    for (const auto& a : n.attribute()) {
        if (a.name() == "value" && a.has_t()) {
            info.dtype = fromOnnxType(a.t().data_type());
            info.shape.assign(a.t().dims().begin(), a.t().dims().end());
            info.shapeKnown = true;
        } else if (a.name() == "value_float" || a.name() == "value_int") {
            info.dtype = a.name() == "value_float" ? DType::Float32 : DType::Int64;
            info.shapeKnown = true;
        } else if (a.name() == "value_floats" || a.name() == "value_ints") {
            info.dtype = a.name() == "value_floats" ? DType::Float32 : DType::Int64;
            info.shape = {a.name() == "value_floats" ? a.floats_size() : a.ints_size()};
            info.shapeKnown = true;
        }
    }
    return info;
}

// How errors and the graph name a node: its ONNX name, else OP_INDEX (names are optional).
std::string nodeLabel(const onnx::NodeProto& n, int index) {
    return n.name().empty() ? n.op_type() + "_" + std::to_string(index) : n.name();
}

bool hasStaticShape(const onnx::ValueInfoProto& v) {
    if (!v.has_type() || !v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) return false;
    for (const auto& d : v.type().tensor_type().shape().dim())
        if (!d.has_dim_value() || d.dim_value() < 0) return false;
    return true;
}

// Whether some node output lacks a static shape in the file (the bundled models have all).
bool needsShapeInference(const onnx::GraphProto& g) {
    std::set<std::string> known;
    for (const auto& v : g.value_info())
        if (hasStaticShape(v)) known.insert(v.name());
    for (const auto& v : g.output())
        if (hasStaticShape(v)) known.insert(v.name());
    for (const auto& n : g.node())
        for (const auto& o : n.output())
            if (!o.empty() && !known.count(o)) return true;
    return false;
}


// The values of an ONNX tensor (data inline: typed fields or raw_data, little-endian), as doubles;
// false for external data or a type we do not read.
bool tensorValues(const onnx::TensorProto& t, ConstantValue& out) {
    if (t.data_location() == onnx::TensorProto::EXTERNAL) return false;
    out.dtype = fromOnnxType(t.data_type());
    out.shape.assign(t.dims().begin(), t.dims().end());
    int64_t count = 1;
    for (int64_t d : out.shape) {
        if (d < 0 || d > (int64_t(1) << 40) / std::max<int64_t>(1, count)) return false;
        count *= d;
    }
    out.values.clear();
    const std::string& raw = t.raw_data();
    auto fromRaw = [&](auto sample) {
        using E = decltype(sample);
        if (raw.size() != size_t(count) * sizeof(E)) return false;
        out.values.resize(size_t(count));
        for (int64_t i = 0; i < count; ++i) {
            E e;
            std::memcpy(&e, raw.data() + size_t(i) * sizeof(E), sizeof(E));
            out.values[size_t(i)] = double(e);
        }
        return true;
    };
    switch (t.data_type()) {
        case onnx::TensorProto::FLOAT:
            if (!raw.empty()) return fromRaw(float{});
            out.values.assign(t.float_data().begin(), t.float_data().end());
            break;
        case onnx::TensorProto::DOUBLE:
            if (!raw.empty()) return fromRaw(double{});
            out.values.assign(t.double_data().begin(), t.double_data().end());
            break;
        case onnx::TensorProto::INT64:
            if (!raw.empty()) return fromRaw(int64_t{});
            out.values.assign(t.int64_data().begin(), t.int64_data().end());
            break;
        case onnx::TensorProto::INT32:
            if (!raw.empty()) return fromRaw(int32_t{});
            out.values.assign(t.int32_data().begin(), t.int32_data().end());
            break;
        case onnx::TensorProto::BOOL:
        case onnx::TensorProto::UINT8:
            if (!raw.empty()) return fromRaw(uint8_t{});
            out.values.assign(t.int32_data().begin(), t.int32_data().end());
            break;
        default: return false;
    }
    return int64_t(out.values.size()) == count;
}

// The value a Constant node gives its output.
bool constantNodeValues(const onnx::NodeProto& n, ConstantValue& out) {
    for (const auto& a : n.attribute()) {
        if (a.name() == "value" && a.has_t()) return tensorValues(a.t(), out);
        if (a.name() == "value_float" || a.name() == "value_int") {
            out.dtype = a.name() == "value_float" ? DType::Float32 : DType::Int64;
            out.shape.clear();
            out.values = {a.name() == "value_float" ? double(a.f()) : double(a.i())};
            return true;
        }
        if (a.name() == "value_floats" || a.name() == "value_ints") {
            out.dtype = a.name() == "value_floats" ? DType::Float32 : DType::Int64;
            if (a.name() == "value_floats") out.values.assign(a.floats().begin(), a.floats().end());
            else out.values.assign(a.ints().begin(), a.ints().end());
            out.shape = {int64_t(out.values.size())};
            return true;
        }
    }
    return false;
}

}  // namespace

Graph loadOnnx(const std::string& path, const LoadOptions& options) { return loadOnnx(path, options, nullptr); }

Graph loadOnnx(const std::string& path, const LoadOptions& options, ConstantValues* values) {
    const std::string bytes = readFileForLoader(path);
    if (bytes.empty()) throwLoadError(path, "file is empty");

    onnx::ModelProto model;
    if (!model.ParseFromString(bytes))
        throwLoadError(path, "not a valid ONNX model (the protobuf could not be parsed: truncated or another format)");
    if (!model.has_graph()) throwLoadError(path, "ONNX model has no graph");
    if (model.graph().node_size() == 0) throwLoadError(path, "ONNX graph has no nodes");

    Graph g;
    g.metadata["format"] = "onnx";
    g.metadata["onnx.ir_version"] = std::to_string(model.ir_version());
    if (!model.producer_name().empty()) g.metadata["onnx.producer"] = model.producer_name();
    for (const auto& op : model.opset_import())
        if (op.domain().empty() || op.domain() == "ai.onnx") g.metadata["onnx.opset"] = std::to_string(op.version());
    std::set<std::string> declaredDataInputs;
    bool haveDataInputList = false;
    for (const auto& kv : model.metadata_props()) {
        g.metadata["onnx.meta." + kv.key()] = kv.value();
        if (kv.key() == "graphopt.data_inputs") {
            haveDataInputList = true;
            std::string list = kv.value();
            size_t start = 0;
            while (start <= list.size()) {
                size_t comma = list.find(',', start);
                if (comma == std::string::npos) comma = list.size();
                if (comma > start) declaredDataInputs.insert(list.substr(start, comma - start));
                start = comma + 1;
            }
        }
    }

    // Every node must read only graph inputs, initializers and outputs of earlier nodes before
    // ONNX's shape inference sees the graph: its data propagation dereferences the missing type
    // of an undeclared tensor (libonnx 1.12; found by fuzz/fuzz_onnx).
    {
        std::set<std::string> defined;
        for (const auto& in : model.graph().input()) defined.insert(in.name());
        for (const auto& init : model.graph().initializer()) defined.insert(init.name());
        int index = 0;
        for (const auto& n : model.graph().node()) {
            for (const auto& in : n.input())
                if (!in.empty() && !defined.count(in))
                    throwLoadError(path, "node '" + nodeLabel(n, index) +
                                             "' reads tensor '" + in +
                                             "', which no earlier node produces and is not a graph input "
                                             "(the nodes are not in topological order, or the name is wrong)");
            for (const auto& out : n.output()) defined.insert(out);
            ++index;
        }
    }
    // Every node must fit its operator's schema (required attributes, input and output counts)
    // before shape inference runs its inference function: libonnx 1.12's functions dereference
    // a missing required attribute (a Scan without num_scan_inputs; found by fuzz/fuzz_onnx).
    // Nodes of domains ONNX does not know are left alone.
    {
        std::unordered_map<std::string, int> opsets;
        for (const auto& op : model.opset_import()) opsets[op.domain() == "ai.onnx" ? "" : op.domain()] = static_cast<int>(op.version());
        std::function<void(const onnx::GraphProto&)> verify = [&](const onnx::GraphProto& graph) {
            int index = 0;
            for (const auto& n : graph.node()) {
                const std::string domain = n.domain() == "ai.onnx" ? "" : n.domain();
                auto version = opsets.find(domain);
                const onnx::OpSchema* schema =
                    version == opsets.end() ? nullptr
                                            : onnx::OpSchemaRegistry::Schema(n.op_type(), version->second, domain);
                if (schema) {
                    try {
                        schema->Verify(n);
                    } catch (const std::exception& e) {
                        throwLoadError(path, "node '" + nodeLabel(n, index) +
                                                 "' (" + n.op_type() + ") is not valid ONNX: " + e.what());
                    }
                }
                for (const auto& a : n.attribute()) {
                    if (a.has_g()) verify(a.g());
                    for (const auto& sub : a.graphs()) verify(sub);
                }
                ++index;
            }
        };
        verify(model.graph());
    }
    // What libonnx 1.12's conv and pool inference functions take for granted (found by
    // fuzz/fuzz_onnx): windows, strides and dilations of at least 1 (it divides by the stride),
    // no negative pads, and a weight of the input's rank (it reads the weight's dimensions by the
    // input's rank).
    {
        static const std::set<std::string> windowed = {"Conv", "ConvTranspose", "ConvInteger", "QLinearConv", "MaxPool",
                                                       "AveragePool", "LpPool", "MaxUnpool"};
        // The rank a value info declares, or -1 when it declares no shape.
        auto declaredRank = [](const onnx::ValueInfoProto& v) {
            return v.has_type() && v.type().has_tensor_type() && v.type().tensor_type().has_shape()
                       ? v.type().tensor_type().shape().dim_size()
                       : -1;
        };
        std::unordered_map<std::string, int> rank;
        auto note = [&](const onnx::ValueInfoProto& v) {
            if (declaredRank(v) >= 0) rank[v.name()] = declaredRank(v);
        };
        for (const auto& v : model.graph().input()) note(v);
        for (const auto& v : model.graph().value_info()) note(v);
        for (const auto& init : model.graph().initializer()) rank[init.name()] = init.dims_size();
        // One tensor, one rank: libonnx 1.12 gives a tensor that is both a graph input and a
        // graph output (passed through) the type the output declares, before any node reads it,
        // and its inference functions read the dimensions the node's checks above did not see (a
        // ConvTranspose weight redeclared of rank 0 by a graph output: SIGSEGV in
        // convTransposeShapeInference1; found by fuzz/fuzz_onnx). So the graph inputs, the
        // initializers and the graph outputs must agree on every rank they declare. (value_info
        // is not among them: shape inference clears and rebuilds it.)
        {
            std::unordered_map<std::string, std::pair<int, const char*>> declared;
            auto declare = [&](const std::string& name, int r, const char* as) {
                auto [it, fresh] = declared.emplace(name, std::make_pair(r, as));
                if (!fresh && it->second.first != r)
                    throwLoadError(path, "tensor '" + name + "' is declared with rank " + std::to_string(it->second.first) +
                                             " (" + it->second.second + ") and with rank " + std::to_string(r) + " (" +
                                             as + ")");
            };
            for (const auto& v : model.graph().input())
                if (declaredRank(v) >= 0) declare(v.name(), declaredRank(v), "as a graph input");
            for (const auto& init : model.graph().initializer()) declare(init.name(), init.dims_size(), "as an initializer");
            for (const auto& v : model.graph().output())
                if (declaredRank(v) >= 0) declare(v.name(), declaredRank(v), "as a graph output");
        }
        int index = 0;
        for (const auto& n : model.graph().node()) {
            const std::string name = nodeLabel(n, index);
            ++index;
            if ((!n.domain().empty() && n.domain() != "ai.onnx") || !windowed.count(n.op_type())) continue;
            for (const auto& a : n.attribute()) {
                const bool positive = a.name() == "strides" || a.name() == "dilations" || a.name() == "kernel_shape";
                if (!positive && a.name() != "pads") continue;
                for (int64_t v : a.ints())
                    if (positive ? v < 1 : v < 0)
                        throwLoadError(path, "node '" + name + "' (" + n.op_type() + ") has " + a.name() + " " +
                                                 std::to_string(v) + (positive ? " (must be at least 1)" : " (must not be negative)"));
            }
            if ((n.op_type() == "Conv" || n.op_type() == "ConvTranspose") && n.input_size() >= 2) {
                auto x = rank.find(n.input(0)), w = rank.find(n.input(1));
                if (x != rank.end() && w != rank.end() && x->second != w->second)
                    throwLoadError(path, "node '" + name + "' (" + n.op_type() + ") has an input of rank " +
                                             std::to_string(x->second) + " but a weight of rank " + std::to_string(w->second));
                if (x != rank.end() && x->second < 3)
                    throwLoadError(path, "node '" + name + "' (" + n.op_type() + ") has an input of rank " +
                                             std::to_string(x->second) + " (at least 3: batch, channels, one spatial axis)");
            }
        }
    }

    // Symbolic input dimensions get a value (LoadOptions, default 1), then shape inference and
    // shape folding run to a fixpoint when the file lacks some shapes. An inference failure is
    // not fatal: those tensors keep unknown shapes, and the graph says so in its metadata.
    onnxfold::InputShapeOptions inputs;
    inputs.shapes = options.inputShapes;
    inputs.batch = options.batch;
    std::vector<std::string> dimsSet;
    try {
        dimsSet = onnxfold::setInputShapes(model, inputs);
    } catch (const std::invalid_argument& e) {
        throwLoadError(path, e.what());
    }
    if (!dimsSet.empty()) {
        std::string list;
        for (const auto& d : dimsSet) list += (list.empty() ? "" : ",") + d;
        g.metadata["onnx.input_dims"] = list;
    }
    if (!dimsSet.empty() || needsShapeInference(model.graph())) {
        const auto stats = onnxfold::foldShapeComputations(model);
        g.metadata["onnx.shape_inference"] = stats.inferenceError.empty() ? "ran" : "failed: " + stats.inferenceError;
        g.metadata["onnx.shape_inference_rounds"] = std::to_string(stats.rounds);
        if (stats.foldedNodes) g.metadata["onnx.folded_nodes"] = std::to_string(stats.foldedNodes);
    }
    const onnx::GraphProto& gp = model.graph();
    // Exporters give generic graph names ("torch_jit", "main_graph"): the file's stem says more.
    if (!gp.name().empty()) g.metadata["onnx.graph_name"] = gp.name();
    g.name = std::filesystem::path(path).stem().string();
    if (g.name.empty()) g.name = gp.name().empty() ? std::string("onnx-model") : gp.name();

    std::unordered_map<std::string, TypeInfo> types;
    for (const auto& v : gp.value_info()) types[v.name()] = typeInfoOf(v);
    for (const auto& v : gp.output()) types[v.name()] = typeInfoOf(v);

    auto makeTensor = [](const std::string& name, TensorKind kind, const TypeInfo& info) {
        Tensor t;
        t.name = name;
        t.kind = kind;
        t.dtype = info.dtype == DType::Unknown ? DType::Float32 : info.dtype;
        t.shape = info.shape;
        t.shapeKnown = info.shapeKnown;
        t.bytes = info.shapeKnown ? shapeBytes(info.shape, t.dtype) : 0;
        return t;
    };

    // Initializers are weights (sized from their type and dims only: see the top of this file).
    std::set<std::string> initializerNames;
    int64_t externalWeights = 0;
    for (const auto& init : gp.initializer()) {
        if (init.name().empty()) throwLoadError(path, "an initializer has no name");
        if (!initializerNames.insert(init.name()).second)
            throwLoadError(path, "initializer '" + init.name() + "' is defined twice");
        externalWeights += init.data_location() == onnx::TensorProto::EXTERNAL;
        TypeInfo info;
        info.dtype = fromOnnxType(init.data_type());
        info.shape.assign(init.dims().begin(), init.dims().end());
        info.shapeKnown = true;
        for (int64_t d : info.shape)
            if (d < 0) throwLoadError(path, "initializer '" + init.name() + "' has a negative dimension");
        g.addTensor(makeTensor(init.name(), TensorKind::Weight, info));
        if (values) {
            ConstantValue v;
            if (tensorValues(init, v)) (*values)[init.name()] = std::move(v);
        }
    }
    if (externalWeights) g.metadata["onnx.external_weights"] = std::to_string(externalWeights);
    // Which graph inputs feed only parameter slots (rule 3).
    std::unordered_map<std::string, bool> onlyParamUse;
    for (const auto& n : gp.node())
        for (int p = 0; p < n.input_size(); ++p) {
            auto [it, inserted] = onlyParamUse.emplace(n.input(p), true);
            it->second = it->second && isParameterSlot(n.op_type(), p);
        }
    for (const auto& in : gp.input()) {
        if (initializerNames.count(in.name())) continue;
        if (in.name().empty()) throwLoadError(path, "a graph input has no name");
        if (g.findTensor(in.name()) >= 0) throwLoadError(path, "graph input '" + in.name() + "' is declared twice");
        bool weight;
        if (haveDataInputList)
            weight = !declaredDataInputs.count(in.name());
        else {
            auto it = onlyParamUse.find(in.name());
            weight = it != onlyParamUse.end() && it->second;
        }
        g.addTensor(makeTensor(in.name(), weight ? TensorKind::Weight : TensorKind::GraphInput, typeInfoOf(in)));
    }

    // Nodes. ONNX node names are optional and need not be unique: make them unique, deterministically.
    std::set<std::string> usedNames;
    int index = 0;
    for (const auto& np : gp.node()) {
        const int nodeIndex = index++;
        if (np.op_type().empty()) throwLoadError(path, "node #" + std::to_string(nodeIndex) + " has no op type");
        std::string name = nodeLabel(np, nodeIndex);
        if (usedNames.count(name)) name += "#" + std::to_string(nodeIndex);
        usedNames.insert(name);

        if (np.op_type() == "Constant" && np.domain().empty() && np.output_size() == 1 && np.input_size() == 0) {
            if (g.findTensor(np.output(0)) >= 0)
                throwLoadError(path, "node '" + name + "' writes tensor '" + np.output(0) + "' that already exists");
            g.addTensor(makeTensor(np.output(0), TensorKind::Weight, constantTypeInfo(np)));
            if (values) {
                ConstantValue v;
                if (constantNodeValues(np, v)) (*values)[np.output(0)] = std::move(v);
            }
            continue;
        }

        Node node;
        node.name = name;
        node.op = np.domain().empty() || np.domain() == "ai.onnx" ? np.op_type() : np.domain() + "." + np.op_type();
        for (const auto& a : np.attribute()) node.attrs[a.name()] = attrValueOf(a);
        for (const auto& in : np.input()) {
            if (in.empty()) {
                node.inputs.push_back(-1);  // absent optional input
                continue;
            }
            int t = g.findTensor(in);
            if (t < 0)
                throwLoadError(path, "node '" + name + "' reads tensor '" + in +
                                         "', which no earlier node produces and is not a graph input "
                                         "(the nodes are not in topological order, or the name is wrong)");
            node.inputs.push_back(t);
        }
        for (const auto& out : np.output()) {
            if (out.empty()) continue;  // unused optional output
            if (g.findTensor(out) >= 0)
                throwLoadError(path, "node '" + name + "' writes tensor '" + out + "', which already exists");
            auto it = types.find(out);
            node.outputs.push_back(g.addTensor(makeTensor(out, TensorKind::Activation, it == types.end() ? TypeInfo{} : it->second)));
        }
        g.addNode(std::move(node));
    }
    if (g.nodeCount() == 0) throwLoadError(path, "ONNX graph has only Constant nodes");

    for (const auto& out : gp.output()) {
        int t = g.findTensor(out.name());
        if (t < 0) throwLoadError(path, "graph output '" + out.name() + "' is not produced by any node");
        g.mutableTensors()[t].isGraphOutput = true;
    }
    finalizeLoadedGraph(g, path);
    return g;
}

}  // namespace graphopt
