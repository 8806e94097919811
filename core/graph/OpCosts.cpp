// FLOP formulas. A multiply-add counts as two FLOPs (so ResNet-18 at 224x224, 1.8 G
// multiply-accumulates, is about 3.6 GFLOP). Cheap element-wise work counts one FLOP per output
// element unless noted; data movement (reshape, concat, transpose, gather, ...) counts zero FLOPs
// but its bytes still come from the tensor shapes.
#include "graph/OpCosts.h"

#include <numeric>
#include <unordered_set>

namespace graphopt {

namespace {

double elements(const Tensor& t) {
    if (!t.shapeKnown) return 0;
    double n = 1;
    for (int64_t d : t.shape) n *= static_cast<double>(std::max<int64_t>(d, 0));
    return n;
}

int64_t intAttr(const Node& n, const char* name, int64_t fallback) {
    auto it = n.attrs.find(name);
    if (it == n.attrs.end()) return fallback;
    if (auto v = std::get_if<int64_t>(&it->second)) return *v;
    return fallback;
}

std::vector<int64_t> intsAttr(const Node& n, const char* name) {
    auto it = n.attrs.find(name);
    if (it == n.attrs.end()) return {};
    if (auto v = std::get_if<std::vector<int64_t>>(&it->second)) return *v;
    return {};
}

const Tensor* input(const Graph& g, const Node& n, size_t port) {
    if (port >= n.inputs.size() || n.inputs[port] < 0) return nullptr;
    return &g.tensors()[n.inputs[port]];
}

const Tensor* output(const Graph& g, const Node& n, size_t port) {
    if (port >= n.outputs.size() || n.outputs[port] < 0) return nullptr;
    return &g.tensors()[n.outputs[port]];
}

double outElements(const Graph& g, const Node& n) {
    double s = 0;
    for (int t : n.outputs)
        if (t >= 0) s += elements(g.tensors()[t]);
    return s;
}

// Conv / ConvTranspose: every output element is a dot product over (C_in / group) x kernel.
double convFlops(const Graph& g, const Node& n, bool transpose) {
    const Tensor* x = input(g, n, 0);
    const Tensor* w = input(g, n, 1);
    const Tensor* y = output(g, n, 0);
    if (!x || !y || !x->shapeKnown || !y->shapeKnown || x->shape.size() < 3) return 0;
    const int64_t group = std::max<int64_t>(1, intAttr(n, "group", 1));
    double kernel = 1;
    if (w && w->shapeKnown && w->shape.size() >= 3) {
        for (size_t i = 2; i < w->shape.size(); ++i) kernel *= static_cast<double>(w->shape[i]);
    } else {
        auto ks = intsAttr(n, "kernel_shape");
        if (ks.empty()) return 0;
        for (int64_t k : ks) kernel *= static_cast<double>(k);
    }
    const bool hasBias = input(g, n, 2) != nullptr;
    if (!transpose) {
        const double cinPerGroup = static_cast<double>(x->shape[1]) / static_cast<double>(group);
        const double out = elements(*y);
        return 2.0 * out * cinPerGroup * kernel + (hasBias ? out : 0.0);
    }
    // Transposed conv: every input element scatters into (C_out / group) x kernel outputs.
    const double coutPerGroup = static_cast<double>(y->shape[1]) / static_cast<double>(group);
    return 2.0 * elements(*x) * coutPerGroup * kernel + (hasBias ? elements(*y) : 0.0);
}

double gemmFlops(const Graph& g, const Node& n) {
    const Tensor* a = input(g, n, 0);
    const Tensor* y = output(g, n, 0);
    if (!a || !y || !a->shapeKnown || a->shape.size() != 2 || !y->shapeKnown) return 0;
    const double k = static_cast<double>(intAttr(n, "transA", 0) ? a->shape[0] : a->shape[1]);
    const double out = elements(*y);
    return 2.0 * out * k + (input(g, n, 2) ? out : 0.0);
}

// MatMul with numpy broadcasting: output elements x K multiply-adds (covers attention's Q.K^T
// and A.V batched products).
double matmulFlops(const Graph& g, const Node& n) {
    const Tensor* a = input(g, n, 0);
    const Tensor* y = output(g, n, 0);
    if (!a || !y || !a->shapeKnown || a->shape.empty() || !y->shapeKnown) return 0;
    return 2.0 * elements(*y) * static_cast<double>(a->shape.back());
}

double poolFlops(const Graph& g, const Node& n) {
    auto ks = intsAttr(n, "kernel_shape");
    double kernel = 1;
    for (int64_t k : ks) kernel *= static_cast<double>(k);
    return outElements(g, n) * kernel;
}

double inputElements(const Graph& g, const Node& n) {
    const Tensor* x = input(g, n, 0);
    return x ? elements(*x) : 0;
}

}  // namespace

std::set<std::string> inferCosts(Graph& g) {
    // One FLOP per output element.
    static const std::unordered_set<std::string> elementwise = {
        "Relu", "LeakyRelu", "PRelu", "Elu", "Selu", "Celu", "Sigmoid", "HardSigmoid", "HardSwish", "Tanh",
        "Clip", "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Sum", "Mean", "Neg", "Abs", "Sqrt",
        "Reciprocal", "Exp", "Log", "Erf", "Floor", "Ceil", "Round", "Sign", "Mish", "Softplus", "Softsign",
        "Where", "Equal", "Greater", "Less", "GreaterOrEqual", "LessOrEqual", "Not", "And", "Or", "Xor",
        "Resize", "Upsample", "Gelu", "Sin", "Cos", "Mod", "ThresholdedRelu", "Shrink", "IsNaN", "IsInf",
    };
    // Pure data movement or bookkeeping: zero FLOPs.
    static const std::unordered_set<std::string> movement = {
        "Concat", "Reshape", "Flatten", "Transpose", "Shape", "Gather", "GatherElements", "GatherND", "Squeeze",
        "Unsqueeze", "Identity", "Slice", "Split", "Dropout", "Pad", "Expand", "ConstantOfShape", "Cast",
        "Constant", "Tile", "Range", "Size", "ScatterND", "ScatterElements", "DepthToSpace", "SpaceToDepth",
        "NonZero", "TopK", "ArgMax", "ArgMin", "CastLike", "Trilu", "EyeLike", "OneHot", "Compress", "CumSum",
    };
    static const std::unordered_set<std::string> reductions = {
        "ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
        "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp", "GlobalAveragePool", "GlobalMaxPool",
        "GlobalLpPool",
    };

    std::set<std::string> unknown;
    for (Node& n : g.mutableNodes()) {
        const std::string& op = n.op;
        double f = 0;
        if (op == "Conv")
            f = convFlops(g, n, false);
        else if (op == "ConvTranspose")
            f = convFlops(g, n, true);
        else if (op == "Gemm")
            f = gemmFlops(g, n);
        else if (op == "MatMul")
            f = matmulFlops(g, n);
        else if (op == "MaxPool" || op == "AveragePool" || op == "LpPool")
            f = poolFlops(g, n);
        else if (reductions.count(op))
            f = inputElements(g, n);
        else if (op == "BatchNormalization" || op == "InstanceNormalization")
            f = 2.0 * outElements(g, n);  // scale and shift once statistics are known
        else if (op == "LayerNormalization" || op == "GroupNormalization")
            f = 8.0 * outElements(g, n);  // mean, centre, square, variance, rsqrt-scale, affine
        else if (op == "Softmax" || op == "LogSoftmax")
            f = 5.0 * outElements(g, n);  // max, subtract, exp, sum, divide
        else if (op == "LRN")
            f = outElements(g, n) * (static_cast<double>(intAttr(n, "size", 5)) + 3.0);
        else if (elementwise.count(op))
            f = outElements(g, n);
        else if (movement.count(op))
            f = 0;
        else
            unknown.insert(op);
        // Nodes with FLOPs already given by their source format (CostGraphDef, DOT, JSON) keep them
        // unless a formula applies.
        if (f > 0 || n.flops <= 0) n.flops = f;
    }
    return unknown;
}

}  // namespace graphopt
