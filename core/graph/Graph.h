// The computation graph every engine works on.
//
// A Graph holds tensors and nodes. A tensor is produced by at most one node (graph inputs and
// weights have no producer) and consumed by any number of nodes. Edges are derived: one edge per
// (producer output, consumer input) pair, plus control edges that carry no tensor.
//
// Conventions:
//  - FLOPs count a multiply-add as two operations (ResNet-18 at 224x224 is about 3.6 GFLOP).
//  - Bytes of a tensor = product of its shape times the element size; a tensor whose shape is
//    unknown has bytes from its source format (CostGraphDef gives sizes) or 0.
//  - Node ids and tensor ids are dense indices, stable for the lifetime of the Graph.
//  - Memory sums cannot overflow: validate() refuses a graph whose tensor bytes and node
//    temporaries are negative or add up to more than kMaxGraphBytes, so any sum of them (the
//    totals below, a device's memory level in the schedule simulator) fits in int64_t.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace graphopt {

// The most bytes a graph may hold: all tensors plus all node temporaries (4 EiB, 2^62). Sums of
// these always fit in int64_t with room to spare (a sum of two such totals still does).
constexpr int64_t kMaxGraphBytes = int64_t(1) << 62;

enum class DType : uint8_t { Unknown, Float32, Float16, BFloat16, Float64, Int8, UInt8, Int16, Int32, Int64, Bool };

int dtypeSize(DType t);               // bytes per element (Unknown counts as 4)
const char* dtypeName(DType t);
DType dtypeFromName(const std::string& name);  // Unknown when not recognised

// What role a tensor plays; placement treats the three differently (see papers/REGAL.md).
enum class TensorKind : uint8_t { Activation, GraphInput, Weight };
const char* tensorKindName(TensorKind k);
std::optional<TensorKind> tensorKindFromName(const std::string& name);

struct Tensor {
    std::string name;
    TensorKind kind = TensorKind::Activation;
    DType dtype = DType::Float32;
    std::vector<int64_t> shape;  // empty with shapeKnown=false when not known; empty + known = scalar
    bool shapeKnown = false;
    int64_t bytes = 0;
    bool isGraphOutput = false;
    int producer = -1;       // node id, -1 for graph inputs and weights
    int producerPort = -1;   // output index on the producer
    // CostGraphDef: output_info.alias_input_port (the output reuses that input's buffer), else -1.
    int aliasInputPort = -1;
    // Given time to move this tensor from its producer's device to another device, seconds
    // (the NeurIPS 2020 workloads' edge `cost`); < 0 = the link model (latency + bytes/bandwidth).
    double transferCostS = -1;
};

// Attribute values: the ONNX attribute kinds we keep. Tensor-valued attributes keep only their
// shape (as ints) so that a Graph stays small.
using AttrValue = std::variant<int64_t, double, std::string, std::vector<int64_t>, std::vector<double>,
                               std::vector<std::string>>;

struct Node {
    std::string name;
    std::string op;                       // ONNX op type, or the CostGraphDef/DOT label
    std::map<std::string, AttrValue> attrs;
    std::vector<int> inputs;              // tensor ids, in port order (-1 = absent optional input)
    std::vector<int> outputs;             // tensor ids, in port order
    std::vector<int> controlInputs;       // node ids that must finish first; no data moves
    double flops = 0;                     // estimated; see inferCosts()
    // Measured or given compute cost in seconds (CostGraphDef compute_cost is microseconds and is
    // converted); < 0 = not given, the device model derives it from FLOPs and bytes.
    double computeCostS = -1;
    int64_t tempBytes = 0;                // scratch memory while the node runs

    // --- what profiled workloads carry (docs/formats.md, "Partitioning workloads") ----------------
    // Given compute cost per device kind, seconds (DeviceSpec::kind: "accelerator", "cpu", ...);
    // a device whose kind is listed runs the node in that time (divided by its speed factor),
    // overriding computeCostS and the roofline.
    std::map<std::string, double> costByKindS;
    // Device kinds the node may run on; empty = any device.
    std::vector<std::string> allowedKinds;
    // Nodes with the same class (>= 0) must share a device (NeurIPS `colorClass`); -1 = none.
    int colocationClass = -1;
    // Memory the node takes on its device for the whole run, bytes (NeurIPS `size`: its weights
    // and state, counted once per node, whatever the schedule).
    int64_t residentBytes = 0;
    bool isBackward = false;              // a training graph's backward-pass node
};

struct Edge {
    int src = -1, srcPort = -1;   // producer node and output index
    int dst = -1, dstPort = -1;   // consumer node and input index (-1 for control edges)
    int tensor = -1;              // -1 for control edges
    int64_t bytes = 0;            // bytes moved if src and dst run on different devices
};

class Graph {
public:
    std::string name;
    std::map<std::string, std::string> metadata;  // free-form (source format, producer, ...)

    // --- building -------------------------------------------------------------------------------
    int addTensor(Tensor t);   // returns the id; the name must be unique (checked by validate())
    int addNode(Node n);       // returns the id; sets producer/producerPort of its outputs
    int findTensor(const std::string& name) const;  // -1 when absent
    int findNode(const std::string& name) const;    // -1 when absent
    // Rebuild edges, consumer lists and name indexes after nodes/tensors changed. Call once after
    // building; loaders do.
    void finalize();

    // --- reading --------------------------------------------------------------------------------
    const std::vector<Node>& nodes() const { return nodes_; }
    const std::vector<Tensor>& tensors() const { return tensors_; }
    std::vector<Node>& mutableNodes() { return nodes_; }
    std::vector<Tensor>& mutableTensors() { return tensors_; }
    const std::vector<Edge>& edges() const { return edges_; }
    size_t nodeCount() const { return nodes_.size(); }
    size_t tensorCount() const { return tensors_.size(); }
    // (consumer node, input port) pairs of a tensor; valid after finalize().
    const std::vector<std::pair<int, int>>& consumers(int tensor) const { return consumers_[tensor]; }
    // Node-level adjacency (data and control, deduplicated), valid after finalize().
    const std::vector<int>& predecessors(int node) const { return preds_[node]; }
    const std::vector<int>& successors(int node) const { return succs_[node]; }

    // Kahn's algorithm with ties broken by node id (deterministic). Throws GraphError naming a
    // node on a cycle when the graph is not a DAG.
    std::vector<int> topologicalOrder() const;

    // Checks names are unique, every reference points at something that exists, every tensor has
    // at most one producer, byte counts are sane (checkMemoryTotals), and the node graph is
    // acyclic. Throws GraphError with the offending node's name.
    void validate() const;
    // Every tensor's bytes and every node's tempBytes are >= 0 and together at most
    // kMaxGraphBytes; throws GraphError naming the tensor or node that breaks it.
    void checkMemoryTotals() const;

    // Totals used by `graphopt info` (saturating at kMaxGraphBytes for a graph never validated).
    double totalFlops() const;
    int64_t activationBytes() const;  // outputs of nodes
    int64_t weightBytes() const;
    int64_t inputBytes() const;

private:
    std::vector<Node> nodes_;
    std::vector<Tensor> tensors_;
    std::vector<Edge> edges_;
    std::vector<std::vector<std::pair<int, int>>> consumers_;
    std::vector<std::vector<int>> preds_, succs_;
    std::map<std::string, int> tensorIndex_, nodeIndex_;
};

// Bytes of a shape of a given element type; 0 if any dimension is unknown (< 0).
int64_t shapeBytes(const std::vector<int64_t>& shape, DType dtype);
std::string shapeToString(const std::vector<int64_t>& shape);

}  // namespace graphopt
