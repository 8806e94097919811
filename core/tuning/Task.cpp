#include "tuning/Task.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <stdexcept>

#include "graph/Graph.h"

namespace graphopt::tuning {

const char* taskKindName(TaskKind k) {
    switch (k) {
        case TaskKind::Conv2d: return "conv2d";
        case TaskKind::DepthwiseConv2d: return "depthwise_conv2d";
        case TaskKind::Dense: return "dense";
        case TaskKind::BatchMatMul: return "batch_matmul";
        case TaskKind::Conv3d: return "conv3d";
    }
    return "conv2d";
}

TaskKind taskKindFromName(const std::string& name) {
    for (TaskKind k : {TaskKind::Conv2d, TaskKind::DepthwiseConv2d, TaskKind::Dense, TaskKind::BatchMatMul, TaskKind::Conv3d})
        if (name == taskKindName(k)) return k;
    throw std::invalid_argument("unknown task kind '" + name + "'");
}

const char* convTemplateName(ConvTemplate t) {
    switch (t) {
        case ConvTemplate::Packed: return "packed";
        case ConvTemplate::Tiled: return "tiled";
        default: return "nchw";
    }
}

ConvTemplate convTemplateFromName(const std::string& name) {
    if (name == "packed") return ConvTemplate::Packed;
    if (name == "tiled") return ConvTemplate::Tiled;
    if (name == "nchw") return ConvTemplate::Nchw;
    throw std::invalid_argument("unknown conv template '" + name + "' (known: nchw, packed, tiled)");
}

int hostVectorLanes() { return __builtin_cpu_supports("avx512f") ? 16 : 8; }

bool packedTemplateServes(const TuningTask& t, std::string* why) {
    auto no = [&](const char* reason) {
        if (why) *why = reason;
        return false;
    };
    if (!t.isConv()) return no("matrix products have their own template");
    if (t.is3d()) return no("3-D convolutions have their own template");
    if (t.kind == TaskKind::Conv2d && t.groups != 1) return no("grouped (not depthwise) convolution");
    if (t.kind == TaskKind::DepthwiseConv2d && t.outC != t.inC) return no("depthwise with a channel multiplier");
    return true;
}

TuningTask withPackedTemplate(TuningTask t, int lanes) {
    if (!packedTemplateServes(t)) return t;
    t.convTemplate = ConvTemplate::Packed;
    t.lanes = lanes > 0 ? lanes : hostVectorLanes();
    return t;
}

TuningTask withTiledTemplate(TuningTask t, int lanes) {
    t = withPackedTemplate(std::move(t), lanes);
    if (t.isPacked() && t.kind == TaskKind::Conv2d) t.convTemplate = ConvTemplate::Tiled;
    return t;
}

TuningTask withTemplate(TuningTask t, const std::string& name, int lanes) {
    switch (convTemplateFromName(name)) {
        case ConvTemplate::Tiled: return withTiledTemplate(std::move(t), lanes);
        case ConvTemplate::Packed: return withPackedTemplate(std::move(t), lanes);
        default: return t;
    }
}

int64_t TuningTask::outD() const {
    if (!is3d()) return 1;
    return (inD + padFront + padBack - dilationD * (kernelD - 1) - 1) / strideD + 1;
}

int64_t TuningTask::outH() const {
    if (!isConv()) return 1;
    return (inH + padTop + padBottom - dilationH * (kernelH - 1) - 1) / strideH + 1;
}

int64_t TuningTask::outW() const {
    if (!isConv()) return 1;
    return (inW + padLeft + padRight - dilationW * (kernelW - 1) - 1) / strideW + 1;
}

int64_t TuningTask::reductionLength() const {
    if (!isConv()) return k;
    return (inC / groups) * kernelD * kernelH * kernelW;
}

int64_t TuningTask::outputElements() const {
    if (!isConv()) return matmulBatch() * m * n;
    return batch * outC * outD() * outH() * outW();
}

int64_t TuningTask::inputElements() const {
    if (!isConv()) return matmulBatch() * m * k;
    return batch * inC * inD * inH * inW;
}

int64_t TuningTask::weightElements() const {
    if (!isConv()) return matmulBatch() * k * n;
    return outC * (inC / groups) * kernelD * kernelH * kernelW;
}

double TuningTask::flops() const {
    return 2.0 * static_cast<double>(outputElements()) * static_cast<double>(reductionLength());
}

std::string TuningTask::key() const {
    std::ostringstream os;
    os << taskKindName(kind);
    if (is3d())
        os << ':' << batch << ',' << inC << ',' << inD << ',' << inH << ',' << inW << ',' << outC << ',' << kernelD
           << ',' << kernelH << ',' << kernelW << ',' << strideD << ',' << strideH << ',' << strideW << ',' << padFront
           << ',' << padTop << ',' << padLeft << ',' << padBack << ',' << padBottom << ',' << padRight << ','
           << dilationD << ',' << dilationH << ',' << dilationW << ',' << groups;
    else if (isConv())
        os << ':' << batch << ',' << inC << ',' << inH << ',' << inW << ',' << outC << ',' << kernelH << ','
           << kernelW << ',' << strideH << ',' << strideW << ',' << padTop << ',' << padLeft << ',' << padBottom
           << ',' << padRight << ',' << dilationH << ',' << dilationW << ',' << groups;
    else if (kind == TaskKind::BatchMatMul)
        os << ':' << batch << ',' << m << ',' << n << ',' << k;
    else
        os << ':' << m << ',' << n << ',' << k;
    if (isPacked()) os << ':' << convTemplateName(convTemplate) << lanes;
    return os.str();
}

std::string TuningTask::describe() const {
    std::ostringstream os;
    os << taskKindName(kind) << ' ';
    if (!isConv()) {
        if (kind == TaskKind::BatchMatMul) os << batch << " x ";
        os << m << 'x' << k << " * " << k << 'x' << n;
        return os.str();
    }
    if (is3d()) {
        os << batch << 'x' << inC << 'x' << inD << 'x' << inH << 'x' << inW << " -> " << outC << 'x' << outD() << 'x'
           << outH() << 'x' << outW() << " k" << kernelD << 'x' << kernelH << 'x' << kernelW << " s" << strideD;
        if (strideH != strideD || strideW != strideD) os << 'x' << strideH << 'x' << strideW;
        os << " p" << padFront;
        if (padTop != padFront || padLeft != padFront || padBack != padFront || padBottom != padFront ||
            padRight != padFront)
            os << ',' << padTop << ',' << padLeft << ',' << padBack << ',' << padBottom << ',' << padRight;
        if (dilationD != 1 || dilationH != 1 || dilationW != 1) os << " d" << dilationD << 'x' << dilationH << 'x' << dilationW;
        if (groups != 1) os << " g" << groups;
        return os.str();
    }
    os << batch << 'x' << inC << 'x' << inH << 'x' << inW << " -> " << outC << 'x' << outH() << 'x' << outW()
       << " k" << kernelH << 'x' << kernelW << " s" << strideH;
    if (strideW != strideH) os << 'x' << strideW;
    os << " p" << padTop;
    if (padLeft != padTop || padBottom != padTop || padRight != padTop)
        os << ',' << padLeft << ',' << padBottom << ',' << padRight;
    if (dilationH != 1 || dilationW != 1) os << " d" << dilationH << 'x' << dilationW;
    if (groups != 1) os << " g" << groups;
    return os.str();
}

nlohmann::json TuningTask::toJson() const {
    nlohmann::json j;
    j["kind"] = taskKindName(kind);
    if (isConv()) {
        j["batch"] = batch;
        j["in_c"] = inC;
        j["in_h"] = inH;
        j["in_w"] = inW;
        j["out_c"] = outC;
        j["out_h"] = outH();
        j["out_w"] = outW();
        j["kernel"] = {kernelH, kernelW};
        j["stride"] = {strideH, strideW};
        j["pads"] = {padTop, padLeft, padBottom, padRight};
        j["dilation"] = {dilationH, dilationW};
        j["groups"] = groups;
        if (is3d()) {
            j["in_d"] = inD;
            j["out_d"] = outD();
            j["kernel_d"] = kernelD;
            j["stride_d"] = strideD;
            j["pads_d"] = {padFront, padBack};
            j["dilation_d"] = dilationD;
        }
        j["template"] = convTemplateName(convTemplate);
        if (isPacked()) j["lanes"] = lanes;
    } else {
        if (kind == TaskKind::BatchMatMul) j["batch"] = batch;
        j["m"] = m;
        j["n"] = n;
        j["k"] = k;
    }
    j["flops"] = flops();
    j["weight"] = weight;
    j["nodes"] = nodes;
    j["key"] = key();
    j["description"] = describe();
    return j;
}

TuningTask TuningTask::fromJson(const nlohmann::json& j) {
    TuningTask t;
    t.kind = taskKindFromName(j.at("kind").get<std::string>());
    if (t.isConv()) {
        t.batch = j.at("batch");
        t.inC = j.at("in_c");
        t.inH = j.at("in_h");
        t.inW = j.at("in_w");
        t.outC = j.at("out_c");
        t.kernelH = j.at("kernel").at(0);
        t.kernelW = j.at("kernel").at(1);
        t.strideH = j.at("stride").at(0);
        t.strideW = j.at("stride").at(1);
        t.padTop = j.at("pads").at(0);
        t.padLeft = j.at("pads").at(1);
        t.padBottom = j.at("pads").at(2);
        t.padRight = j.at("pads").at(3);
        t.dilationH = j.at("dilation").at(0);
        t.dilationW = j.at("dilation").at(1);
        t.groups = j.at("groups");
        if (t.is3d()) {
            t.inD = j.at("in_d");
            t.kernelD = j.at("kernel_d");
            t.strideD = j.at("stride_d");
            t.padFront = j.at("pads_d").at(0);
            t.padBack = j.at("pads_d").at(1);
            t.dilationD = j.at("dilation_d");
        }
        t.convTemplate = convTemplateFromName(j.value("template", std::string("nchw")));
        t.lanes = j.value("lanes", 0);
    } else {
        if (t.kind == TaskKind::BatchMatMul) t.batch = j.at("batch");
        t.m = j.at("m");
        t.n = j.at("n");
        t.k = j.at("k");
    }
    t.weight = j.value("weight", 1);
    if (j.contains("nodes")) t.nodes = j.at("nodes").get<std::vector<std::string>>();
    t.validate();
    return t;
}

void TuningTask::validate() const {
    auto bad = [&](const std::string& why) { throw std::invalid_argument("task " + key() + ": " + why); };
    if (!isConv()) {
        if (m <= 0 || n <= 0 || k <= 0 || batch <= 0) bad("matrix sizes must be positive");
        return;
    }
    if (batch <= 0 || inC <= 0 || inH <= 0 || inW <= 0 || outC <= 0) bad("sizes must be positive");
    if (kernelH <= 0 || kernelW <= 0 || strideH <= 0 || strideW <= 0 || dilationH <= 0 || dilationW <= 0)
        bad("kernel, stride and dilation must be positive");
    if (padTop < 0 || padLeft < 0 || padBottom < 0 || padRight < 0) bad("pads must be >= 0");
    if (groups <= 0 || inC % groups || outC % groups) bad("groups must divide input and output channels");
    if (kind == TaskKind::DepthwiseConv2d && groups != inC) bad("depthwise needs groups == input channels");
    if (is3d()) {
        if (inD <= 0 || kernelD <= 0 || strideD <= 0 || dilationD <= 0) bad("depth sizes must be positive");
        if (padFront < 0 || padBack < 0) bad("pads must be >= 0");
    } else if (inD != 1 || kernelD != 1 || strideD != 1 || padFront != 0 || padBack != 0 || dilationD != 1) {
        bad("a 2-D convolution has no depth");
    }
    if (outD() <= 0 || outH() <= 0 || outW() <= 0) bad("empty output");
    if (convTemplate == ConvTemplate::Packed || convTemplate == ConvTemplate::Tiled) {
        const std::string name = convTemplateName(convTemplate);
        std::string why;
        if (!packedTemplateServes(*this, &why)) bad("the " + name + " template cannot serve it: " + why);
        if (convTemplate == ConvTemplate::Tiled && kind != TaskKind::Conv2d)
            bad("the tiled template serves conv2d (depthwise uses the packed one)");
        if (lanes != 8 && lanes != 16) bad("the " + name + " template needs lanes 8 or 16");
    }
}

TuningTask makeConv2d(int64_t batch, int64_t inC, int64_t inH, int64_t inW, int64_t outC, int64_t kernel,
                      int64_t stride, int64_t pad, int64_t groups) {
    TuningTask t;
    t.batch = batch, t.inC = inC, t.inH = inH, t.inW = inW, t.outC = outC;
    t.kernelH = t.kernelW = kernel;
    t.strideH = t.strideW = stride;
    t.padTop = t.padLeft = t.padBottom = t.padRight = pad;
    t.groups = groups;
    t.kind = (groups > 1 && groups == inC && outC % inC == 0) ? TaskKind::DepthwiseConv2d : TaskKind::Conv2d;
    t.validate();
    return t;
}

TuningTask makeConv3d(int64_t batch, int64_t inC, int64_t inD, int64_t inH, int64_t inW, int64_t outC, int64_t kernel,
                      int64_t stride, int64_t pad, int64_t groups) {
    TuningTask t;
    t.kind = TaskKind::Conv3d;
    t.batch = batch, t.inC = inC, t.inD = inD, t.inH = inH, t.inW = inW, t.outC = outC;
    t.kernelD = t.kernelH = t.kernelW = kernel;
    t.strideD = t.strideH = t.strideW = stride;
    t.padFront = t.padTop = t.padLeft = t.padBack = t.padBottom = t.padRight = pad;
    t.groups = groups;
    t.validate();
    return t;
}

TuningTask makeDense(int64_t m, int64_t n, int64_t k) {
    TuningTask t;
    t.kind = TaskKind::Dense;
    t.m = m, t.n = n, t.k = k;
    t.validate();
    return t;
}

TuningTask makeBatchMatMul(int64_t batch, int64_t m, int64_t n, int64_t k) {
    TuningTask t;
    t.kind = TaskKind::BatchMatMul;
    t.batch = batch, t.m = m, t.n = n, t.k = k;
    t.validate();
    return t;
}

namespace {

const Tensor* inputTensor(const Graph& g, const Node& n, size_t port) {
    if (port >= n.inputs.size() || n.inputs[port] < 0) return nullptr;
    return &g.tensors()[n.inputs[port]];
}

int64_t intAttr(const Node& n, const std::string& name, int64_t fallback) {
    auto it = n.attrs.find(name);
    if (it == n.attrs.end()) return fallback;
    if (auto v = std::get_if<int64_t>(&it->second)) return *v;
    return fallback;
}

std::vector<int64_t> intsAttr(const Node& n, const std::string& name) {
    auto it = n.attrs.find(name);
    if (it == n.attrs.end()) return {};
    if (auto v = std::get_if<std::vector<int64_t>>(&it->second)) return *v;
    return {};
}

std::string strAttr(const Node& n, const std::string& name) {
    auto it = n.attrs.find(name);
    if (it == n.attrs.end()) return {};
    if (auto v = std::get_if<std::string>(&it->second)) return *v;
    return {};
}

bool known(const Tensor* t, size_t rank) {
    if (!t || !t->shapeKnown || t->shape.size() != rank) return false;
    for (int64_t d : t->shape)
        if (d <= 0) return false;
    return true;
}

// Total padding SAME_* needs so that out = ceil(in / stride).
void samePads(int64_t in, int64_t k, int64_t s, int64_t d, bool upper, int64_t& begin, int64_t& end) {
    const int64_t out = (in + s - 1) / s;
    const int64_t total = std::max<int64_t>(0, (out - 1) * s + (k - 1) * d + 1 - in);
    begin = upper ? total / 2 : total - total / 2;
    end = total - begin;
}

std::string conv3dTask(const Graph& g, const Node& node, TuningTask& t) {
    const Tensor* x = inputTensor(g, node, 0);
    const Tensor* w = inputTensor(g, node, 1);
    if (!known(x, 5) || !known(w, 5)) return "unknown dimension";
    t.kind = TaskKind::Conv3d;
    t.batch = x->shape[0], t.inC = x->shape[1], t.inD = x->shape[2], t.inH = x->shape[3], t.inW = x->shape[4];
    t.outC = w->shape[0], t.kernelD = w->shape[2], t.kernelH = w->shape[3], t.kernelW = w->shape[4];
    t.groups = std::max<int64_t>(1, intAttr(node, "group", 1));
    auto strides = intsAttr(node, "strides");
    auto dil = intsAttr(node, "dilations");
    if (strides.size() == 3) t.strideD = strides[0], t.strideH = strides[1], t.strideW = strides[2];
    if (dil.size() == 3) t.dilationD = dil[0], t.dilationH = dil[1], t.dilationW = dil[2];
    const std::string autoPad = strAttr(node, "auto_pad");
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
        const bool upper = autoPad == "SAME_UPPER";
        samePads(t.inD, t.kernelD, t.strideD, t.dilationD, upper, t.padFront, t.padBack);
        samePads(t.inH, t.kernelH, t.strideH, t.dilationH, upper, t.padTop, t.padBottom);
        samePads(t.inW, t.kernelW, t.strideW, t.dilationW, upper, t.padLeft, t.padRight);
    } else if (autoPad.empty() || autoPad == "NOTSET") {
        auto pads = intsAttr(node, "pads");  // [front, top, left, back, bottom, right]
        if (pads.size() == 6)
            t.padFront = pads[0], t.padTop = pads[1], t.padLeft = pads[2], t.padBack = pads[3], t.padBottom = pads[4],
            t.padRight = pads[5];
    } else {
        return "auto_pad " + autoPad + " is not supported";
    }
    if (w->shape[1] * t.groups != t.inC) return "weight shape does not match input channels / group";
    try {
        t.validate();
    } catch (const std::exception& e) {
        return e.what();
    }
    return {};
}

std::string convTask(const Graph& g, const Node& node, TuningTask& t) {
    const Tensor* x = inputTensor(g, node, 0);
    const Tensor* w = inputTensor(g, node, 1);
    if (!x || !w || !x->shapeKnown || !w->shapeKnown) return "input or weight shape unknown";
    if (x->shape.size() == 5 && w->shape.size() == 5) return conv3dTask(g, node, t);
    if (x->shape.size() != 4 || w->shape.size() != 4) return "not a 2-D or 3-D convolution";
    if (!known(x, 4) || !known(w, 4)) return "unknown dimension";
    t.batch = x->shape[0], t.inC = x->shape[1], t.inH = x->shape[2], t.inW = x->shape[3];
    t.outC = w->shape[0], t.kernelH = w->shape[2], t.kernelW = w->shape[3];
    t.groups = std::max<int64_t>(1, intAttr(node, "group", 1));
    auto strides = intsAttr(node, "strides");
    auto dil = intsAttr(node, "dilations");
    if (strides.size() == 2) t.strideH = strides[0], t.strideW = strides[1];
    if (dil.size() == 2) t.dilationH = dil[0], t.dilationW = dil[1];
    const std::string autoPad = strAttr(node, "auto_pad");
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
        const bool upper = autoPad == "SAME_UPPER";
        samePads(t.inH, t.kernelH, t.strideH, t.dilationH, upper, t.padTop, t.padBottom);
        samePads(t.inW, t.kernelW, t.strideW, t.dilationW, upper, t.padLeft, t.padRight);
    } else if (autoPad.empty() || autoPad == "NOTSET") {
        auto pads = intsAttr(node, "pads");
        if (pads.size() == 4) t.padTop = pads[0], t.padLeft = pads[1], t.padBottom = pads[2], t.padRight = pads[3];
    }
    if (w->shape[1] * t.groups != t.inC) return "weight shape does not match input channels / group";
    t.kind = (t.groups > 1 && t.groups == t.inC && t.outC % t.inC == 0) ? TaskKind::DepthwiseConv2d
                                                                         : TaskKind::Conv2d;
    try {
        t.validate();
    } catch (const std::exception& e) {
        return e.what();
    }
    return {};
}

