#include "GraphView.h"

#include <algorithm>
#include <set>

#include <QFileInfo>
#include <QLabel>

#include "DeviceColors.h"
#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QGraphicsSceneHoverEvent>
#include <QKeyEvent>
#include <QLocale>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <QSvgGenerator>
#include <QWheelEvent>
#include <cmath>

namespace graphopt::ui {

namespace {

QString tensorSummary(const Graph& g, int t) {
    const Tensor& tensor = g.tensors()[t];
    return QString("%1 %2 %3")
        .arg(QString::fromStdString(tensor.name).toHtmlEscaped(),
             QString::fromStdString(tensor.shapeKnown ? shapeToString(tensor.shape) : std::string("[?]")),
             QLocale().formattedDataSize(tensor.bytes));
}

QString nodeToolTip(const Graph& g, int v) {
    const Node& n = g.nodes()[v];
    QString tip = QString("<b>%1</b> %2<br>%3 MFLOP")
                      .arg(QString::fromStdString(n.op).toHtmlEscaped(), QString::fromStdString(n.name).toHtmlEscaped(),
                           QLocale().toString(n.flops / 1e6, 'f', 2));
    for (int t : n.inputs)
        if (t >= 0) tip += "<br>in: " + tensorSummary(g, t);
    for (int t : n.outputs) tip += "<br>out: " + tensorSummary(g, t);
    return tip;
}

QString edgeToolTip(const Graph& g, int src, int dst) {
    QStringList parts;
    for (int t : g.nodes()[src].outputs)
        for (const auto& [consumer, port] : g.consumers(t))
            if (consumer == dst) {
                parts << tensorSummary(g, t);
                break;
            }
    if (parts.isEmpty()) parts << QObject::tr("control dependency");
    return parts.join("<br>");
}

}  // namespace

// Tooltips are built on the first hover, not with the scene: for a 1,000-node graph, formatting
// every node's and edge's tensors up front was a large part of the time the GUI thread spent
// building the scene.

// One edge: its route, with the tensors it carries as a tooltip.
class EdgeItem : public QGraphicsPathItem {
public:
    EdgeItem(const QPainterPath& path, const QPen& pen, const Graph* graph, int src, int dst)
        : QGraphicsPathItem(path), graph_(graph), src_(src), dst_(dst) {
        setPen(pen);
        setAcceptHoverEvents(true);
        setData(0, src);
        setData(1, dst);
    }

protected:
    void hoverEnterEvent(QGraphicsSceneHoverEvent* event) override {
        if (toolTip().isEmpty()) setToolTip(edgeToolTip(*graph_, src_, dst_));
        QGraphicsPathItem::hoverEnterEvent(event);
    }

private:
    const Graph* graph_;  // owned by the view (graph_), outlives the scene's items
    int src_, dst_;
};

// One operation: a rounded box with the op type (bold) and the node name below it, both elided
// to the box.
class NodeItem : public QGraphicsItem {
public:
    NodeItem(int id, const Node& node, const NodeBox& box, const Graph* graph)
        : graph_(graph), id_(id), op_(QString::fromStdString(node.op)), name_(QString::fromStdString(node.name)),
          rect_(-box.width / 2, -box.height / 2, box.width, box.height) {
        setPos(box.x, box.y);
        setFlag(ItemIsSelectable);
        setAcceptHoverEvents(true);
        fill_ = GraphView::opColor(node.op);
        setZValue(1);
    }
    int id() const { return id_; }
    QColor fill() const { return fill_; }
    void setFill(const QColor& c) {
        fill_ = c;
        update();
    }
    void setStep(int step) {
        step_ = step;
        update();
    }
    void setHighlighted(bool on) {
        highlighted_ = on;
        update();
    }
    bool highlighted() const { return highlighted_; }
    const QString& name() const { return name_; }
    const QString& op() const { return op_; }
    QRectF boundingRect() const override { return rect_.adjusted(-3, -3, 3, 3); }

