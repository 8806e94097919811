// The partitioning workload loaders (NeurIPS 2020 JSON, PipeDream profiles) on small hand-made
// files whose figures are worked out by hand in the comments, their refusals of malformed files,
// their detection beside native JSON and CostGraphDef text, and the native JSON round trip.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "GraphTestFiles.h"
#include "graph/GraphCompare.h"
#include "graph/Loaders.h"
#include "placement/model/DeviceModel.h"

namespace graphopt::test {
namespace {

const std::string kNeurips = dataPath("workloads/two_accelerators.json");
const std::string kProfile = dataPath("workloads/small_profile.txt");

std::vector<std::string> consumerNames(const Graph& g, const std::string& tensor) {
    std::vector<std::string> out;
    for (const auto& [node, port] : g.consumers(g.findTensor(tensor))) out.push_back(g.nodes()[node].name);
    return out;
}

// ---- NeurIPS 2020 --------------------------------------------------------------------------------

TEST(NeuripsWorkload, NodesCarryTheirCostsPerKindAllowedKindsClassesAndSizes) {
    const Graph g = loadNeuripsWorkload(kNeurips);
    EXPECT_EQ(g.name, "two_accelerators");
    EXPECT_EQ(g.metadata.at("source_format"), "neurips2020");
    ASSERT_EQ(g.nodeCount(), 5u);
    // Latencies in ms become seconds per kind; the accelerator's is the cost on any other kind.
    const Node& embed = nodeNamed(g, "embed");
    EXPECT_DOUBLE_EQ(embed.costByKindS.at("accelerator"), 0.002);
    EXPECT_DOUBLE_EQ(embed.costByKindS.at("cpu"), 0.020);
    EXPECT_DOUBLE_EQ(embed.computeCostS, 0.002);
    EXPECT_TRUE(embed.allowedKinds.empty());
    EXPECT_EQ(embed.residentBytes, 300);
    EXPECT_FALSE(embed.isBackward);
    EXPECT_EQ(embed.op, "forward");
    EXPECT_EQ(std::get<int64_t>(embed.attrs.at("neurips.id")), 10);
    // supportedOnFpga 0: the CPU only.
    const Node& lookup = nodeNamed(g, "lookup");
    EXPECT_EQ(lookup.allowedKinds, std::vector<std::string>{"cpu"});
    EXPECT_DOUBLE_EQ(lookup.costByKindS.at("cpu"), 0.005);
    // Node 13 has no name: "node13". Its colour class 7 is embed's, the one class with two members
    // (dense id 0); attn's class 8 and lookup's 12 have one member each, and head has none.
    const Node& grad = nodeNamed(g, "node13");
    EXPECT_TRUE(grad.isBackward);
    EXPECT_EQ(grad.op, "backward");
    EXPECT_EQ(grad.colocationClass, 0);
    EXPECT_EQ(embed.colocationClass, 0);
    EXPECT_EQ(nodeNamed(g, "attn").colocationClass, -1);
    EXPECT_EQ(lookup.colocationClass, -1);
    EXPECT_EQ(nodeNamed(g, "head").colocationClass, -1);
    EXPECT_EQ(grad.residentBytes, 200);
    EXPECT_EQ(std::get<int64_t>(nodeNamed(g, "attn").attrs.at("neurips.layer_id")), 2);
}

TEST(NeuripsWorkload, EachSourceHasOneOutputWithItsEdgesCostAndSize) {
    const Graph g = loadNeuripsWorkload(kNeurips);
    // Four nodes have out-edges; head (a sink) has no output.
    ASSERT_EQ(g.tensorCount(), 4u);
    EXPECT_TRUE(nodeNamed(g, "head").outputs.empty());
    const Tensor& e = tensorNamed(g, "embed:0");
    EXPECT_DOUBLE_EQ(e.transferCostS, 0.0015);
    // The edge's size is debug information: memory is the nodes' static sizes, so the copy is 0 bytes.
    EXPECT_EQ(e.bytes, 0);
    EXPECT_EQ(g.metadata.at("edge_size_bytes.embed:0"), "64");
    EXPECT_EQ(consumerNames(g, "embed:0"), (std::vector<std::string>{"attn", "lookup"}));
    // Two parallel edges attn -> node13: one consumer.
    EXPECT_EQ(consumerNames(g, "attn:0"), std::vector<std::string>{"node13"});
    EXPECT_DOUBLE_EQ(tensorNamed(g, "attn:0").transferCostS, 0.00025);
    EXPECT_DOUBLE_EQ(tensorNamed(g, "lookup:0").transferCostS, 0.003);
    // An edge without a size moves 0 bytes (its time is given).
    EXPECT_EQ(tensorNamed(g, "node13:0").bytes, 0);
    EXPECT_EQ(g.edges().size(), 5u);
    EXPECT_EQ(g.metadata.count("warning"), 0u);
}

TEST(NeuripsWorkload, BringsItsAcceleratorsAndCpus) {
    const Graph g = loadNeuripsWorkload(kNeurips);
    const auto m = DeviceModel::fromGraph(g);
    ASSERT_TRUE(m.has_value());
    ASSERT_EQ(m->deviceCount(), 3);
    for (int k = 0; k < 2; ++k) {
        EXPECT_EQ(m->devices[k].name, "acc" + std::to_string(k));
        EXPECT_EQ(m->devices[k].kind, "accelerator");
        EXPECT_EQ(m->devices[k].memoryBytes, 1000);
        EXPECT_TRUE(m->devices[k].paysTransfers);
    }
    EXPECT_EQ(m->devices[2].name, "cpu0");
    EXPECT_EQ(m->devices[2].kind, "cpu");
    EXPECT_EQ(m->devices[2].memoryBytes, int64_t(1) << 62);
    EXPECT_FALSE(m->devices[2].paysTransfers);
    // Transfer times are given per tensor: the links add nothing.
    EXPECT_EQ(m->link(0, 1).latencyS, 0.0);
    EXPECT_LT(m->transferS(0, 2, 1 << 30), 1e-6);
    EXPECT_EQ(m->name, "two_accelerators (2 accelerators, 1 CPU)");
}

TEST(NeuripsWorkload, IsFoundByContentAmongJsonFilesAndRoundTripsThroughNativeJson) {
    TempDir dir;
    const Graph g = loadGraph(kNeurips);  // .json: detected by its keys
    EXPECT_EQ(g.metadata.at("source_format"), "neurips2020");
    const std::string copy = dir.file("copy.json");
    saveJson(g, copy);
    const Graph back = loadGraph(copy);  // native JSON again
    std::string why;
    EXPECT_TRUE(graphsEqual(g, back, &why)) << why;
    EXPECT_TRUE(DeviceModel::fromGraph(back).has_value());
    // Without an extension too.
    writeBytes(dir.file("workload"), readBytes(kNeurips));
    EXPECT_EQ(loadGraph(dir.file("workload")).nodeCount(), 5u);
}

TEST(NeuripsWorkload, EdgesOfOneNodeWithDifferentCostsTakeTheLargestAndSaySo) {
    TempDir dir;
    const std::string text = R"({"maxSizePerFPGA": 10, "maxFPGAs": 1, "maxCPUs": 1, "nodes": [
        {"id": 1, "supportedOnFpga": 1, "cpuLatency": 1, "fpgaLatency": 1, "isBackwardNode": 0},
        {"id": 2, "supportedOnFpga": 1, "cpuLatency": 1, "fpgaLatency": 1, "isBackwardNode": 0},
        {"id": 3, "supportedOnFpga": 1, "cpuLatency": 1, "fpgaLatency": 1, "isBackwardNode": 0}],
      "edges": [{"sourceId": 1, "destId": 2, "cost": 2}, {"sourceId": 1, "destId": 3, "cost": 5}]})";
    writeBytes(dir.file("w.json"), text);
    const Graph g = loadNeuripsWorkload(dir.file("w.json"));
    EXPECT_DOUBLE_EQ(tensorNamed(g, "node1:0").transferCostS, 0.005);
    EXPECT_NE(g.metadata.at("warning").find("node 1 have different costs"), std::string::npos) << g.metadata.at("warning");
}