std::string gemmTask(const Graph& g, const Node& node, TuningTask& t) {
    const Tensor* a = inputTensor(g, node, 0);
    const Tensor* b = inputTensor(g, node, 1);
    if (!known(a, 2) || !known(b, 2)) return "A or B shape unknown or not 2-D";
    const bool ta = intAttr(node, "transA", 0) != 0, tb = intAttr(node, "transB", 0) != 0;
    t.kind = TaskKind::Dense;
    t.m = ta ? a->shape[1] : a->shape[0];
    t.k = ta ? a->shape[0] : a->shape[1];
    t.n = tb ? b->shape[0] : b->shape[1];
    if ((tb ? b->shape[1] : b->shape[0]) != t.k) return "inner dimensions differ";
    return {};
}

std::string matmulTask(const Graph& g, const Node& node, TuningTask& t) {
    const Tensor* a = inputTensor(g, node, 0);
    const Tensor* b = inputTensor(g, node, 1);
    if (!a || !b || !a->shapeKnown || !b->shapeKnown) return "shapes unknown";
    if (a->shape.size() < 2 || b->shape.size() < 2) return "a 1-D operand (matrix-vector product has no template)";
    for (int64_t d : a->shape)
        if (d <= 0) return "unknown dimension";
    for (int64_t d : b->shape)
        if (d <= 0) return "unknown dimension";
    if (b->shape.size() > 2) {
        // Batched: [..., m, k] x [..., k, n] with the same batch dimensions on both sides.
        std::vector<int64_t> ab(a->shape.begin(), a->shape.end() - 2), bb(b->shape.begin(), b->shape.end() - 2);
        int64_t batchA = 1, batchB = 1;
        for (int64_t d : ab) batchA *= d;
        for (int64_t d : bb) batchB *= d;
        while (ab.size() < bb.size()) ab.insert(ab.begin(), 1);
        while (bb.size() < ab.size()) bb.insert(bb.begin(), 1);
        if (ab != bb || batchA != batchB) return "batch dimensions broadcast (one operand is shared): no template";
        t.kind = TaskKind::BatchMatMul;
        t.batch = batchA;
        t.m = a->shape[a->shape.size() - 2];
        t.k = a->shape.back();
        t.n = b->shape.back();
        if (b->shape[b->shape.size() - 2] != t.k) return "inner dimensions differ";
        return {};
    }
    t.kind = TaskKind::Dense;
    t.m = 1;
    for (size_t i = 0; i + 1 < a->shape.size(); ++i) t.m *= a->shape[i];
    t.k = a->shape.back();
    t.n = b->shape[1];
    if (b->shape[0] != t.k) return "inner dimensions differ";
    return {};
}

}  // namespace

std::vector<TuningTask> extractTasks(const Graph& g, std::vector<std::string>* skipped) {
    std::vector<TuningTask> tasks;
    std::map<std::string, size_t> byKey;
    for (const Node& node : g.nodes()) {
        TuningTask t;
        std::string why;
        if (node.op == "Conv")
            why = convTask(g, node, t);
        else if (node.op == "Gemm")
            why = gemmTask(g, node, t);
        else if (node.op == "MatMul")
            why = matmulTask(g, node, t);
        else
            continue;
        if (!why.empty()) {
            if (skipped) skipped->push_back(node.name + " (" + node.op + "): " + why);
            continue;
        }
        const std::string key = t.key();
        auto it = byKey.find(key);
        if (it != byKey.end()) {
            tasks[it->second].weight++;
            tasks[it->second].nodes.push_back(node.name);
            continue;
        }
        t.weight = 1;
        t.nodes = {node.name};
        byKey[key] = tasks.size();
        tasks.push_back(std::move(t));
    }
    return tasks;
}

}  // namespace graphopt::tuning