    void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) override {
        const double lod = option->levelOfDetailFromTransform(p->worldTransform());
        const bool selected = isSelected();
        p->setPen(QPen(selected ? QColor(255, 140, 0) : fill_.darker(160), selected ? 3.0 : 1.0));
        p->setBrush(fill_);
        if (highlighted_) {  // a thick magenta ring around the box: "this node differs"
            p->save();
            p->setPen(QPen(QColor(200, 0, 160), 4.0, Qt::DashLine));
            p->setBrush(Qt::NoBrush);
            p->drawRoundedRect(rect_.adjusted(-2, -2, 2, 2), 6, 6);
            p->restore();
        }
        if (lod < 0.15) {  // far out: boxes only, text would be unreadable anyway
            p->drawRect(rect_);
            return;
        }
        p->drawRoundedRect(rect_, 5, 5);
        p->setPen(contrastTextColor(fill_));
        QFont f = p->font();
        f.setPointSizeF(9);
        f.setBold(true);
        p->setFont(f);
        const QRectF top(rect_.left() + 4, rect_.top() + 2, rect_.width() - 8, rect_.height() / 2 - 1);
        // A long op type is elided like the name (the tooltip has both whole), never clipped.
        p->drawText(top, Qt::AlignCenter, QFontMetricsF(f).elidedText(op_, Qt::ElideRight, top.width()));
        f.setBold(false);
        f.setPointSizeF(7);
        p->setFont(f);
        const QRectF bottom(rect_.left() + 4, rect_.center().y(), rect_.width() - 8, rect_.height() / 2 - 2);
        p->drawText(bottom, Qt::AlignCenter, QFontMetricsF(f).elidedText(name_, Qt::ElideMiddle, bottom.width()));
        if (step_ >= 0) {  // schedule step, top-left corner
            f.setPointSizeF(6.5);
            p->setFont(f);
            p->drawText(rect_.adjusted(4, 1, -4, -1), Qt::AlignLeft | Qt::AlignTop, QString::number(step_));
        }
    }

protected:
    void hoverEnterEvent(QGraphicsSceneHoverEvent* event) override {
        if (toolTip().isEmpty()) setToolTip(nodeToolTip(*graph_, id_));
        QGraphicsItem::hoverEnterEvent(event);
    }

private:
    bool highlighted_ = false;
    const Graph* graph_;
    int id_;
    QString op_, name_;
    QRectF rect_;
    QColor fill_;
    int step_ = -1;
};

GraphView::GraphView(QWidget* parent) : QGraphicsView(parent) {
    setScene(new QGraphicsScene(this));
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    setDragMode(ScrollHandDrag);
    setTransformationAnchor(AnchorUnderMouse);
    setViewportUpdateMode(BoundingRectViewportUpdate);
    setBackgroundBrush(QColor(250, 250, 252));
    connect(scene(), &QGraphicsScene::selectionChanged, this, [this] { emit nodeSelected(selectedNode()); });
    // A child of the view, not of the viewport: QWidget::scroll() would move viewport children.
    legend_ = new QLabel(this);
    legend_->setStyleSheet("QLabel { background: rgba(255,255,255,235); border: 1px solid #bbb; }");
    legend_->setMargin(8);
    legend_->move(frameWidth() + 12, frameWidth() + 12);
    legend_->hide();
}

GraphView::~GraphView() {
    // The scene is this view's child, deleted after this destructor: clearing its selection on
    // the way out must not call back into a view that is no longer one (found by UBSan).
    scene()->disconnect(this);
}

