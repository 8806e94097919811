// Graphviz DOT through cgraph: the examples in tests/data/dot and the errors a user can meet.
#include <gtest/gtest.h>

#include <thread>

#include "GraphTestFiles.h"
#include "graph/GraphError.h"
#include "graph/Loaders.h"

using namespace graphopt;
using namespace graphopt::test;

namespace {

std::vector<std::string> inputNames(const Graph& g, const Node& n) {
    std::vector<std::string> out;
    for (int t : n.inputs) out.push_back(g.tensors()[t].name);
    return out;
}

std::string dotErrorFor(const TempDir& dir, const std::string& text, std::string* pathOut = nullptr) {
    return loadErrorFor(dir, "case.dot", text, [](const std::string& path) { loadDot(path); }, pathOut);
}

}  // namespace

TEST(DotLoader, ResidualExample) {
    const Graph g = loadDot(dataPath("dot/residual.dot"));
    EXPECT_EQ(g.name, "residual");
    EXPECT_EQ(g.metadata.at("source_format"), "dot");
    ASSERT_EQ(g.nodeCount(), 6u);
    EXPECT_EQ(g.tensorCount(), 6u);
    EXPECT_EQ(g.edges().size(), 7u);
    const std::vector<std::string> order = {"input", "conv1", "relu1", "conv2", "add", "relu2"};
    for (size_t i = 0; i < order.size(); ++i) EXPECT_EQ(g.nodes()[i].name, order[i]);

    const Node& conv1 = nodeNamed(g, "conv1");
    EXPECT_EQ(conv1.op, "Conv");
    EXPECT_DOUBLE_EQ(conv1.flops, 231211008);  // given; kept since no shapes allow a formula
    EXPECT_DOUBLE_EQ(conv1.computeCostS, 410e-6);
    EXPECT_EQ(conv1.tempBytes, 65536);
    EXPECT_EQ(g.tensors()[conv1.outputs[0]].name, "conv1:0");
    EXPECT_EQ(g.tensors()[conv1.outputs[0]].bytes, 802816);  // max over its data out-edges

    EXPECT_EQ(g.tensors()[nodeNamed(g, "input").outputs[0]].bytes, 802816);  // node attribute
    EXPECT_EQ(inputNames(g, nodeNamed(g, "add")), (std::vector<std::string>{"conv2:0", "input:0"}));
    const Node& conv2 = nodeNamed(g, "conv2");
    ASSERT_EQ(conv2.controlInputs.size(), 1u);
    EXPECT_EQ(g.nodes()[conv2.controlInputs[0]].name, "conv1");
    EXPECT_EQ(inputNames(g, conv2), (std::vector<std::string>{"relu1:0"}));

    const Node& relu2 = nodeNamed(g, "relu2");
    EXPECT_EQ(relu2.op, "Relu");  // from the label
    EXPECT_LT(relu2.computeCostS, 0);
    EXPECT_TRUE(g.tensors()[relu2.outputs[0]].isGraphOutput);
    EXPECT_EQ(g.tensors()[relu2.outputs[0]].bytes, 0);
    int outputs = 0;
    for (const auto& t : g.tensors()) outputs += t.isGraphOutput;
    EXPECT_EQ(outputs, 1);
    // The Relu has a formula but no shapes, so it keeps the FLOPs given.
    EXPECT_DOUBLE_EQ(nodeNamed(g, "relu1").flops, 200704);
}

TEST(DotLoader, PlainDotWithoutAttributes) {
    const Graph g = loadDot(dataPath("dot/plain.dot"));
    EXPECT_EQ(g.name, "plain");  // anonymous graph: the file's stem
    ASSERT_EQ(g.nodeCount(), 5u);
    EXPECT_EQ(nodeNamed(g, "a").op, "Load");
    EXPECT_EQ(nodeNamed(g, "c").op, "Mix");
    EXPECT_EQ(nodeNamed(g, "b").op, "Op");
    EXPECT_EQ(nodeNamed(g, "e").op, "Op");
    EXPECT_EQ(inputNames(g, nodeNamed(g, "d")), (std::vector<std::string>{"b:0", "c:0"}));
    EXPECT_EQ(g.edges().size(), 5u);
    EXPECT_TRUE(g.tensors()[nodeNamed(g, "e").outputs[0]].isGraphOutput);
    EXPECT_FALSE(g.tensors()[nodeNamed(g, "a").outputs[0]].isGraphOutput);
}

