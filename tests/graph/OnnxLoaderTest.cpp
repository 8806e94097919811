// ONNX loading: the bundled models, the ONNX project's own test corpus, and costs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <unistd.h>

#include "graph/GraphCompare.h"
#include "graph/GraphCompleteness.h"
#include "graph/GraphError.h"
#include "graph/Loaders.h"
#include "graph/OpCosts.h"
#include "GraphTestFiles.h"

namespace fs = std::filesystem;
using namespace graphopt;
using graphopt::test::kModels;

namespace {

std::vector<std::string> filesUnder(const std::string& dir, const std::string& ext) {
    std::vector<std::string> out;
    if (!fs::is_directory(dir)) return out;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file() && e.path().extension() == ext) out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
}


}  // namespace

TEST(OnnxLoader, ResNet18MatchesPublishedCost) {
    const Graph g = loadGraph(kModels + "resnet18.onnx");
    // 1.81 G multiply-accumulates at 224x224 -> 3.63 GFLOP with multiply-add = 2 FLOPs.
    EXPECT_NEAR(g.totalFlops(), 3.63e9, 0.1 * 3.63e9);
    // Parameters of ResNet-18: 11.69 M floats, all seen as weights although the file has none.
    EXPECT_NEAR(static_cast<double>(g.weightBytes()), 11.69e6 * 4, 0.02 * 11.69e6 * 4);
    EXPECT_EQ(g.inputBytes(), 3 * 224 * 224 * 4);
    int convs = 0;
    for (const auto& n : g.nodes()) convs += n.op == "Conv";
    EXPECT_EQ(convs, 20);
    EXPECT_EQ(g.metadata.count("ops_without_flops"), 0u) << g.metadata.at("ops_without_flops");
    // Every activation has a shape: the exporter or ONNX shape inference supplied it.
    for (const auto& t : g.tensors())
        if (t.kind == TensorKind::Activation) EXPECT_TRUE(t.shapeKnown) << t.name;
}

TEST(OnnxLoader, EveryBundledModelLoads) {
    const auto files = filesUnder(kModels, ".onnx");
    ASSERT_GE(files.size(), 25u) << "expected the bundled model zoo under " << kModels;
    for (const auto& f : files) {
        SCOPED_TRACE(f);
        Graph g;
        ASSERT_NO_THROW(g = loadGraph(f));
        EXPECT_GT(g.nodeCount(), 5u);
        EXPECT_GT(g.totalFlops(), 1e8);  // every ImageNet classifier here does > 0.1 GFLOP
        EXPECT_GT(g.weightBytes(), 0);
        EXPECT_EQ(g.inputBytes() > 0, true);
        EXPECT_NO_THROW(g.topologicalOrder());
    }
}

// ONNX -> native JSON -> Graph gives the same graph, field by field, for every bundled model.
TEST(OnnxLoader, EveryBundledModelRoundTripsThroughNativeJson) {
    const fs::path dir = fs::temp_directory_path() / ("graphopt-onnx-json-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    for (const auto& f : filesUnder(kModels, ".onnx")) {
        SCOPED_TRACE(f);
        const Graph original = loadGraph(f);
        const std::string json = (dir / (fs::path(f).stem().string() + ".json")).string();
        saveJson(original, json);
        const Graph back = loadGraph(json);
        std::string why;
        EXPECT_TRUE(graphsEqual(original, back, &why)) << why;
        EXPECT_DOUBLE_EQ(back.totalFlops(), original.totalFlops());
    }
    fs::remove_all(dir);
}

// Every model of Debian's libonnx-testdata (written by the ONNX project) either loads or is
// refused with an error naming the file. The counts are printed for the record.
TEST(OnnxLoader, OnnxProjectCorpusLoadsOrIsRefusedClearly) {
    const auto files = filesUnder("/usr/share/libonnx-testdata/data", ".onnx");
    ASSERT_FALSE(files.empty()) << "libonnx-testdata is not installed" << " (a committed or installed resource is missing)";
    int loaded = 0, refused = 0, filesWithShapeless = 0, folded = 0;
    long tensors = 0, shapeless = 0;
    for (const auto& f : files) {
        try {
            Graph g = loadGraph(f);
            EXPECT_GT(g.nodeCount(), 0u) << f;
            ++loaded;
            const auto c = graphCompleteness(g);
            tensors += c.tensors;
            shapeless += c.tensorsWithoutShape;
            filesWithShapeless += c.tensorsWithoutShape > 0;
            folded += g.metadata.count("onnx.folded_nodes") != 0;
        } catch (const GraphError& e) {
            ++refused;
            EXPECT_EQ(std::string(e.what()).rfind(f + ": ", 0), 0u) << e.what();
            std::cout << "  refused: " << e.what() << "\n";
        }
    }
    std::cout << "libonnx-testdata: " << files.size() << " files, " << loaded << " loaded, " << refused
              << " refused with a clear error\n"
              << "  tensors without a shape: " << shapeless << " of " << tensors << ", in " << filesWithShapeless
              << " of the loaded files; shape folding changed " << folded << " files\n";
    EXPECT_GT(files.size(), 1000u);
    EXPECT_GT(loaded, 1000);
}

