// Shape folding in the ONNX loader (graph/OnnxFolding.h) and the FLOP formulas of sequence
// models: the bundled Transformer encoder and LSTM were exported as a user exports a model
// (no constant folding, symbolic batch), so their reshape targets are computed at run time.
#include <gtest/gtest.h>

#include <cstring>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <limits>

#include "graph/GraphCompleteness.h"
#include "graph/GraphError.h"
#include "graph/Loaders.h"
#include "graph/OnnxFolding.h"
#include "ScratchFolder.h"
#include "GraphTestFiles.h"

namespace fs = std::filesystem;
using namespace graphopt;
using graphopt::test::kModels;
using graphopt::test::tensorNamed;

namespace {


// The Transformer encoder of tools/export_models.py: d_model 256, 8 heads, feed-forward 1024,
// 4 layers, sequence 128.
struct TransformerConfig {
    double d = 256, heads = 8, ff = 1024, layers = 4, seq = 128;
};

// Hand count for a batch of `batch`: the matrix products (multiply-add = 2) and the bias adds.
double transformerFlopsByHand(double batch, const TransformerConfig& c = {}) {
    const double S = c.seq, D = c.d, F = c.ff, B = batch;
    const double qkv = 2 * B * S * D * 3 * D + B * S * 3 * D;   // in_proj (MatMul + bias Add)
    const double scores = 2 * B * c.heads * S * S * (D / c.heads);  // Q K^T
    const double mix = 2 * B * c.heads * S * S * (D / c.heads);     // softmax(.) V
    const double out = 2 * B * S * D * D + B * S * D;              // out_proj (Gemm with bias)
    const double ffn = 2 * B * S * D * F + B * S * F + 2 * B * S * F * D + B * S * D;
    return c.layers * (qkv + scores + mix + out + ffn);
}

// The LSTM of tools/export_models.py: input 256, hidden 512, 2 layers, sequence 64. Per step
// and batch row, layer l does 4 gates x (W x + R h): 2 * 4H * (I_l + H).
double lstmFlopsByHand(double batch) {
    const double H = 512, T = 64;
    return T * batch * (2 * 4 * H * (256 + H) + 2 * 4 * H * (H + H));
}

void expectEveryTensorShaped(const Graph& g) {
    for (const auto& t : g.tensors()) EXPECT_TRUE(t.shapeKnown) << t.name;
    const auto c = graphCompleteness(g);
    EXPECT_EQ(c.tensorsWithoutShape, 0);
    EXPECT_EQ(c.nodesWithoutFlops, 0);
    EXPECT_TRUE(c.warning().empty()) << c.warning();
}

// --- small hand-made models --------------------------------------------------------------

onnx::NodeProto* addNode(onnx::GraphProto& g, const std::string& op, std::vector<std::string> in,
                         std::vector<std::string> out) {
    auto* n = g.add_node();
    n->set_op_type(op);
    n->set_name(out.empty() ? op : out[0]);
    for (auto& s : in) n->add_input(s);
    for (auto& s : out) n->add_output(s);
    return n;
}

void addIntsConstant(onnx::GraphProto& g, const std::string& name, std::vector<int64_t> values, bool scalar = false) {
    auto* n = addNode(g, "Constant", {}, {name});
    auto* a = n->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    auto* t = a->mutable_t();
    t->set_data_type(onnx::TensorProto::INT64);
    if (!scalar) t->add_dims(static_cast<int64_t>(values.size()));
    for (int64_t v : values) t->add_int64_data(v);
}

void addInt(onnx::NodeProto* n, const std::string& name, int64_t v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
}

void addValue(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list, const std::string& name,
              std::vector<std::string> dims, int type = onnx::TensorProto::FLOAT) {
    auto* v = list->Add();
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(type);
    auto* shape = tt->mutable_shape();
    for (const auto& d : dims) {
        auto* dim = shape->add_dim();
        if (!d.empty() && std::isdigit(static_cast<unsigned char>(d[0])))
            dim->set_dim_value(std::stoll(d));
        else
            dim->set_dim_param(d);
    }
}

// x[batch, 8, 16] -> Reshape(x, [Shape(x)[0], 8 * 16]) -> MatMul with w[128, 32] -> y:
// what an exporter writes for `x.view(x.size(0), -1) @ w`.
onnx::ModelProto flattenThenMatMul() {
    onnx::ModelProto m;
    m.set_ir_version(7);
    auto* op = m.add_opset_import();
    op->set_version(13);
    auto& g = *m.mutable_graph();
    g.set_name("fold");
    addValue(g.mutable_input(), "x", {"batch", "8", "16"});
    addValue(g.mutable_input(), "w", {"128", "32"});
    addNode(g, "Shape", {"x"}, {"shape"});
    addIntsConstant(g, "zero", {0}, true);
    addInt(addNode(g, "Gather", {"shape", "zero"}, {"n"}), "axis", 0);
    addIntsConstant(g, "axes0", {0});
    addNode(g, "Unsqueeze", {"n", "axes0"}, {"n1"});
    addIntsConstant(g, "eight", {8});
    addIntsConstant(g, "sixteen", {16});
    addNode(g, "Mul", {"eight", "sixteen"}, {"features"});
    addInt(addNode(g, "Concat", {"n1", "features"}, {"target"}), "axis", 0);
    addNode(g, "Reshape", {"x", "target"}, {"flat"});
    addNode(g, "MatMul", {"flat", "w"}, {"y"});
    addValue(g.mutable_output(), "y", {"batch", "32"});
    auto* meta = m.add_metadata_props();
    meta->set_key("graphopt.data_inputs");
    meta->set_value("x");
    return m;
}

std::string save(const onnx::ModelProto& m, const std::string& stem) {
    static const graphopt::test_support::ScratchFolder scratch("graphopt-fold-");  // removed at exit
    const std::string path = (scratch.dir / (stem + ".onnx")).string();
    std::ofstream out(path, std::ios::binary);
    m.SerializeToOstream(&out);
    return path;
}


}  // namespace