TEST(NeuripsWorkload, MalformedFilesAreRefusedWithOneLineNamingTheFileAndTheReason) {
    TempDir dir;
    const std::string node = R"({"id": 1, "supportedOnFpga": 1, "cpuLatency": 1, "fpgaLatency": 1, "isBackwardNode": 0})";
    const std::string node2 = R"({"id": 2, "supportedOnFpga": 1, "cpuLatency": 1, "fpgaLatency": 1, "isBackwardNode": 0})";
    auto file = [&](const std::string& nodes, const std::string& edges, const std::string& head =
                                                                             R"("maxSizePerFPGA": 10, "maxFPGAs": 1, "maxCPUs": 1)") {
        return "{" + head + R"(, "nodes": [)" + nodes + R"(], "edges": [)" + edges + "]}";
    };
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"{", "not valid JSON"},
        {"[1, 2]", "expected an object"},
        {file(node, "", R"("maxSizePerFPGA": 10, "maxCPUs": 1)"), "missing key \"maxFPGAs\""},
        {file(node, "", R"("maxSizePerFPGA": 0, "maxFPGAs": 1, "maxCPUs": 1)"), "between 1 byte"},
        {file(node, "", R"("maxSizePerFPGA": 10, "maxFPGAs": 0, "maxCPUs": 0)"), "no devices"},
        {file(node, "", R"("maxSizePerFPGA": 10, "maxFPGAs": 60, "maxCPUs": 8)"), "at most 64"},
        {file(node, "", R"("maxSizePerFPGA": 10, "maxFPGAs": 1.5, "maxCPUs": 1)"), "expected an integer"},
        {file(node + "," + node, ""), "duplicate node id 1"},
        {file(R"({"id": "a", "supportedOnFpga": 1, "cpuLatency": 1, "fpgaLatency": 1, "isBackwardNode": 0})", ""),
         "$.nodes[0].id: expected an integer, found a string"},
        {file(R"({"id": 1, "supportedOnFpga": 2, "cpuLatency": 1, "fpgaLatency": 1, "isBackwardNode": 0})", ""),
         "expected true, false, 0 or 1"},
        {file(R"({"id": 1, "supportedOnFpga": 1, "cpuLatency": -1, "fpgaLatency": 1, "isBackwardNode": 0})", ""),
         "$.nodes[0].cpuLatency: must not be negative"},
        {file(R"({"id": 1, "supportedOnFpga": 1, "cpuLatency": 1, "fpgaLatency": 1e999, "isBackwardNode": 0})", ""), ""},
        {file(R"({"id": 1, "supportedOnFpga": 1, "cpuLatency": 1, "fpgaLatency": 1})", ""), "missing key \"isBackwardNode\""},
        {file(R"({"id": 1, "supportedOnFpga": 1, "cpuLatency": 1, "fpgaLatency": 1, "isBackwardNode": 0, "size": 1e30})", ""),
         "too large"},
        {file(node, R"({"sourceId": 1, "destId": 9, "cost": 1})"), "$.edges[0].destId: no node has id 9"},
        {file(node, R"({"sourceId": 1, "destId": 1, "cost": 1})"), "to itself"},
        {file(node + "," + node2, R"({"sourceId": 1, "destId": 2})"), "missing key \"cost\""},
        {file(node + "," + node2, R"({"sourceId": 1, "destId": 2, "cost": null})"), "expected a number"},
        {file(node + "," + node2, R"({"sourceId": 1, "destId": 2, "cost": 1}, {"sourceId": 2, "destId": 1, "cost": 1})"),
         "cycle"},
        {"{\"maxSizePerFPGA\": 10, \"maxFPGAs\": 1, \"maxCPUs\": 1, \"nodes\": 3, \"edges\": []}", "$.nodes: expected an array"},
        {"   ", "empty"},
    };
    for (const auto& [text, expected] : cases) {
        SCOPED_TRACE(text);
        std::string path;
        const std::string error = loadErrorFor(dir, "bad.json", text, loadNeuripsWorkload, &path);
        ASSERT_FALSE(error.empty()) << "loaded";
        EXPECT_EQ(error.rfind(path + ": ", 0), 0u) << error;
        EXPECT_NE(error.find(expected), std::string::npos) << error;
        EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    }
}

