// libtorch behind TorchProgram.h and PlacementExecutor.h (the one translation unit of the
// execution room that includes LibTorch, compiled into graphopt_nn).
#include "execution/TorchProgram.h"

#include <dlfcn.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <numeric>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <torch/torch.h>

#include "execution/CorePinning.h"
#include "execution/PlacementExecutor.h"
#include "run/Elapsed.h"

namespace graphopt::exec {

namespace {

using Tensors = std::vector<at::Tensor>;
using Kernel = std::function<Tensors(const Tensors&)>;

// Raised while building a node's call: the node does not run, for this reason.
struct NotRunnable : std::runtime_error {
    using std::runtime_error::runtime_error;
};

const AttrValue* attr(const Node& n, const char* key) {
    auto it = n.attrs.find(key);
    return it == n.attrs.end() ? nullptr : &it->second;
}
int64_t intAttr(const Node& n, const char* key, int64_t def) {
    const AttrValue* a = attr(n, key);
    if (!a) return def;
    if (auto* v = std::get_if<int64_t>(a)) return *v;
    if (auto* d = std::get_if<double>(a)) return int64_t(*d);
    throw NotRunnable(std::string("attribute '") + key + "' is not an integer");
}
double floatAttr(const Node& n, const char* key, double def) {
    const AttrValue* a = attr(n, key);
    if (!a) return def;
    if (auto* v = std::get_if<double>(a)) return *v;
    if (auto* i = std::get_if<int64_t>(a)) return double(*i);
    throw NotRunnable(std::string("attribute '") + key + "' is not a number");
}
std::string stringAttr(const Node& n, const char* key, const std::string& def) {
    const AttrValue* a = attr(n, key);
    if (!a) return def;
    if (auto* v = std::get_if<std::string>(a)) return *v;
    throw NotRunnable(std::string("attribute '") + key + "' is not a string");
}
std::optional<std::vector<int64_t>> intsAttr(const Node& n, const char* key) {
    const AttrValue* a = attr(n, key);
    if (!a) return std::nullopt;
    if (auto* v = std::get_if<std::vector<int64_t>>(a)) return *v;
    if (auto* i = std::get_if<int64_t>(a)) return std::vector<int64_t>{*i};
    throw NotRunnable(std::string("attribute '") + key + "' is not a list of integers");
}

at::ScalarType torchType(DType t) {
    switch (t) {
        case DType::Float64: return at::kDouble;
        case DType::Float16: return at::kHalf;
        case DType::BFloat16: return at::kBFloat16;
        case DType::Int8: return at::kChar;
        case DType::UInt8: return at::kByte;
        case DType::Int16: return at::kShort;
        case DType::Int32: return at::kInt;
        case DType::Int64: return at::kLong;
        case DType::Bool: return at::kBool;
        default: return at::kFloat;
    }
}

std::string shapeText(at::IntArrayRef s) {
    std::string out = "[";
    for (size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
    return out + "]";
}

// ONNX pads [b1..bk, e1..ek] over the last k dims -> torch's constant_pad_nd order (last dim first).
std::vector<int64_t> torchPadOrder(const std::vector<int64_t>& pads, size_t k) {
    std::vector<int64_t> out;
    for (size_t i = k; i-- > 0;) {
        out.push_back(pads[i]);
        out.push_back(pads[i + k]);
    }
    return out;
}

// Pads of a pooling or conv node: `pads`, or auto_pad's SAME_UPPER/SAME_LOWER/VALID from the input
// size; the result has 2k entries.
std::vector<int64_t> spatialPads(const Node& n, size_t k, const std::vector<int64_t>& kernel,
                                 const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations,
                                 at::IntArrayRef inputShape) {
    const std::string autoPad = stringAttr(n, "auto_pad", "NOTSET");
    if (autoPad == "NOTSET" || autoPad.empty()) {
        auto pads = intsAttr(n, "pads").value_or(std::vector<int64_t>(2 * k, 0));
        if (pads.size() != 2 * k) throw NotRunnable("pads has " + std::to_string(pads.size()) + " entries for " + std::to_string(k) + " spatial dims");
        return pads;
    }
    std::vector<int64_t> pads(2 * k, 0);
    if (autoPad == "VALID") return pads;
    for (size_t i = 0; i < k; ++i) {
        const int64_t in = inputShape[inputShape.size() - k + i];
        const int64_t out = (in + strides[i] - 1) / strides[i];
        const int64_t total = std::max<int64_t>(0, (out - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - in);
        const int64_t small = total / 2, large = total - small;
        pads[i] = autoPad == "SAME_UPPER" ? small : large;
        pads[i + k] = autoPad == "SAME_UPPER" ? large : small;
    }
    return pads;
}

bool symmetric(const std::vector<int64_t>& pads) {
    const size_t k = pads.size() / 2;
    for (size_t i = 0; i < k; ++i)
        if (pads[i] != pads[i + k]) return false;
    return true;
}

int64_t normAxis(int64_t axis, int64_t rank) { return axis < 0 ? axis + rank : axis; }

// What building a kernel may read: the node, the model's output shapes, and the constant value of
// an input (when the model has one).
struct BuildContext {
    const Graph& g;
    const Node& n;
    const ConstantValues& constants;
    std::optional<std::vector<int64_t>> constInts(size_t port) const {
        if (port >= n.inputs.size() || n.inputs[port] < 0) return std::nullopt;
        auto it = constants.find(g.tensors()[n.inputs[port]].name);
        if (it == constants.end()) return std::nullopt;
        std::vector<int64_t> out;
        for (double v : it->second.values) out.push_back(int64_t(v));
        return out;
    }
    std::optional<double> constScalar(size_t port) const {
        if (port >= n.inputs.size() || n.inputs[port] < 0) return std::nullopt;
        auto it = constants.find(g.tensors()[n.inputs[port]].name);
        if (it == constants.end() || it->second.values.size() != 1) return std::nullopt;
        return it->second.values[0];
    }
    bool hasInput(size_t port) const { return port < n.inputs.size() && n.inputs[port] >= 0; }
    // The model's shape of output `port`, when known.
    std::optional<std::vector<int64_t>> outShape(size_t port = 0) const {
        if (port >= n.outputs.size()) return std::nullopt;
        const Tensor& t = g.tensors()[n.outputs[port]];
        if (!t.shapeKnown) return std::nullopt;
        return t.shape;
    }
    std::vector<int64_t> needOutShape(size_t port = 0) const {
        auto s = outShape(port);
        if (!s) throw NotRunnable("the model does not give the shape of output " + std::to_string(port));
        return *s;
    }
};

Kernel unary(at::Tensor (*f)(const at::Tensor&)) {
    return [f](const Tensors& in) { return Tensors{f(in[0])}; };
}
template <typename F>
Kernel binary(F f) {
    return [f](const Tensors& in) { return Tensors{f(in[0], in[1])}; };
}

Kernel convKernel(const BuildContext& c) {
    const Node& n = c.n;
    const auto groups = intAttr(n, "group", 1);
    const bool hasBias = c.hasInput(2);
    return [&n, groups, hasBias](const Tensors& in) {
        const at::Tensor& x = in[0];
        const at::Tensor& w = in[1];
        const size_t k = size_t(w.dim()) - 2;
        if (k < 1 || k > 3) throw NotRunnable("Conv over " + std::to_string(k) + " spatial dims");
        std::vector<int64_t> kernel(w.sizes().begin() + 2, w.sizes().end());
        auto strides = intsAttr(n, "strides").value_or(std::vector<int64_t>(k, 1));
        auto dil = intsAttr(n, "dilations").value_or(std::vector<int64_t>(k, 1));
        auto pads = spatialPads(n, k, kernel, strides, dil, x.sizes());
        at::Tensor xin = x;
        std::vector<int64_t> pad(k, 0);
        if (symmetric(pads)) {
            pad.assign(pads.begin(), pads.begin() + long(k));
        } else {
            xin = at::constant_pad_nd(x, torchPadOrder(pads, k), 0);
        }
        at::Tensor b = hasBias ? in[2] : at::Tensor();
        return Tensors{at::convolution(xin, w, b, strides, pad, dil, false, std::vector<int64_t>(k, 0), groups)};
    };
}

Kernel convTransposeKernel(const BuildContext& c) {
    const Node& n = c.n;
    const auto groups = intAttr(n, "group", 1);
    const bool hasBias = c.hasInput(2);
    return [&n, groups, hasBias](const Tensors& in) {
        const at::Tensor& w = in[1];
        const size_t k = size_t(w.dim()) - 2;
        auto strides = intsAttr(n, "strides").value_or(std::vector<int64_t>(k, 1));
        auto dil = intsAttr(n, "dilations").value_or(std::vector<int64_t>(k, 1));
        auto pads = intsAttr(n, "pads").value_or(std::vector<int64_t>(2 * k, 0));
        auto outPad = intsAttr(n, "output_padding").value_or(std::vector<int64_t>(k, 0));
        if (pads.size() != 2 * k || !symmetric(pads)) throw NotRunnable("ConvTranspose with asymmetric pads");
        at::Tensor b = hasBias ? in[2] : at::Tensor();
        return Tensors{at::convolution(in[0], w, b, strides, std::vector<int64_t>(pads.begin(), pads.begin() + long(k)), dil,
                                       true, outPad, groups)};
    };
}

Kernel poolKernel(const BuildContext& c, bool isMax) {
    const Node& n = c.n;
    auto kernel = intsAttr(n, "kernel_shape");
    if (!kernel) throw NotRunnable("pooling without kernel_shape");
    const size_t k = kernel->size();
    if (k < 1 || k > 3) throw NotRunnable("pooling over " + std::to_string(k) + " dims");
    const bool ceil = intAttr(n, "ceil_mode", 0) != 0;
    const bool countPad = intAttr(n, "count_include_pad", 0) != 0;
    return [&n, kernel = *kernel, k, ceil, countPad, isMax](const Tensors& in) {
        auto strides = intsAttr(n, "strides").value_or(std::vector<int64_t>(k, 1));
        auto dil = intsAttr(n, "dilations").value_or(std::vector<int64_t>(k, 1));
        auto pads = spatialPads(n, k, kernel, strides, dil, in[0].sizes());
        at::Tensor x = in[0];
        std::vector<int64_t> pad(pads.begin(), pads.begin() + long(k));
        if (!symmetric(pads)) {
            x = at::constant_pad_nd(x, torchPadOrder(pads, k), isMax ? -std::numeric_limits<double>::infinity() : 0.0);
            std::fill(pad.begin(), pad.end(), 0);
        }
        if (isMax) {
            if (k == 1) return Tensors{at::max_pool1d(x, kernel, strides, pad, dil, ceil)};
            if (k == 2) return Tensors{at::max_pool2d(x, kernel, strides, pad, dil, ceil)};
            return Tensors{at::max_pool3d(x, kernel, strides, pad, dil, ceil)};
        }
        if (k == 1) return Tensors{at::avg_pool1d(x, kernel, strides, pad, ceil, countPad)};
        if (k == 2) return Tensors{at::avg_pool2d(x, kernel, strides, pad, ceil, countPad)};
        return Tensors{at::avg_pool3d(x, kernel, strides, pad, ceil, countPad)};
    };
}

Kernel reduceKernel(const BuildContext& c, int which) {  // 0 mean, 1 sum, 2 max, 3 min
    const Node& n = c.n;
    std::optional<std::vector<int64_t>> axes = intsAttr(n, "axes");
    if (!axes && c.hasInput(1)) {
        axes = c.constInts(1);
        if (!axes) throw NotRunnable("the reduction's axes are not constants of the model");
    }
    const bool keep = intAttr(n, "keepdims", 1) != 0;
    return [axes, keep, which](const Tensors& in) {
        std::vector<int64_t> dims;
        if (axes) {
            for (int64_t a : *axes) dims.push_back(normAxis(a, in[0].dim()));
        } else {
            dims.resize(size_t(in[0].dim()));
            std::iota(dims.begin(), dims.end(), 0);
        }
        switch (which) {
            case 0: return Tensors{at::mean(in[0], dims, keep)};
            case 1: return Tensors{at::sum(in[0], dims, keep)};
            case 2: return Tensors{at::amax(in[0], dims, keep)};
            default: return Tensors{at::amin(in[0], dims, keep)};
        }
    };
}

// The call of one node, or NotRunnable.
Kernel buildKernel(const BuildContext& c) {
    const Node& n = c.n;
    const std::string& op = n.op;
    if (op == "Conv") return convKernel(c);
    if (op == "ConvTranspose") return convTransposeKernel(c);
    if (op == "Relu") return unary(at::relu);
    if (op == "Sigmoid") return unary(at::sigmoid);
    if (op == "Tanh") return unary(at::tanh);
    if (op == "Exp") return unary(at::exp);
    if (op == "Log") return unary(at::log);
    if (op == "Sqrt") return unary(at::sqrt);
    if (op == "Neg") return unary(at::neg);
    if (op == "Abs") return unary(at::abs);
    if (op == "Erf") return unary(at::erf);
    if (op == "Reciprocal") return unary(at::reciprocal);
    if (op == "Floor") return unary(at::floor);
    if (op == "Ceil") return unary(at::ceil);
    if (op == "Identity" || op == "Dropout")
        return [outs = n.outputs.size()](const Tensors& in) {
            Tensors r{in[0]};
            if (outs > 1) r.push_back(at::ones_like(in[0], at::kBool));
            return r;
        };
    if (op == "Gelu") return [](const Tensors& in) { return Tensors{at::gelu(in[0])}; };
    if (op == "LeakyRelu") {
        const double alpha = floatAttr(n, "alpha", 0.01);
        return [alpha](const Tensors& in) { return Tensors{at::leaky_relu(in[0], alpha)}; };
    }
    if (op == "Elu") {
        const double alpha = floatAttr(n, "alpha", 1.0);
        return [alpha](const Tensors& in) { return Tensors{at::elu(in[0], alpha)}; };
    }
    if (op == "HardSigmoid") {
        const double alpha = floatAttr(n, "alpha", 0.2), beta = floatAttr(n, "beta", 0.5);
        return [alpha, beta](const Tensors& in) { return Tensors{at::clamp(in[0] * alpha + beta, 0.0, 1.0)}; };
    }
    if (op == "HardSwish") return [](const Tensors& in) { return Tensors{at::hardswish(in[0])}; };
    if (op == "Softplus") return [](const Tensors& in) { return Tensors{at::softplus(in[0])}; };
    if (op == "Clip") {
        std::optional<double> lo, hi;
        if (attr(n, "min") || attr(n, "max")) {  // opset < 11
            if (attr(n, "min")) lo = floatAttr(n, "min", 0);
            if (attr(n, "max")) hi = floatAttr(n, "max", 0);
        } else {
            if (c.hasInput(1) && !(lo = c.constScalar(1))) throw NotRunnable("Clip's min is not a constant of the model");
            if (c.hasInput(2) && !(hi = c.constScalar(2))) throw NotRunnable("Clip's max is not a constant of the model");
        }
        return [lo, hi](const Tensors& in) {
            return Tensors{at::clamp(in[0], lo ? c10::optional<at::Scalar>(*lo) : c10::nullopt,
                                     hi ? c10::optional<at::Scalar>(*hi) : c10::nullopt)};
        };
    }
    if (op == "Add") return binary([](const at::Tensor& a, const at::Tensor& b) { return at::add(a, b); });
    if (op == "Sub") return binary([](const at::Tensor& a, const at::Tensor& b) { return at::sub(a, b); });
    if (op == "Mul") return binary([](const at::Tensor& a, const at::Tensor& b) { return at::mul(a, b); });
    if (op == "Div") return binary([](const at::Tensor& a, const at::Tensor& b) { return at::div(a, b); });
    if (op == "Pow") return binary([](const at::Tensor& a, const at::Tensor& b) { return at::pow(a, b); });
    if (op == "Equal") return binary([](const at::Tensor& a, const at::Tensor& b) { return at::eq(a, b); });
    if (op == "Where") return [](const Tensors& in) { return Tensors{at::where(in[0].to(at::kBool), in[1], in[2])}; };
    if (op == "Sum" || op == "Max" || op == "Min" || op == "Mean") {
        return [op](const Tensors& in) {
            at::Tensor r = in[0];
            for (size_t i = 1; i < in.size(); ++i)
                r = op == "Max" ? at::maximum(r, in[i]) : op == "Min" ? at::minimum(r, in[i]) : at::add(r, in[i]);
            if (op == "Mean") r = r / double(in.size());
            return Tensors{r};
        };
    }
    if (op == "MatMul") return binary([](const at::Tensor& a, const at::Tensor& b) { return at::matmul(a, b); });
    if (op == "Gemm") {
        const double alpha = floatAttr(n, "alpha", 1), beta = floatAttr(n, "beta", 1);
        const bool ta = intAttr(n, "transA", 0), tb = intAttr(n, "transB", 0);
        const bool hasC = c.hasInput(2);
        return [alpha, beta, ta, tb, hasC](const Tensors& in) {
            at::Tensor a = ta ? in[0].t() : in[0];
            at::Tensor b = tb ? in[1].t() : in[1];
            if (!hasC) return Tensors{alpha == 1 ? at::mm(a, b) : at::mm(a, b) * alpha};
            at::Tensor cc = in[2];
            if (cc.dim() < 2) cc = cc.expand({a.size(0), b.size(1)});
            return Tensors{at::addmm(cc, a, b, beta, alpha)};
        };
    }
    if (op == "Einsum") {
        const std::string eq = stringAttr(n, "equation", "");
        return [eq](const Tensors& in) { return Tensors{at::einsum(eq, in)}; };
    }
    if (op == "MaxPool") return poolKernel(c, true);
    if (op == "AveragePool") return poolKernel(c, false);
    if (op == "GlobalAveragePool" || op == "GlobalMaxPool") {
        const bool isMax = op == "GlobalMaxPool";
        return [isMax](const Tensors& in) {
            std::vector<int64_t> dims;
            for (int64_t d = 2; d < in[0].dim(); ++d) dims.push_back(d);
            return Tensors{isMax ? at::amax(in[0], dims, true) : at::mean(in[0], dims, true)};
        };
    }
    if (op == "BatchNormalization") {
        const double eps = floatAttr(n, "epsilon", 1e-5);
        return [eps](const Tensors& in) {
            return Tensors{at::batch_norm(in[0], in[1], in[2], in[3], in[4], false, 0.0, eps, false)};
        };
    }
    if (op == "InstanceNormalization") {
        const double eps = floatAttr(n, "epsilon", 1e-5);
        return [eps](const Tensors& in) {
            return Tensors{at::instance_norm(in[0], in[1], in[2], {}, {}, true, 0.0, eps, false)};
        };
    }
    if (op == "LayerNormalization") {
        const int64_t axisAttr = intAttr(n, "axis", -1);
        const double eps = floatAttr(n, "epsilon", 1e-5);
        const bool hasBias = c.hasInput(2);
        return [axisAttr, eps, hasBias](const Tensors& in) {
            const int64_t axis = normAxis(axisAttr, in[0].dim());
            std::vector<int64_t> shape(in[0].sizes().begin() + axis, in[0].sizes().end());
            return Tensors{at::layer_norm(in[0], shape, in[1], hasBias ? in[2] : at::Tensor(), eps)};
        };
    }
    if (op == "Softmax" || op == "LogSoftmax") {
        int opset = 13;
        if (auto it = c.g.metadata.find("onnx.opset"); it != c.g.metadata.end()) opset = std::atoi(it->second.c_str());
        const int64_t axisAttr = intAttr(n, "axis", opset >= 13 ? -1 : 1);
        const bool isLog = op == "LogSoftmax";
        // (Before opset 13 the input is flattened to 2-D at `axis`; this softmax over the one axis
        // is the same only when `axis` is the last dimension.)
        return [axisAttr, isLog](const Tensors& in) {
            const int64_t axis = normAxis(axisAttr, in[0].dim());
            return Tensors{isLog ? at::log_softmax(in[0], axis) : at::softmax(in[0], axis)};
        };
    }
    if (op == "ReduceMean") return reduceKernel(c, 0);
    if (op == "ReduceSum") return reduceKernel(c, 1);
    if (op == "ReduceMax") return reduceKernel(c, 2);
    if (op == "ReduceMin") return reduceKernel(c, 3);
    if (op == "Flatten") {
        const int64_t axisAttr = intAttr(n, "axis", 1);
        return [axisAttr](const Tensors& in) {
            const int64_t axis = normAxis(axisAttr, in[0].dim());
            int64_t outer = 1;
            for (int64_t d = 0; d < axis; ++d) outer *= in[0].size(d);
            return Tensors{in[0].reshape({outer, -1})};
        };
    }
    if (op == "Reshape" || op == "Squeeze" || op == "Unsqueeze") {
        // The model's output shape says where the elements go (shape inference and folding worked it
        // out); the shape input need not be known.
        const auto shape = c.needOutShape();
        return [shape](const Tensors& in) { return Tensors{in[0].reshape(shape)}; };
    }
    if (op == "Expand") {
        const auto shape = c.needOutShape();
        return [shape](const Tensors& in) { return Tensors{in[0].expand(shape).contiguous()}; };
    }
    if (op == "Transpose") {
        auto perm = intsAttr(n, "perm");
        return [perm](const Tensors& in) {
            std::vector<int64_t> p = perm.value_or(std::vector<int64_t>{});
            if (p.empty())
                for (int64_t d = in[0].dim(); d-- > 0;) p.push_back(d);
            return Tensors{in[0].permute(p).contiguous()};
        };
    }
    if (op == "Concat") {
        const int64_t axisAttr = intAttr(n, "axis", 0);
        return [axisAttr](const Tensors& in) {
            Tensors parts;
            for (const auto& t : in)
                if (t.defined()) parts.push_back(t);
            return Tensors{at::cat(parts, normAxis(axisAttr, parts.at(0).dim()))};
        };
    }
    if (op == "Split") {
        const int64_t axisAttr = intAttr(n, "axis", 0);
        std::vector<int64_t> sizes;
        for (size_t p = 0; p < n.outputs.size(); ++p) {
            const auto s = c.needOutShape(p);
            const auto& in0 = c.g.tensors()[n.inputs[0]];
            const int64_t axis = normAxis(axisAttr, int64_t(in0.shape.size()));
            if (axis < 0 || size_t(axis) >= s.size()) throw NotRunnable("Split's axis is out of range");
            sizes.push_back(s[size_t(axis)]);
        }
        return [axisAttr, sizes](const Tensors& in) {
            auto parts = at::split_with_sizes(in[0], sizes, normAxis(axisAttr, in[0].dim()));
            Tensors out;
            for (auto& p : parts) out.push_back(p.contiguous());
            return out;
        };
    }
    if (op == "Slice") {
        auto starts = c.constInts(1), ends = c.constInts(2);
        if (!starts || !ends) throw NotRunnable("Slice's starts and ends are not constants of the model");
        auto axes = c.hasInput(3) ? c.constInts(3) : std::optional<std::vector<int64_t>>(std::vector<int64_t>{});
        auto steps = c.hasInput(4) ? c.constInts(4) : std::optional<std::vector<int64_t>>(std::vector<int64_t>{});
        if (!axes || !steps) throw NotRunnable("Slice's axes or steps are not constants of the model");
        return [s = *starts, e = *ends, a = *axes, st = *steps](const Tensors& in) {
            at::Tensor x = in[0];
            for (size_t i = 0; i < s.size(); ++i) {
                const int64_t axis = normAxis(a.empty() ? int64_t(i) : a[i], x.dim());
                const int64_t size = x.size(axis);
                const int64_t step = st.empty() ? 1 : st[i];
                if (step <= 0) throw NotRunnable("Slice with a negative step");
                int64_t b = s[i] < 0 ? s[i] + size : s[i];
                int64_t f = e[i] < 0 ? e[i] + size : std::min(e[i], size);
                b = std::clamp<int64_t>(b, 0, size);
                f = std::clamp<int64_t>(f, b, size);
                x = x.slice(axis, b, f, step);
            }
            return Tensors{x.contiguous()};
        };
    }
    if (op == "Gather") {
        const int64_t axisAttr = intAttr(n, "axis", 0);
        return [axisAttr](const Tensors& in) {
            const int64_t axis = normAxis(axisAttr, in[0].dim());
            at::Tensor idx = in[1].to(at::kLong);
            idx = at::where(idx < 0, idx + in[0].size(axis), idx);
            if (idx.dim() == 0) return Tensors{in[0].select(axis, idx.item<int64_t>()).contiguous()};
            at::Tensor flat = at::index_select(in[0], axis, idx.reshape({-1}));
            std::vector<int64_t> shape(in[0].sizes().begin(), in[0].sizes().begin() + axis);
            for (int64_t d : idx.sizes()) shape.push_back(d);
            for (int64_t d = axis + 1; d < in[0].dim(); ++d) shape.push_back(in[0].size(d));
            return Tensors{flat.reshape(shape)};
        };
    }
    if (op == "Pad") {
        const std::string mode = stringAttr(n, "mode", "constant");
        std::optional<std::vector<int64_t>> pads = intsAttr(n, "pads");
        if (!pads && !(pads = c.constInts(1))) throw NotRunnable("Pad's pads are not constants of the model");
        const double value = c.hasInput(2) ? c.constScalar(2).value_or(0.0) : floatAttr(n, "value", 0.0);
        if (mode != "constant" && mode != "reflect" && mode != "edge") throw NotRunnable("Pad mode '" + mode + "'");
        return [pads = *pads, mode, value](const Tensors& in) {
            const size_t k = pads.size() / 2;
            auto order = torchPadOrder(pads, k);
            if (mode == "constant") return Tensors{at::constant_pad_nd(in[0], order, value)};
            // reflect / edge over the trailing non-zero dims
            while (order.size() > 2 && order[order.size() - 1] == 0 && order[order.size() - 2] == 0) order.resize(order.size() - 2);
            const size_t dims = order.size() / 2;
            if (mode == "reflect") {
                if (dims == 1) return Tensors{at::reflection_pad1d(in[0], order)};
                if (dims == 2) return Tensors{at::reflection_pad2d(in[0], order)};
                return Tensors{at::reflection_pad3d(in[0], order)};
            }
            if (dims == 1) return Tensors{at::replication_pad1d(in[0], order)};
            if (dims == 2) return Tensors{at::replication_pad2d(in[0], order)};
            return Tensors{at::replication_pad3d(in[0], order)};
        };
    }
    if (op == "Shape")
        return [](const Tensors& in) {
            std::vector<int64_t> s(in[0].sizes().begin(), in[0].sizes().end());
            return Tensors{at::tensor(s, at::kLong)};
        };
    if (op == "Cast") {
        const auto to = intAttr(n, "to", 1);
        at::ScalarType t = to == 7 ? at::kLong : to == 6 ? at::kInt : to == 9 ? at::kBool : to == 11 ? at::kDouble : at::kFloat;
        return [t](const Tensors& in) { return Tensors{in[0].to(t)}; };
    }
    throw NotRunnable("op '" + op + "' is not implemented by the executor");
}

// A timer for one call; steady_clock is a vDSO call, far below the ops timed.
std::string firstLine(const std::string& s) {
    const auto nl = s.find('\n');
    return nl == std::string::npos ? s : s.substr(0, nl);
}

using OpenblasSetThreads = void (*)(int);

}  // namespace

struct TorchProgram::Impl {
    const Graph& g;
    const ConstantValues& constants;
    uint64_t seed;
    std::vector<Kernel> kernels;
    std::vector<std::string> why;
    std::vector<at::Tensor> values;   // per tensor
    std::vector<char> fromModel;      // per tensor: the value is the model's constant
    std::vector<std::string> given;   // reasons fixed at build time (kept across recompute)

    Impl(const Graph& graph, const ConstantValues& c, uint64_t s) : g(graph), constants(c), seed(s) {}

    Tensors inputsOf(int v) const {
        Tensors in;
        for (int t : g.nodes()[size_t(v)].inputs) in.push_back(t >= 0 ? values[size_t(t)] : at::Tensor());
        return in;
    }

    at::Tensor randomOf(const Tensor& t, at::Generator& gen) const {
        std::vector<int64_t> shape = t.shapeKnown ? t.shape : std::vector<int64_t>{};
        for (auto& d : shape) d = std::max<int64_t>(d, 0);
        const at::ScalarType st = torchType(t.dtype);
        if (at::isFloatingType(st)) return at::randn(shape, gen, at::TensorOptions().dtype(at::kFloat)).to(st);
        return at::zeros(shape, at::TensorOptions().dtype(st));
    }

    void initialValues() {
        auto gen = at::detail::createCPUGenerator(seed);
        values.assign(g.tensorCount(), at::Tensor());
        fromModel.assign(g.tensorCount(), 0);
        for (size_t t = 0; t < g.tensorCount(); ++t) {
            const Tensor& ts = g.tensors()[t];
            if (ts.producer >= 0) continue;
            auto it = constants.find(ts.name);
            if (it != constants.end()) {
                at::Tensor v = at::tensor(at::ArrayRef<double>(it->second.values), at::kDouble)
                                   .reshape(it->second.shape)
                                   .to(torchType(it->second.dtype));
                values[t] = v;
                fromModel[t] = 1;
            } else if (ts.shapeKnown) {
                values[t] = randomOf(ts, gen);
            }
        }
    }

    void computeAll() {
        auto gen = at::detail::createCPUGenerator(seed + 1);
        for (int v : g.topologicalOrder()) {
            const Node& n = g.nodes()[size_t(v)];
            why[size_t(v)] = given[size_t(v)];
            if (why[size_t(v)].empty()) {
                for (size_t p = 0; p < n.inputs.size(); ++p)
                    if (n.inputs[p] >= 0 && !values[size_t(n.inputs[p])].defined()) {
                        why[size_t(v)] = "input '" + g.tensors()[size_t(n.inputs[p])].name + "' could not be computed";
                        break;
                    }
            }
            if (why[size_t(v)].empty()) {
                try {
                    Tensors out = kernels[size_t(v)](inputsOf(v));
                    if (out.size() < n.outputs.size()) throw NotRunnable("the call gave fewer outputs than the node has");
                    for (size_t p = 0; p < n.outputs.size(); ++p) {
                        const Tensor& ts = g.tensors()[size_t(n.outputs[p])];
                        if (ts.shapeKnown && std::vector<int64_t>(out[p].sizes().begin(), out[p].sizes().end()) != ts.shape)
                            throw NotRunnable("output " + std::to_string(p) + " has shape " + shapeText(out[p].sizes()) +
                                              ", the model says " + shapeText(ts.shape));
                        values[size_t(n.outputs[p])] = out[p].contiguous();
                    }
                } catch (const NotRunnable& e) {
                    why[size_t(v)] = e.what();
                } catch (const c10::Error& e) {
                    why[size_t(v)] = "libtorch refused the call: " + firstLine(e.what_without_backtrace());
                } catch (const std::exception& e) {
                    why[size_t(v)] = std::string("the call failed: ") + firstLine(e.what());
                }
            }
            if (!why[size_t(v)].empty())
                for (int t : n.outputs) {
                    const Tensor& ts = g.tensors()[size_t(t)];
                    values[size_t(t)] = ts.shapeKnown ? randomOf(ts, gen) : at::Tensor();
                }
        }
    }
};

TorchProgram::TorchProgram(const Graph& g, const ConstantValues& constants, uint64_t seed)
    : impl_(std::make_unique<Impl>(g, constants, seed)) {
    c10::InferenceMode inference;
    const size_t n = g.nodeCount();
    impl_->kernels.resize(n);
    impl_->why.assign(n, "");
    impl_->given.assign(n, "");
    for (size_t v = 0; v < n; ++v) {
        try {
            impl_->kernels[v] = buildKernel(BuildContext{g, g.nodes()[v], constants});
        } catch (const NotRunnable& e) {
            impl_->given[v] = e.what();
        }
    }
    impl_->initialValues();
    impl_->computeAll();
}

TorchProgram::~TorchProgram() = default;

const Graph& TorchProgram::graph() const { return impl_->g; }
const std::string& TorchProgram::whyNotRun(int node) const { return impl_->why.at(size_t(node)); }
int TorchProgram::nodesRun() const {
    return int(std::count_if(impl_->why.begin(), impl_->why.end(), [](const std::string& s) { return s.empty(); }));
}

std::vector<double> TorchProgram::timeNode(int node, int warmup, int repeats) {
    if (!impl_->why.at(size_t(node)).empty()) return {};
    c10::InferenceMode inference;
    const Tensors in = impl_->inputsOf(node);
    const Kernel& k = impl_->kernels[size_t(node)];
    for (int i = 0; i < warmup; ++i) k(in);
    std::vector<double> out;
    for (int i = 0; i < repeats; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        Tensors r = k(in);
        out.push_back(secondsSince(t0));
    }
    return out;
}

std::vector<std::vector<double>> TorchProgram::timeForwardPasses(int warmup, int passes) {
    c10::InferenceMode inference;
    const Graph& g = impl_->g;
    const auto order = g.topologicalOrder();
    std::vector<std::vector<double>> out(g.nodeCount());
    for (int p = 0; p < warmup + passes; ++p)
        for (int v : order) {
            if (!impl_->why[size_t(v)].empty()) continue;
            const Tensors in = impl_->inputsOf(v);
            const auto t0 = std::chrono::steady_clock::now();
            Tensors r = impl_->kernels[size_t(v)](in);
            const double s = secondsSince(t0);
            if (p >= warmup) out[size_t(v)].push_back(s);
            const Node& n = g.nodes()[size_t(v)];
            for (size_t k = 0; k < n.outputs.size() && k < r.size(); ++k) impl_->values[size_t(n.outputs[k])] = r[k];
        }
    return out;
}

std::vector<float> TorchProgram::values(int tensor) const {
    const at::Tensor& t = impl_->values.at(size_t(tensor));
    if (!t.defined()) return {};
    at::Tensor f = t.to(at::kFloat).contiguous();
    return std::vector<float>(f.data_ptr<float>(), f.data_ptr<float>() + f.numel());
}

void TorchProgram::setValues(int tensor, const std::vector<float>& v) {
    const Tensor& ts = impl_->g.tensors().at(size_t(tensor));
    if (ts.producer >= 0) throw std::invalid_argument("tensor '" + ts.name + "' is computed by a node; only inputs and weights can be set");
    int64_t count = 1;
    for (int64_t d : ts.shape) count *= d;
    if (!ts.shapeKnown || int64_t(v.size()) != count)
        throw std::invalid_argument("tensor '" + ts.name + "' has " + std::to_string(count) + " elements, " +
                                    std::to_string(v.size()) + " values were given");
    impl_->values[size_t(tensor)] = at::tensor(at::ArrayRef<float>(v), at::kFloat).reshape(ts.shape).to(torchType(ts.dtype));
}

void TorchProgram::recompute() {
    c10::InferenceMode inference;
    impl_->computeAll();
}

void setTorchThreads(int threads) {
    threads = std::max(1, threads);
    at::set_num_threads(threads);
    // libtorch's matrix products may go to OpenBLAS, whose own threads ignore libtorch's count.
    static auto openblas = reinterpret_cast<OpenblasSetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
    if (openblas) openblas(threads);
}

int torchThreads() { return at::get_num_threads(); }

// --- the placed execution ----------------------------------------------------------------------

std::vector<ExecutionReport> executePlacement(TorchProgram& program, const ExecutionPlan& plan, int runs, int warmup) {
    TorchProgram::Impl& P = program.impl();
    const Graph& g = P.g;
    const int n = int(g.nodeCount()), d = plan.devices;
    if (d < 1) throw std::invalid_argument("the plan has no devices");
    if (runs < 1 || warmup < 0) throw std::invalid_argument("runs must be >= 1 and warm-up runs >= 0");
    if (int(plan.deviceOf.size()) != n)
        throw std::invalid_argument("the plan places " + std::to_string(plan.deviceOf.size()) + " nodes, the graph has " + std::to_string(n));
    for (int v = 0; v < n; ++v)
        if (plan.deviceOf[size_t(v)] < 0 || plan.deviceOf[size_t(v)] >= d)
            throw std::invalid_argument("node '" + g.nodes()[size_t(v)].name + "' is placed on device " +
                                        std::to_string(plan.deviceOf[size_t(v)]) + ", out of range");
    if (int(plan.priority.size()) != n) throw std::invalid_argument("the plan's order does not list every node once");
    std::vector<int> rank(size_t(n), -1);
    for (size_t i = 0; i < plan.priority.size(); ++i) {
        const int v = plan.priority[i];
        if (v < 0 || v >= n || rank[size_t(v)] >= 0) throw std::invalid_argument("the plan's order does not list every node once");
        rank[size_t(v)] = int(i);
    }

    const size_t T = g.tensorCount();
    // Consumers of each tensor per device (a node reading a tensor twice counts once).
    std::vector<int> usesOn(T * size_t(d), 0);
    for (int v = 0; v < n; ++v) {
        const Node& nd = g.nodes()[size_t(v)];
        std::vector<int> seen;
        for (int t : nd.inputs)
            if (t >= 0 && std::find(seen.begin(), seen.end(), t) == seen.end()) {
                seen.push_back(t);
                ++usesOn[size_t(t) * size_t(d) + size_t(plan.deviceOf[size_t(v)])];
            }
    }
    auto bytesOf = [&](size_t t) { return int64_t(P.values[t].defined() ? P.values[t].nbytes() : 0); };

    // Shared state of one run, reset by the main thread between runs while the workers wait. A
    // produced tensor's value is written before its `ready` flag (release); a worker reads it after
    // seeing the flag (acquire).
    std::vector<std::atomic<int>> ready(T);
    std::vector<std::atomic<int>> pendingCopies(T);  // other devices still to copy a produced tensor
    std::vector<std::atomic<int>> producerUses(T);   // consumers on the producer's device still to run
    std::vector<std::atomic<char>> freed(T);         // a produced tensor's accounting ended (once: two threads may try)
    std::vector<at::Tensor> produced(T);
    std::vector<std::atomic<int64_t>> live(static_cast<size_t>(d));
    std::vector<std::atomic<int64_t>> peak(static_cast<size_t>(d));
    auto resetRun = [&] {
        for (size_t t = 0; t < T; ++t) {
            const Tensor& ts = g.tensors()[t];
            ready[t].store(ts.producer < 0 ? 1 : 0);
            int copies = 0;
            if (ts.producer >= 0) {
                const int home = plan.deviceOf[size_t(ts.producer)];
                for (int k = 0; k < d; ++k)
                    if (k != home && usesOn[t * size_t(d) + size_t(k)] > 0) ++copies;
                producerUses[t].store(usesOn[t * size_t(d) + size_t(home)]);
            }
            pendingCopies[t].store(copies);
            freed[t].store(0);
            produced[t] = at::Tensor();
        }
        for (int k = 0; k < d; ++k) live[size_t(k)].store(0), peak[size_t(k)].store(0);
    };
    auto addLive = [&](int k, int64_t b) {
        const int64_t now = live[size_t(k)].fetch_add(b) + b;
        int64_t p = peak[size_t(k)].load();
        while (now > p && !peak[size_t(k)].compare_exchange_weak(p, now)) {
        }
    };
    // Frees a produced tensor once its device's consumers ran and every copy was taken.
    auto maybeFreeProduced = [&](size_t t) {
        const Tensor& ts = g.tensors()[t];
        if (ts.isGraphOutput) return;
        if (producerUses[t].load() == 0 && pendingCopies[t].load() == 0 && !freed[t].exchange(1)) {
            addLive(plan.deviceOf[size_t(ts.producer)], -bytesOf(t));
            produced[t] = at::Tensor();
        }
    };

    std::mutex mu;
    std::condition_variable cv;
    int64_t wakeups = 0;   // ops finished, under mu: a worker sleeps only when none finished since it looked
    int round = 0;         // under mu: the run the workers may start (1-based; -1 = stop)
    int finishedWorkers = 0;
    std::atomic<bool> failed{false};
    std::string failure;
    ExecutionReport report;
    std::chrono::steady_clock::time_point t0;

    auto worker = [&](int k) {
        try {
            if (k < int(plan.cores.size()) && plan.cores[size_t(k)] >= 0) pinThisThreadToCore(plan.cores[size_t(k)]);
            setTorchThreads(1);
            c10::InferenceMode inference;
            std::vector<int> mine;
            for (int v : plan.priority)
                if (plan.deviceOf[size_t(v)] == k) mine.push_back(v);
            for (int myRound = 1;; ++myRound) {
                {
                    std::unique_lock<std::mutex> lock(mu);
                    cv.wait(lock, [&] { return round == myRound || round < 0; });
                    if (round < 0) return;
                }
                DeviceExecution& me = report.devices[size_t(k)];
                // Local values: graph inputs and weights this device reads, and copies received.
                std::vector<at::Tensor> local(T);
                std::vector<int> localUses(T, 0);
                for (size_t t = 0; t < T; ++t) localUses[t] = usesOn[t * size_t(d) + size_t(k)];
                for (size_t t = 0; t < T; ++t) {
                    const Tensor& ts = g.tensors()[t];
                    if (ts.producer < 0 && localUses[t] > 0) {
                        local[t] = P.values[t];
                        if (ts.kind != TensorKind::Weight || plan.countWeights) addLive(k, bytesOf(t));
                    }
                }
                std::vector<char> done(mine.size(), 0);
                size_t remaining = mine.size();
                int64_t seenWakeups = 0;
                while (remaining > 0 && !failed.load()) {
                    {
                        std::lock_guard<std::mutex> lock(mu);
                        seenWakeups = wakeups;  // what this scan will see
                    }
                    // The highest-priority op whose inputs are all produced.
                    int pick = -1;
                    for (size_t i = 0; i < mine.size() && pick < 0; ++i) {
                        if (done[i]) continue;
                        bool ok = true;
                        for (int t : g.nodes()[size_t(mine[i])].inputs)
                            if (t >= 0 && !ready[size_t(t)].load(std::memory_order_acquire)) {
                                ok = false;
                                break;
                            }
                        for (int c : g.nodes()[size_t(mine[i])].controlInputs)
                            for (int t : g.nodes()[size_t(c)].outputs)
                                if (!ready[size_t(t)].load(std::memory_order_acquire)) ok = false;
                        if (ok) pick = int(i);
                    }
                    if (pick < 0) {
                        // Asleep until another worker finishes an op. The producer takes the lock
                        // between setting its flags and notifying, and the wake-up count was read
                        // under the lock before the scan, so no wake-up is lost; the timeout only
                        // bounds a failure elsewhere.
                        std::unique_lock<std::mutex> lock(mu);
                        if (wakeups == seenWakeups) cv.wait_for(lock, std::chrono::milliseconds(50));
                        continue;
                    }
                    const int v = mine[size_t(pick)];
                    const Node& nd = g.nodes()[size_t(v)];
                    // Copy what other devices produced (the transfer), then run.
                    Tensors in;
                    for (int t : nd.inputs) {
                        if (t < 0) {
                            in.push_back(at::Tensor());
                            continue;
                        }
                        const Tensor& ts = g.tensors()[size_t(t)];
                        if (ts.producer >= 0 && plan.deviceOf[size_t(ts.producer)] == k) {
                            in.push_back(produced[size_t(t)]);
                            continue;
                        }
                        if (!local[size_t(t)].defined() && ts.producer >= 0) {
                            const auto c0 = std::chrono::steady_clock::now();
                            addLive(k, bytesOf(size_t(t)));
                            local[size_t(t)] = produced[size_t(t)].clone();
                            me.copyS += secondsSince(c0);
                            me.copies += 1;
                            me.copyBytes += bytesOf(size_t(t));
                            pendingCopies[size_t(t)].fetch_sub(1);
                            maybeFreeProduced(size_t(t));
                        }
                        in.push_back(local[size_t(t)]);
                    }
                    for (int t : nd.outputs) addLive(k, bytesOf(size_t(t)));
                    const double startS = secondsSince(t0);
                    Tensors out;
                    if (P.why[size_t(v)].empty()) {
                        out = P.kernels[size_t(v)](in);
                    } else {
                        for (int t : nd.outputs) out.push_back(P.values[size_t(t)]);  // a node that does not run: its stand-in values
                    }
                    const double endS = secondsSince(t0);
                    report.startS[size_t(v)] = startS;
                    report.endS[size_t(v)] = endS;
                    me.busyS += endS - startS;
                    me.ops += 1;
                    for (size_t p = 0; p < nd.outputs.size(); ++p) {
                        const size_t t = size_t(nd.outputs[p]);
                        produced[t] = out[p].contiguous();
                        ready[t].store(1, std::memory_order_release);
                    }
                    {
                        std::lock_guard<std::mutex> lock(mu);
                        ++wakeups;
                    }
                    cv.notify_all();
                    // Release the inputs whose last local consumer this was.
                    std::vector<int> seen;
                    for (int t : nd.inputs) {
                        if (t < 0 || std::find(seen.begin(), seen.end(), t) != seen.end()) continue;
                        seen.push_back(t);
                        const Tensor& ts = g.tensors()[size_t(t)];
                        if (ts.producer >= 0 && plan.deviceOf[size_t(ts.producer)] == k) {
                            producerUses[size_t(t)].fetch_sub(1);
                            maybeFreeProduced(size_t(t));
                        } else if (--localUses[size_t(t)] == 0) {
                            if (ts.kind == TensorKind::Weight) continue;  // weights stay for the whole run
                            addLive(k, -bytesOf(size_t(t)));
                            local[size_t(t)] = at::Tensor();
                        }
                    }
                    for (int t : nd.outputs) maybeFreeProduced(size_t(t));  // an output nobody reads
                    done[size_t(pick)] = 1;
                    --remaining;
                }
                me.core = sched_getcpu();
                {
                    std::lock_guard<std::mutex> lock(mu);
                    ++finishedWorkers;
                }
                cv.notify_all();
            }
        } catch (const std::exception& e) {
            std::lock_guard<std::mutex> lock(mu);
            if (!failed.exchange(true)) failure = std::string("device ") + std::to_string(k) + ": " + firstLine(e.what());
            ++finishedWorkers;
            cv.notify_all();
        }
    };

    // The workers live for every run (a runtime keeps its threads: the first run of a new thread
    // pays its set-up, which the warm-up runs absorb).
    const int previousThreads = torchThreads();
    std::vector<ExecutionReport> reports;
    std::vector<std::thread> threads;
    for (int k = 0; k < d; ++k) threads.emplace_back(worker, k);
    for (int r = 1; r <= warmup + runs && !failed.load(); ++r) {
        resetRun();
        report = ExecutionReport{};
        report.devices.assign(size_t(d), DeviceExecution{});
        report.startS.assign(size_t(n), 0);
        report.endS.assign(size_t(n), 0);
        {
            std::lock_guard<std::mutex> lock(mu);
            finishedWorkers = 0;
            t0 = std::chrono::steady_clock::now();
            round = r;
        }
        cv.notify_all();
        {
            std::unique_lock<std::mutex> lock(mu);
            cv.wait(lock, [&] { return finishedWorkers == d; });
        }
        if (failed.load()) break;
        double last = 0;
        for (int v = 0; v < n; ++v) last = std::max(last, report.endS[size_t(v)]);
        report.makespanS = last;
        for (int k = 0; k < d; ++k) report.devices[size_t(k)].peakBytes = peak[size_t(k)].load();
        for (size_t t = 0; t < T; ++t)
            if (g.tensors()[t].isGraphOutput && produced[t].defined()) {
                at::Tensor f = produced[t].to(at::kFloat).contiguous();
                report.outputs[int(t)] = std::vector<float>(f.data_ptr<float>(), f.data_ptr<float>() + f.numel());
            }
        if (r > warmup) reports.push_back(std::move(report));
    }
    {
        std::lock_guard<std::mutex> lock(mu);
        round = -1;
    }
    cv.notify_all();
    for (auto& th : threads) th.join();
    for (size_t t = 0; t < T; ++t) produced[t] = at::Tensor();
    setTorchThreads(previousThreads);
    if (failed.load()) throw std::runtime_error("the execution failed on " + failure);
    return reports;
}

}  // namespace graphopt::exec