TEST(OnnxFolding, TransformerEncoderIsFullyShapedAndCountedAsByHand) {
    const Graph g = loadGraph(kModels + "transformer_encoder.onnx");
    expectEveryTensorShaped(g);
    const double byHand = transformerFlopsByHand(1);
    EXPECT_NEAR(g.totalFlops(), byHand, 0.05 * byHand) << "hand count " << byHand;
    // The reshape chains were folded and the symbolic batch given its default.
    EXPECT_GT(std::stoi(g.metadata.at("onnx.folded_nodes")), 50);
    EXPECT_EQ(g.metadata.at("onnx.input_dims"), "input:batch=1");
    for (const auto& n : g.nodes()) EXPECT_NE(n.op, "Shape") << n.name << " was not folded";
    int matmuls = 0;
    for (const auto& n : g.nodes()) matmuls += n.op == "MatMul";
    EXPECT_EQ(matmuls, 20);  // per layer: in_proj, Q K^T, A V, linear1, linear2
}

TEST(OnnxFolding, LstmIsFullyShapedAndCountedAsByHand) {
    const Graph g = loadGraph(kModels + "lstm.onnx");
    expectEveryTensorShaped(g);
    const double byHand = lstmFlopsByHand(1);
    EXPECT_NEAR(g.totalFlops(), byHand, 0.05 * byHand) << "hand count " << byHand;
    int lstms = 0;
    for (const auto& n : g.nodes()) lstms += n.op == "LSTM";
    EXPECT_EQ(lstms, 2);
}

TEST(OnnxFolding, BatchAndInputShapesAreReinferredNotScaled) {
    LoadOptions batch4;
    batch4.batch = 4;
    const Graph t4 = loadGraph(kModels + "transformer_encoder.onnx", batch4);
    expectEveryTensorShaped(t4);
    EXPECT_NEAR(t4.totalFlops(), transformerFlopsByHand(4), 0.05 * transformerFlopsByHand(4));
    EXPECT_EQ(t4.metadata.at("onnx.input_dims"), "input:batch=4");
    EXPECT_EQ(tensorNamed(t4, "input").shape, (std::vector<int64_t>{128, 4, 256}));

    // A shorter sequence: attention cost falls with its square, so this is no scaling.
    LoadOptions shorter;
    shorter.inputShapes["input"] = {64, 2, 256};
    const Graph t = loadGraph(kModels + "transformer_encoder.onnx", shorter);
    expectEveryTensorShaped(t);
    TransformerConfig c;
    c.seq = 64;
    EXPECT_NEAR(t.totalFlops(), transformerFlopsByHand(2, c), 0.05 * transformerFlopsByHand(2, c));

    LoadOptions lstm8;
    lstm8.batch = 8;
    const Graph l = loadGraph(kModels + "lstm.onnx", lstm8);
    expectEveryTensorShaped(l);
    EXPECT_NEAR(l.totalFlops(), lstmFlopsByHand(8), 0.05 * lstmFlopsByHand(8));
}