QColor GraphView::opColor(const std::string& op) {
    if (op == "Conv" || op == "ConvTranspose") return QColor(86, 140, 212);
    if (op == "Gemm" || op == "MatMul") return QColor(62, 110, 180);
    if (op.find("Pool") != std::string::npos) return QColor(122, 186, 120);
    if (op.find("Norm") != std::string::npos) return QColor(180, 150, 210);
    if (op == "Relu" || op == "Sigmoid" || op == "HardSwish" || op == "HardSigmoid" || op == "Clip" || op == "Tanh" ||
        op == "Erf" || op == "Softmax" || op == "LeakyRelu")
        return QColor(240, 176, 96);
    if (op == "Add" || op == "Mul" || op == "Sub" || op == "Div") return QColor(232, 212, 120);
    if (op == "Concat" || op == "Reshape" || op == "Flatten" || op == "Transpose" || op == "Split" || op == "Slice" ||
        op == "Gather" || op == "Squeeze" || op == "Unsqueeze")
        return QColor(200, 200, 200);
    return QColor(214, 222, 230);
}

int GraphView::setHighlightedNodes(const std::vector<std::string>& names) {
    std::set<std::string> wanted(names.begin(), names.end());
    int count = 0;
    for (NodeItem* item : nodeItems_) {
        const bool on = graph_ && wanted.count(graph_->nodes()[static_cast<size_t>(item->id())].name) != 0;
        item->setHighlighted(on);
        count += on;
    }
    return count;
}

int GraphView::highlightedNodeCount() const {
    int count = 0;
    for (const NodeItem* item : nodeItems_) count += item->highlighted();
    return count;
}

void GraphView::setPlacement(const std::vector<int>& device, const std::vector<int>& order,
                             const QStringList& deviceNames) {
    crossEdges_ = 0;
    if (!graph_) return;
    const bool placed = !device.empty();
    std::vector<int> step(graph_->nodeCount(), -1);
    for (size_t i = 0; i < order.size(); ++i)
        if (order[i] >= 0 && order[i] < static_cast<int>(step.size())) step[order[i]] = static_cast<int>(i);
    for (NodeItem* item : nodeItems_) {
        const int id = item->id();
        const bool has = placed && id < static_cast<int>(device.size());
        item->setFill(has ? deviceColor(device[id]) : opColor(graph_->nodes()[id].op));
        item->setStep(has ? step[id] : -1);
    }
    const QPen normal(QColor(110, 110, 120), 1.2), cross(QColor(214, 39, 40), 3.0);
    for (QGraphicsItem* it : scene()->items()) {
        auto* path = qgraphicsitem_cast<QGraphicsPathItem*>(it);
        if (!path || !path->data(0).isValid()) continue;
        const int a = path->data(0).toInt(), b = path->data(1).toInt();
        const bool crosses = placed && a < static_cast<int>(device.size()) && b < static_cast<int>(device.size()) &&
                             device[a] != device[b];
        crossEdges_ += crosses;
        path->setPen(crosses ? cross : normal);
        path->setZValue(crosses ? 0.5 : 0);
    }
    if (!placed) {
        legend_->hide();
        return;
    }
    QString html = "<b>" + tr("Devices") + "</b>";
    for (int d = 0; d < deviceNames.size(); ++d)
        html += QString("<br><span style='background:%1'>&nbsp;&nbsp;&nbsp;&nbsp;</span> %2")
                    .arg(deviceColor(d).name(), deviceNames[d].toHtmlEscaped());
    html += QString("<br><span style='color:#d62728'><b>&mdash;</b></span> ") +
            tr("%n edge(s) between devices", nullptr, crossEdges_);
    legend_->setText(html);
    legend_->adjustSize();
    legend_->show();
    legend_->raise();
}

void GraphView::clearGraph(const QString& message) {
    scene()->clear();
    nodeItems_.clear();
    graph_.reset();
    if (!message.isEmpty()) showMessage(message);
}

void GraphView::showMessage(const QString& message) {
    if (legend_) legend_->hide();
    scene()->clear();
    nodeItems_.clear();
    auto* text = scene()->addText(message);
    QFont f = text->font();
    f.setPointSize(12);
    text->setFont(f);
    text->setDefaultTextColor(QColor(90, 90, 90));
    scene()->setSceneRect(text->boundingRect().adjusted(-40, -40, 40, 40));
    resetTransform();
    centerOn(text);
}

