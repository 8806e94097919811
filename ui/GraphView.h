// The graph drawing: a QGraphicsView over a scene built from a Graph and its Graphviz layout.
// Zoom (wheel, Ctrl +/-), pan (drag), fit to window, find, select a node, export PNG/SVG, and
// colours per node (by op family now, by device after a placement run).
#pragma once

#include <QGraphicsView>
#include <QHash>
#include <memory>

#include "graph/Graph.h"
#include "graph/GraphLayout.h"

class QLabel;

namespace graphopt::ui {

class NodeItem;

class GraphView : public QGraphicsView {
    Q_OBJECT
public:
    explicit GraphView(QWidget* parent = nullptr);
    ~GraphView() override;

    // Replaces the drawing. `graph` must outlive the view's use of it (the view keeps the pointer).
    void showGraph(std::shared_ptr<const Graph> graph, const GraphLayout& layout);
    void clearGraph(const QString& message = {});
    void showMessage(const QString& message);  // centred text when there is no drawing

    // Fill colours per node id (e.g. device colours); an empty list restores the op colours.
    void setNodeColors(const QVector<QColor>& colors);
    // A placement: nodes coloured by device (with a legend), each node's schedule step shown,
    // edges between devices drawn thick and red. Empty `device` clears it.
    void setPlacement(const std::vector<int>& device, const std::vector<int>& order,
                      const QStringList& deviceNames);
    int crossDeviceEdgeCount() const { return crossEdges_; }
    // Rings the nodes with these names (a comparison's "placed differently"); an empty list
    // clears the rings. Returns how many nodes of the drawing were ringed.
    int setHighlightedNodes(const std::vector<std::string>& names);
    int highlightedNodeCount() const;
    int nodeItemCount() const { return static_cast<int>(nodeItems_.size()); }
    QColor nodeColor(int node) const;

    // Selects and centres the first node after the current selection whose name or op contains
    // `text` (case-insensitive); returns the node id or -1.
    int findNext(const QString& text);
    void selectNode(int node);
    int selectedNode() const;

    void zoomBy(double factor);
    void fitToWindow();
    bool exportImage(const QString& path);  // .png or .svg by extension

    static QColor opColor(const std::string& op);

signals:
    void nodeSelected(int node);  // -1 when the selection is cleared

protected:
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    std::shared_ptr<const Graph> graph_;
    std::vector<NodeItem*> nodeItems_;
    QLabel* legend_ = nullptr;
    int crossEdges_ = 0;
};

}  // namespace graphopt::ui
