// ONNX models whose weights are external data (the convention for models over 2 GB): they load
// from the .onnx alone, sized from declared types and dims, with the data files absent. Covers
// the small hand-made files of tests/data/onnx (make_external_data.py) and the bundled large
// models of resources/models (tools/make_large_models.py).
#include <gtest/gtest.h>

#include <filesystem>

#include "graph/GraphCompleteness.h"
#include "graph/Loaders.h"
#include "GraphTestFiles.h"

namespace fs = std::filesystem;
using namespace graphopt;
using graphopt::test::kModels;
using graphopt::test::tensorNamed;

namespace {

const std::string kData = std::string(GRAPHOPT_SOURCE_DIR) + "/tests/data/onnx/";


// Elements of floating-point weights but scalars: what `graphopt info` reports as parameters.
double parameters(const Graph& g) {
    double n = 0;
    for (const auto& t : g.tensors()) {
        if (t.kind != TensorKind::Weight || !t.shapeKnown || t.shape.empty()) continue;
        if (t.dtype != DType::Float32 && t.dtype != DType::Float16 && t.dtype != DType::BFloat16) continue;
        double e = 1;
        for (int64_t d : t.shape) e *= static_cast<double>(d);
        n += e;
    }
    return n;
}

}  // namespace

TEST(OnnxExternalData, LoadsWithoutTheDataFileSizedFromTypesAndDims) {
    const std::string path = kData + "external-data.onnx";
    ASSERT_TRUE(fs::exists(path));
    ASSERT_FALSE(fs::exists(path + ".data")) << "the data file must stay absent: loading may not need it";
    Graph g;
    ASSERT_NO_THROW(g = loadGraph(path));
    EXPECT_EQ(g.metadata.at("onnx.external_weights"), "4");

    const Tensor& w1 = tensorNamed(g, "W1");
    EXPECT_EQ(w1.kind, TensorKind::Weight);
    EXPECT_EQ(w1.dtype, DType::Float32);
    EXPECT_EQ(w1.shape, (std::vector<int64_t>{8, 16}));
    EXPECT_EQ(w1.bytes, 8 * 16 * 4);
    EXPECT_EQ(tensorNamed(g, "b1").bytes, 16 * 4);
    // Half-precision weights count 2 bytes an element.
    const Tensor& w2 = tensorNamed(g, "W2");
    EXPECT_EQ(w2.dtype, DType::Float16);
    EXPECT_EQ(w2.bytes, 16 * 4 * 2);
    const Tensor& w3 = tensorNamed(g, "W3");
    EXPECT_EQ(w3.dtype, DType::BFloat16);
    EXPECT_EQ(w3.bytes, 16 * 4 * 2);
    EXPECT_EQ(g.weightBytes(), 512 + 64 + 128 + 128);
    EXPECT_DOUBLE_EQ(parameters(g), 128 + 16 + 64 + 64);
    // The Casts of the half-precision weights are computations with float32 outputs, shaped.
    EXPECT_EQ(tensorNamed(g, "W2f").bytes, 16 * 4 * 4);

    const GraphCompleteness known = graphCompleteness(g);
    EXPECT_EQ(known.tensorsWithoutShape, 0);
    EXPECT_TRUE(known.opsWithoutFlops.empty());
    // fc1 MatMul 2*8*16, its Add 16, Relu 16, two MatMuls 2*16*4 each, the final Add 4 (batch 1).
    EXPECT_DOUBLE_EQ(g.totalFlops(), 256 + 16 + 16 + 128 + 128 + 4);

    LoadOptions batch4;
    batch4.batch = 4;
    const Graph g4 = loadGraph(path, batch4);
    EXPECT_DOUBLE_EQ(g4.totalFlops(), 4 * g.totalFlops());
    EXPECT_EQ(g4.weightBytes(), g.weightBytes());
}