TEST(OnnxLoader, ClearErrorsForBadFiles) {
    const fs::path dir = fs::temp_directory_path() / "graphopt-onnx-bad";
    fs::create_directories(dir);
    auto expectError = [](const std::string& path, const std::string& needle) {
        try {
            loadOnnx(path);
            ADD_FAILURE() << path << " loaded";
        } catch (const GraphError& e) {
            std::string msg = e.what();
            EXPECT_EQ(msg.rfind(path + ": ", 0), 0u) << msg;
            EXPECT_NE(msg.find(needle), std::string::npos) << msg;
        }
    };
    const std::string empty = (dir / "empty.onnx").string();
    { std::ofstream(empty, std::ios::trunc); }
    expectError(empty, "empty");
    const std::string text = (dir / "text.onnx").string();
    { std::ofstream(text) << "this is not a model\n"; }
    expectError(text, "ONNX");
    expectError((dir / "missing.onnx").string(), "no such file");
    expectError(dir.string(), "directory");
    fs::remove_all(dir);
    // A ConvTranspose weight that a graph output redeclares with rank 0: libonnx 1.12's shape
    // inference would take the output's type for it and crash (SIGSEGV in
    // convTransposeShapeInference1; python3-onnx's infer_shapes dies on this file the same way),
    // so the loader refuses it before inference runs.
    expectError(std::string(GRAPHOPT_SOURCE_DIR) +
                    "/tests/data/fuzz-regressions/onnx/convtranspose-weight-redeclared-by-a-graph-output.onnx",
                "tensor 'W' is declared with rank 4 (as a graph input) and with rank 0 (as a graph output)");
}

TEST(OpCosts, ConvWithGroupsStrideAndDilation) {
    // Depthwise 3x3, stride 2, dilation 2 on 1x32x56x56 -> 1x32x26x26 (pads 0).
    Graph g;
    Tensor x{"x", TensorKind::GraphInput, DType::Float32, {1, 32, 56, 56}, true};
    Tensor w{"w", TensorKind::Weight, DType::Float32, {32, 1, 3, 3}, true};
    Tensor y{"y", TensorKind::Activation, DType::Float32, {1, 32, 26, 26}, true};
    int xi = g.addTensor(x), wi = g.addTensor(w), yi = g.addTensor(y);
    Node n;
    n.name = "dw";
    n.op = "Conv";
    n.attrs["group"] = int64_t{32};
    n.attrs["strides"] = std::vector<int64_t>{2, 2};
    n.attrs["dilations"] = std::vector<int64_t>{2, 2};
    n.inputs = {xi, wi};
    n.outputs = {yi};
    g.addNode(n);
    g.finalize();
    EXPECT_TRUE(inferCosts(g).empty());
    // 32*26*26 outputs x (32/32 channels x 9 taps) multiply-adds x 2.
    EXPECT_DOUBLE_EQ(g.nodes()[0].flops, 2.0 * 32 * 26 * 26 * 9);
}

TEST(OpCosts, BatchedMatMulAndUnknownOps) {
    // Attention scores: [1,12,197,64] x [1,12,64,197] -> [1,12,197,197].
    Graph g;
    int q = g.addTensor({"q", TensorKind::GraphInput, DType::Float32, {1, 12, 197, 64}, true});
    int k = g.addTensor({"k", TensorKind::GraphInput, DType::Float32, {1, 12, 64, 197}, true});
    int s = g.addTensor({"s", TensorKind::Activation, DType::Float32, {1, 12, 197, 197}, true});
    int u = g.addTensor({"u", TensorKind::Activation, DType::Float32, {1, 12, 197, 197}, true});
    Node mm;
    mm.name = "scores";
    mm.op = "MatMul";
    mm.inputs = {q, k};
    mm.outputs = {s};
    g.addNode(mm);
    Node odd;
    odd.name = "odd";
    odd.op = "SomethingNew";
    odd.inputs = {s};
    odd.outputs = {u};
    g.addNode(odd);
    g.finalize();
    auto unknown = inferCosts(g);
    EXPECT_DOUBLE_EQ(g.nodes()[0].flops, 2.0 * 12 * 197 * 197 * 64);
    EXPECT_EQ(unknown, std::set<std::string>{"SomethingNew"});
    EXPECT_EQ(g.nodes()[1].flops, 0);
}
