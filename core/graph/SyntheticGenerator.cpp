// Synthetic CNN-like graphs. Every graph is: one GraphInput image [N,3,H,W] -> a stem Conv (and
// MaxPool) -> a family-specific body split into up to 4 stages (each later stage halves H and W and
// doubles the channels, like ResNet's) -> GlobalAveragePool, Flatten, Gemm (the classifier).
// Ops, attributes and weights follow ONNX so inferCosts() estimates their FLOPs.
//
// Exact node counts: the body is built against a node budget; a block that does not fit is
// replaced by a chain of single shape-preserving ops ("filler") that uses up what remains.
//
// Randomness uses only std::mt19937_64's raw output (its sequence is fixed by the standard) and
// the small helpers below: std::uniform_*_distribution differ between standard libraries, and a
// seed must give the same graph everywhere.
#include "graph/SyntheticGenerator.h"

#include <algorithm>
#include <random>
#include <stdexcept>

#include "graph/OpCosts.h"

namespace graphopt {

const char* graphFamilyName(GraphFamily f) {
    switch (f) {
        case GraphFamily::Chain: return "chain";
        case GraphFamily::Branchy: return "branchy";
        case GraphFamily::Layered: return "layered";
        case GraphFamily::SeriesParallel: return "series-parallel";
        case GraphFamily::Wide: return "wide";
        case GraphFamily::Skip: return "skip";
        case GraphFamily::Attention: return "attention";
        case GraphFamily::Transformer: return "transformer";
        case GraphFamily::EncoderDecoder: return "encoder-decoder";
        case GraphFamily::MixtureOfExperts: return "moe";
    }
    return "chain";
}

GraphFamily graphFamilyFromName(const std::string& name) {
    for (GraphFamily f : everyGraphFamily())
        if (name == graphFamilyName(f)) return f;
    throw std::invalid_argument("unknown graph family '" + name +
                                "' (expected chain, branchy, layered, series-parallel, wide, skip, attention, "
                                "transformer, encoder-decoder or moe)");
}

std::vector<GraphFamily> heldOutGraphFamilies() { return {GraphFamily::Wide, GraphFamily::Skip, GraphFamily::Attention}; }

std::vector<GraphFamily> sequenceGraphFamilies() {
    return {GraphFamily::Transformer, GraphFamily::EncoderDecoder, GraphFamily::MixtureOfExperts};
}

std::vector<GraphFamily> everyGraphFamily() {
    std::vector<GraphFamily> all = allGraphFamilies();
    for (GraphFamily f : heldOutGraphFamilies()) all.push_back(f);
    for (GraphFamily f : sequenceGraphFamilies()) all.push_back(f);
    return all;
}

std::vector<GraphFamily> allGraphFamilies() {
    return {GraphFamily::Chain, GraphFamily::Branchy, GraphFamily::Layered, GraphFamily::SeriesParallel};
}

namespace {

constexpr int kMinNodes = 10;
constexpr int kMaxNodes = 10000;

// ---- portable random helpers ---------------------------------------------------------------------

class Random {
public:
    explicit Random(uint64_t seed) : engine_(seed) {}

    // Uniform in [0, n), by rejection (no modulo bias).
    uint64_t below(uint64_t n) {
        const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
        uint64_t x;
        do x = engine_();
        while (x >= limit);
        return x % n;
    }
    // Uniform in [lo, hi].
    int between(int lo, int hi) { return lo + static_cast<int>(below(static_cast<uint64_t>(hi - lo) + 1)); }
    // Uniform in [0, 1) with 53 random bits.
    double unit() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
    bool chance(double p) { return unit() < p; }
    template <class T>
    const T& pick(const std::vector<T>& v) { return v[below(v.size())]; }

private:
    std::mt19937_64 engine_;
};

// ---- graph building ------------------------------------------------------------------------------

// An activation: tensor id and its shape ([N,C,H,W], or [N,C] after Flatten).
struct Act {
    int tensor = -1;
    std::vector<int64_t> shape;
    int64_t channels() const { return shape[1]; }
};

class Builder {
public:
    Builder(Random& rnd, bool batchNorm) : rnd_(rnd), batchNorm_(batchNorm) {}

    Graph g;
    int made() const { return static_cast<int>(g.nodeCount()); }
    bool batchNorm() const { return batchNorm_; }

    Act input(std::vector<int64_t> shape) {
        Tensor t;
        t.name = "input";
        t.kind = TensorKind::GraphInput;
        t.shape = shape;
        t.shapeKnown = true;
        t.bytes = shapeBytes(shape, DType::Float32);
        return {g.addTensor(std::move(t)), shape};
    }

