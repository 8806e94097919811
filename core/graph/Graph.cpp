#include "graph/Graph.h"

#include <algorithm>
#include <queue>
#include <set>
#include <sstream>

#include "graph/GraphError.h"

namespace graphopt {

int dtypeSize(DType t) {
    switch (t) {
        case DType::Float64:
        case DType::Int64: return 8;
        case DType::Float16:
        case DType::BFloat16:
        case DType::Int16: return 2;
        case DType::Int8:
        case DType::UInt8:
        case DType::Bool: return 1;
        case DType::Float32:
        case DType::Int32:
        case DType::Unknown: return 4;
    }
    return 4;
}

namespace {
struct DTypeName {
    DType type;
    const char* name;
};
constexpr DTypeName kDTypeNames[] = {
    {DType::Unknown, "unknown"}, {DType::Float32, "float32"}, {DType::Float16, "float16"},
    {DType::BFloat16, "bfloat16"}, {DType::Float64, "float64"}, {DType::Int8, "int8"},
    {DType::UInt8, "uint8"}, {DType::Int16, "int16"}, {DType::Int32, "int32"},
    {DType::Int64, "int64"}, {DType::Bool, "bool"},
};
}  // namespace

const char* dtypeName(DType t) {
    for (const auto& d : kDTypeNames)
        if (d.type == t) return d.name;
    return "unknown";
}

DType dtypeFromName(const std::string& name) {
    for (const auto& d : kDTypeNames)
        if (name == d.name) return d.type;
    return DType::Unknown;
}

const char* tensorKindName(TensorKind k) {
    switch (k) {
        case TensorKind::Activation: return "activation";
        case TensorKind::GraphInput: return "input";
        case TensorKind::Weight: return "weight";
    }
    return "activation";
}

std::optional<TensorKind> tensorKindFromName(const std::string& name) {
    if (name == "activation") return TensorKind::Activation;
    if (name == "input") return TensorKind::GraphInput;
    if (name == "weight") return TensorKind::Weight;
    return std::nullopt;
}

int64_t shapeBytes(const std::vector<int64_t>& shape, DType dtype) {
    int64_t n = 1;
    for (int64_t d : shape) {
        if (d < 0) return 0;
        // Saturate instead of overflowing on hostile shapes.
        if (d != 0 && n > INT64_MAX / 16 / d) return INT64_MAX / 16;
        n *= d;
    }
    return n * dtypeSize(dtype);
}

std::string shapeToString(const std::vector<int64_t>& shape) {
    std::ostringstream os;
    os << '[';
    for (size_t i = 0; i < shape.size(); ++i) {
        if (i) os << 'x';
        if (shape[i] < 0)
            os << '?';
        else
            os << shape[i];
    }
    os << ']';
    return os.str();
}

int Graph::addTensor(Tensor t) {
    tensors_.push_back(std::move(t));
    int id = static_cast<int>(tensors_.size()) - 1;
    tensorIndex_.emplace(tensors_.back().name, id);
    return id;
}

int Graph::addNode(Node n) {
    int id = static_cast<int>(nodes_.size());
    for (size_t port = 0; port < n.outputs.size(); ++port) {
        int t = n.outputs[port];
        if (t >= 0 && t < static_cast<int>(tensors_.size()) && tensors_[t].producer < 0) {
            tensors_[t].producer = id;
            tensors_[t].producerPort = static_cast<int>(port);
        }
    }
    nodes_.push_back(std::move(n));
    nodeIndex_.emplace(nodes_.back().name, id);
    return id;
}

int Graph::findTensor(const std::string& name) const {
    auto it = tensorIndex_.find(name);
    return it == tensorIndex_.end() ? -1 : it->second;
}

int Graph::findNode(const std::string& name) const {
    auto it = nodeIndex_.find(name);
    return it == nodeIndex_.end() ? -1 : it->second;
}

void Graph::finalize() {
    const int nt = static_cast<int>(tensors_.size());
    const int nn = static_cast<int>(nodes_.size());
    tensorIndex_.clear();
    nodeIndex_.clear();
    for (int i = 0; i < nt; ++i) tensorIndex_.emplace(tensors_[i].name, i);
    for (int i = 0; i < nn; ++i) nodeIndex_.emplace(nodes_[i].name, i);

    for (auto& t : tensors_) t.producer = -1, t.producerPort = -1;
    for (int v = 0; v < nn; ++v)
        for (size_t p = 0; p < nodes_[v].outputs.size(); ++p) {
            int t = nodes_[v].outputs[p];
            if (t >= 0 && t < nt && tensors_[t].producer < 0) {
                tensors_[t].producer = v;
                tensors_[t].producerPort = static_cast<int>(p);
            }
        }

    consumers_.assign(nt, {});
    edges_.clear();
    preds_.assign(nn, {});
    succs_.assign(nn, {});
    for (int v = 0; v < nn; ++v) {
        const Node& node = nodes_[v];
        for (size_t p = 0; p < node.inputs.size(); ++p) {
            int t = node.inputs[p];
            if (t < 0 || t >= nt) continue;
            consumers_[t].emplace_back(v, static_cast<int>(p));
            const Tensor& tensor = tensors_[t];
            if (tensor.producer >= 0) {
                edges_.push_back({tensor.producer, tensor.producerPort, v, static_cast<int>(p), t, tensor.bytes});
                preds_[v].push_back(tensor.producer);
            }
        }
        for (int c : node.controlInputs) {
            if (c < 0 || c >= nn) continue;
            edges_.push_back({c, -1, v, -1, -1, 0});
            preds_[v].push_back(c);
        }
    }
    for (int v = 0; v < nn; ++v) {
        auto& p = preds_[v];
        std::sort(p.begin(), p.end());
        p.erase(std::unique(p.begin(), p.end()), p.end());
        for (int u : p) succs_[u].push_back(v);
    }
}

std::vector<int> Graph::topologicalOrder() const {
    const int nn = static_cast<int>(nodes_.size());
    if (preds_.size() != nodes_.size()) throw GraphError("graph was not finalized");
    std::vector<int> indeg(nn, 0);
    for (int v = 0; v < nn; ++v) indeg[v] = static_cast<int>(preds_[v].size());
    std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
    for (int v = 0; v < nn; ++v)
        if (indeg[v] == 0) ready.push(v);
    std::vector<int> order;
    order.reserve(nn);
    while (!ready.empty()) {
        int v = ready.top();
        ready.pop();
        order.push_back(v);
        for (int w : succs_[v])
            if (--indeg[w] == 0) ready.push(w);
    }
    if (static_cast<int>(order.size()) != nn) {
        // Name a node that sits on a cycle: walk predecessors among unfinished nodes until one repeats.
        int v = 0;
        while (v < nn && indeg[v] == 0) ++v;
        std::vector<char> seen(nn, 0);
        while (!seen[v]) {
            seen[v] = 1;
            for (int u : preds_[v])
                if (indeg[u] > 0) {
                    v = u;
                    break;
                }
        }
        throw GraphError("the graph has a cycle through node '" + nodes_[v].name + "'");
    }
    return order;
}

void Graph::validate() const {
    const int nt = static_cast<int>(tensors_.size());
    const int nn = static_cast<int>(nodes_.size());
    std::set<std::string> names;
    for (const auto& n : nodes_) {
        if (n.name.empty()) throw GraphError("a node of type '" + n.op + "' has an empty name");
        if (!names.insert(n.name).second) throw GraphError("duplicate node name '" + n.name + "'");
    }
    names.clear();
    for (const auto& t : tensors_)
        if (!names.insert(t.name).second) throw GraphError("duplicate tensor name '" + t.name + "'");

    std::vector<int> producerCount(nt, 0);
    for (const auto& n : nodes_) {
        for (int t : n.inputs)
            if (t < -1 || t >= nt)
                throw GraphError("node '" + n.name + "' reads a tensor that does not exist");
        for (int t : n.outputs) {
            if (t < 0 || t >= nt) throw GraphError("node '" + n.name + "' writes a tensor that does not exist");
            if (++producerCount[t] > 1)
                throw GraphError("tensor '" + tensors_[t].name + "' is produced twice (again by node '" + n.name + "')");
            if (tensors_[t].kind != TensorKind::Activation)
                throw GraphError("node '" + n.name + "' writes " + tensorKindName(tensors_[t].kind) + " tensor '" +
                                 tensors_[t].name + "'");
        }
        for (int c : n.controlInputs)
            if (c < 0 || c >= nn)
                throw GraphError("node '" + n.name + "' has a control input that does not exist");
    }
    for (int t = 0; t < nt; ++t)
        if (tensors_[t].kind == TensorKind::Activation && producerCount[t] == 0) {
            std::string user = consumers_.empty() || consumers_[t].empty()
                                   ? std::string()
                                   : " (read by node '" + nodes_[consumers_[t][0].first].name + "')";
            throw GraphError("tensor '" + tensors_[t].name + "' is never produced" + user);
        }
    checkMemoryTotals();
    if (preds_.size() != nodes_.size()) throw GraphError("graph was not finalized");
    topologicalOrder();  // throws on a cycle
}

void Graph::checkMemoryTotals() const {
    // Summed with the limit in mind, so the check itself cannot overflow.
    int64_t total = 0;
    auto add = [&](int64_t bytes, const std::string& what) {
        if (bytes < 0) throw GraphError(what + " has a negative size (" + std::to_string(bytes) + " bytes)");
        if (bytes > kMaxGraphBytes - total)
            throw GraphError(what + " (" + std::to_string(bytes) + " bytes) takes the graph's memory past " +
                             std::to_string(kMaxGraphBytes) + " bytes (2^62, 4 EiB), the most supported");
        total += bytes;
    };
    for (const auto& t : tensors_) add(t.bytes, "tensor '" + t.name + "'");
    for (const auto& n : nodes_) add(n.tempBytes, "the temporary memory of node '" + n.name + "'");
    // Resident bytes (a workload node's weights and state) sit in a device's memory beside the
    // tensors, so they count towards the same bound.
    for (const auto& n : nodes_) add(n.residentBytes, "the resident memory of node '" + n.name + "'");
}

double Graph::totalFlops() const {
    double s = 0;
    for (const auto& n : nodes_) s += n.flops;
    return s;
}

namespace {
// Sum of the bytes of one kind of tensor, saturating at kMaxGraphBytes (a validated graph never
// reaches it; one built by hand and never validated must not overflow either).
int64_t bytesOfKind(const std::vector<Tensor>& tensors, TensorKind kind) {
    int64_t s = 0;
    for (const auto& t : tensors)
        if (t.kind == kind && t.bytes > 0) s = t.bytes > kMaxGraphBytes - s ? kMaxGraphBytes : s + t.bytes;
    return s;
}
}  // namespace

int64_t Graph::activationBytes() const { return bytesOfKind(tensors_, TensorKind::Activation); }
int64_t Graph::weightBytes() const { return bytesOfKind(tensors_, TensorKind::Weight); }
int64_t Graph::inputBytes() const { return bytesOfKind(tensors_, TensorKind::GraphInput); }

}  // namespace graphopt
