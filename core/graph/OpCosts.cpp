// FLOP formulas. A multiply-add counts as two FLOPs (so ResNet-18 at 224x224, 1.8 G
// multiply-accumulates, is about 3.6 GFLOP). Cheap element-wise work counts one FLOP per output
// element unless noted; data movement (reshape, concat, transpose, gather, ...) counts zero FLOPs
// but its bytes still come from the tensor shapes.
#include "graph/OpCosts.h"

#include <algorithm>
#include <map>
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
    if (y->shape.size() < 2) return 0;  // a malformed file: no channel axis to read
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

std::string stringAttr(const Node& n, const char* name, const std::string& fallback) {
    auto it = n.attrs.find(name);
    if (it == n.attrs.end()) return fallback;
    if (auto v = std::get_if<std::string>(&it->second)) return *v;
    return fallback;
}

// LSTM, GRU and RNN (ONNX layout: X is [seq, batch, input], or [batch, seq, input] with
// layout = 1). Per time step, batch row and direction, with H the hidden size and I the input
// size, each of the G gates (LSTM 4, GRU 3, RNN 1) is a matrix-vector product over the input
// and one over the hidden state: 2 G H (I + H) FLOPs; the biases add G H each (two bias vectors
// when B is given); the gate nonlinearities and state updates add `pointwise` x H.
double recurrentFlops(const Graph& g, const Node& n, int gates, double pointwise) {
    const Tensor* x = input(g, n, 0);
    const Tensor* w = input(g, n, 1);
    const Tensor* r = input(g, n, 2);
    if (!x || !x->shapeKnown || x->shape.size() != 3) return 0;
    const bool batchFirst = intAttr(n, "layout", 0) == 1;
    const double steps = static_cast<double>(x->shape[batchFirst ? 1 : 0]);
    const double batch = static_cast<double>(x->shape[batchFirst ? 0 : 1]);
    const double in = static_cast<double>(w && w->shapeKnown && w->shape.size() == 3 ? w->shape[2] : x->shape[2]);
    double hidden = static_cast<double>(intAttr(n, "hidden_size", 0));
    if (hidden <= 0 && r && r->shapeKnown && r->shape.size() == 3) hidden = static_cast<double>(r->shape[2]);
    if (hidden <= 0) return 0;
    const double directions = stringAttr(n, "direction", "forward") == "bidirectional" ? 2.0 : 1.0;
    const double G = gates;
    const double perStep = 2.0 * G * hidden * (in + hidden) + (input(g, n, 3) ? 2.0 * G * hidden : 0.0) + pointwise * hidden;
    return steps * batch * directions * perStep;
}

