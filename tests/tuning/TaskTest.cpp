#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "graph/Graph.h"
#include "graph/Loaders.h"
#include "tuning/Reference.h"
#include "tuning/Task.h"
#include "tuning/TemplateSpace.h"

using namespace graphopt;
using namespace graphopt::tuning;
using graphopt::Rng;

namespace {

int addT(Graph& g, const std::string& name, std::vector<int64_t> shape, TensorKind kind = TensorKind::Activation) {
    Tensor t;
    t.name = name;
    t.kind = kind;
    t.shape = std::move(shape);
    t.shapeKnown = true;
    return g.addTensor(t);
}

void addConv(Graph& g, const std::string& name, int x, int w, int y, int64_t group, std::vector<int64_t> strides,
             std::vector<int64_t> pads, std::vector<int64_t> dil = {1, 1}) {
    Node n;
    n.name = name;
    n.op = "Conv";
    n.inputs = {x, w};
    n.outputs = {y};
    n.attrs["group"] = group;
    n.attrs["strides"] = strides;
    n.attrs["pads"] = pads;
    n.attrs["dilations"] = dil;
    g.addNode(n);
}

}  // namespace

TEST(Task, ExtractsConvDepthwiseAndDenseAndMergesRepeats) {
    Graph g;
    const int x = addT(g, "x", {1, 8, 16, 16}, TensorKind::GraphInput);
    const int w1 = addT(g, "w1", {8, 8, 3, 3}, TensorKind::Weight);
    const int y1 = addT(g, "y1", {1, 8, 16, 16});
    const int y2 = addT(g, "y2", {1, 8, 16, 16});
    const int wd = addT(g, "wd", {16, 1, 3, 3}, TensorKind::Weight);
    const int y3 = addT(g, "y3", {1, 16, 8, 8});
    const int wg = addT(g, "wg", {16, 4, 1, 1}, TensorKind::Weight);
    const int y4 = addT(g, "y4", {1, 16, 8, 8});
    const int a = addT(g, "a", {4, 1024});
    const int b = addT(g, "b", {10, 1024}, TensorKind::Weight);
    const int y5 = addT(g, "y5", {4, 10});
    addConv(g, "c1", x, w1, y1, 1, {1, 1}, {1, 1, 1, 1});
    addConv(g, "c2", y1, w1, y2, 1, {1, 1}, {1, 1, 1, 1});            // same shapes as c1
    addConv(g, "dw", y2, wd, y3, 8, {2, 2}, {1, 1, 1, 1});            // depthwise, multiplier 2
    addConv(g, "grp", y3, wg, y4, 4, {1, 1}, {0, 0, 0, 0});           // grouped 1x1
    Node gemm;
    gemm.name = "fc";
    gemm.op = "Gemm";
    gemm.inputs = {a, b};
    gemm.outputs = {y5};
    gemm.attrs["transB"] = int64_t(1);
    g.addNode(gemm);
    g.finalize();

    std::vector<std::string> skipped;
    const auto tasks = extractTasks(g, &skipped);
    ASSERT_EQ(tasks.size(), 4u);
    EXPECT_TRUE(skipped.empty());
    EXPECT_EQ(tasks[0].kind, TaskKind::Conv2d);
    EXPECT_EQ(tasks[0].weight, 2);
    EXPECT_EQ(tasks[0].nodes, (std::vector<std::string>{"c1", "c2"}));
    EXPECT_DOUBLE_EQ(tasks[0].flops(), 2.0 * 8 * 16 * 16 * 8 * 9);
    EXPECT_EQ(tasks[1].kind, TaskKind::DepthwiseConv2d);
    EXPECT_EQ(tasks[1].outH(), 8);
    EXPECT_EQ(tasks[1].outC, 16);
    EXPECT_DOUBLE_EQ(tasks[1].flops(), 2.0 * 16 * 8 * 8 * 9);
    EXPECT_EQ(tasks[2].kind, TaskKind::Conv2d);
    EXPECT_EQ(tasks[2].groups, 4);
    EXPECT_EQ(tasks[2].reductionLength(), 4);
    EXPECT_EQ(tasks[3].kind, TaskKind::Dense);
    EXPECT_EQ(tasks[3].m, 4);
    EXPECT_EQ(tasks[3].n, 10);
    EXPECT_EQ(tasks[3].k, 1024);
    EXPECT_DOUBLE_EQ(tasks[3].flops(), 2.0 * 4 * 10 * 1024);
}