    // Conv with "same" padding (pads = k/2); a bias only when no BatchNormalization follows.
    Act conv(const Act& x, int64_t outC, int64_t k, int64_t stride, bool bias) {
        const int64_t pad = k / 2;
        std::vector<int64_t> out = {x.shape[0], outC, (x.shape[2] + 2 * pad - k) / stride + 1,
                                    (x.shape[3] + 2 * pad - k) / stride + 1};
        Node n = node("Conv");
        n.attrs["kernel_shape"] = std::vector<int64_t>{k, k};
        n.attrs["strides"] = std::vector<int64_t>{stride, stride};
        n.attrs["pads"] = std::vector<int64_t>{pad, pad, pad, pad};
        n.attrs["dilations"] = std::vector<int64_t>{1, 1};
        n.attrs["group"] = int64_t{1};
        n.inputs = {x.tensor, weight(n.name + ".weight", {outC, x.channels(), k, k})};
        if (bias) n.inputs.push_back(weight(n.name + ".bias", {outC}));
        return finish(std::move(n), out);
    }

    Act batchNormalization(const Act& x) {
        Node n = node("BatchNormalization");
        n.attrs["epsilon"] = 1e-5;
        n.attrs["momentum"] = 0.9;
        const int64_t c = x.channels();
        n.inputs = {x.tensor, weight(n.name + ".scale", {c}), weight(n.name + ".bias", {c}),
                    weight(n.name + ".mean", {c}), weight(n.name + ".var", {c})};
        return finish(std::move(n), x.shape);
    }

    Act relu(const Act& x) {
        Node n = node("Relu");
        n.inputs = {x.tensor};
        return finish(std::move(n), x.shape);
    }

    Act add(const Act& a, const Act& b) {
        Node n = node("Add");
        n.inputs = {a.tensor, b.tensor};
        return finish(std::move(n), a.shape);
    }

    Act sum(const std::vector<Act>& xs) {
        Node n = node("Sum");
        for (const Act& x : xs) n.inputs.push_back(x.tensor);
        return finish(std::move(n), xs[0].shape);
    }

    Act concat(const std::vector<Act>& xs) {
        Node n = node("Concat");
        n.attrs["axis"] = int64_t{1};
        std::vector<int64_t> out = xs[0].shape;
        out[1] = 0;
        for (const Act& x : xs) {
            n.inputs.push_back(x.tensor);
            out[1] += x.channels();
        }
        return finish(std::move(n), out);
    }

    Act maxPool(const Act& x, int64_t k, int64_t stride) {
        const int64_t pad = k / 2;
        Node n = node("MaxPool");
        n.attrs["kernel_shape"] = std::vector<int64_t>{k, k};
        n.attrs["strides"] = std::vector<int64_t>{stride, stride};
        n.attrs["pads"] = std::vector<int64_t>{pad, pad, pad, pad};
        n.inputs = {x.tensor};
        return finish(std::move(n), {x.shape[0], x.shape[1], (x.shape[2] + 2 * pad - k) / stride + 1,
                                     (x.shape[3] + 2 * pad - k) / stride + 1});
    }

    Act globalAveragePool(const Act& x) {
        Node n = node("GlobalAveragePool");
        n.inputs = {x.tensor};
        return finish(std::move(n), {x.shape[0], x.shape[1], 1, 1});
    }

    Act flatten(const Act& x) {
        Node n = node("Flatten");
        n.attrs["axis"] = int64_t{1};
        n.inputs = {x.tensor};
        return finish(std::move(n), {x.shape[0], x.shape[1] * x.shape[2] * x.shape[3]});
    }

    Act gemm(const Act& x, int64_t outFeatures) {
        Node n = node("Gemm");
        n.attrs["alpha"] = 1.0;
        n.attrs["beta"] = 1.0;
        n.attrs["transB"] = int64_t{1};
        n.inputs = {x.tensor, weight(n.name + ".weight", {outFeatures, x.shape[1]}),
                    weight(n.name + ".bias", {outFeatures})};
        return finish(std::move(n), {x.shape[0], outFeatures});
    }

    // [N, C, H, W] <-> [N, C, H*W]: the target shape is a small int64 constant (a weight input).
    Act reshape(const Act& x, std::vector<int64_t> shape) {
        Node n = node("Reshape");
        n.inputs = {x.tensor, weight(n.name + ".shape", {static_cast<int64_t>(shape.size())}, DType::Int64)};
        return finish(std::move(n), std::move(shape));
    }

    // Swaps the last two axes of a rank-3 tensor.
    Act transposeLast(const Act& x) {
        Node n = node("Transpose");
        n.attrs["perm"] = std::vector<int64_t>{0, 2, 1};
        n.inputs = {x.tensor};
        return finish(std::move(n), {x.shape[0], x.shape[2], x.shape[1]});
    }

    // Batched [N, a, b] x [N, b, c] -> [N, a, c].
    Act matmul(const Act& a, const Act& b) {
        Node n = node("MatMul");
        n.inputs = {a.tensor, b.tensor};
        return finish(std::move(n), {a.shape[0], a.shape[1], b.shape[2]});
    }

