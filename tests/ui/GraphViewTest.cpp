// The graph view on big graphs: folding by name scope (boxes, double click opens, the breadcrumb
// closes, selecting a hidden node opens its box, placement colours split a box), the swap from
// the fast layout to another keeping the selection and the zoom, and the main window's first
// picture coming from the fast layout before dot's.
#include <gtest/gtest.h>

#include <QApplication>
#include <QGraphicsItem>
#include <QLabel>
#include <QSignalSpy>
#include <QTest>

#include "GraphView.h"
#include "MainWindow.h"
#include "LayoutJob.h"
#include "ScopeTreeView.h"
#include "graph/LayeredLayout.h"
#include "graph/Loaders.h"
#include "graph/SyntheticGenerator.h"

using namespace graphopt;
using graphopt::ui::GraphView;

namespace {

// Two blocks of three named nodes and a head, in a chain.
std::shared_ptr<const Graph> scopedGraph(int layers = 2) {
    auto g = std::make_shared<Graph>();
    std::vector<std::string> names = {"Input_0"};
    for (int l = 0; l < layers; ++l)
        for (const char* op : {"attn/MatMul", "attn/Softmax", "mlp/MatMul"})
            names.push_back("/enc/layer." + std::to_string(l) + "/" + op);
    names.push_back("/head/Gemm");
    for (size_t i = 0; i < names.size(); ++i) {
        Node n;
        n.name = names[i];
        n.op = names[i].substr(names[i].rfind('/') + 1);
        n.flops = 1e6;
        if (i > 0) n.controlInputs.push_back(static_cast<int>(i) - 1);
        g->addNode(n);
    }
    g->finalize();
    return g;
}

QPoint viewportPointOf(GraphView& view, QGraphicsItem* item) {
    return view.mapFromScene(item->sceneBoundingRect().center());
}

}  // namespace

TEST(GraphViewFolding, BoxesOpenOnDoubleClickAndCloseFromTheBreadcrumb) {
    GraphView view;
    view.resize(900, 700);
    view.show();
    view.setFoldAbove(4);  // the 8-node graph folds: Input, layer.0, layer.1, Gemm
    const auto g = scopedGraph();
    ASSERT_TRUE(view.beginGraph(g, "laying out"));
    EXPECT_TRUE(view.isFolded());
    EXPECT_EQ(view.scopeItemCount(), 2);
    EXPECT_EQ(view.nodeItemCount(), 2);
    EXPECT_TRUE(view.hasDrawing());
    EXPECT_NE(view.breadcrumbText().indexOf("Folded by scope"), -1);

    QSignalSpy changed(&view, &GraphView::foldingChanged);
    const int layer1 = view.folding().tree().find("/enc/layer.1");
    ASSERT_NE(view.scopeItemFor(layer1), nullptr);
    QTest::mouseDClick(view.viewport(), Qt::LeftButton, {}, viewportPointOf(view, view.scopeItemFor(layer1)));
    ASSERT_EQ(changed.count(), 1);
    EXPECT_TRUE(view.folding().isOpen(layer1));
    EXPECT_EQ(view.scopeItemCount(), 2);  // layer.0 and layer.1's attn (two nodes); mlp is one node
    EXPECT_EQ(view.nodeItemCount(), 3);
    EXPECT_NE(view.breadcrumbText().indexOf("layer.1"), -1) << view.breadcrumbText().toStdString();

    // The breadcrumb's link closes the scope again.
    auto* crumb = view.findChild<QLabel*>("scopeBreadcrumb");
    ASSERT_NE(crumb, nullptr);
    EXPECT_TRUE(crumb->isVisible());
    emit crumb->linkActivated(QString("close:%1").arg(layer1));
    EXPECT_FALSE(view.folding().isOpen(layer1));
    EXPECT_EQ(view.scopeItemCount(), 2);
    EXPECT_EQ(view.nodeItemCount(), 2);

    // Selecting a node inside a folded box opens the box and selects the node.
    view.selectNode(5);  // /enc/layer.1/attn/Softmax
    EXPECT_EQ(view.selectedNode(), 5);
    EXPECT_FALSE(view.folding().isHidden(5));
    // Find does the same for a node it finds inside a box.
    view.foldByScope();
    EXPECT_EQ(view.findNext("layer.0/mlp"), 3);
    EXPECT_EQ(view.selectedNode(), 3);

    // A placement splits a box by the devices of its nodes.
    view.foldByScope();
    view.setPlacement({0, 0, 0, 1, 1, 1, 1, 0}, {0, 1, 2, 3, 4, 5, 6, 7}, {"gpu0", "gpu1"});
    EXPECT_EQ(view.crossDeviceEdgeCount(), 0);  // edges between boxes are not single-node edges
    view.unfoldAll();
    EXPECT_FALSE(view.isFolded());
    EXPECT_EQ(view.crossDeviceEdgeCount(), 0);  // no whole-graph layout yet: a message, no edges
    GraphLayout full = layoutGraphFast(*g);
    view.showGraph(g, full);
    EXPECT_EQ(view.nodeItemCount(), 8);
    EXPECT_EQ(view.crossDeviceEdgeCount(), 2);  // 2 -> 3 and 6 -> 7 cross devices
}