// An external initializer is a weight of unknown value: a Reshape target stored that way cannot
// be folded (its data is elsewhere), so the Reshape's output has no shape; loading still works
// and says so instead of reading the file.
TEST(OnnxExternalData, AnExternalShapeTargetIsNotFolded) {
    const std::string path = kData + "external-shape.onnx";
    ASSERT_FALSE(fs::exists(path + ".data"));
    Graph g;
    ASSERT_NO_THROW(g = loadGraph(path));
    EXPECT_EQ(tensorNamed(g, "target").kind, TensorKind::Weight);
    EXPECT_EQ(tensorNamed(g, "target").bytes, 2 * 8);
    EXPECT_TRUE(tensorNamed(g, "r").shapeKnown);
    EXPECT_FALSE(tensorNamed(g, "reshaped").shapeKnown);
    EXPECT_GT(graphCompleteness(g).tensorsWithoutShape, 0);
}

// The bundled large models: every weight is external, the data files are not in the repository,
// and the graphs load fully shaped with every op's FLOPs, at their full sequence length.
TEST(OnnxExternalData, BundledLargeModelsLoadFromTheGraphAlone) {
    struct Model {
        std::string file;
        std::map<std::string, std::vector<int64_t>> shapes;
        double parameters;
        int64_t layers, width, mlp, vocab, seq;
        int mlpMatrices;      // 2 (up, down) or 3 (SwiGLU gate, up, down)
        bool lmHead;          // logits over the vocabulary at every position
        const char* scopedNode;
    };
    const Model models[] = {
        {"gpt2_xl.onnx", {{"input_ids", {1, 1024}}}, 1'557'611'200, 48, 1600, 6400, 50257, 1024, 2, true,
         "/transformer/h.3/attn/c_attn/MatMul"},
        // 6,738,415,616 parameters plus the rotary cos/sin tables (2 x 2048 x 128).
        {"llama_7b.onnx", {{"input_ids", {1, 2048}}}, 6'738'939'904, 32, 4096, 11008, 32000, 2048, 3, true,
         "/model/layers.3/self_attn/q_proj/MatMul"},
        {"bert_large.onnx",
         {{"input_ids", {1, 512}}, {"attention_mask", {1, 512}}, {"token_type_ids", {1, 512}}},
         335'141'888, 24, 1024, 4096, 30522, 512, 2, false, "/bert/encoder/layer.3/attention/self/query/MatMul"},
    };
    for (const Model& m : models) {
        SCOPED_TRACE(m.file);
        const std::string path = kModels + m.file;
        ASSERT_TRUE(fs::exists(path));
        ASSERT_FALSE(fs::exists(path + ".data")) << "the weights are not bundled; loading must not need them";
        LoadOptions options;
        options.inputShapes = m.shapes;
        Graph g;
        ASSERT_NO_THROW(g = loadGraph(path, options));
        EXPECT_DOUBLE_EQ(parameters(g), m.parameters);
        // float32 weights, plus the small inline constants (reshape targets, scalars): < 64 KB.
        EXPECT_NEAR(static_cast<double>(g.weightBytes()), 4 * m.parameters, 65536.0);
        EXPECT_GT(std::stoll(g.metadata.at("onnx.external_weights")), 200);
        const GraphCompleteness known = graphCompleteness(g);
        EXPECT_EQ(known.tensorsWithoutShape, 0);
        EXPECT_TRUE(known.opsWithoutFlops.empty()) << known.warning();
        EXPECT_GT(g.nodeCount(), 800u);
        EXPECT_LT(g.nodeCount(), 1700u);
        bool scoped = false;
        for (const auto& n : g.nodes()) scoped = scoped || n.name == m.scopedNode;
        EXPECT_TRUE(scoped) << m.scopedNode;
        // Matrix products dominate: 2 FLOPs per weight per position in the projections, plus
        // 4 S^2 W per layer for the attention scores and their product with the values.
        const double S = static_cast<double>(m.seq), W = static_cast<double>(m.width);
        double expected = m.layers * (2 * S * (4 * W * W + m.mlpMatrices * W * m.mlp) + 4 * S * S * W);
        if (m.lmHead) expected += 2 * S * W * m.vocab;
        EXPECT_GT(g.totalFlops(), expected);
        EXPECT_LT(g.totalFlops(), 1.03 * expected);
    }
}