// The loader repeats DeviceModel's device limit (core/graph cannot include placement headers).
TEST(NeuripsWorkload, AsManyDevicesAsTheDeviceModelTakesAndNoMore) {
    TempDir dir;
    auto text = [](int k, int l) {
        return R"({"maxSizePerFPGA": 10, "maxFPGAs": )" + std::to_string(k) + R"(, "maxCPUs": )" + std::to_string(l) +
               R"(, "nodes": [{"id": 1, "supportedOnFpga": 1, "cpuLatency": 1, "fpgaLatency": 1, "isBackwardNode": 0}], "edges": []})";
    };
    writeBytes(dir.file("max.json"), text(DeviceModel::kMaxDevices - 8, 8));
    const auto m = DeviceModel::fromGraph(loadNeuripsWorkload(dir.file("max.json")));
    ASSERT_TRUE(m.has_value());
    EXPECT_EQ(m->deviceCount(), DeviceModel::kMaxDevices);
    writeBytes(dir.file("over.json"), text(DeviceModel::kMaxDevices - 8, 9));
    EXPECT_THROW(loadNeuripsWorkload(dir.file("over.json")), GraphError);
}

TEST(NeuripsWorkload, NamesThatAreNotUniqueFallBackToTheId) {
    TempDir dir;
    const std::string text = R"({"maxSizePerFPGA": 10, "maxFPGAs": 1, "maxCPUs": 0, "nodes": [
        {"id": 1, "name": "x", "supportedOnFpga": 1, "cpuLatency": 1, "fpgaLatency": 1, "isBackwardNode": 0},
        {"id": 2, "name": "x", "supportedOnFpga": 1, "cpuLatency": 1, "fpgaLatency": 1, "isBackwardNode": 0},
        {"id": 3, "name": "node1", "supportedOnFpga": 1, "cpuLatency": 1, "fpgaLatency": 1, "isBackwardNode": 0}],
      "edges": []})";
    writeBytes(dir.file("w.json"), text);
    const Graph g = loadNeuripsWorkload(dir.file("w.json"));
    EXPECT_EQ(g.nodes()[0].name, "node1_2");  // "node1" is node 3's own name
    EXPECT_EQ(g.nodes()[1].name, "node2");
    EXPECT_EQ(g.nodes()[2].name, "node1");
}

