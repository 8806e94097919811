// The fast layered layout (boxes never overlap, every edge of a DAG points downward, routes run
// through their bends monotonically) and name-scope folding on a hand-made graph.
#include <gtest/gtest.h>

#include <algorithm>

#include "graph/LayeredLayout.h"
#include "graph/Loaders.h"
#include "graph/ScopeFolding.h"
#include "graph/SyntheticGenerator.h"

using namespace graphopt;

namespace {

bool overlap(const NodeBox& a, const NodeBox& b) {
    constexpr double eps = 1e-6;
    return std::abs(a.x - b.x) < (a.width + b.width) / 2 - eps && std::abs(a.y - b.y) < (a.height + b.height) / 2 - eps;
}

// Boxes sorted by their left edge; a box can only overlap the ones that start before it ends.
int overlappingPairs(const GraphLayout& l) {
    std::vector<int> order(l.nodes.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
    std::sort(order.begin(), order.end(), [&](int a, int b) { return l.nodes[a].x - l.nodes[a].width / 2 < l.nodes[b].x - l.nodes[b].width / 2; });
    int count = 0;
    for (size_t i = 0; i < order.size(); ++i)
        for (size_t j = i + 1; j < order.size(); ++j) {
            const NodeBox& a = l.nodes[order[i]];
            const NodeBox& b = l.nodes[order[j]];
            if (b.x - b.width / 2 >= a.x + a.width / 2) break;
            count += overlap(a, b);
        }
    return count;
}

// A chain of named nodes (control edges), optionally with extra edges.
Graph namedGraph(const std::vector<std::string>& names, const std::vector<std::pair<int, int>>& extra = {}) {
    Graph g;
    for (size_t i = 0; i < names.size(); ++i) {
        Node n;
        n.name = names[i];
        n.op = names[i].substr(names[i].rfind('/') + 1);
        n.flops = 1e6 * static_cast<double>(i + 1);
        if (i > 0) n.controlInputs.push_back(static_cast<int>(i) - 1);
        for (const auto& [a, b] : extra)
            if (b == static_cast<int>(i)) n.controlInputs.push_back(a);
        g.addNode(n);
    }
    g.finalize();
    return g;
}

}  // namespace

TEST(LayeredLayout, BoxesNeverOverlapAndEdgesPointDownOnEveryFamily) {
    for (GraphFamily family : everyGraphFamily())
        for (int nodes : {30, 400}) {
            SCOPED_TRACE(std::string(graphFamilyName(family)) + " " + std::to_string(nodes));
            const Graph g = generateGraph({family, nodes, 7});
            const GraphLayout l = layoutGraphFast(g);
            ASSERT_EQ(l.nodes.size(), g.nodeCount());
            size_t edges = 0;
            for (int v = 0; v < static_cast<int>(g.nodeCount()); ++v) edges += g.successors(v).size();
            ASSERT_EQ(l.edges.size(), edges);
            EXPECT_EQ(overlappingPairs(l), 0);
            for (const NodeBox& b : l.nodes) {
                EXPECT_GE(b.x - b.width / 2, -1e-6);
                EXPECT_LE(b.x + b.width / 2, l.width + 1e-6);
                EXPECT_GE(b.y - b.height / 2, -1e-6);
                EXPECT_LE(b.y + b.height / 2, l.height + 1e-6);
            }
            for (const EdgeRoute& e : l.edges) {
                EXPECT_GT(l.nodes[e.dst].y, l.nodes[e.src].y) << e.src << " -> " << e.dst;
                ASSERT_GE(e.points.size(), 2u);
                EXPECT_NEAR(e.points.back().y, l.nodes[e.dst].y - l.nodes[e.dst].height / 2, 1e-6);
                EXPECT_GT(e.points.back().y, e.points.front().y);
                if (e.stub) continue;  // a short segment into the consumer, from above
                EXPECT_NEAR(e.points.front().y, l.nodes[e.src].y + l.nodes[e.src].height / 2, 1e-6);
                EXPECT_NEAR(e.points.back().y, l.nodes[e.dst].y - l.nodes[e.dst].height / 2, 1e-6);
                for (size_t k = 1; k < e.points.size(); ++k) EXPECT_GT(e.points[k].y, e.points[k - 1].y);
            }
        }
}

TEST(LayeredLayout, LeftToRightSwapsTheAxesAndIsDeterministic) {
    const Graph g = generateGraph({GraphFamily::Branchy, 120, 3});
    LayoutOptions lr;
    lr.direction = LayoutOptions::Direction::LeftToRight;
    const GraphLayout a = layoutGraphFast(g, lr), b = layoutGraphFast(g, lr);
    ASSERT_EQ(a.toJson(), b.toJson());
    EXPECT_EQ(overlappingPairs(a), 0);
    for (const EdgeRoute& e : a.edges) EXPECT_GT(a.nodes[e.dst].x, a.nodes[e.src].x);
}

TEST(LayeredLayout, CyclesAreBrokenAndSelfLoopsDropped) {
    LayeredInput in;
    in.sizes = {{60, 30}, {60, 30}, {60, 30}, {60, 30}};
    in.edges = {{0, 1}, {1, 2}, {2, 0}, {2, 3}, {3, 3}, {0, 1}};
    const GraphLayout l = layeredLayout(in);
    ASSERT_EQ(l.nodes.size(), 4u);
    ASSERT_EQ(l.edges.size(), 5u);  // the self loop is not drawn; the parallel edge is
    EXPECT_EQ(overlappingPairs(l), 0);
    for (const EdgeRoute& e : l.edges) {  // a reversed edge still starts at its source
        const NodeBox& s = l.nodes[e.src];
        EXPECT_NEAR(e.points.front().x, s.x, 1e-6);
        EXPECT_NEAR(std::abs(e.points.front().y - s.y), s.height / 2, 1e-6);
    }
    in.edges.push_back({0, 9});
    EXPECT_THROW(layeredLayout(in), std::runtime_error);
}

TEST(LayeredLayout, AValueReadFarAndWideIsDrawnAsStubs) {
    // A chain 0..11 and a source 12 read by nodes 2..11: its edges spanning 4 ranks or more are
    // stubs into their consumers; the short ones are routed.
    LayeredInput in;
    for (int i = 0; i < 13; ++i) in.sizes.push_back({60, 30});
    for (int i = 0; i + 1 < 12; ++i) in.edges.push_back({i, i + 1});
    for (int i = 2; i < 12; ++i) in.edges.push_back({12, i});
    const GraphLayout l = layeredLayout(in);
    int stubs = 0;
    for (const EdgeRoute& e : l.edges) {
        if (!e.stub) continue;
        ++stubs;
        EXPECT_EQ(e.src, 12);
        ASSERT_EQ(e.points.size(), 2u);
        EXPECT_NEAR(e.points.back().y, l.nodes[e.dst].y - l.nodes[e.dst].height / 2, 1e-6);
        EXPECT_NEAR(e.points.back().y - e.points.front().y, 14, 1e-6);
    }
    EXPECT_EQ(stubs, 7);  // the source sits at rank 1, next to node 2: consumers 5..11 are 4 or more ranks away
    LayeredOptions routed;
    routed.stubFanOut = 0;
    for (const EdgeRoute& e : layeredLayout(in, routed).edges) EXPECT_FALSE(e.stub);
}

TEST(LayeredLayout, BendsAreCappedByStubbingTheLongestEdges) {
    // A chain of 400 with an edge from each of the first 100 nodes to the last: ~35,000 bends.
    LayeredInput in;
    for (int i = 0; i < 400; ++i) in.sizes.push_back({40, 20});
    for (int i = 0; i + 1 < 400; ++i) in.edges.push_back({i, i + 1});
    for (int i = 0; i < 100; ++i) in.edges.push_back({i, 399});
    LayeredOptions capped;
    capped.stubFanOut = 0;  // only the cap makes stubs here
    capped.maxBends = 1000;
    const GraphLayout l = layeredLayout(in, capped);
    long bends = 0;
    int stubs = 0;
    for (const EdgeRoute& e : l.edges) {
        stubs += e.stub;
        if (!e.stub) bends += static_cast<long>(e.points.size()) - 2;
    }
    EXPECT_LE(bends, 1000);
    EXPECT_GT(stubs, 90);
    for (const EdgeRoute& e : l.edges)
        if (e.stub) EXPECT_EQ(e.dst, 399);  // only the long edges went
}

TEST(LayeredLayout, CancelledGivesAnEmptyLayout) {
    const Graph g = generateGraph({GraphFamily::Layered, 300, 1});
    const GraphLayout l = layoutGraphFast(g, {}, [] { return true; });
    EXPECT_TRUE(l.nodes.empty());
}

// The settings line ends in "N crossings", counted exactly on the final order.
namespace {
long crossingsOf(const GraphLayout& l) {
    const size_t end = l.settings.rfind(" crossings");
    const size_t start = l.settings.rfind(' ', end - 1);
    return std::stol(l.settings.substr(start + 1, end - start - 1));
}
}  // namespace

TEST(LayeredLayout, BarycenterSweepsCutTheCrossingsOfTheFirstOrder) {
    int tangled = 0;  // families whose first order has crossings (chains and trees have none)
    std::vector<std::pair<std::string, Graph>> graphs;
    for (GraphFamily family : everyGraphFamily()) graphs.emplace_back(graphFamilyName(family), generateGraph({family, 300, 5}));
    for (const char* model : {"densenet121", "swin_t"})
        graphs.emplace_back(model, loadGraph(std::string(GRAPHOPT_SOURCE_DIR) + "/resources/models/" + model + ".onnx"));
    for (const auto& [what, g] : graphs) {
        LayeredInput in;
        for (const Node& n : g.nodes()) in.sizes.push_back(nodeBoxSize(n));
        for (int v = 0; v < static_cast<int>(g.nodeCount()); ++v)
            for (int w : g.successors(v)) in.edges.emplace_back(v, w);
        LayeredOptions none;
        none.orderingSweeps = 0;
        const long before = crossingsOf(layeredLayout(in, none));
        const long after = crossingsOf(layeredLayout(in));
        SCOPED_TRACE(what + ": " + std::to_string(before) + " -> " + std::to_string(after));
        EXPECT_LE(after, before);
        if (before > 0) {
            ++tangled;
            EXPECT_LT(after, before);
        }
    }
    EXPECT_GE(tangled, 3);  // layered, DenseNet-121 and Swin-T
}

TEST(ScopeFolding, HandMadeGraphFoldsIntoTheExpectedBoxesAndReopens) {
    // 0 Input_0 (no scope), two encoder layers of three nodes, a one-node head.
    const Graph g = namedGraph({"Input_0", "/enc/layer.0/attn/MatMul", "/enc/layer.0/attn/Softmax", "/enc/layer.0/mlp/MatMul",
                                "/enc/layer.1/attn/MatMul", "/enc/layer.1/attn/Softmax", "/enc/layer.1/mlp/MatMul",
                                "/head/Gemm"},
                               {{1, 4}});
    ScopeFolding f(g);
    const ScopeTree& t = f.tree();
    ASSERT_TRUE(t.hasScopes());
    const int enc = t.find("/enc"), l0 = t.find("/enc/layer.0"), l1 = t.find("/enc/layer.1"), head = t.find("/head");
    ASSERT_GE(enc, 0);
    ASSERT_GE(l0, 0);
    ASSERT_GE(l1, 0);
    EXPECT_EQ(t.scopes()[enc].nodeCount, 6);
    EXPECT_EQ(t.scopes()[l0].nodeCount, 3);
    EXPECT_DOUBLE_EQ(t.scopes()[l0].flops, 2e6 + 3e6 + 4e6);
    EXPECT_EQ(t.scopes()[l0].label, "layer.0");
    EXPECT_FALSE(t.scopes()[head].foldable());  // one node: shown as itself
    EXPECT_EQ(t.scopeOf(0), 0);

    EXPECT_FALSE(f.anyFolded());
    EXPECT_EQ(f.view().items.size(), g.nodeCount());

    f.foldToFit(4, 4);  // 8 nodes > 4: depth 1 opens (/enc, /head: 4 items), depth 2 would make 6
    EXPECT_TRUE(f.isOpen(enc));
    EXPECT_FALSE(f.isOpen(l0));
    EXPECT_FALSE(f.isOpen(l1));
    FoldedView v = f.view();
    ASSERT_EQ(v.items.size(), 4u);
    EXPECT_EQ(v.items[0].node, 0);
    EXPECT_EQ(v.items[1].scope, l0);
    EXPECT_EQ(v.items[2].scope, l1);
    EXPECT_EQ(v.items[3].node, 7);
    EXPECT_EQ(v.members[1], (std::vector<int>{1, 2, 3}));
    EXPECT_EQ(v.itemOfNode[5], 2);
    // Input -> layer.0 -> layer.1 -> Gemm; the extra edge 1 -> 4 is the same box pair as 3 -> 4.
    EXPECT_EQ(v.edges, (std::vector<std::pair<int, int>>{{0, 1}, {1, 2}, {2, 3}}));
    EXPECT_TRUE(f.isHidden(5));

    f.reveal(5);  // selecting a node inside a folded box opens the box
    EXPECT_FALSE(f.isHidden(5));
    EXPECT_TRUE(f.isOpen(l1));
    v = f.view();
    EXPECT_EQ(v.items.size(), 6u);  // Input, layer.0, attn of layer.1 (2 nodes) as nodes, mlp node, Gemm
    EXPECT_EQ(v.items[v.itemOfNode[5]].node, 5);

    f.close(l1);  // the breadcrumb closes it again
    EXPECT_EQ(f.view().items.size(), 4u);
    f.openAll();
    EXPECT_FALSE(f.anyFolded());
    f.close(0);  // the root cannot be folded
    EXPECT_FALSE(f.anyFolded());
}

TEST(ScopeFolding, DottedModuleNamesOfWorkloadsAreScopesToo) {
    // Profiled workloads name nodes by PyTorch module path; a layer's index stays with its name.
    const Graph g = namedGraph({"embeddings.word", "encoder.layer.0.attention.query", "encoder.layer.0.attention.key",
                                "encoder.layer.1.attention.query", "encoder.layer.1.output", "Transpose8"});
    const ScopeTree t(g);
    EXPECT_EQ(t.separator(), '.');
    EXPECT_EQ(ScopeTree::scopeParts("encoder.layer.0.attention.query", '.'),
              (std::vector<std::string>{"encoder", "layer.0", "attention"}));
    const int layer0 = t.find("encoder.layer.0");
    ASSERT_GE(layer0, 0);
    EXPECT_EQ(t.scopes()[layer0].label, "layer.0");
    EXPECT_EQ(t.scopes()[layer0].nodeCount, 2);
    EXPECT_EQ(t.scopeOf(5), 0);  // "Transpose8": no scope
    ScopeFolding f(g);
    f.foldToFit(0, 4);  // embeddings.word (one node), encoder (4 nodes) as a box... then its layers
    EXPECT_TRUE(f.anyFolded());
    // ONNX names with '/' keep '/' even when parts have dots.
    EXPECT_EQ(ScopeTree::separatorFor(namedGraph({"/a.b/c", "d.e"})), '/');
    EXPECT_EQ(ScopeTree::separatorFor(namedGraph({"conv1", "relu1", "fc.x"})), 0);
}

TEST(ScopeFolding, SmallOrUnscopedGraphsStayOpen) {
    const Graph g = generateGraph({GraphFamily::Layered, 200, 1});
    ScopeFolding f(g);
    f.foldToFit(50, 50);
    EXPECT_EQ(f.view().items.size(), g.nodeCount());
    const Graph named = namedGraph({"/a/x", "/a/y", "/b/z"});
    ScopeFolding small(named);
    small.foldToFit(10, 10);
    EXPECT_FALSE(small.anyFolded());
}

TEST(ScopeFolding, FoldedViewLaysOut) {
    const Graph g = namedGraph({"/a/1", "/a/2", "/b/1", "/b/2", "/a2/1", "/a2/2"}, {{1, 4}});
    ScopeFolding f(g);
    f.closeAll();
    const FoldedView v = f.view();
    ASSERT_EQ(v.items.size(), 3u);
    const GraphLayout l = layeredLayout(layeredInput(g, f.tree(), v));
    EXPECT_EQ(l.nodes.size(), 3u);
    EXPECT_EQ(overlappingPairs(l), 0);
}

TEST(ScopeFolding, ScopedNamesElideInTheMiddleKeepingTheOp) {
    const std::string name = "/model/layers.0/self_attn/q_proj/MatMul_6";
    EXPECT_EQ(elideScopedName(name, 100), name);
    EXPECT_EQ(elideScopedName(name, 30), "/model/\u2026/q_proj/MatMul_6");
    EXPECT_EQ(elideScopedName(name, 20), "/model/\u2026/MatMul_6");
    EXPECT_EQ(elideScopedName(name, 12), "/\u2026/MatMul_6");
    EXPECT_EQ(elideScopedName("abcdefghijklmnop", 9), "abcd\u2026mnop");
    EXPECT_EQ(ScopeTree::scopeParts(name), (std::vector<std::string>{"model", "layers.0", "self_attn", "q_proj"}));
    EXPECT_TRUE(ScopeTree::scopeParts("Conv_0").empty());
}