TEST(Task, DilationAndAsymmetricPadsGiveTheRightOutput) {
    TuningTask t = makeConv2d(1, 4, 17, 13, 8, 3, 2, 0);
    t.dilationH = 2;
    t.padTop = 2, t.padBottom = 1, t.padLeft = 0, t.padRight = 3;
    t.validate();
    EXPECT_EQ(t.outH(), (17 + 3 - 5) / 2 + 1);
    EXPECT_EQ(t.outW(), (13 + 3 - 3) / 2 + 1);
    EXPECT_EQ(TuningTask::fromJson(t.toJson()).key(), t.key());
}

TEST(Task, ResNet18HasElevenConvTasksAndOneDense) {
    const std::string path = std::string(GRAPHOPT_SOURCE_DIR) + "/resources/models/resnet18.onnx";
    ASSERT_TRUE(std::filesystem::exists(path)) << "resnet18.onnx not bundled (a committed or installed resource is missing)";
    const auto tasks = extractTasks(loadGraph(path));
    int convTasks = 0, convUses = 0, dense = 0;
    double flops = 0;
    for (const auto& t : tasks) {
        if (t.kind == TaskKind::Conv2d) ++convTasks, convUses += t.weight;
        if (t.kind == TaskKind::Dense) ++dense;
        flops += t.flops() * t.weight;
        EXPECT_GT(templateSpace(t).size(), 1u) << t.describe();
    }
    EXPECT_EQ(convTasks, 11);
    EXPECT_EQ(convUses, 20);
    EXPECT_EQ(dense, 1);
    EXPECT_NEAR(flops / 1e9, 3.63, 0.05);  // the usual 1.8 G multiply-adds
    // The 3x3 64-channel layer of the first stage is used four times.
    bool found = false;
    for (const auto& t : tasks)
        if (t.inC == 64 && t.outC == 64 && t.inH == 56 && t.kernelH == 3) {
            found = true;
            EXPECT_EQ(t.weight, 4);
        }
    EXPECT_TRUE(found);
}

TEST(Reference, CheckRejectsAWrongOutputAndAcceptsRounding) {
    const TuningTask t = makeConv2d(1, 3, 6, 6, 4, 3, 1, 1);
    const TaskData d = makeTaskData(t);
    std::vector<float> out = d.reference;
    for (auto& v : out) v *= 1.0f + 1e-6f;
    EXPECT_TRUE(checkOutput(t, d.reference, out.data()).ok);
    out[7] += 0.3f;
    const CheckResult c = checkOutput(t, d.reference, out.data());
    EXPECT_FALSE(c.ok);
    EXPECT_EQ(c.worstIndex, 7);
    EXPECT_NE(c.message.find("element 7"), std::string::npos);
}

TEST(Reference, DenseMatchesAHandComputedProduct) {
    TuningTask t = makeDense(2, 3, 2);
    // A = [[1,2],[3,4]], B = [[1,0,2],[0,1,3]]
    const auto y = referenceKernel(t, {1, 2, 3, 4}, {1, 0, 2, 0, 1, 3});
    EXPECT_EQ(y, (std::vector<float>{1, 2, 8, 3, 4, 18}));
}

TEST(Reference, BatchMatMulUsesEachMatrixsOwnB) {
    const TuningTask t = makeBatchMatMul(2, 1, 2, 2);
    // Batch 0: [1,2] x [[1,0],[0,1]] = [1,2]; batch 1: [1,2] x [[0,1],[1,0]] = [2,1].
    const auto y = referenceKernel(t, {1, 2, 1, 2}, {1, 0, 0, 1, 0, 1, 1, 0});
    EXPECT_EQ(y, (std::vector<float>{1, 2, 2, 1}));
    EXPECT_EQ(t.inputElements(), 4);
    EXPECT_EQ(t.weightElements(), 8);
    EXPECT_EQ(t.outputElements(), 4);
    EXPECT_DOUBLE_EQ(t.flops(), 2.0 * 2 * 1 * 2 * 2);
    const TuningTask back = TuningTask::fromJson(t.toJson());
    EXPECT_EQ(back.key(), t.key());
    EXPECT_EQ(back.kind, TaskKind::BatchMatMul);
    EXPECT_NE(t.key(), makeDense(1, 2, 2).key());
    EXPECT_THROW(makeBatchMatMul(0, 1, 2, 2), std::invalid_argument);
}