TEST(OnnxFolding, BadInputShapesAreClearErrors) {
    auto expectError = [](const LoadOptions& o, const std::string& needle) {
        const std::string path = kModels + "transformer_encoder.onnx";
        try {
            loadGraph(path, o);
            ADD_FAILURE() << "loaded";
        } catch (const GraphError& e) {
            const std::string msg = e.what();
            EXPECT_EQ(msg.rfind(path + ": ", 0), 0u) << msg;
            EXPECT_NE(msg.find(needle), std::string::npos) << msg;
        }
    };
    LoadOptions wrongName;
    wrongName.inputShapes["image"] = {1, 3, 224, 224};
    expectError(wrongName, "no input named 'image'");
    LoadOptions wrongRank;
    wrongRank.inputShapes["input"] = {128, 256};
    expectError(wrongRank, "rank 3");
    LoadOptions zero;
    zero.inputShapes["input"] = {0, 1, 256};
    EXPECT_NO_THROW(loadGraph(kModels + "transformer_encoder.onnx", zero));  // an empty sequence is a shape too
    // Only ONNX files have input shapes to set.
    try {
        loadGraph(std::string(GRAPHOPT_SOURCE_DIR) + "/tests/data/dot/plain.dot", LoadOptions{{}, 4});
        ADD_FAILURE() << "batch accepted for DOT";
    } catch (const GraphError& e) {
        EXPECT_NE(std::string(e.what()).find("only be set for ONNX"), std::string::npos) << e.what();
    }
}

TEST(OnnxFolding, ShapeChainBecomesAConstantReshapeTarget) {
    const std::string path = save(flattenThenMatMul(), "chain");
    const Graph g = loadOnnx(path);
    EXPECT_EQ(tensorNamed(g, "flat").shape, (std::vector<int64_t>{1, 128}));
    EXPECT_EQ(tensorNamed(g, "y").shape, (std::vector<int64_t>{1, 32}));
    EXPECT_DOUBLE_EQ(g.totalFlops(), 2.0 * 128 * 32);
    // Shape, Gather, Unsqueeze, Mul and Concat are gone; the target is a constant (a weight).
    ASSERT_EQ(g.nodeCount(), 2u);
    EXPECT_EQ(tensorNamed(g, "target").kind, TensorKind::Weight);

    LoadOptions b;
    b.batch = 6;
    const Graph g6 = loadOnnx(path, b);
    EXPECT_EQ(tensorNamed(g6, "y").shape, (std::vector<int64_t>{6, 32}));
}