// ---- PipeDream -----------------------------------------------------------------------------------

TEST(PipeDreamProfile, InferenceLayersCostTheirForwardTimeWithWeightsAndActivations) {
    const Graph g = loadPipeDreamProfile(kProfile);
    EXPECT_EQ(g.metadata.at("source_format"), "pipedream-profile");
    EXPECT_EQ(g.metadata.at("pipedream.mode"), "inference");
    // node1 (Input0, no in-edges) is the graph input: 1000 bytes, not a node.
    ASSERT_EQ(g.nodeCount(), 5u);
    EXPECT_LT(g.findNode("node1"), 0);
    EXPECT_EQ(tensorNamed(g, "node1").kind, TensorKind::GraphInput);
    EXPECT_EQ(g.inputBytes(), 1000);
    const Node& conv = nodeNamed(g, "node2");
    EXPECT_EQ(conv.op, "Conv2d");
    EXPECT_EQ(std::get<std::string>(conv.attrs.at("description")),
              "Conv2d(3, 8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))");
    EXPECT_DOUBLE_EQ(conv.computeCostS, 0.0025);
    EXPECT_EQ(conv.residentBytes, 0);
    EXPECT_EQ(tensorNamed(g, "node2.parameters").bytes, 864);
    EXPECT_EQ(tensorNamed(g, "node2.parameters").kind, TensorKind::Weight);
    EXPECT_EQ(tensorNamed(g, "node2:0").bytes, 4000);
    // The duplicated edge node2 -- node6 is one consumer.
    EXPECT_EQ(consumerNames(g, "node2:0"), (std::vector<std::string>{"node3", "node6"}));
    // activation_size=[100.0; 20.0; 30.0] is their sum.
    EXPECT_EQ(tensorNamed(g, "node4:0").bytes, 150);
    EXPECT_EQ(nodeNamed(g, "node5").op, "__getitem__");
    EXPECT_TRUE(tensorNamed(g, "node6:0").isGraphOutput);
    EXPECT_DOUBLE_EQ(nodeNamed(g, "node6").computeCostS, 0.000125);
    EXPECT_EQ(g.weightBytes(), 864 + 2000);
    EXPECT_EQ(g.activationBytes(), 4000 + 4000 + 150 + 100 + 100);
    // node2->3, 3->4, 4->5, 5->6, 2->6 (the input is no node, so node1 -- node2 is no edge).
    EXPECT_EQ(g.edges().size(), 5u);
    EXPECT_FALSE(DeviceModel::fromGraph(g).has_value());  // brings no devices
}

TEST(PipeDreamProfile, TrainingCostsForwardPlusBackwardAndStashesActivations) {
    LoadOptions o;
    o.training = true;
    const Graph g = loadGraph(kProfile, o);  // .txt: detected by its first line
    EXPECT_EQ(g.metadata.at("pipedream.mode"), "training");
    EXPECT_DOUBLE_EQ(nodeNamed(g, "node2").computeCostS, 0.0075);  // 2.5 + 5.0 ms
    EXPECT_DOUBLE_EQ(nodeNamed(g, "node4").computeCostS, 0.004);   // 1.0 + 3.0 ms
    EXPECT_DOUBLE_EQ(nodeNamed(g, "node6").computeCostS, 0.0005);  // 0.125 + 0.375 ms
    EXPECT_EQ(nodeNamed(g, "node2").residentBytes, 4000);
    EXPECT_EQ(nodeNamed(g, "node4").residentBytes, 150);
    EXPECT_EQ(g.weightBytes(), 2864);  // parameters stay weights
    TempDir dir;
    saveJson(g, dir.file("t.json"));
    std::string why;
    EXPECT_TRUE(graphsEqual(g, loadJson(dir.file("t.json")), &why)) << why;
}

