// TensorFlow CostGraphDef (protobuf text format): the hand-written examples in
// tests/data/costgraph and the errors a user can meet.
#include <gtest/gtest.h>

#include "GraphTestFiles.h"
#include "graph/GraphError.h"
#include "graph/Loaders.h"

using namespace graphopt;
using namespace graphopt::test;

namespace {

std::string costGraphErrorFor(const TempDir& dir, const std::string& text, std::string* pathOut = nullptr) {
    return loadErrorFor(dir, "case.pbtxt", text, [](const std::string& path) { loadCostGraphText(path); }, pathOut);
}

}  // namespace

TEST(CostGraphLoader, MlpExample) {
    const Graph g = loadCostGraphText(dataPath("costgraph/mlp.pbtxt"));
    EXPECT_EQ(g.name, "mlp");
    EXPECT_EQ(g.metadata.at("source_format"), "costgraph-text");
    ASSERT_EQ(g.nodeCount(), 6u);
    EXPECT_EQ(g.tensorCount(), 5u);
    EXPECT_EQ(g.edges().size(), 5u);  // 4 data edges + 1 control edge

    const Node& mm = nodeNamed(g, "dense/MatMul");
    EXPECT_EQ(mm.op, "CostGraphNode");
    EXPECT_DOUBLE_EQ(mm.computeCostS, 35e-6);
    EXPECT_EQ(mm.tempBytes, 4096);
    ASSERT_EQ(mm.inputs.size(), 1u);
    EXPECT_EQ(g.tensors()[mm.inputs[0]].name, "x:0");
    EXPECT_EQ(std::get<std::string>(mm.attrs.at("device")), "/job:localhost/replica:0/task:0/device:GPU:0");
    EXPECT_EQ(std::get<int64_t>(mm.attrs.at("persistent_memory_size")), 401408);
    EXPECT_EQ(std::get<int64_t>(mm.attrs.at("compute_time")), 30);
    EXPECT_EQ(std::get<int64_t>(mm.attrs.at("memory_time")), 5);
    EXPECT_EQ(std::get<int64_t>(mm.attrs.at("id")), 2);

    const Tensor& x = tensorNamed(g, "x:0");
    EXPECT_EQ(x.bytes, 3136);
    EXPECT_TRUE(x.shapeKnown);
    EXPECT_EQ(x.shape, (std::vector<int64_t>{1, 784}));
    EXPECT_EQ(x.dtype, DType::Float32);
    EXPECT_EQ(x.aliasInputPort, -1);
    EXPECT_FALSE(x.isGraphOutput);

    EXPECT_EQ(tensorNamed(g, "dense/Relu:0").aliasInputPort, 0);

    const Tensor& probs = tensorNamed(g, "logits/Softmax:0");
    EXPECT_TRUE(probs.isGraphOutput);
    EXPECT_EQ(probs.dtype, DType::Float16);
    EXPECT_EQ(probs.shape, (std::vector<int64_t>{1, -1}));
    EXPECT_EQ(probs.bytes, 40);

    const Node& softmax = nodeNamed(g, "logits/Softmax");
    ASSERT_EQ(softmax.controlInputs.size(), 1u);
    EXPECT_EQ(g.nodes()[softmax.controlInputs[0]].name, "init_done");
    EXPECT_EQ(std::get<int64_t>(softmax.attrs.at("is_final")), 1);
    EXPECT_EQ(std::get<int64_t>(softmax.attrs.at("inaccurate")), 1);
    EXPECT_EQ(softmax.attrs.count("device"), 0u);

    const Node& init = nodeNamed(g, "init_done");
    EXPECT_TRUE(init.outputs.empty());
    EXPECT_DOUBLE_EQ(init.computeCostS, 0.0);  // given as 0: free, not "unknown"
    EXPECT_NO_THROW(g.validate());
}

