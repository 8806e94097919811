// The graph drawing: a QGraphicsView over a scene built from a Graph and a layout (the fast layered
// one first, Graphviz dot's when it is ready). Zoom (wheel, Ctrl +/-), pan (drag), fit to window,
// find, select a node, export PNG/SVG, and colours per node (by op family, by device after a
// placement run).
//
// Big graphs fold by name scope (ScopeFolding): above `foldAbove()` nodes, scopes open depth by
// depth while the drawing keeps at most that many items, so repeated blocks (transformer layers)
// show as one box each with their op count, FLOPs, bytes and the device colours of what is inside.
// Double click opens a box; the breadcrumb at the top closes it again. A folded drawing is laid out
// here with the fast layout (it is small); the whole graph's layouts are kept for when everything
// is open. Selecting a node inside a folded box opens the box.
//
// When a layout replaces another of the same graph (fast -> dot, fold -> unfold), the selection,
// the zoom and the node under the cursor (or the one nearest the centre) stay where they were.
//
// Level of detail: labels only when readable, boxes without rounding and edges as straight
// segments without arrowheads when zoomed far out, so panning stays smooth on thousands of nodes.
#pragma once

#include <QGraphicsView>
#include <QHash>
#include <memory>
#include <optional>

#include "graph/Graph.h"
#include "graph/GraphLayout.h"
#include "graph/ScopeFolding.h"

class QLabel;

namespace graphopt::ui {

class NodeItem;
class ScopeItem;

class GraphView : public QGraphicsView {
    Q_OBJECT
public:
    explicit GraphView(QWidget* parent = nullptr);
    ~GraphView() override;

    // Shows `layout` of the whole graph (node ids index its boxes). A new graph starts folded by
    // scope if it has more than foldAbove() nodes; the same graph again keeps the view's state.
    // `graph` must outlive the view's use of it (the view keeps the pointer).
    void showGraph(std::shared_ptr<const Graph> graph, const GraphLayout& layout);
    // A new graph whose layout is not there yet: draws it at once if it folds (the folded drawing
    // needs no whole-graph layout), else shows `message`. Returns whether something is drawn.
    bool beginGraph(std::shared_ptr<const Graph> graph, const QString& message);
    void clearGraph(const QString& message = {});
    void showMessage(const QString& message);  // centred text when there is no drawing
    bool hasDrawing() const { return graph_ && (!nodeItems_.empty() || !scopeItems_.empty()) && drawn_; }
    const Graph* graph() const { return graph_.get(); }

    // Fill colours per node id (e.g. device colours); an empty list restores the op colours.
    void setNodeColors(const QVector<QColor>& colors);
    // A placement: nodes coloured by device (with a legend), each node's schedule step shown,
    // edges between devices drawn thick and red; a folded box is split by the devices of its
    // nodes. Empty `device` clears it.
    void setPlacement(const std::vector<int>& device, const std::vector<int>& order,
                      const QStringList& deviceNames);
    int crossDeviceEdgeCount() const { return crossEdges_; }
    // Rings the nodes with these names (a comparison's "placed differently"), and the folded boxes
    // that hold any; an empty list clears the rings. Returns how many nodes were ringed.
    int setHighlightedNodes(const std::vector<std::string>& names);
    int highlightedNodeCount() const;
    int nodeItemCount() const;   // node boxes drawn (nodes inside folded boxes are not)
    int scopeItemCount() const { return static_cast<int>(scopeItems_.size()); }
    QColor nodeColor(int node) const;

    // Selects and centres the first node after the current selection whose name or op contains
    // `text` (case-insensitive), opening the folded box it is in; returns the node id or -1.
    int findNext(const QString& text);
    void selectNode(int node);  // opens the folded box the node is in
    int selectedNode() const;
    int nodeAtViewportCentre() const;  // the node under the cursor, else nearest the centre (the anchor)
    QPoint viewportPosOf(int node) const;  // centre of the box showing the node; (-1, -1) if none

    // --- folding by name scope ---------------------------------------------------------------------
    const ScopeFolding& folding() const { return folding_; }
    void setFoldAbove(int nodes);  // 0: never fold; applies to the next graph and refolds this one
    int foldAbove() const { return foldAbove_; }
    void openScope(int scope);
    void closeScope(int scope);
    void unfoldAll();
    void foldByScope();            // folds by scope whatever the graph's size (View > Fold by Scope)
    bool isFolded() const { return folding_.anyFolded(); }
    QString breadcrumbText() const;  // the breadcrumb's plain text ("" when nothing is open)
    QGraphicsItem* scopeItemFor(int scope) const;  // the folded box of a scope, or nullptr

    void setHorizontal(bool on) { horizontal_ = on; }  // folded drawings left to right
    void refresh() { redraw(); }  // draws the folded view again (after setHorizontal)
    void zoomBy(double factor);
    void fitToWindow();
    bool exportImage(const QString& path);  // .png or .svg by extension

    static QColor opColor(const std::string& op);

signals:
    void nodeSelected(int node);  // -1 when the selection is cleared
    // Scopes were opened or closed; `allOpen` when the whole graph is drawn (its layout is wanted).
    void foldingChanged(bool allOpen);

protected:
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    struct Anchor {  // what stays in place when the drawing is rebuilt
        int selected = -1;
        int node = -1;         // node under the cursor or nearest the centre
        QPointF viewportPos;   // where it was on screen
        QTransform transform;
    };
    std::optional<Anchor> captureAnchor() const;
    void restoreAnchor(const Anchor& a);
    void redraw();  // the current folding with the whole-graph layout or a folded one
    void buildScene(const FoldedView& fv, const GraphLayout& layout);
    void applyDecorations();  // colours, placement, rings onto freshly built items
    void updateBreadcrumb();
    QGraphicsItem* itemShowing(int node) const;

    std::shared_ptr<const Graph> graph_;
    ScopeFolding folding_;
    int foldAbove_ = 400;
    static constexpr int kFoldedItems = 80;  // what a default folding aims to draw at most
    bool horizontal_ = false;
    std::optional<GraphLayout> fullLayout_;  // of the whole graph, the latest received
    std::vector<NodeItem*> nodeItems_;       // by node id; nullptr inside a folded box
    std::vector<ScopeItem*> scopeItems_;
    int lastOpened_ = -1;                    // the scope the breadcrumb follows
    bool drawn_ = false;
    QLabel* legend_ = nullptr;
    QLabel* breadcrumb_ = nullptr;
    int crossEdges_ = 0;
    // Decorations kept across rebuilds.
    QVector<QColor> nodeColors_;
    std::vector<int> placementDevice_, placementOrder_;
    QStringList deviceNames_;
    std::vector<std::string> highlighted_;
};

}  // namespace graphopt::ui