void GraphView::showGraph(std::shared_ptr<const Graph> graph, const GraphLayout& layout) {
    legend_->hide();
    crossEdges_ = 0;
    scene()->clear();
    nodeItems_.clear();
    graph_ = std::move(graph);
    const Graph& g = *graph_;
    const QPen edgePen(QColor(110, 110, 120), 1.2);
    for (const EdgeRoute& e : layout.edges) {
        if (e.points.size() < 2) continue;
        QPainterPath path(QPointF(e.points[0].x, e.points[0].y));
        if (e.bezier) {
            for (size_t k = 1; k + 2 < e.points.size(); k += 3)  // p0, then (c1, c2, p) triples
                path.cubicTo(e.points[k].x, e.points[k].y, e.points[k + 1].x, e.points[k + 1].y, e.points[k + 2].x,
                             e.points[k + 2].y);
        } else {
            for (size_t k = 1; k < e.points.size(); ++k) path.lineTo(e.points[k].x, e.points[k].y);
        }
        QPointF tail = path.currentPosition();
        QPointF tip = tail;
        if (e.hasArrow) {
            tip = QPointF(e.arrowTip.x, e.arrowTip.y);
            path.lineTo(tip);
        } else if (!e.bezier && e.dst >= 0) {
            tip = path.currentPosition();
            tail = QPointF(e.points[e.points.size() - 2].x, e.points[e.points.size() - 2].y);
        }
        auto* item = new EdgeItem(path, edgePen, &g, e.src, e.dst);
        scene()->addItem(item);
        // Arrowhead: a small triangle pointing from tail to tip.
        const QLineF dir(tip, tail);
        if (dir.length() > 0.1) {
            const double angle = std::atan2(-dir.dy(), dir.dx());
            const double size = 7;
            QPolygonF head;
            head << tip << tip + QPointF(std::cos(angle + 0.45) * size, -std::sin(angle + 0.45) * size)
                 << tip + QPointF(std::cos(angle - 0.45) * size, -std::sin(angle - 0.45) * size);
            auto* arrow = scene()->addPolygon(head, QPen(edgePen.color()), QBrush(edgePen.color()));
            arrow->setParentItem(item);
        }
    }
    nodeItems_.reserve(layout.nodes.size());
    for (size_t v = 0; v < layout.nodes.size() && v < g.nodeCount(); ++v) {
        auto* item = new NodeItem(static_cast<int>(v), g.nodes()[v], layout.nodes[v], &g);
        scene()->addItem(item);
        nodeItems_.push_back(item);
    }
    scene()->setSceneRect(QRectF(-20, -20, layout.width + 40, layout.height + 40));
    fitToWindow();
}

void GraphView::setNodeColors(const QVector<QColor>& colors) {
    if (!graph_) return;
    for (NodeItem* item : nodeItems_) {
        const int id = item->id();
        item->setFill(id < colors.size() && colors[id].isValid() ? colors[id] : opColor(graph_->nodes()[id].op));
    }
}

QColor GraphView::nodeColor(int node) const {
    return node >= 0 && node < static_cast<int>(nodeItems_.size()) ? nodeItems_[node]->fill() : QColor();
}

int GraphView::selectedNode() const {
    const auto items = scene()->selectedItems();
    for (auto* it : items)
        if (auto* n = dynamic_cast<NodeItem*>(it)) return n->id();
    return -1;
}

void GraphView::selectNode(int node) {
    if (node < 0 || node >= static_cast<int>(nodeItems_.size())) return;
    scene()->clearSelection();
    nodeItems_[node]->setSelected(true);
    if (transform().m11() < 0.6) {  // zoom in enough to read the node
        resetTransform();
        scale(0.8, 0.8);
    }
    centerOn(nodeItems_[node]);
}