TEST(OnnxFolding, EvaluatesSliceRangeWhereAndIntegerDivisionAsOnnxDefinesThem) {
    onnx::ModelProto m;
    m.set_ir_version(7);
    m.add_opset_import()->set_version(13);
    auto& g = *m.mutable_graph();
    addValue(g.mutable_input(), "x", {"2", "3", "10"});
    addNode(g, "Shape", {"x"}, {"s"});                       // [2, 3, 10]
    addIntsConstant(g, "start", {-2});
    addIntsConstant(g, "end", {std::numeric_limits<int64_t>::max()});
    addNode(g, "Slice", {"s", "start", "end"}, {"tail"});     // [3, 10]
    addIntsConstant(g, "minus7", {-7});
    addIntsConstant(g, "two", {2});
    addNode(g, "Div", {"minus7", "two"}, {"q"});              // -3: truncation, not floor
    addNode(g, "Mod", {"minus7", "two"}, {"r"});              // 1: sign of the divisor
    addIntsConstant(g, "r0", {0}, true);
    addIntsConstant(g, "r5", {5}, true);
    addIntsConstant(g, "r1", {1}, true);
    addNode(g, "Range", {"r0", "r5", "r1"}, {"range"});       // [0..4]
    addNode(g, "Less", {"range", "two"}, {"small"});
    addNode(g, "Where", {"small", "range", "two"}, {"w"});    // [0, 1, 2, 2, 2]
    addInt(addNode(g, "Concat", {"tail", "q", "r", "w"}, {"all"}), "axis", 0);
    // Reshape x to [3, 20] via ReduceProd of the tail... keep it simple: use "all" as data.
    addNode(g, "Cast", {"all"}, {"allf"})->add_attribute()->CopyFrom([] {
        onnx::AttributeProto a;
        a.set_name("to");
        a.set_type(onnx::AttributeProto::INT);
        a.set_i(onnx::TensorProto::FLOAT);
        return a;
    }());
    addNode(g, "Relu", {"allf"}, {"out"});
    addValue(g.mutable_output(), "out", {"10"});

    onnxfold::foldShapeComputations(m);
    // Everything but Relu was folded into the constant "allf".
    ASSERT_EQ(m.graph().node_size(), 2);
    const auto& c = m.graph().node(0);
    ASSERT_EQ(c.op_type(), "Constant");
    ASSERT_EQ(c.output(0), "allf");
    const auto& t = c.attribute(0).t();
    std::vector<float> values(t.float_data().begin(), t.float_data().end());
    EXPECT_EQ(values, (std::vector<float>{3, 10, -3, 1, 0, 1, 2, 2, 2}));
}

TEST(OnnxFolding, LeavesWhatItCannotOrShouldNotEvaluate) {
    onnx::ModelProto m;
    m.set_ir_version(7);
    m.add_opset_import()->set_version(13);
    auto& g = *m.mutable_graph();
    addValue(g.mutable_input(), "x", {"4"}, onnx::TensorProto::INT64);
    addIntsConstant(g, "one", {1});
    addIntsConstant(g, "zero", {0});
    addNode(g, "Div", {"one", "zero"}, {"nan"});                 // division by zero: stays
    addNode(g, "Add", {"x", "nan"}, {"o1"});
    addIntsConstant(g, "big", {100000, 1000});
    addNode(g, "ConstantOfShape", {"big"}, {"huge"});            // 1e8 elements: stays
    addNode(g, "Relu", {"huge"}, {"o2"});
    addNode(g, "Shape", {"x"}, {"sx"});                          // writes a graph output: stays
    addNode(g, "Add", {"x", "one"}, {"data"});                   // reads a real input: stays
    addValue(g.mutable_output(), "o1", {"4"}, onnx::TensorProto::INT64);
    addValue(g.mutable_output(), "o2", {"100000", "1000"});
    addValue(g.mutable_output(), "sx", {"1"}, onnx::TensorProto::INT64);
    addValue(g.mutable_output(), "data", {"4"}, onnx::TensorProto::INT64);
    const auto stats = onnxfold::foldShapeComputations(m);
    EXPECT_EQ(stats.foldedNodes, 0);
    std::vector<std::string> ops;
    for (const auto& n : m.graph().node()) ops.push_back(n.op_type());
    EXPECT_EQ(ops, (std::vector<std::string>{"Constant", "Constant", "Div", "Add", "Constant", "ConstantOfShape", "Relu",
                                             "Shape", "Add"}));
}