TEST(CostGraphLoader, RegalStyleExample) {
    const Graph g = loadCostGraphText(dataPath("costgraph/regal_style.pbtxt"));
    ASSERT_EQ(g.nodeCount(), 5u);
    EXPECT_EQ(g.tensorCount(), 6u);
    EXPECT_EQ(g.edges().size(), 6u);  // input->split, split->a, split->b, a->join, b->join, control a->join

    const Node& join = nodeNamed(g, "join");
    ASSERT_EQ(join.inputs.size(), 2u);
    EXPECT_EQ(g.tensors()[join.inputs[0]].name, "a:0");
    EXPECT_EQ(g.tensors()[join.inputs[1]].name, "b:0");
    EXPECT_EQ(join.tempBytes, 2048);
    EXPECT_DOUBLE_EQ(join.computeCostS, 60e-6);
    ASSERT_EQ(join.controlInputs.size(), 1u);
    EXPECT_EQ(g.nodes()[join.controlInputs[0]].name, "a");

    const Node& b = nodeNamed(g, "b");
    ASSERT_EQ(b.inputs.size(), 1u);
    EXPECT_EQ(g.tensors()[b.inputs[0]].name, "split:1");
    EXPECT_EQ(tensorNamed(g, "split:1").producerPort, 1);
    EXPECT_EQ(tensorNamed(g, "b:0").aliasInputPort, 0);

    const Tensor& a = tensorNamed(g, "a:0");
    EXPECT_EQ(a.bytes, 16384);
    EXPECT_FALSE(a.shapeKnown);
    EXPECT_EQ(a.dtype, DType::Unknown);

    int outputs = 0;
    for (const auto& t : g.tensors()) outputs += t.isGraphOutput;
    EXPECT_EQ(outputs, 1);
    EXPECT_TRUE(tensorNamed(g, "join:0").isGraphOutput);
    // Edges carry the tensor's bytes.
    for (const auto& e : g.edges())
        if (e.tensor >= 0) {
            EXPECT_EQ(e.bytes, g.tensors()[e.tensor].bytes);
        }
    EXPECT_EQ(g.topologicalOrder().front(), g.findNode("input"));
}

TEST(CostGraphLoader, UnknownFieldsAreSkippedQuietly) {
    testing::internal::CaptureStderr();
    const Graph g = loadCostGraphText(dataPath("costgraph/future_fields.pbtxt"));
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
    ASSERT_EQ(g.nodeCount(), 2u);
    const Node& consumer = nodeNamed(g, "consumer");
    EXPECT_EQ(consumer.inputs.size(), 1u);
    EXPECT_EQ(consumer.controlInputs.size(), 2u);  // port -1 and control_input
    EXPECT_EQ(tensorNamed(g, "producer:0").dtype, DType::Int64);
    EXPECT_EQ(tensorNamed(g, "producer:0").shape, (std::vector<int64_t>{16}));
    EXPECT_EQ(tensorNamed(g, "consumer:0").dtype, DType::Float32);  // DT_FLOAT_REF
    EXPECT_FALSE(tensorNamed(g, "consumer:0").shapeKnown);          // unknown_rank
    EXPECT_LT(nodeNamed(g, "consumer").computeCostS, 0);            // not given
}

TEST(CostGraphLoader, ErrorsNameTheFileAndTheNode) {
    TempDir dir;
    std::string path;
    const std::string a = "node { name: \"a\" id: 1 output_info { size: 4 } }\n";

    std::string e = costGraphErrorFor(dir, a + "node { name: \"b\" id: 2 input_info { preceding_node: 9 } }\n", &path);
    EXPECT_EQ(e.rfind(path + ": ", 0), 0u) << e;
    EXPECT_NE(e.find("node 'b' (id 2) input 0 reads node id 9, which does not exist"), std::string::npos) << e;

    e = costGraphErrorFor(dir, a + "node { name: \"b\" id: 2 input_info { preceding_node: 1 preceding_port: 3 } }\n");
    EXPECT_NE(e.find("node 'b' (id 2) input 0 reads port 3 of node 'a', which has 1 outputs"), std::string::npos) << e;

    e = costGraphErrorFor(dir, a + "node { name: \"b\" id: 1 }\n");
    EXPECT_NE(e.find("node 'b' (id 1) reuses the id of node 'a'"), std::string::npos) << e;

    e = costGraphErrorFor(dir, a + "node { name: \"a\" id: 2 }\n");
    EXPECT_NE(e.find("duplicate node name 'a'"), std::string::npos) << e;

    e = costGraphErrorFor(dir, a + "node { name: \"b\" id: 2 control_input: 5 }\n");
    EXPECT_NE(e.find("node 'b' (id 2) has control input id 5, which does not exist"), std::string::npos) << e;

    e = costGraphErrorFor(dir,
                 "node { name: \"a\" id: 1 input_info { preceding_node: 2 } output_info { size: 4 } }\n"
                 "node { name: \"b\" id: 2 input_info { preceding_node: 1 } output_info { size: 4 } }\n");
    EXPECT_NE(e.find("cycle"), std::string::npos) << e;

    e = costGraphErrorFor(dir, "node { name: \"a\" id: 1 compute_cost: -3 }\n");
    EXPECT_NE(e.find("negative compute_cost"), std::string::npos) << e;

    e = costGraphErrorFor(dir, "node { id: 1 }\n");
    EXPECT_NE(e.find("node #1 (id 1) has no name"), std::string::npos) << e;
}

