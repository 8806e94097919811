// The synthetic graph generator: exact sizes, validity, determinism, realistic contents.
#include <gtest/gtest.h>

#include <set>

#include "graph/GraphCompare.h"
#include "graph/SyntheticGenerator.h"

using namespace graphopt;

namespace {

// FNV-1a over names, ops, shapes and inputs: pins the exact output for a seed.
uint64_t fingerprint(const Graph& g) {
    uint64_t h = 1469598103934665603ull;
    auto mix = [&](const std::string& s) {
        for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
        h = (h ^ 0xff) * 1099511628211ull;
    };
    for (const auto& n : g.nodes()) {
        mix(n.name);
        mix(n.op);
        for (int t : n.inputs) mix(g.tensors()[t].name);
    }
    for (const auto& t : g.tensors()) mix(t.name + shapeToString(t.shape) + std::to_string(t.bytes));
    return h;
}

}  // namespace

TEST(SyntheticGenerator, FamilyNames) {
    for (GraphFamily f : everyGraphFamily()) EXPECT_EQ(graphFamilyFromName(graphFamilyName(f)), f);
    EXPECT_EQ(allGraphFamilies().size(), 4u);  // the training families
    EXPECT_EQ(everyGraphFamily().size(), 10u);  // and the three held out, and the three sequence families
    for (GraphFamily f : sequenceGraphFamilies())
        for (GraphFamily t : allGraphFamilies()) EXPECT_NE(f, t);
    EXPECT_EQ(graphFamilyFromName("moe"), GraphFamily::MixtureOfExperts);
    for (GraphFamily f : heldOutGraphFamilies())
        for (GraphFamily t : allGraphFamilies()) EXPECT_NE(f, t);
    EXPECT_STREQ(graphFamilyName(GraphFamily::SeriesParallel), "series-parallel");
    EXPECT_THROW(graphFamilyFromName("tree"), std::invalid_argument);
}

TEST(SyntheticGenerator, RejectsSizesOutOfRange) {
    EXPECT_THROW(generateGraph({GraphFamily::Chain, 9, 1}), std::invalid_argument);
    EXPECT_THROW(generateGraph({GraphFamily::Chain, 10001, 1}), std::invalid_argument);
}

TEST(SyntheticGenerator, ExactNodeCountAndValid) {
    for (GraphFamily f : everyGraphFamily())
        for (int n : {10, 11, 12, 13, 15, 16, 17, 29, 54, 55, 101, 1000, 10000})
            for (uint64_t seed : {1, 2, 3}) {
                if (n == 10000 && seed > 1) continue;
                SCOPED_TRACE(std::string(graphFamilyName(f)) + " n=" + std::to_string(n) + " seed=" +
                             std::to_string(seed));
                const Graph g = generateGraph({f, n, seed});
                ASSERT_EQ(g.nodeCount(), static_cast<size_t>(n));
                EXPECT_NO_THROW(g.validate());
                EXPECT_EQ(g.topologicalOrder().size(), static_cast<size_t>(n));
            }
}

TEST(SyntheticGenerator, RealisticContents) {
    const std::set<std::string> onnxOps = {"Conv", "Relu", "BatchNormalization", "Add", "Sum", "Concat",
                                           "MaxPool", "GlobalAveragePool", "Flatten", "Gemm"};
    for (GraphFamily f : allGraphFamilies())
        for (uint64_t seed : {1, 2, 3, 4, 5}) {
            SCOPED_TRACE(std::string(graphFamilyName(f)) + " seed=" + std::to_string(seed));
            const Graph g = generateGraph({f, 200, seed});
            int inputs = 0, outputs = 0;
            for (const auto& t : g.tensors()) {
                inputs += t.kind == TensorKind::GraphInput;
                outputs += t.isGraphOutput;
                EXPECT_TRUE(t.shapeKnown) << t.name;
                EXPECT_GT(t.bytes, 0) << t.name;
                EXPECT_EQ(t.bytes, shapeBytes(t.shape, t.dtype)) << t.name;
                if (t.kind == TensorKind::Activation) {
                    EXPECT_GE(t.producer, 0) << t.name;
                }
                if (t.kind == TensorKind::Weight) {
                    EXPECT_EQ(t.producer, -1);
                    EXPECT_FALSE(g.consumers(static_cast<int>(&t - &g.tensors()[0])).empty()) << t.name;
                }
            }
            EXPECT_EQ(inputs, 1);
            EXPECT_GE(outputs, 1);
            int weighted = 0;
            for (const auto& n : g.nodes()) {
                EXPECT_TRUE(onnxOps.count(n.op)) << n.op;
                for (int t : n.inputs) weighted += g.tensors()[t].kind == TensorKind::Weight;
                if (n.op == "Conv" || n.op == "Gemm") {
                    EXPECT_GT(n.flops, 0) << n.name;
                    // NCHW: weights are [C_out, C_in, k, k] matching the input's channels.
                    if (n.op == "Conv") {
                        const auto& x = g.tensors()[n.inputs[0]].shape;
                        const auto& w = g.tensors()[n.inputs[1]].shape;
                        ASSERT_EQ(x.size(), 4u);
                        EXPECT_EQ(w[1], x[1]) << n.name;
                        EXPECT_EQ(g.tensors()[n.outputs[0]].shape[1], w[0]) << n.name;
                    }
                }
            }
            EXPECT_GT(weighted, 0);
            EXPECT_GT(g.totalFlops(), 1e8);
            EXPECT_EQ(g.nodes().back().op, "Gemm");
            EXPECT_EQ(g.metadata.at("family"), graphFamilyName(f));
        }
}

