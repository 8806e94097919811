// Issue 20, memory sums that could overflow int64_t: a graph's bytes (tensors and node
// temporaries) are refused past kMaxGraphBytes with the name of the tensor or node that crosses
// it, and the totals `graphopt info` prints saturate for a graph that was never validated.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "GraphTestFiles.h"
#include "graph/Graph.h"
#include "graph/GraphError.h"
#include "graph/Loaders.h"

using namespace graphopt;
using namespace graphopt::test;

namespace {

// A native JSON graph: input x -> node "a" -> tensor y (graph output), with the given sizes.
std::string jsonGraph(const std::string& xBytes, const std::string& yBytes, const std::string& tempBytes = "0") {
    return R"({"format": "graphopt-graph", "version": 1, "tensors": [
      {"name": "x", "kind": "input", "bytes": )" + xBytes + R"(},
      {"name": "y", "kind": "activation", "bytes": )" + yBytes + R"(, "isGraphOutput": true}],
     "nodes": [{"name": "a", "op": "Relu", "inputs": ["x"], "outputs": ["y"], "tempBytes": )" + tempBytes + "}]}";
}

std::string loadError(const TempDir& dir, const std::string& text) {
    const std::string path = dir.file("g.json");
    writeBytes(path, text);
    try {
        loadJson(path);
    } catch (const GraphError& e) {
        return e.what();
    }
    return "";
}

TEST(MemoryTotals, TensorsPastTheLimitAreRefusedByName) {
    TempDir dir;
    const std::string max = std::to_string(std::numeric_limits<int64_t>::max());
    // Each alone is a legal int64; together they overflowed activationBytes() and the simulator.
    std::string msg = loadError(dir, jsonGraph(max, max));
    EXPECT_NE(msg.find("tensor 'x'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("2^62"), std::string::npos) << msg;
    msg = loadError(dir, jsonGraph("4611686018427387904", "1"));  // 2^62 + 1 in all
    EXPECT_NE(msg.find("tensor 'y'"), std::string::npos) << msg;
    msg = loadError(dir, jsonGraph("1", "1", "4611686018427387903"));
    EXPECT_NE(msg.find("node 'a'"), std::string::npos) << msg;
    // Exactly the limit loads, and its totals are exact.
    const std::string path = dir.file("ok.json");
    writeBytes(path, jsonGraph("4611686018427387900", "4"));
    const Graph g = loadJson(path);
    EXPECT_EQ(g.inputBytes() + g.activationBytes(), int64_t(1) << 62);
}

TEST(MemoryTotals, ValidateRefusesNegativeSizes) {
    Graph g;
    Tensor t;
    t.name = "x";
    t.kind = TensorKind::GraphInput;
    t.bytes = -5;
    g.addTensor(t);
    g.finalize();
    try {
        g.validate();
        FAIL() << "accepted";
    } catch (const GraphError& e) {
        EXPECT_NE(std::string(e.what()).find("tensor 'x' has a negative size"), std::string::npos) << e.what();
    }
}

TEST(MemoryTotals, TotalsOfAnUnvalidatedGraphSaturate) {
    Graph g;
    for (int i = 0; i < 4; ++i) {
        Tensor t;
        t.name = "w" + std::to_string(i);
        t.kind = TensorKind::Weight;
        t.bytes = std::numeric_limits<int64_t>::max();
        g.addTensor(t);
    }
    EXPECT_EQ(g.weightBytes(), int64_t(1) << 62);  // kMaxGraphBytes
    EXPECT_EQ(g.activationBytes(), 0);
    g.finalize();
    EXPECT_THROW(g.validate(), GraphError);
}

}  // namespace