// ViT's and Swin's exports expand a constant to a shape computed from the input (Expand of a
// float constant to [Shape(x)[0], 1, 4]): folding it read past the end of the target shape's
// elements and crashed (found on Swin-T exported with a symbolic batch).
TEST(OnnxFolding, ExpandsAFloatConstantToAComputedShape) {
    onnx::ModelProto m;
    m.set_ir_version(7);
    m.add_opset_import()->set_version(13);
    auto& g = *m.mutable_graph();
    g.set_name("expand");
    addValue(g.mutable_input(), "x", {"batch", "3", "4"});
    {
        auto* n = addNode(g, "Constant", {}, {"token"});
        auto* a = n->add_attribute();
        a->set_name("value");
        a->set_type(onnx::AttributeProto::TENSOR);
        auto* t = a->mutable_t();
        t->set_data_type(onnx::TensorProto::FLOAT);
        for (int64_t d : {1, 1, 4}) t->add_dims(d);
        for (float v : {0.5f, 1.5f, 2.5f, 3.5f}) t->add_float_data(v);
    }
    addNode(g, "Shape", {"x"}, {"s"});
    addIntsConstant(g, "zero", {0}, /*scalar=*/true);
    addInt(addNode(g, "Gather", {"s", "zero"}, {"n"}), "axis", 0);
    addIntsConstant(g, "axes0", {0});
    addNode(g, "Unsqueeze", {"n", "axes0"}, {"n1"});
    addIntsConstant(g, "rest", {1, 4});
    addInt(addNode(g, "Concat", {"n1", "rest"}, {"target"}), "axis", 0);
    addNode(g, "Expand", {"token", "target"}, {"tokens"});
    addInt(addNode(g, "Concat", {"tokens", "x"}, {"y"}), "axis", 1);
    addValue(g.mutable_output(), "y", {"batch", "4", "4"});
    const std::string path = save(m, "expand");
    LoadOptions b;
    b.batch = 5;
    const Graph g5 = loadOnnx(path, b);
    EXPECT_EQ(tensorNamed(g5, "y").shape, (std::vector<int64_t>{5, 4, 4}));
    EXPECT_EQ(tensorNamed(g5, "tokens").shape, (std::vector<int64_t>{5, 1, 4}));
}

// Swin's attention masks are built by ScatterND into a ConstantOfShape: folded, so the file
// exported with a symbolic batch loads into the same graph as the one folded at export.
TEST(OnnxFolding, ScatterNDWritesItsUpdatesWhereTheIndicesSay) {
    onnx::ModelProto m;
    m.set_ir_version(7);
    m.add_opset_import()->set_version(13);
    auto& g = *m.mutable_graph();
    addValue(g.mutable_input(), "x", {"2", "3"});
    auto constant = [&](const std::string& name, int type, std::vector<int64_t> dims, std::vector<double> values) {
        auto* a = addNode(g, "Constant", {}, {name})->add_attribute();
        a->set_name("value");
        a->set_type(onnx::AttributeProto::TENSOR);
        auto* t = a->mutable_t();
        t->set_data_type(type);
        for (int64_t d : dims) t->add_dims(d);
        for (double v : values) {
            if (type == onnx::TensorProto::FLOAT) t->add_float_data(float(v));
            else t->add_int64_data(int64_t(v));
        }
    };
    addIntsConstant(g, "shape", {2, 3});
    addNode(g, "ConstantOfShape", {"shape"}, {"zeros"});
    constant("rows", onnx::TensorProto::INT64, {1, 1}, {-1});  // the last row
    constant("row", onnx::TensorProto::FLOAT, {1, 3}, {7, 8, 9});
    addNode(g, "ScatterND", {"zeros", "rows", "row"}, {"mask"});
    constant("cell", onnx::TensorProto::INT64, {1, 2}, {0, 1});
    constant("one", onnx::TensorProto::FLOAT, {1}, {5});
    addNode(g, "ScatterND", {"mask", "cell", "one"}, {"mask2"});
    addNode(g, "Add", {"x", "mask2"}, {"y"});
    addValue(g.mutable_output(), "y", {"2", "3"});
    const auto stats = onnxfold::foldShapeComputations(m);
    EXPECT_EQ(stats.foldedNodes, 3);  // ConstantOfShape and both ScatterND
    const onnx::TensorProto* folded = nullptr;
    for (const auto& n : m.graph().node())
        if (n.op_type() == "Constant" && n.output(0) == "mask2") folded = &n.attribute(0).t();
    ASSERT_NE(folded, nullptr);
    std::vector<float> values;
    if (folded->has_raw_data()) {
        values.resize(folded->raw_data().size() / sizeof(float));
        std::memcpy(values.data(), folded->raw_data().data(), folded->raw_data().size());
    } else {
        values.assign(folded->float_data().begin(), folded->float_data().end());
    }
    EXPECT_EQ(values, (std::vector<float>{0, 5, 0, 7, 8, 9}));
}