TEST(PipeDreamProfile, OtherFormatsRefuseTheTrainingOption) {
    LoadOptions o;
    o.training = true;
    try {
        loadGraph(kNeurips, o);
        ADD_FAILURE() << "loaded";
    } catch (const GraphError& e) {
        EXPECT_NE(std::string(e.what()).find("only be chosen for PipeDream profiles"), std::string::npos) << e.what();
    }
}

TEST(PipeDreamProfile, MalformedFilesAreRefusedWithOneLineNamingTheFileAndTheReason) {
    TempDir dir;
    const std::string a = "node1 -- Input0 -- forward_compute_time=0.000, backward_compute_time=0.000, activation_size=8.0, parameter_size=0.000\n";
    const std::string b = "node2 -- Linear(in_features=2, out_features=2) -- forward_compute_time=1.0, backward_compute_time=1.0, activation_size=8.0, parameter_size=24.0\n";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"", "no layers"},
        {a + b + "\tnode1 -- node9\n", "line 3: the edge names layer 'node9'"},
        {a + b + "garbage\n", "line 3: expected 'nodeN -- DESCRIPTION"},
        {a + b + "\tnode2 -- node2\n", "to itself"},
        {a + a, "listed twice"},
        {a + "node2 -- X -- forward_compute_time=-1.0, backward_compute_time=0, activation_size=0, parameter_size=0\n",
         "line 2: forward_compute_time: -1.0 is out of range"},
        {a + "node2 -- X -- forward_compute_time=nan, backward_compute_time=0, activation_size=0, parameter_size=0\n",
         "out of range"},
        {a + "node2 -- X -- forward_compute_time=1, backward_compute_time=x, activation_size=0, parameter_size=0\n",
         "'x' is not a number"},
        {a + "node2 -- X -- forward_compute_time=1, backward_compute_time=1, activation_size=[1.0; 2.0, parameter_size=0\n",
         "without its ']'"},
        {a + "node2 -- X -- forward_compute_time=1, backward_compute_time=1, parameter_size=0\n", "expected 'activation_size='"},
        {a + "node2 -- X -- forward_compute_time=1, backward_compute_time=1, activation_size=1e300, parameter_size=0\n",
         "more than 2^62"},
        {a + b + "node3 -- Y -- forward_compute_time=1, backward_compute_time=1, activation_size=1, parameter_size=0\n"
                 "\tnode2 -- node3\n\tnode3 -- node2\n",
         "cycle"},
        {a, "every layer is an input"},
        {a + "node2 -- X -- forward_compute_time=1, backward_compute_time=1, activation_size=1, parameter_size=0 -- stage_id=1e300\n",
         "is not a stage"},
        {a + "node2 -- X -- forward_compute_time=1, backward_compute_time=1, activation_size=1, parameter_size=0 -- stage=1\n",
         "expected 'stage_id=S'"},
        {a + "node2 -- -- forward_compute_time=1, backward_compute_time=1, activation_size=[], parameter_size=0\n",
         "is not a number"},
    };
    for (const auto& [text, expected] : cases) {
        SCOPED_TRACE(text);
        std::string path;
        const std::string error =
            loadErrorFor(dir, "graph.txt", text, [](const std::string& p) { return loadPipeDreamProfile(p); }, &path);
        ASSERT_FALSE(error.empty()) << "loaded";
        EXPECT_EQ(error.rfind(path + ": ", 0), 0u) << error;
        EXPECT_NE(error.find(expected), std::string::npos) << error;
        EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    }
}

TEST(PipeDreamProfile, DescriptionsMayHoldSeparatorsAndAStageMayFollow) {
    TempDir dir;
    writeBytes(dir.file("p.txt"),
               "node1 -- Seq(a -- b, c) -- forward_compute_time=1.5, backward_compute_time=0.5, activation_size=4, "
               "parameter_size=0 -- stage_id=3\r\n");
    const Graph g = loadGraph(dir.file("p.txt"));
    EXPECT_EQ(std::get<std::string>(nodeNamed(g, "node1").attrs.at("description")), "Seq(a -- b, c)");
    EXPECT_EQ(std::get<int64_t>(nodeNamed(g, "node1").attrs.at("pipedream.stage_id")), 3);
    EXPECT_DOUBLE_EQ(nodeNamed(g, "node1").computeCostS, 0.0015);
}

}  // namespace
}  // namespace graphopt::test