TEST(SyntheticGenerator, FamiliesHaveTheirShapes) {
    auto count = [](const Graph& g, const std::string& op) {
        int c = 0;
        for (const auto& n : g.nodes()) c += n.op == op;
        return c;
    };
    const Graph chain = generateGraph({GraphFamily::Chain, 500, 1});
    EXPECT_GT(count(chain, "Add"), 10);  // residual connections
    const Graph branchy = generateGraph({GraphFamily::Branchy, 500, 1});
    EXPECT_GT(count(branchy, "Concat"), 10);
    const Graph sp = generateGraph({GraphFamily::SeriesParallel, 500, 1});
    EXPECT_GT(count(sp, "Add") + count(sp, "Sum") + count(sp, "Concat"), 10);
    const Graph layered = generateGraph({GraphFamily::Layered, 500, 1});
    size_t multiInput = 0;
    for (const auto& n : layered.nodes()) {
        int activations = 0;
        for (int t : n.inputs) activations += layered.tensors()[t].kind == TensorKind::Activation;
        multiInput += activations > 1;
    }
    EXPECT_GT(multiInput, 20u);
    // Only the chain is nearly a path: the others are wider.
    EXPECT_GT(layered.edges().size(), 1.2 * layered.nodeCount());
}

TEST(SyntheticGenerator, DeterministicPerSeed) {
    for (GraphFamily f : everyGraphFamily()) {
        SCOPED_TRACE(graphFamilyName(f));
        const Graph a = generateGraph({f, 300, 42});
        const Graph b = generateGraph({f, 300, 42});
        std::string why;
        EXPECT_TRUE(graphsEqual(a, b, &why)) << why;
        const Graph c = generateGraph({f, 300, 43});
        EXPECT_FALSE(graphsEqual(a, c));
        EXPECT_NE(fingerprint(a), fingerprint(c));
    }
}

TEST(SyntheticGenerator, SameGraphOnEveryPlatform) {
    // Pinned fingerprints: the generator uses only mt19937_64's raw output, so these must hold with
    // any standard library. A deliberate change to the generator updates them.
    EXPECT_EQ(fingerprint(generateGraph({GraphFamily::Chain, 100, 1})), 5859702553697017436ull);
    EXPECT_EQ(fingerprint(generateGraph({GraphFamily::Branchy, 100, 1})), 460494534278346376ull);
    EXPECT_EQ(fingerprint(generateGraph({GraphFamily::Layered, 100, 1})), 5444415255157442354ull);
    EXPECT_EQ(fingerprint(generateGraph({GraphFamily::SeriesParallel, 100, 1})), 10193185251921454953ull);
    EXPECT_EQ(fingerprint(generateGraph({GraphFamily::Transformer, 100, 1})), 12091441447092708769ull);
    EXPECT_EQ(fingerprint(generateGraph({GraphFamily::EncoderDecoder, 100, 1})), 17723568969628198383ull);
    EXPECT_EQ(fingerprint(generateGraph({GraphFamily::MixtureOfExperts, 100, 1})), 16224459880616309978ull);
}