int GraphView::findNext(const QString& text) {
    if (text.isEmpty() || nodeItems_.empty()) return -1;
    const int n = static_cast<int>(nodeItems_.size());
    const int start = selectedNode() + 1;
    for (int k = 0; k < n; ++k) {
        NodeItem* item = nodeItems_[(start + k) % n];
        if (item->name().contains(text, Qt::CaseInsensitive) || item->op().contains(text, Qt::CaseInsensitive)) {
            selectNode(item->id());
            return item->id();
        }
    }
    return -1;
}

void GraphView::zoomBy(double factor) {
    const double current = transform().m11();
    const double target = std::clamp(current * factor, 0.01, 8.0);
    scale(target / current, target / current);
}

void GraphView::fitToWindow() {
    if (!scene()->items().isEmpty()) fitInView(scene()->sceneRect(), Qt::KeepAspectRatio);
    // A tall chain fitted whole would be unreadably small: keep a readable zoom and show the top.
    constexpr double kMinReadableZoom = 0.6;
    if (transform().m11() < kMinReadableZoom && graph_) {
        resetTransform();
        scale(kMinReadableZoom, kMinReadableZoom);
        centerOn(scene()->sceneRect().center().x(), scene()->sceneRect().top());
        // Where the data enters: the first node that reads a graph input, near the top of the
        // view (the centre of a wide graph can be a row of weight copies, not the network).
        const auto& nodes = graph_->nodes();
        for (size_t id = 0; id < nodes.size() && id < nodeItems_.size(); ++id) {
            const bool readsInput = std::any_of(nodes[id].inputs.begin(), nodes[id].inputs.end(), [&](int t) {
                return t >= 0 && graph_->tensors()[static_cast<size_t>(t)].kind == TensorKind::GraphInput;
            });
            if (!readsInput || !nodeItems_[id]) continue;
            const QRectF box = nodeItems_[id]->sceneBoundingRect();
            const double halfHeight = mapToScene(viewport()->rect()).boundingRect().height() / 2;
            centerOn(box.center().x(), std::max(box.top() - 40 + halfHeight, scene()->sceneRect().top() + halfHeight));
            break;
        }
    }
}

bool GraphView::exportImage(const QString& path) {
    const QRectF area = scene()->sceneRect();
    if (QFileInfo(path).suffix().compare("svg", Qt::CaseInsensitive) == 0) {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(area.size().toSize());
        svg.setViewBox(QRectF(QPointF(0, 0), area.size()));
        svg.setTitle("GraphOpt Studio graph");
        QPainter p(&svg);
        if (!p.isActive()) return false;
        scene()->render(&p, QRectF(QPointF(0, 0), area.size()), area);
        return p.end();
    }
    // PNG: scale so the image stays under ~16k pixels on its long side.
    const double scaleFactor = std::min(2.0, 16000.0 / std::max(area.width(), area.height()));
    QImage image((area.size() * scaleFactor).toSize(), QImage::Format_ARGB32_Premultiplied);
    if (image.isNull()) return false;
    image.fill(Qt::white);
    QPainter p(&image);
    p.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    scene()->render(&p, QRectF(QPointF(0, 0), image.size()), area);
    p.end();
    return image.save(path);
}

void GraphView::wheelEvent(QWheelEvent* event) {
    const double steps = event->angleDelta().y() / 120.0;
    if (steps != 0) zoomBy(std::pow(1.2, steps));
    event->accept();
}

void GraphView::keyPressEvent(QKeyEvent* event) {
    if (event->key() == Qt::Key_Plus || event->key() == Qt::Key_Equal)
        zoomBy(1.25);
    else if (event->key() == Qt::Key_Minus)
        zoomBy(0.8);
    else if (event->key() == Qt::Key_0)
        fitToWindow();
    else
        QGraphicsView::keyPressEvent(event);
}

}  // namespace graphopt::ui