TEST(DotLoader, ErrorsNameTheFile) {
    TempDir dir;
    std::string path;
    testing::internal::CaptureStderr();
    std::string e = dotErrorFor(dir, "digraph g {\n a -> b;\n b -> -> c;\n}\n", &path);
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
    EXPECT_EQ(e.rfind(path + ": ", 0), 0u) << e;
    EXPECT_NE(e.find(": DOT syntax error in line "), std::string::npos) << e;

    // cgraph keeps parser state in globals: a good file right after a bad one still loads.
    EXPECT_EQ(dotErrorFor(dir, "digraph { a -> b }"), "");

    e = dotErrorFor(dir, "graph g { a -- b }");
    EXPECT_NE(e.find("undirected"), std::string::npos) << e;

    e = dotErrorFor(dir, "");
    EXPECT_EQ(e, path + ": the file is empty");
    e = dotErrorFor(dir, "/* no graph */");
    EXPECT_EQ(e, path + ": no graph found (not a DOT file)");

    // Names and parser messages quote the file; control bytes and broken UTF-8 are escaped.
    e = dotErrorFor(dir, "digraph { \"a\x1b[31m\xff\" [bytes=x] }");
    EXPECT_EQ(e, path + ": node 'a\\x1b[31m\\xff': attribute bytes=\"x\" is not a non-negative integer");
    e = dotErrorFor(dir, "digraph { a -> \x01 }");
    EXPECT_EQ(e, path + ": DOT syntax error in line 1 near '\\x01'");

    e = dotErrorFor(dir, "digraph {}");
    EXPECT_EQ(e, path + ": the DOT graph has no nodes");

    e = dotErrorFor(dir, std::string("digraph {\0 a }", 14));
    EXPECT_EQ(e, path + ": binary data, not a Graphviz DOT file");

    e = dotErrorFor(dir, "digraph { a [bytes=\"lots\"] }");
    EXPECT_EQ(e, path + ": node 'a': attribute bytes=\"lots\" is not a non-negative integer");

    e = dotErrorFor(dir, "digraph { a [flops=-1] }");
    EXPECT_EQ(e, path + ": node 'a': attribute flops=\"-1\" is not a non-negative number");

    e = dotErrorFor(dir, "digraph { a -> b [bytes=\"1e99\"] }");
    EXPECT_EQ(e, path + ": edge 'a' -> 'b': attribute bytes=\"1e99\" is not a non-negative integer");

    // The parser's stack overflows on absurd nesting; cgraph then returns a partial graph.
    e = dotErrorFor(dir, "digraph {" + std::string(50000, '{') + "a" + std::string(50000, '}') + "}");
    EXPECT_EQ(e.rfind(path + ": DOT memory exhausted", 0), 0u) << e;

    // An error after thousands of warnings is still seen and reported.
    std::string noisy = "digraph {";
    for (int i = 0; i < 2000; ++i) noisy += " 1n" + std::to_string(i);  // "badly delimited number" warnings
    e = dotErrorFor(dir, noisy + " -> -> }");
    EXPECT_NE(e.find(": DOT syntax error in line 1 near '->'"), std::string::npos) << e.substr(0, 300);

    // Warnings alone do not stop loading, and stay off stderr.
    testing::internal::CaptureStderr();
    e = dotErrorFor(dir, "digraph { 1a -> b }");  // "badly delimited number": nodes 1, a and b
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
    EXPECT_EQ(e, "");
    EXPECT_EQ(loadDot(path).nodeCount(), 3u);

    e = dotErrorFor(dir, "digraph { a -> b -> a }");
    EXPECT_NE(e.find("cycle"), std::string::npos) << e;

    e = dotErrorFor(dir, "digraph { a -> a }");
    EXPECT_NE(e.find("cycle through node 'a'"), std::string::npos) << e;
}

TEST(DotLoader, ConcurrentLoadsAreSerialized) {
    // cgraph is not thread-safe; loadDot holds graphvizMutex(). Several threads at once must all
    // get the same graph.
    const std::string path = dataPath("dot/residual.dot");
    std::vector<std::thread> threads;
    std::vector<size_t> edges(4, 0);
    for (int i = 0; i < 4; ++i)
        threads.emplace_back([&, i] {
            for (int k = 0; k < 20; ++k) edges[i] = loadDot(path).edges().size();
        });
    for (auto& t : threads) t.join();
    for (size_t e : edges) EXPECT_EQ(e, 7u);
}

TEST(DotLoader, LoadGraphPicksItByExtension) {
    EXPECT_EQ(loadGraph(dataPath("dot/plain.dot")).nodeCount(), 5u);
}