TEST(CostGraphLoader, ParseErrorsGiveLineAndColumnWithoutStderr) {
    TempDir dir;
    std::string path;
    testing::internal::CaptureStderr();
    std::string e = costGraphErrorFor(dir, "node {\n  name: \"a\"\n  id: x\n}\n", &path);
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
    EXPECT_EQ(e.rfind(path + ": line 3 col ", 0), 0u) << e;

    e = costGraphErrorFor(dir, "node { name: \"a\" id: 1 output_info { dtype: DT_NOT_A_TYPE } }\n");
    EXPECT_EQ(e.rfind(path + ": line 1 col ", 0), 0u) << e;

    e = costGraphErrorFor(dir, "node { name: \"a\"");  // truncated
    EXPECT_EQ(e.rfind(path + ": line 1 col ", 0), 0u) << e;

    e = costGraphErrorFor(dir, " \n\t\n");
    EXPECT_EQ(e, path + ": the file is empty");
    e = costGraphErrorFor(dir, "# only a comment\n");
    EXPECT_EQ(e, path + ": no nodes (empty file, or not a CostGraphDef)");

    e = costGraphErrorFor(dir, std::string("node {\0\x01\x02}", 11));
    EXPECT_EQ(e, path + ": binary data, not a CostGraphDef in protobuf text format");

    std::string deep;
    for (int i = 0; i < 10000; ++i) deep += "x { ";
    e = costGraphErrorFor(dir, "node { name: \"a\" id: 1 " + deep);
    EXPECT_NE(e.find("nested more than 64 levels"), std::string::npos) << e;
}

TEST(CostGraphLoader, FileWithoutIdsNumbersNodesInOrder) {
    TempDir dir;
    const std::string path = dir.file("noids.pbtxt");
    writeBytes(path,
               "node { name: \"a\" output_info { size: 4 } }\n"
               "node { name: \"b\" input_info { preceding_node: 0 } output_info { size: 8 } }\n");
    const Graph g = loadCostGraphText(path);
    ASSERT_EQ(g.nodeCount(), 2u);
    ASSERT_EQ(g.nodes()[1].inputs.size(), 1u);
    EXPECT_EQ(g.tensors()[g.nodes()[1].inputs[0]].name, "a:0");
    // As soon as one node has an id, all ids count: two nodes without one share id 0.
    writeBytes(path, "node { name: \"a\" } node { name: \"b\" } node { name: \"c\" id: 5 }\n");
    EXPECT_THROW(loadCostGraphText(path), GraphError);
}

TEST(CostGraphLoader, MissingFileAndDirectory) {
    TempDir dir;
    const std::string missing = dir.file("nope.pbtxt");
    try {
        loadCostGraphText(missing);
        FAIL() << "loaded a missing file";
    } catch (const GraphError& e) {
        EXPECT_EQ(std::string(e.what()).rfind(missing + ": ", 0), 0u) << e.what();
    }
    try {
        loadCostGraphText(dir.path());
        FAIL() << "loaded a directory";
    } catch (const GraphError& e) {
        EXPECT_EQ(std::string(e.what()).rfind(dir.path() + ": ", 0), 0u) << e.what();
    }
}

TEST(CostGraphLoader, LoadGraphPicksItByExtension) {
    const Graph g = loadGraph(dataPath("costgraph/regal_style.pbtxt"));
    EXPECT_EQ(g.nodeCount(), 5u);
}