// Einsum: every point of the index space (all distinct letters, plus the dimensions an
// ellipsis stands for) is one product of the operands and one accumulation: 2 (operands - 1)
// FLOPs per point for two or more operands, 1 per point for a single operand (a sum or trace).
double einsumFlops(const Graph& g, const Node& n) {
    std::string eq = stringAttr(n, "equation", "");
    eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
    if (eq.empty()) return 0;
    const std::string lhs = eq.substr(0, eq.find("->"));
    std::vector<std::string> terms;
    for (size_t start = 0;;) {
        const size_t comma = lhs.find(',', start);
        terms.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    std::map<char, int64_t> extent;
    double ellipsis = 1;
    for (size_t t = 0; t < terms.size(); ++t) {
        const Tensor* x = input(g, n, t);
        if (!x || !x->shapeKnown) return 0;
        std::string term = terms[t];
        const size_t dots = term.find("...");
        const size_t letters = term.size() - (dots == std::string::npos ? 0 : 3);
        if (x->shape.size() < letters) return 0;
        const size_t covered = x->shape.size() - letters;  // dimensions under the ellipsis
        size_t dim = 0;
        double here = 1;
        for (size_t i = 0; i < term.size();) {
            if (term.compare(i, 3, "...") == 0) {
                for (size_t k = 0; k < covered; ++k) here *= static_cast<double>(x->shape[dim++]);
                i += 3;
                continue;
            }
            extent[term[i]] = std::max(extent[term[i]], x->shape[dim++]);
            ++i;
        }
        ellipsis = std::max(ellipsis, here);
    }
    double points = ellipsis;
    for (const auto& [letter, size] : extent) points *= static_cast<double>(std::max<int64_t>(size, 0));
    return terms.size() >= 2 ? 2.0 * static_cast<double>(terms.size() - 1) * points : points;
}

// Fused attention (com.microsoft Attention: input [B, S, D], packed QKV weights [D, 3 D]):
// the projection, Q K^T and the weighted sum of V, plus the softmax.
double attentionFlops(const Graph& g, const Node& n) {
    const Tensor* x = input(g, n, 0);
    const Tensor* w = input(g, n, 1);
    if (!x || !x->shapeKnown || x->shape.size() != 3 || !w || !w->shapeKnown || w->shape.size() != 2) return 0;
    const double B = static_cast<double>(x->shape[0]), S = static_cast<double>(x->shape[1]);
    const double D = static_cast<double>(x->shape[2]), projected = static_cast<double>(w->shape[1]);
    const double heads = static_cast<double>(std::max<int64_t>(1, intAttr(n, "num_heads", 1)));
    const double hiddenV = projected / 3.0;
    return 2.0 * B * S * D * projected + 4.0 * B * S * S * hiddenV + 5.0 * B * heads * S * S;
}

// com.microsoft MultiHeadAttention with projected query [B, S, D] and key [B, L, D].
double multiHeadAttentionFlops(const Graph& g, const Node& n) {
    const Tensor* q = input(g, n, 0);
    const Tensor* k = input(g, n, 1);
    if (!q || !q->shapeKnown || q->shape.size() != 3) return 0;
    const double B = static_cast<double>(q->shape[0]), S = static_cast<double>(q->shape[1]);
    const double D = static_cast<double>(q->shape[2]);
    const double L = k && k->shapeKnown && k->shape.size() == 3 ? static_cast<double>(k->shape[1]) : S;
    const double heads = static_cast<double>(std::max<int64_t>(1, intAttr(n, "num_heads", 1)));
    return 4.0 * B * S * L * D + 5.0 * B * heads * S * L;
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
        "MaxUnpool", "ReverseSequence", "Col2Im", "Optional", "OptionalGetElement", "OptionalHasElement",
        "SequenceAt", "SequenceConstruct", "SequenceEmpty", "SequenceInsert", "SequenceLength", "SplitToSequence",
        "ConcatFromSequence", "Unique", "Bernoulli", "RandomNormal", "RandomNormalLike", "RandomUniform",
        "RandomUniformLike", "Multinomial", "QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear",
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
            f = poolFlops(g, n);  // also 1-D and 3-D: the kernel is the product of kernel_shape
        else if (op == "LSTM")
            f = recurrentFlops(g, n, 4, 13.0);  // 4 gate sums, 4 activations, c = f*c + i*g (3), h = o*tanh(c) (2)
        else if (op == "GRU")
            f = recurrentFlops(g, n, 3, 10.0);  // 3 gate sums, 3 activations, r*(R h) (1), h = (1-z)*h~ + z*h (3)
        else if (op == "RNN")
            f = recurrentFlops(g, n, 1, 2.0);   // 1 sum, 1 activation
        else if (op == "Einsum")
            f = einsumFlops(g, n);
        else if (op == "com.microsoft.Attention")
            f = attentionFlops(g, n);
        else if (op == "com.microsoft.MultiHeadAttention")
            f = multiHeadAttentionFlops(g, n);
        else if (op == "LpNormalization" || op == "MeanVarianceNormalization")
            f = 4.0 * outElements(g, n);  // square or centre, reduce, rsqrt, scale
        else if (op == "Hardmax")
            f = 2.0 * outElements(g, n);  // compare, write
        else if (op == "MaxRoiPool" || op == "RoiAlign")
            f = 4.0 * outElements(g, n);
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