    // [.., K] x a weight [K, F] -> [.., F] (a linear layer without bias, as exported transformers have).
    Act linear(const Act& x, int64_t outFeatures) {
        Node n = node("MatMul");
        n.inputs = {x.tensor, weight(n.name + ".weight", {x.shape.back(), outFeatures})};
        std::vector<int64_t> out = x.shape;
        out.back() = outFeatures;
        return finish(std::move(n), std::move(out));
    }

    // Over the last axis, with its scale and bias.
    Act layerNorm(const Act& x) {
        Node n = node("LayerNormalization");
        n.attrs["axis"] = int64_t{-1};
        n.attrs["epsilon"] = 1e-5;
        n.inputs = {x.tensor, weight(n.name + ".scale", {x.shape.back()}), weight(n.name + ".bias", {x.shape.back()})};
        return finish(std::move(n), x.shape);
    }

    Act gelu(const Act& x) {
        Node n = node("Gelu");
        n.inputs = {x.tensor};
        return finish(std::move(n), x.shape);
    }

    // Token embedding: Gather of the [vocab, D] table by the int64 ids [B, S].
    Act embedding(const Act& ids, int64_t vocab, int64_t d) {
        Node n = node("Gather");
        n.attrs["axis"] = int64_t{0};
        n.inputs = {weight(n.name + ".table", {vocab, d}), ids.tensor};
        return finish(std::move(n), {ids.shape[0], ids.shape[1], d});
    }

    // The `tokens` rows of x [B, S, D] that the router sends to one expert: a Gather whose
    // indices depend on the router's probabilities (read as its second input).
    Act dispatch(const Act& x, const Act& router, int64_t tokens) {
        Node n = node("GatherElements");
        n.attrs["axis"] = int64_t{1};
        n.inputs = {x.tensor, router.tensor};
        return finish(std::move(n), {x.shape[0], tokens, x.shape[2]});
    }

    // The top-k experts' outputs of each token added up: [B, k, S, D] summed over axis 1.
    Act combine(const Act& x, int64_t k) {
        Act r = reshape(x, {x.shape[0], k, x.shape[1] / k, x.shape[2]});
        Node n = node("ReduceSum");
        n.attrs["keepdims"] = int64_t{0};
        n.inputs = {r.tensor, weight(n.name + ".axes", {1}, DType::Int64)};
        return finish(std::move(n), {x.shape[0], x.shape[1] / k, x.shape[2]});
    }

    Act softmax(const Act& x) {
        Node n = node("Softmax");
        n.attrs["axis"] = int64_t{-1};
        n.inputs = {x.tensor};
        return finish(std::move(n), x.shape);
    }

    // Conv, then BatchNormalization when the graph uses it: 1 or 2 nodes.
    int convBnCost() const { return batchNorm_ ? 2 : 1; }
    Act convBn(const Act& x, int64_t outC, int64_t k, int64_t stride) {
        Act y = conv(x, outC, k, stride, !batchNorm_);
        return batchNorm_ ? batchNormalization(y) : y;
    }

    // One node that keeps x's shape.
    Act shapePreserving(const Act& x) {
        switch (rnd_.below(5)) {
            case 0: return relu(x);
            case 1: return batchNormalization(x);
            case 2: return maxPool(x, 3, 1);
            case 3: return conv(x, x.channels(), 1, 1, true);
            default: return conv(x, x.channels(), 3, 1, true);
        }
    }

    // `count` nodes in a chain; the first one downsamples to `downC` channels when downC > 0.
    Act filler(Act x, int count, int64_t downC) {
        for (int i = 0; i < count; ++i) {
            if (i == 0 && downC > 0)
                x = conv(x, downC, 3, 2, true);
            else
                x = shapePreserving(x);
        }
        return x;
    }

    Random& rnd() { return rnd_; }

    Act tokenInput(int64_t batch, int64_t seq, const char* name) {
        Tensor t;
        t.name = name;
        t.kind = TensorKind::GraphInput;
        t.dtype = DType::Int64;
        t.shape = {batch, seq};
        t.shapeKnown = true;
        t.bytes = shapeBytes(t.shape, DType::Int64);
        return {g.addTensor(std::move(t)), {batch, seq}};
    }

private:
    Node node(const char* op) {
        Node n;
        n.op = op;
        n.name = std::string(op) + "_" + std::to_string(g.nodeCount());
        return n;
    }

    int weight(const std::string& name, std::vector<int64_t> shape, DType type = DType::Float32) {
        Tensor t;
        t.name = name;
        t.kind = TensorKind::Weight;
        t.dtype = type;
        t.bytes = shapeBytes(shape, type);
        t.shape = std::move(shape);
        t.shapeKnown = true;
        return g.addTensor(std::move(t));
    }

    Act finish(Node n, std::vector<int64_t> shape) {
        Tensor t;
        t.name = n.name + "_out";
        t.bytes = shapeBytes(shape, DType::Float32);
        t.shape = shape;
        t.shapeKnown = true;
        const int id = g.addTensor(std::move(t));
        n.outputs = {id};
        g.addNode(std::move(n));
        return {id, std::move(shape)};
    }

