// ONNX models whose weights are external data (the convention for models over 2 GB): they load
// from the .onnx alone, sized from declared types and dims, with the data files absent. Covers
// the small hand-made files of tests/data/onnx (make_external_data.py).
#include <gtest/gtest.h>

#include <filesystem>

#include "graph/GraphCompleteness.h"
#include "graph/Loaders.h"

namespace fs = std::filesystem;
using namespace graphopt;

namespace {

const std::string kData = std::string(GRAPHOPT_SOURCE_DIR) + "/tests/data/onnx/";

const Tensor& tensorNamed(const Graph& g, const std::string& name) {
    const int t = g.findTensor(name);
    if (t < 0) throw std::runtime_error("no tensor " + name);
    return g.tensors()[t];
}

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