TEST(GraphViewFolding, TheSwapOfLayoutsKeepsSelectionZoomAndTheNodeInView) {
    GraphView view;
    view.resize(800, 600);
    view.show();
    auto g = std::make_shared<const Graph>(generateGraph({GraphFamily::Layered, 150, 2}));
    view.showGraph(g, layoutGraphFast(*g));
    ASSERT_FALSE(view.isFolded());  // generated names have no scopes
    view.selectNode(70);
    view.zoomBy(3.0);  // far enough in that the drawing can scroll both ways
    const double zoom = view.transform().m11();
    const int anchor = view.nodeAtViewportCentre();  // the node under the cursor or nearest the centre
    ASSERT_GE(anchor, 0);
    const QPoint where = view.viewportPosOf(anchor);
    // Another layout of the same graph: no ordering sweeps, so the boxes move within their ranks.
    LayeredInput in;
    for (const Node& n : g->nodes()) in.sizes.push_back(nodeBoxSize(n));
    for (int v = 0; v < static_cast<int>(g->nodeCount()); ++v)
        for (int w : g->successors(v)) in.edges.emplace_back(v, w);
    LayeredOptions unordered;
    unordered.orderingSweeps = 0;
    const GraphLayout other = layeredLayout(in, unordered);
    view.showGraph(g, other);
    EXPECT_EQ(view.selectedNode(), 70);
    EXPECT_DOUBLE_EQ(view.transform().m11(), zoom);
    const QPoint now = view.viewportPosOf(anchor);  // it stayed where it was on screen
    EXPECT_LE((now - where).manhattanLength(), 2) << where.x() << "," << where.y() << " -> " << now.x() << "," << now.y();
}

TEST(GraphViewFolding, MainWindowShowsTheFastLayoutFirstThenDotsKeepingTheSelection) {
    graphopt::ui::MainWindow w;
    w.setKeepFastLayout(false);
    w.resize(1200, 800);
    w.show();
    QSignalSpy first(&w, &graphopt::ui::MainWindow::layoutReady);
    QSignalSpy final(&w, &graphopt::ui::MainWindow::finalLayoutReady);
    w.openModel(QString(GRAPHOPT_SOURCE_DIR) + "/resources/models/resnet18.onnx");
    ASSERT_TRUE(first.wait(60000));
    GraphView* view = w.graphView();
    EXPECT_EQ(view->nodeItemCount(), 49);
    EXPECT_TRUE(w.layoutJob()->isDotRunning() || final.count() == 1);
    view->selectNode(20);
    if (final.count() == 0) ASSERT_TRUE(final.wait(60000));
    EXPECT_EQ(view->nodeItemCount(), 49);
    EXPECT_EQ(view->selectedNode(), 20);  // dot's layout replaced the fast one under the selection
    // ResNet-18's names have scopes: the nodes dock offers the scope tree.
    EXPECT_TRUE(w.scopeTree()->hasScopes());
    w.setGroupByScope(true);
    EXPECT_TRUE(w.scopeTree()->isVisibleTo(&w));
    w.scopeTree()->setFilterText("layer3.1/conv2");
    EXPECT_EQ(w.scopeTree()->rowCountBelowRoot(), 1);  // the /layer3 scope, kept for its match
}

TEST(GraphViewFolding, KeepingTheFastLayoutSkipsDot) {
    graphopt::ui::MainWindow w;
    w.setKeepFastLayout(true);
    w.show();
    QSignalSpy final(&w, &graphopt::ui::MainWindow::finalLayoutReady);
    w.openModel(QString(GRAPHOPT_SOURCE_DIR) + "/resources/models/googlenet.onnx");
    ASSERT_TRUE(final.wait(60000));
    EXPECT_FALSE(w.layoutJob()->isDotRunning());
    EXPECT_GT(w.graphView()->nodeItemCount(), 100);
    w.setKeepFastLayout(false);  // leave the setting as the other tests expect it
}