    Random& rnd_;
    bool batchNorm_;
};

// Channel counts are multiples of 8, at least 8. Integer arithmetic only: floating-point
// expressions may be contracted (FMA) differently by other compilers and platforms.
int64_t roundChannels(int64_t c) { return std::max<int64_t>(8, (c + 4) / 8 * 8); }

// ---- families: each builds exactly `budget` nodes of one stage -----------------------------------
// `downC` > 0: the stage starts by halving H and W and going to downC channels.

// ResNet: residual blocks (basic: conv-bn-relu-conv-bn-add-relu; bottleneck: 1x1-3x3-1x1), the
// first block of a downsampling stage with a strided projection on the skip path.
Act chainStage(Builder& b, Act x, int budget, int64_t downC, double bottleneckShare) {
    const int64_t width = downC > 0 ? downC : x.channels();
    bool first = true;
    while (budget > 0) {
        const bool down = first && downC > 0;
        const bool bottleneck = b.rnd().chance(bottleneckShare);
        const bool project = down || x.channels() != width;
        const int size = (bottleneck ? 3 : 2) * b.convBnCost() + (bottleneck ? 2 : 1) + 2 +
                         (project ? b.convBnCost() : 0);
        if (size > budget) {
            x = b.filler(x, budget, down ? downC : 0);
            break;
        }
        const int64_t stride = down ? 2 : 1;
        Act y;
        if (bottleneck) {
            const int64_t mid = roundChannels(width / 4);
            y = b.relu(b.convBn(x, mid, 1, 1));
            y = b.relu(b.convBn(y, mid, 3, stride));
            y = b.convBn(y, width, 1, 1);
        } else {
            y = b.relu(b.convBn(x, width, 3, stride));
            y = b.convBn(y, width, 3, 1);
        }
        Act skip = project ? b.convBn(x, width, 1, stride) : x;
        x = b.relu(b.add(y, skip));
        budget -= size;
        first = false;
    }
    return x;
}

// Inception: blocks of 2-4 parallel branches (1x1; 1x1-3x3; 1x1-5x5 or 1x1-3x3-3x3; pool-1x1)
// joined by a Concat; stages start with a strided MaxPool (channels change in the next block).
Act branchyStage(Builder& b, Act x, int budget, int64_t downC) {
    const int64_t width = downC > 0 ? downC : x.channels();
    if (downC > 0 && budget > 0) {
        x = b.maxPool(x, 3, 2);
        --budget;
    }
    while (budget > 0) {
        if (budget < 3) {
            x = b.filler(x, budget, 0);
            break;
        }
        const int cb = b.convBnCost() + 1;  // conv (+bn) + relu
        // Branch kinds and their node counts.
        const int kinds[4] = {cb, 2 * cb, 3 * cb, 1 + cb};
        int branches = b.rnd().between(2, 4);
        std::vector<int> kind;
        int total = 1;  // the Concat
        for (int i = 0; i < branches; ++i) {
            int k = static_cast<int>(b.rnd().below(4));
            kind.push_back(k);
            total += kinds[k];
        }
        if (total > budget) {
            // Shrink: as many plain 1x1 branches (one Conv each) as fit, else a filler chain.
            branches = std::min(4, budget - 1);
            if (branches < 2) {
                x = b.filler(x, budget, 0);
                break;
            }
            std::vector<Act> outs;
            for (int i = 0; i < branches; ++i)
                outs.push_back(b.conv(x, roundChannels(width / branches), 1, 1, true));
            x = b.concat(outs);
            budget -= branches + 1;
            continue;
        }
        std::vector<Act> outs;
        for (int i = 0; i < branches; ++i) {
            const int64_t permille = 750 + static_cast<int64_t>(b.rnd().below(501));  // 0.75 .. 1.25
            const int64_t c = roundChannels(width * permille / (1000 * branches));
            const int64_t reduce = roundChannels(c * 3 / 4);
            Act y;
            switch (kind[i]) {
                case 0: y = b.relu(b.convBn(x, c, 1, 1)); break;
                case 1:
                    y = b.relu(b.convBn(x, reduce, 1, 1));
                    y = b.relu(b.convBn(y, c, 3, 1));
                    break;
                case 2:
                    y = b.relu(b.convBn(x, reduce, 1, 1));
                    if (b.rnd().chance(0.5)) {
                        y = b.relu(b.convBn(y, c, 5, 1));
                        y = b.relu(b.convBn(y, c, 1, 1));
                    } else {
                        y = b.relu(b.convBn(y, c, 3, 1));
                        y = b.relu(b.convBn(y, c, 3, 1));
                    }
                    break;
                default:
                    y = b.maxPool(x, 3, 1);
                    y = b.relu(b.convBn(y, c, 1, 1));
                    break;
            }
            outs.push_back(y);
        }
        x = b.concat(outs);
        budget -= total;
    }
    return x;
}

// Random layered DAG: layers of 1..maxWidth nodes. Each node reads the oldest tensor nobody reads
// yet (so nothing dangles) and sometimes 1-2 more of the last three layers; one input gets
// Conv/Relu/BN/MaxPool (a Conv back to the width when a Concat made it wider), several get
// Add/Sum (equal channels) or Concat (at most 4x the width). One last node joins what is unread.
Act layeredStage(Builder& b, Act x, int budget, int64_t downC, int maxWidth) {
    if (downC > 0 && budget > 0) {
        x = b.conv(x, downC, 3, 2, true);
        --budget;
    }
    if (budget <= 2) return b.filler(x, budget, 0);
    Random& rnd = b.rnd();
    const int64_t width = x.channels();
    std::vector<Act> acts = {x};
    std::vector<int> pending = {0};  // unread tensors, oldest first
    std::vector<std::vector<int>> layers = {{0}};
    int left = budget - 1;  // the join
    while (left > 0) {
        const int w = std::min(left, rnd.between(1, maxWidth));
        std::vector<int> layer;
        for (int i = 0; i < w; ++i) {
            std::vector<int> ins;
            if (!pending.empty()) {
                ins.push_back(pending.front());
                pending.erase(pending.begin());
            } else {
                ins.push_back(rnd.pick(layers.back()));
            }
            int64_t channels = acts[ins[0]].channels();
            const int extra = rnd.chance(0.6) ? 0 : (rnd.chance(0.75) ? 1 : 2);
            const size_t back = std::min<size_t>(layers.size(), 3);
            for (int e = 0; e < extra; ++e) {
                int cand;
                if (!pending.empty() && rnd.chance(0.5)) {
                    cand = pending.front();
                } else {
                    const std::vector<int>& from = layers[layers.size() - 1 - rnd.below(back)];
                    cand = rnd.pick(from);
                }
                if (std::find(ins.begin(), ins.end(), cand) != ins.end()) continue;
                if (channels + acts[cand].channels() > 4 * width) continue;
                ins.push_back(cand);
                channels += acts[cand].channels();
                pending.erase(std::remove(pending.begin(), pending.end(), cand), pending.end());
            }
            Act y;
            if (ins.size() == 1) {
                const Act& in = acts[ins[0]];
                switch (in.channels() > width ? 3 : rnd.below(5)) {
                    case 0: y = b.relu(in); break;
                    case 1: y = b.batchNormalization(in); break;
                    case 2: y = b.maxPool(in, 3, 1); break;
                    case 3: y = b.conv(in, width, 1, 1, true); break;
                    default: y = b.conv(in, width, 3, 1, true); break;
                }
            } else {
                bool same = true;
                std::vector<Act> xs;
                for (int a : ins) {
                    xs.push_back(acts[a]);
                    same = same && acts[a].channels() == acts[ins[0]].channels();
                }
                if (same && rnd.chance(0.7))
                    y = xs.size() == 2 ? b.add(xs[0], xs[1]) : b.sum(xs);
                else
                    y = b.concat(xs);
            }
            acts.push_back(y);
            layer.push_back(static_cast<int>(acts.size()) - 1);
        }
        for (int a : layer) pending.push_back(a);
        layers.push_back(std::move(layer));
        left -= w;
    }
    std::vector<Act> loose;
    bool same = true;
    for (int a : pending) {
        loose.push_back(acts[a]);
        same = same && acts[a].channels() == loose[0].channels();
    }
    if (loose.size() == 1) return b.relu(loose[0]);
    if (same) return loose.size() == 2 ? b.add(loose[0], loose[1]) : b.sum(loose);
    return b.concat(loose);
}

// Series-parallel: recursively either two pieces in series or 2-4 pieces in parallel joined by Add
// (or by Concat + a 1x1 Conv back to the width). Every piece keeps the channel count.
Act seriesParallel(Builder& b, const Act& x, int budget, int depth) {
    Random& rnd = b.rnd();
    if (budget <= 2 || depth > 60 || (budget <= 4 && rnd.chance(0.5))) return b.filler(x, budget, 0);
    if (rnd.chance(0.5)) {
        const int first = rnd.between(1, budget - 1);
        Act y = seriesParallel(b, x, first, depth + 1);
        return seriesParallel(b, y, budget - first, depth + 1);
    }
    const bool concatJoin = budget >= 4 && rnd.chance(0.3);
    const int join = concatJoin ? 2 : 1;
    const int room = budget - join;
    const int branches = rnd.between(2, std::min(4, room));
    // Split `room` into `branches` parts of at least 1: sorted random cut points.
    std::vector<int> cuts;
    for (int i = 0; i < branches - 1; ++i) cuts.push_back(rnd.between(0, room - branches));
    std::sort(cuts.begin(), cuts.end());
    std::vector<Act> outs;
    int prev = 0;
    for (int i = 0; i < branches; ++i) {
        const int end = i + 1 < branches ? cuts[i] : room - branches;
        outs.push_back(seriesParallel(b, x, 1 + end - prev, depth + 1));
        prev = end;
    }
    if (!concatJoin) {
        // Add takes two inputs; more branches join with Sum (ONNX's n-ary add), still one node.
        return outs.size() == 2 ? b.add(outs[0], outs[1]) : b.sum(outs);
    }
    return b.conv(b.concat(outs), x.channels(), 1, 1, true);
}

// Wide: blocks of 6-12 parallel branches (each one or two 1x1/3x3 convs), joined by a Concat and
// a 1x1 conv back to the width: much independent work side by side.
Act wideStage(Builder& b, Act x, int budget, int64_t downC) {
    if (downC > 0 && budget > 0) {
        x = b.conv(x, downC, 3, 2, true);
        --budget;
    }
    const int64_t width = x.channels();
    while (budget > 0) {
        if (budget < 8) return b.filler(x, budget, 0);
        int branches = b.rnd().between(6, 12);
        std::vector<int> len;
        int total = 2;  // Concat + the 1x1 back to the width
        for (int i = 0; i < branches; ++i) {
            len.push_back(b.rnd().between(1, 2));
            total += len.back();
        }
        while (total > budget && !len.empty()) {  // fewer or shorter branches until it fits
            total -= len.back();
            len.pop_back();
        }
        if (len.size() < 2) return b.filler(x, budget, 0);
        std::vector<Act> outs;
        const int64_t c = roundChannels(width / static_cast<int64_t>(len.size()) * 2);
        for (int l : len) {
            Act y = b.conv(x, c, b.rnd().chance(0.5) ? 1 : 3, 1, true);
            if (l == 2) y = b.conv(y, c, 3, 1, true);
            outs.push_back(y);
        }
        x = b.conv(b.concat(outs), width, 1, 1, true);
        budget -= total;
    }
    return x;
}

// Skip: a U-Net-like stage. k encoder steps (conv + relu) keep their outputs; k decoder steps
// (conv, then Add of the mirrored encoder output) read them back, the first encoder output last:
// long skip connections over the whole stage.
Act skipStage(Builder& b, Act x, int budget, int64_t downC) {
    if (downC > 0 && budget > 0) {
        x = b.conv(x, downC, 3, 2, true);
        --budget;
    }
    const int k = budget / 4;  // encoder: 2 nodes per step; decoder: 2 per step
    if (k < 2) return b.filler(x, budget, 0);
    std::vector<Act> saved;
    for (int i = 0; i < k; ++i) {
        x = b.relu(b.conv(x, x.channels(), 3, 1, true));
        saved.push_back(x);
    }
    for (int i = k - 1; i >= 0; --i) x = b.add(b.conv(x, x.channels(), 3, 1, true), saved[static_cast<size_t>(i)]);
    return b.filler(x, budget - 4 * k, 0);
}

// Attention: blocks of self-attention over the H*W positions, 19 nodes each. Q, K, V are 1x1
// convs; scores = Q^T K ([N, HW, HW]), Softmax, times V^T, back to [N, C, H, W], a 1x1 output
// conv and a residual Add; then an MLP (1x1 to 2C, Relu, 1x1 back, Add).
Act attentionStage(Builder& b, Act x, int budget, int64_t downC) {
    if (downC > 0 && budget > 0) {
        x = b.conv(x, downC, 3, 2, true);
        --budget;
    }
    constexpr int kBlock = 19;
    while (budget >= kBlock) {
        const int64_t n = x.shape[0], c = x.channels(), hw = x.shape[2] * x.shape[3];
        const int64_t dk = roundChannels(c / 2);
        Act q = b.conv(x, dk, 1, 1, true), k = b.conv(x, dk, 1, 1, true), v = b.conv(x, c, 1, 1, true);
        Act qt = b.transposeLast(b.reshape(q, {n, dk, hw}));                // [N, HW, dk]
        Act kr = b.reshape(k, {n, dk, hw});                                 // [N, dk, HW]
        Act p = b.softmax(b.matmul(qt, kr));                                // [N, HW, HW]
        Act vt = b.transposeLast(b.reshape(v, {n, c, hw}));                 // [N, HW, C]
        Act o = b.transposeLast(b.matmul(p, vt));                           // [N, C, HW]
        Act y = b.conv(b.reshape(o, x.shape), c, 1, 1, true);
        x = b.add(x, y);
        Act m = b.relu(b.conv(x, roundChannels(2 * c), 1, 1, true));
        x = b.add(x, b.conv(m, c, 1, 1, true));
        budget -= kBlock;
    }
    return b.filler(x, budget, 0);
}

// ---- sequence models: transformer stacks, encoder-decoder, mixture of experts ----------------------
//
// Token ids [B, S] -> embedding -> layers -> LayerNormalization -> the LM head [B, S, vocab]. Pre-LN
// layers on [B, S, D]; attention with the heads folded into one (the FLOPs and the bytes are those
// of the multi-head form: B*S*S*D for the scores). Widths and lengths are those of the large models
// (BERT-large to Llama-7B): D in {768, 1024, 1600, 2048, 4096}, S in {128 .. 2048}, the FFN 4D wide.

// Self-attention (q from x, k and v from `memory`: x itself, or the encoder's output for
// cross-attention) and the residual: 10 nodes.
constexpr int kAttentionNodes = 10;
Act attentionBlock(Builder& b, const Act& x, const Act* memory) {
    const int64_t d = x.shape[2];
    Act h = b.layerNorm(x);
    const Act& m = memory ? *memory : h;
    Act q = b.linear(h, d), k = b.linear(m, d), v = b.linear(m, d);
    Act p = b.softmax(b.matmul(q, b.transposeLast(k)));   // [B, S, S']
    Act o = b.linear(b.matmul(p, v), d);
    return b.add(x, o);
}

// The FFN and its residual: 5 nodes.
constexpr int kFfnNodes = 5;
Act ffnBlock(Builder& b, const Act& x, int64_t hidden) {
    Act h = b.layerNorm(x);
    return b.add(x, b.linear(b.gelu(b.linear(h, hidden)), x.shape[2]));
}

// A mixture-of-experts FFN, top-2 routing: LayerNorm, router (linear to E, Softmax), per expert the
// 2S/E tokens sent to it (dispatch) through its own FFN (3 nodes), the outputs joined (Concat),
// each token's two added up (Reshape, ReduceSum) and the residual Add: 7 + 4E nodes.
int moeNodes(int experts) { return 7 + 4 * experts; }
Act moeBlock(Builder& b, const Act& x, int64_t hidden, int experts) {
    const int64_t d = x.shape[2], s = x.shape[1];
    Act h = b.layerNorm(x);
    Act router = b.softmax(b.linear(h, experts));
    std::vector<Act> outs;
    const int64_t tokens = 2 * s / experts;
    for (int e = 0; e < experts; ++e) outs.push_back(b.linear(b.gelu(b.linear(b.dispatch(h, router, tokens), hidden)), d));
    return b.add(x, b.combine(b.concat(outs), 2));  // axis 1: the tokens
}

// One node on [B, S, D] that keeps its shape.
Act sequenceFiller(Builder& b, Act x, int count) {
    for (int i = 0; i < count; ++i) x = b.rnd().chance(0.5) ? b.layerNorm(x) : b.gelu(x);
    return x;
}

Graph generateSequenceGraph(const GeneratorOptions& options, Random& rnd) {
    const int64_t batch = std::vector<int64_t>{1, 2, 4, 8}[rnd.below(4)];
    const int64_t seq = std::vector<int64_t>{128, 256, 512, 1024, 2048}[rnd.below(5)];
    const int64_t d = std::vector<int64_t>{768, 1024, 1600, 2048, 4096}[rnd.below(5)];
    const int64_t vocab = std::vector<int64_t>{30522, 32000, 50257}[rnd.below(3)];
    const int experts = std::vector<int>{4, 8}[rnd.below(2)];
    const int64_t hidden = 4 * d;

    Builder b(rnd, false);
    b.g.name = std::string(graphFamilyName(options.family)) + "-" + std::to_string(options.nodes) + "-s" +
               std::to_string(options.seed);
    b.g.metadata["source_format"] = "synthetic";
    b.g.metadata["family"] = graphFamilyName(options.family);
    b.g.metadata["seed"] = std::to_string(options.seed);

    // Embedding (1) and head (LayerNorm, linear: 2) around the body; encoder-decoder has a second
    // embedding for the target tokens.
    const bool encDec = options.family == GraphFamily::EncoderDecoder;
    int body = options.nodes - 3 - (encDec ? 1 : 0);
    Act x = b.embedding(b.tokenInput(batch, seq, encDec ? "source_ids" : "input_ids"), vocab, d);
    if (options.family == GraphFamily::Transformer) {
        const int layer = kAttentionNodes + kFfnNodes;
        for (; body >= layer; body -= layer) x = ffnBlock(b, attentionBlock(b, x, nullptr), hidden);
        x = sequenceFiller(b, x, body);
    } else if (options.family == GraphFamily::MixtureOfExperts) {
        // Dense and MoE layers alternate (as GShard and Switch do), starting dense.
        const int dense = kAttentionNodes + kFfnNodes, moe = kAttentionNodes + moeNodes(experts);
        for (int i = 0;; ++i) {
            const bool sparse = i % 2 == 1;
            if (body < (sparse ? moe : dense)) break;
            x = attentionBlock(b, x, nullptr);
            x = sparse ? moeBlock(b, x, hidden, experts) : ffnBlock(b, x, hidden);
            body -= sparse ? moe : dense;
        }
        x = sequenceFiller(b, x, body);
    } else {
        // A third of the layers' nodes to the encoder (15 per layer), the rest to the decoder (25:
        // self-attention, cross-attention over the encoder's output, FFN), as many of each as fit.
        const int encLayer = kAttentionNodes + kFfnNodes, decLayer = 2 * kAttentionNodes + kFfnNodes;
        const int encoders = std::max(1, body / 3 / encLayer);
        for (int i = 0; i < encoders && body >= encLayer + 1; ++i, body -= encLayer)
            x = ffnBlock(b, attentionBlock(b, x, nullptr), hidden);
        const Act memory = b.layerNorm(x);
        --body;
        const int64_t target = std::max<int64_t>(16, seq / 2);
        Act y = b.embedding(b.tokenInput(batch, target, "target_ids"), vocab, d);
        for (; body >= decLayer; body -= decLayer)
            y = ffnBlock(b, attentionBlock(b, attentionBlock(b, y, nullptr), &memory), hidden);
        x = sequenceFiller(b, y, body);
    }
    b.linear(b.layerNorm(x), vocab);

    Graph g = std::move(b.g);
    if (static_cast<int>(g.nodeCount()) != options.nodes)
        throw std::logic_error("generateGraph built " + std::to_string(g.nodeCount()) + " nodes instead of " +
                               std::to_string(options.nodes));
    return g;
}

// Finalized, the unread activations marked as graph outputs, costs inferred, validated.
Graph finishGenerated(Graph g) {
    g.finalize();
    for (size_t t = 0; t < g.tensorCount(); ++t) {
        Tensor& tensor = g.mutableTensors()[t];
        if (tensor.kind == TensorKind::Activation && g.consumers(static_cast<int>(t)).empty())
            tensor.isGraphOutput = true;
    }
    inferCosts(g);
    g.validate();
    return g;
}

}  // namespace

Graph generateGraph(const GeneratorOptions& options) {
    if (options.nodes < kMinNodes || options.nodes > kMaxNodes)
        throw std::invalid_argument("the node count must be between " + std::to_string(kMinNodes) + " and " +
                                    std::to_string(kMaxNodes) + " (got " + std::to_string(options.nodes) + ")");
    Random rnd(options.seed);
    if (options.family == GraphFamily::Transformer || options.family == GraphFamily::EncoderDecoder ||
        options.family == GraphFamily::MixtureOfExperts)
        return finishGenerated(generateSequenceGraph(options, rnd));
    // Graph-wide choices.
    const int64_t batch = std::vector<int64_t>{1, 1, 2, 4}[rnd.below(4)];
    const int64_t resolution = std::vector<int64_t>{160, 192, 224, 256}[rnd.below(4)];
    const int64_t stemC = std::vector<int64_t>{32, 48, 64}[rnd.below(3)];
    const bool batchNorm = rnd.chance(0.8);
    const double bottleneckShare = rnd.chance(0.5) ? 0.0 : rnd.unit();
    const int maxWidth = rnd.between(2, 6);
    const int64_t classes = std::vector<int64_t>{10, 100, 1000}[rnd.below(3)];

    Builder b(rnd, batchNorm);
    b.g.name = std::string(graphFamilyName(options.family)) + "-" + std::to_string(options.nodes) + "-s" +
               std::to_string(options.seed);
    b.g.metadata["source_format"] = "synthetic";
    b.g.metadata["family"] = graphFamilyName(options.family);
    b.g.metadata["seed"] = std::to_string(options.seed);

    Act x = b.input({batch, 3, resolution, resolution});
    x = b.conv(x, stemC, 7, 2, true);
    int body = options.nodes - 4;  // stem conv + 3 head nodes
    if (options.nodes >= 16) {
        x = b.maxPool(x, 3, 2);
        --body;
    }
    const int stages = std::clamp(body / 25, 1, 4);
    for (int s = 0; s < stages; ++s) {
        const int budget = body * (s + 1) / stages - body * s / stages;
        const int64_t downC = s == 0 ? 0 : std::min<int64_t>(x.channels() * 2, 1024);
        switch (options.family) {
            case GraphFamily::Chain: x = chainStage(b, x, budget, downC, bottleneckShare); break;
            case GraphFamily::Branchy: x = branchyStage(b, x, budget, downC); break;
            case GraphFamily::Layered: x = layeredStage(b, x, budget, downC, maxWidth); break;
            case GraphFamily::SeriesParallel:
                if (downC > 0) x = b.conv(x, downC, 3, 2, true);
                x = seriesParallel(b, x, budget - (downC > 0 ? 1 : 0), 0);
                break;
            case GraphFamily::Wide: x = wideStage(b, x, budget, downC); break;
            case GraphFamily::Skip: x = skipStage(b, x, budget, downC); break;
            case GraphFamily::Attention: x = attentionStage(b, x, budget, downC); break;
            case GraphFamily::Transformer:
            case GraphFamily::EncoderDecoder:
            case GraphFamily::MixtureOfExperts: break;  // sequence graphs, built above
        }
    }
    x = b.gemm(b.flatten(b.globalAveragePool(x)), classes);

    Graph g = std::move(b.g);
    if (static_cast<int>(g.nodeCount()) != options.nodes)
        throw std::logic_error("generateGraph built " + std::to_string(g.nodeCount()) + " nodes instead of " +
                               std::to_string(options.nodes));
    return finishGenerated(std::move(g));
}

}  // namespace graphopt