// The bundled Transformer encoder (exported without constant folding: its reshape targets are
// folded by the loader) has dense tasks for its projections and feed-forward layers and
// batch_matmul tasks for attention's Q K^T and A V, one per layer each, and nothing skipped.
TEST(Task, TransformerEncoderHasDenseAndBatchedMatMulTasks) {
    const auto g = loadGraph(std::string(GRAPHOPT_SOURCE_DIR) + "/resources/models/transformer_encoder.onnx");
    std::vector<std::string> skipped;
    const auto tasks = extractTasks(g, &skipped);
    EXPECT_TRUE(skipped.empty()) << skipped.front();
    std::map<std::string, int> uses;
    for (const auto& t : tasks) uses[t.describe()] = t.weight;
    // 8 heads of 128x32 queries against 32x128 keys, then 128x128 weights against 128x32 values.
    EXPECT_EQ(uses["batch_matmul 8 x 128x32 * 32x128"], 4);
    EXPECT_EQ(uses["batch_matmul 8 x 128x128 * 128x32"], 4);
    EXPECT_EQ(uses["dense 128x256 * 256x768"], 4);   // the packed Q, K, V projection
    EXPECT_EQ(uses["dense 128x256 * 256x1024"], 4);  // feed-forward up
    EXPECT_EQ(uses["dense 128x1024 * 1024x256"], 4); // and down
    double flops = 0;
    for (const auto& t : tasks) flops += t.flops() * t.weight;
    EXPECT_NEAR(flops / g.totalFlops(), 0.99, 0.01);  // the products are nearly all of the work
}

TEST(Task, MatMulThatBroadcastsABatchIsSkippedWithTheReason) {
    Graph g;
    const int a = addT(g, "a", {4, 16, 8}, TensorKind::GraphInput);
    const int b = addT(g, "b", {1, 8, 32});
    const int y = addT(g, "y", {4, 16, 32});
    Node n;
    n.name = "mm";
    n.op = "MatMul";
    n.inputs = {a, b};
    n.outputs = {y};
    g.addNode(n);
    g.finalize();
    std::vector<std::string> skipped;
    EXPECT_TRUE(extractTasks(g, &skipped).empty());
    ASSERT_EQ(skipped.size(), 1u);
    EXPECT_NE(skipped[0].find("broadcast"), std::string::npos) << skipped[0];
}

TEST(Reference, Conv3dMatchesAHandComputedSum) {
    // One channel, a 2x2x2 clip of 1..8, a 2x2x2 window of ones, no padding: one output, 36.
    const TuningTask t = makeConv3d(1, 1, 2, 2, 2, 1, 2, 1, 0);
    EXPECT_EQ(t.outD(), 1);
    EXPECT_EQ(t.outputElements(), 1);
    const auto y = referenceKernel(t, {1, 2, 3, 4, 5, 6, 7, 8}, std::vector<float>(8, 1.0f));
    EXPECT_EQ(y, (std::vector<float>{36}));
    // Padded by one: 3x3x3 outputs; the centre one sees the whole clip, a corner only value 1.
    const TuningTask p = makeConv3d(1, 1, 2, 2, 2, 1, 2, 1, 1);
    EXPECT_EQ(p.outD(), 3);
    const auto yp = referenceKernel(p, {1, 2, 3, 4, 5, 6, 7, 8}, std::vector<float>(8, 1.0f));
    EXPECT_EQ(yp[13], 36);
    EXPECT_EQ(yp[0], 1);
    EXPECT_EQ(TuningTask::fromJson(p.toJson()).key(), p.key());
    TuningTask flat = makeConv2d(1, 4, 8, 8, 4, 3, 1, 1);
    flat.kernelD = 3;
    EXPECT_THROW(flat.validate(), std::invalid_argument);  // a 2-D convolution has no depth
    EXPECT_FALSE(packedTemplateServes(p));
}

// The bundled video model (torchvision's r3d_18 on an 8-frame 112x112 clip): its 3-D
// convolutions become conv3d tasks that carry nearly all of its FLOPs.
TEST(Task, VideoModelHasConv3dTasks) {
    const auto g = loadGraph(std::string(GRAPHOPT_SOURCE_DIR) + "/resources/models/r3d_18.onnx");
    std::vector<std::string> skipped;
    const auto tasks = extractTasks(g, &skipped);
    EXPECT_TRUE(skipped.empty()) << skipped.front();
    int conv3d = 0, uses = 0;
    double flops = 0;
    for (const auto& t : tasks) {
        if (t.kind == TaskKind::Conv3d) ++conv3d, uses += t.weight;
        flops += t.flops() * t.weight;
    }
    EXPECT_EQ(conv3d, 11);
    EXPECT_EQ(uses, 20);  // every Conv of the graph
    EXPECT_NEAR(flops / g.totalFlops(), 1.0, 0.01);
    // The stem: 3x7x7 window, stride 1 in time and 2 in space.
    EXPECT_EQ(tasks[0].describe(), "conv3d 1x3x8x112x112 -> 64x8x56x56 k3x7x7 s1x2x2 p1,3,3,1,3,3");
}