// The sequence families have the shapes and the scale of the large models they stand for.
TEST(SyntheticGenerator, SequenceFamiliesHaveTheShapesOfTheLargeModels) {
    auto count = [](const Graph& g, const std::string& op) {
        int c = 0;
        for (const auto& n : g.nodes()) c += n.op == op;
        return c;
    };
    for (uint64_t seed : {1, 2, 3, 4}) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        for (GraphFamily f : sequenceGraphFamilies()) {
            SCOPED_TRACE(graphFamilyName(f));
            const Graph g = generateGraph({f, 300, seed});
            int inputs = 0;
            for (const auto& t : g.tensors()) {
                if (t.kind != TensorKind::GraphInput) continue;
                ++inputs;
                EXPECT_EQ(t.dtype, DType::Int64);  // token ids
                EXPECT_EQ(t.shape.size(), 2u);
            }
            EXPECT_EQ(inputs, f == GraphFamily::EncoderDecoder ? 2 : 1);
            EXPECT_EQ(g.nodes().front().op, "Gather");  // the embedding
            EXPECT_EQ(g.nodes().back().op, "MatMul");   // the LM head
            const int64_t d = g.tensors()[size_t(g.nodes().front().outputs[0])].shape[2];
            EXPECT_TRUE(d == 768 || d == 1024 || d == 1600 || d == 2048 || d == 4096) << d;
            EXPECT_GT(g.weightBytes(), int64_t(200) << 20);  // hundreds of MB and more, like the large models
            for (const auto& n : g.nodes()) {
                if (n.op != "Softmax") continue;
                const auto& in = g.tensors()[size_t(n.inputs[0])].shape;
                ASSERT_EQ(in.size(), 3u);
            }
            EXPECT_GE(count(g, "Softmax"), 5);
        }
        // Every decoder layer's cross-attention reads the encoder's output: one tensor with many readers.
        const Graph ed = generateGraph({GraphFamily::EncoderDecoder, 300, seed});
        size_t readers = 0;
        for (size_t t = 0; t < ed.tensorCount(); ++t)
            if (ed.tensors()[t].kind == TensorKind::Activation) readers = std::max(readers, ed.consumers(int(t)).size());
        EXPECT_GE(readers, 10u);  // k and v of each of at least 5 decoder layers
        // MoE layers: 4 or 8 experts side by side, joined by a Concat.
        const Graph moe = generateGraph({GraphFamily::MixtureOfExperts, 300, seed});
        size_t experts = 0;
        for (const auto& n : moe.nodes())
            if (n.op == "Concat") experts = std::max(experts, n.inputs.size());
        EXPECT_TRUE(experts == 4 || experts == 8) << experts;
        EXPECT_EQ(count(moe, "GatherElements") % int(experts), 0);
        EXPECT_GE(count(moe, "GatherElements"), int(experts));
    }
}

// The held-out families have the shapes they are named for.
TEST(SyntheticGenerator, WideSkipAndAttentionHaveTheirShapes) {
    for (uint64_t seed : {1, 2, 3}) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        const Graph wide = generateGraph({GraphFamily::Wide, 200, seed});
        size_t widest = 0;
        for (const auto& n : wide.nodes())
            if (n.op == "Concat") widest = std::max(widest, n.inputs.size());
        EXPECT_GE(widest, 6u);  // 6-12 parallel branches

        const Graph skip = generateGraph({GraphFamily::Skip, 200, seed});
        const auto order = skip.topologicalOrder();
        std::vector<int> pos(skip.nodeCount());
        for (size_t i = 0; i < order.size(); ++i) pos[size_t(order[i])] = int(i);
        int longest = 0;  // the longest edge, in topological positions
        for (size_t v = 0; v < skip.nodeCount(); ++v)
            for (int t : skip.nodes()[v].inputs)
                if (int p = skip.tensors()[size_t(t)].producer; p >= 0) longest = std::max(longest, pos[v] - pos[size_t(p)]);
        EXPECT_GE(longest, 40);  // an encoder output read back at the end of its stage

        const Graph att = generateGraph({GraphFamily::Attention, 200, seed});
        int softmaxes = 0;
        for (const auto& n : att.nodes()) {
            if (n.op != "Softmax") continue;
            ++softmaxes;
            const auto& in = att.tensors()[size_t(n.inputs[0])].shape;
            ASSERT_EQ(in.size(), 3u);
            EXPECT_EQ(in[1], in[2]);  // scores: positions x positions
        }
        EXPECT_GE(softmaxes, 5);
    }
}
