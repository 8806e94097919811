#include "GraphView.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include <QFileInfo>
#include <QCursor>
#include <QElapsedTimer>
#include <QLabel>
#include <QScrollBar>

#include "DeviceColors.h"
#include "ScopedNames.h"
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
#include <cstdio>

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

// Below these zoom levels (levelOfDetailFromTransform) text is unreadable and detail is wasted.
constexpr double kLabelLod = 0.4;  // node labels, rounded corners, antialiasing
constexpr double kEdgeLod = 0.3;   // edge routes and arrowheads (else a straight segment)

// One edge: its route and arrowhead, with the tensors it carries as a tooltip. Zoomed far out it
// is drawn as one straight segment from end to end, without antialiasing.
class EdgeItem : public QGraphicsPathItem {
public:
    EdgeItem(const QPainterPath& path, const QPen& pen, const Graph* graph, int src, int dst, QPolygonF head, bool stub)
        : QGraphicsPathItem(path), graph_(graph), src_(src), dst_(dst), stub_(stub), head_(std::move(head)),
          ends_(path.elementCount() ? QPointF(path.elementAt(0)) : QPointF(), path.currentPosition()) {
        setPen(pen);
        setAcceptHoverEvents(true);
        setData(0, src);
        setData(1, dst);
    }
    QRectF boundingRect() const override { return QGraphicsPathItem::boundingRect().united(head_.boundingRect()).adjusted(-2, -2, 2, 2); }
    void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) override {
        const double lod = option->levelOfDetailFromTransform(p->worldTransform());
        if (lod < kEdgeLod) {
            p->setRenderHint(QPainter::Antialiasing, false);
            QPen thin = pen();
            thin.setCosmetic(true);
            thin.setWidthF(pen().widthF() > 2 ? 2 : 1);
            p->setPen(thin);
            p->drawLine(ends_);
            return;
        }
        QPen routePen = pen();
        if (stub_) routePen.setStyle(Qt::DashLine);  // "from far away": the tooltip names the producer
        p->setPen(routePen);
        p->setBrush(Qt::NoBrush);
        p->drawPath(path());
        if (!head_.isEmpty()) {
            p->setPen(QPen(pen().color()));
            p->setBrush(pen().color());
            p->drawPolygon(head_);
        }
    }

protected:
    void hoverEnterEvent(QGraphicsSceneHoverEvent* event) override {
        if (toolTip().isEmpty() && graph_ && src_ >= 0 && dst_ >= 0)
            setToolTip((stub_ ? QObject::tr("from <b>%1</b> (its %2 consumers are not routed)<br>")
                                    .arg(QString::fromStdString(graph_->nodes()[static_cast<size_t>(src_)].name).toHtmlEscaped())
                                    .arg(graph_->successors(src_).size())
                              : QString()) +
                       edgeToolTip(*graph_, src_, dst_));
        QGraphicsPathItem::hoverEnterEvent(event);
    }

private:
    const Graph* graph_;  // owned by the view (graph_), outlives the scene's items
    int src_, dst_;       // node ids; -1 when an end is a folded box
    bool stub_;
    QPolygonF head_;
    QLineF ends_;
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
        if (lod < kLabelLod) {  // far out: plain boxes, text would be unreadable anyway
            p->setRenderHint(QPainter::Antialiasing, false);
            if (!selected) p->setPen(Qt::NoPen);
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
        p->drawText(bottom, Qt::AlignCenter, elidedName(QFontMetricsF(f), bottom.width()));
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
    // The name shortened in the middle by scopes (the op's own name kept), for the box's width.
    QString elidedName(const QFontMetricsF& fm, double width) {
        if (width != elidedFor_) {
            elidedFor_ = width;
            elided_ = elideScopedToWidth(name_, fm, width);
        }
        return elided_;
    }

    bool highlighted_ = false;
    const Graph* graph_;
    int id_;
    QString op_, name_, elided_;
    double elidedFor_ = -1;
    QRectF rect_;
    QColor fill_;
    int step_ = -1;
};

// A folded scope: a box with a double border, its name and what it holds, filled by op colour
// or, after a placement, split left to right by the share of its nodes on each device.
class ScopeItem : public QGraphicsItem {
public:
    ScopeItem(int scope, const Scope& s, const NodeBox& box, std::vector<int> members)
        : scope_(scope), label_(QString::fromStdString(s.label)), path_(QString::fromStdString(s.path)),
          members_(std::move(members)), rect_(-box.width / 2, -box.height / 2, box.width, box.height) {
        setPos(box.x, box.y);
        setFlag(ItemIsSelectable);
        setZValue(1);
        const QLocale loc;
        figures_ = (s.nodeCount == 1 ? QObject::tr("1 op") : QObject::tr("%1 ops").arg(s.nodeCount)) + QString::fromUtf8(" \u00b7 ") +
                   (s.flops >= 1e9 ? QObject::tr("%1 GFLOP").arg(loc.toString(s.flops / 1e9, 'f', 2))
                                   : QObject::tr("%1 MFLOP").arg(loc.toString(s.flops / 1e6, 'f', 1))) +
                   QString::fromUtf8(" \u00b7 ") + loc.formattedDataSize(s.bytes);
        setToolTip(QObject::tr("<b>%1</b><br>%2<br>double click to open").arg(path_.toHtmlEscaped(), figures_.toHtmlEscaped()));
    }
    int scope() const { return scope_; }
    const std::vector<int>& members() const { return members_; }
    void setShares(std::vector<std::pair<QColor, double>> shares) {
        shares_ = std::move(shares);
        update();
    }
    void setHighlighted(bool on) {
        highlighted_ = on;
        update();
    }
    bool highlighted() const { return highlighted_; }
    QRectF boundingRect() const override { return rect_.adjusted(-6, -6, 6, 6); }

    void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) override {
        const double lod = option->levelOfDetailFromTransform(p->worldTransform());
        const bool selected = isSelected();
        // The fill: one colour, or a band per device.
        p->setPen(Qt::NoPen);
        if (shares_.empty()) {
            p->setBrush(QColor(226, 232, 242));
            p->drawRoundedRect(rect_, 7, 7);
        } else {
            p->save();
            QPainterPath clip;
            clip.addRoundedRect(rect_, 7, 7);
            p->setClipPath(clip);
            double x = rect_.left();
            for (const auto& [color, share] : shares_) {
                const double w = share * rect_.width();
                p->fillRect(QRectF(x, rect_.top(), w + 0.5, rect_.height()), color);
                x += w;
            }
            p->restore();
        }
        p->setBrush(Qt::NoBrush);
        p->setPen(QPen(selected ? QColor(255, 140, 0) : QColor(70, 80, 100), selected ? 3.0 : 1.4));
        p->drawRoundedRect(rect_, 7, 7);
        p->setPen(QPen(QColor(70, 80, 100), 0.8));
        p->drawRoundedRect(rect_.adjusted(3, 3, -3, -3), 5, 5);  // the double border: "there is more inside"
        if (highlighted_) {
            p->setPen(QPen(QColor(200, 0, 160), 4.0, Qt::DashLine));
            p->drawRoundedRect(rect_.adjusted(-4, -4, 4, 4), 8, 8);
        }
        if (lod < kLabelLod) return;
        const QColor text = shares_.empty() ? QColor(30, 30, 40) : contrastTextColor(shares_.front().first);
        p->setPen(text);
        QFont f = p->font();
        f.setPointSizeF(9.5);
        f.setBold(true);
        p->setFont(f);
        const QRectF top(rect_.left() + 6, rect_.top() + 4, rect_.width() - 12, rect_.height() / 2 - 3);
        p->drawText(top, Qt::AlignCenter, QFontMetricsF(f).elidedText(label_, Qt::ElideMiddle, top.width()));
        f.setBold(false);
        f.setPointSizeF(7);
        p->setFont(f);
        const QRectF bottom(rect_.left() + 6, rect_.center().y(), rect_.width() - 12, rect_.height() / 2 - 4);
        p->drawText(bottom, Qt::AlignCenter, QFontMetricsF(f).elidedText(figures_, Qt::ElideRight, bottom.width()));
    }

private:
    int scope_;
    QString label_, path_, figures_;
    std::vector<int> members_;
    QRectF rect_;
    std::vector<std::pair<QColor, double>> shares_;
    bool highlighted_ = false;
};

GraphView::GraphView(QWidget* parent) : QGraphicsView(parent) {
    setScene(new QGraphicsScene(this));
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    setDragMode(ScrollHandDrag);
    setTransformationAnchor(AnchorUnderMouse);
    setViewportUpdateMode(BoundingRectViewportUpdate);
    setOptimizationFlags(DontAdjustForAntialiasing);
    setBackgroundBrush(QColor(250, 250, 252));
    connect(scene(), &QGraphicsScene::selectionChanged, this, [this] { emit nodeSelected(selectedNode()); });
    // Children of the view, not of the viewport: QWidget::scroll() would move viewport children.
    legend_ = new QLabel(this);
    legend_->setStyleSheet("QLabel { background: rgba(255,255,255,235); border: 1px solid #bbb; }");
    legend_->setMargin(8);
    legend_->hide();
    breadcrumb_ = new QLabel(this);
    breadcrumb_->setObjectName("scopeBreadcrumb");
    breadcrumb_->setStyleSheet("QLabel { background: rgba(255,255,255,235); border: 1px solid #bbb; }");
    breadcrumb_->setMargin(5);
    breadcrumb_->setTextFormat(Qt::RichText);
    breadcrumb_->hide();
    connect(breadcrumb_, &QLabel::linkActivated, this, [this](const QString& link) {
        if (link == "unfold") unfoldAll();
        else if (link == "fold") foldByScope();
        else if (link.startsWith("close:")) closeScope(link.mid(6).toInt());
    });
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

void GraphView::resizeEvent(QResizeEvent* event) {
    QGraphicsView::resizeEvent(event);
    legend_->move(frameWidth() + 12, frameWidth() + 12 + (breadcrumb_->isVisible() ? breadcrumb_->height() + 6 : 0));
    breadcrumb_->move(frameWidth() + 12, frameWidth() + 8);
}

int GraphView::nodeItemCount() const {
    return static_cast<int>(std::count_if(nodeItems_.begin(), nodeItems_.end(), [](const NodeItem* n) { return n != nullptr; }));
}

QGraphicsItem* GraphView::itemShowing(int node) const {
    if (node < 0 || node >= static_cast<int>(nodeItems_.size())) return nullptr;
    if (nodeItems_[node]) return nodeItems_[node];
    for (ScopeItem* s : scopeItems_)
        if (std::binary_search(s->members().begin(), s->members().end(), node)) return s;
    return nullptr;
}

QGraphicsItem* GraphView::scopeItemFor(int scope) const {
    for (ScopeItem* s : scopeItems_)
        if (s->scope() == scope) return s;
    return nullptr;
}

int GraphView::setHighlightedNodes(const std::vector<std::string>& names) {
    highlighted_ = names;
    applyDecorations();
    return highlightedNodeCount();
}

int GraphView::highlightedNodeCount() const {
    int count = 0;
    for (const NodeItem* item : nodeItems_) count += item && item->highlighted();
    if (graph_ && !highlighted_.empty()) {
        const std::set<std::string> wanted(highlighted_.begin(), highlighted_.end());
        for (const ScopeItem* s : scopeItems_)
            for (int v : s->members()) count += wanted.count(graph_->nodes()[static_cast<size_t>(v)].name) != 0;
    }
    return count;
}

void GraphView::setPlacement(const std::vector<int>& device, const std::vector<int>& order,
                             const QStringList& deviceNames) {
    placementDevice_ = device;
    placementOrder_ = order;
    deviceNames_ = deviceNames;
    applyDecorations();
}

void GraphView::setNodeColors(const QVector<QColor>& colors) {
    nodeColors_ = colors;
    applyDecorations();
}

void GraphView::applyDecorations() {
    crossEdges_ = 0;
    if (!graph_) return;
    const auto& device = placementDevice_;
    const bool placed = !device.empty();
    const int n = static_cast<int>(graph_->nodeCount());
    std::vector<int> step(static_cast<size_t>(n), -1);
    for (size_t i = 0; i < placementOrder_.size(); ++i)
        if (placementOrder_[i] >= 0 && placementOrder_[i] < n) step[placementOrder_[i]] = static_cast<int>(i);
    const std::set<std::string> wanted(highlighted_.begin(), highlighted_.end());
    auto deviceOf = [&](int v) { return placed && v < static_cast<int>(device.size()) ? device[v] : -1; };
    for (NodeItem* item : nodeItems_) {
        if (!item) continue;
        const int id = item->id();
        const int d = deviceOf(id);
        QColor fill = d >= 0 ? deviceColor(d) : opColor(graph_->nodes()[id].op);
        if (!placed && id < nodeColors_.size() && nodeColors_[id].isValid()) fill = nodeColors_[id];
        item->setFill(fill);
        item->setStep(d >= 0 ? step[id] : -1);
        item->setHighlighted(!wanted.empty() && wanted.count(graph_->nodes()[id].name) != 0);
    }
    for (ScopeItem* s : scopeItems_) {
        std::vector<std::pair<QColor, double>> shares;
        if (placed) {
            std::map<int, int> count;
            for (int v : s->members()) ++count[deviceOf(v)];
            for (const auto& [d, c] : count) shares.push_back({deviceColor(d), double(c) / double(s->members().size())});
        }
        s->setShares(std::move(shares));
        bool ringed = false;
        if (!wanted.empty())
            for (int v : s->members()) ringed = ringed || wanted.count(graph_->nodes()[static_cast<size_t>(v)].name) != 0;
        s->setHighlighted(ringed);
    }
    const QPen normal(QColor(110, 110, 120), 1.2), cross(QColor(214, 39, 40), 3.0);
    for (QGraphicsItem* it : scene()->items()) {
        auto* path = qgraphicsitem_cast<QGraphicsPathItem*>(it);
        if (!path || !path->data(0).isValid()) continue;
        const int a = path->data(0).toInt(), b = path->data(1).toInt();  // node ids, -1 for a box
        const bool crosses = placed && a >= 0 && b >= 0 && deviceOf(a) != deviceOf(b);
        crossEdges_ += crosses;
        path->setPen(crosses ? cross : normal);
        path->setZValue(crosses ? 0.5 : 0);
    }
    if (!placed) {
        legend_->hide();
        return;
    }
    QString html = "<b>" + tr("Devices") + "</b>";
    for (int d = 0; d < deviceNames_.size(); ++d)
        html += QString("<br><span style='background:%1'>&nbsp;&nbsp;&nbsp;&nbsp;</span> %2")
                    .arg(deviceColor(d).name(), deviceNames_[d].toHtmlEscaped());
    html += QString("<br><span style='color:#d62728'><b>&mdash;</b></span> ") +
            tr("%n edge(s) between devices", nullptr, crossEdges_);
    if (!scopeItems_.empty()) html += "<br>" + tr("folded boxes: split by their nodes' devices");
    legend_->setText(html);
    legend_->adjustSize();
    legend_->show();
    legend_->raise();
}

void GraphView::clearGraph(const QString& message) {
    scene()->clear();
    nodeItems_.clear();
    scopeItems_.clear();
    graph_.reset();
    fullLayout_.reset();
    drawn_ = false;
    breadcrumb_->hide();
    if (!message.isEmpty()) showMessage(message);
}

void GraphView::showMessage(const QString& message) {
    if (legend_) legend_->hide();
    scene()->clear();
    nodeItems_.clear();
    scopeItems_.clear();
    drawn_ = false;
    auto* text = scene()->addText(message);
    QFont f = text->font();
    f.setPointSize(12);
    text->setFont(f);
    text->setDefaultTextColor(QColor(90, 90, 90));
    scene()->setSceneRect(text->boundingRect().adjusted(-40, -40, 40, 40));
    resetTransform();
    centerOn(text);
}

bool GraphView::beginGraph(std::shared_ptr<const Graph> graph, const QString& message) {
    graph_ = std::move(graph);
    fullLayout_.reset();
    folding_ = ScopeFolding(*graph_);
    if (foldAbove_ > 0) folding_.foldToFit(foldAbove_, std::min(foldAbove_, kFoldedItems));
    lastOpened_ = -1;
    drawn_ = false;
    nodeColors_.clear();  // decorations belong to the graph they were made for
    placementDevice_.clear();
    placementOrder_.clear();
    deviceNames_.clear();
    highlighted_.clear();
    if (folding_.anyFolded()) {
        redraw();
        return true;
    }
    updateBreadcrumb();
    showMessage(message);
    return false;
}

void GraphView::showGraph(std::shared_ptr<const Graph> graph, const GraphLayout& layout) {
    if (graph != graph_) beginGraph(std::move(graph), {});
    fullLayout_ = layout;
    if (!folding_.anyFolded() || !drawn_) redraw();
}

std::optional<GraphView::Anchor> GraphView::captureAnchor() const {
    if (!drawn_ || (nodeItems_.empty() && scopeItems_.empty())) return std::nullopt;
    Anchor a;
    a.selected = selectedNode();
    a.transform = transform();
    const QPoint cursor = viewport()->mapFromGlobal(QCursor::pos());
    const bool inside = viewport()->underMouse() && viewport()->rect().contains(cursor);
    const QPointF centre = mapToScene(inside ? cursor : viewport()->rect().center());
    double best = std::numeric_limits<double>::infinity();
    auto consider = [&](QGraphicsItem* item, int node) {
        const double d = QLineF(item->sceneBoundingRect().center(), centre).length();
        if (d < best) {
            best = d;
            a.node = node;
            a.viewportPos = mapFromScene(item->sceneBoundingRect().center());
        }
    };
    for (NodeItem* n : nodeItems_)
        if (n) consider(n, n->id());
    for (ScopeItem* s : scopeItems_) consider(s, s->members().front());
    return a;
}

void GraphView::restoreAnchor(const Anchor& a) {
    setTransform(a.transform);
    if (QGraphicsItem* item = itemShowing(a.node)) {
        const QPointF delta = mapToScene(viewport()->rect().center()) - mapToScene(a.viewportPos.toPoint());
        centerOn(item->sceneBoundingRect().center() + delta);
        // centerOn rounds; the scroll bars take the last pixels.
        const QPoint off = mapFromScene(item->sceneBoundingRect().center()) - a.viewportPos.toPoint();
        horizontalScrollBar()->setValue(horizontalScrollBar()->value() + off.x());
        verticalScrollBar()->setValue(verticalScrollBar()->value() + off.y());
    }
    if (a.selected >= 0)
        if (QGraphicsItem* sel = itemShowing(a.selected); sel && sel == nodeItems_[a.selected]) sel->setSelected(true);
}

void GraphView::redraw() {
    if (!graph_) return;
    const std::optional<Anchor> anchor = captureAnchor();
    if (folding_.anyFolded()) {
        const FoldedView fv = folding_.view();
        LayeredOptions lo;
        if (horizontal_) lo.direction = LayoutOptions::Direction::LeftToRight;
        buildScene(fv, layeredLayout(layeredInput(*graph_, folding_.tree(), fv), lo));
    } else if (fullLayout_) {
        FoldedView all;
        all.itemOfNode.resize(graph_->nodeCount());
        for (size_t v = 0; v < graph_->nodeCount(); ++v) {
            all.items.push_back({static_cast<int>(v), -1});
            all.itemOfNode[v] = static_cast<int>(v);
            all.members.push_back({static_cast<int>(v)});
        }
        buildScene(all, *fullLayout_);
    } else {
        showMessage(tr("Laying out %1 nodes ...").arg(graph_->nodeCount()));
        updateBreadcrumb();
        return;
    }
    applyDecorations();
    updateBreadcrumb();
    if (anchor) restoreAnchor(*anchor);
    else fitToWindow();
}

void GraphView::buildScene(const FoldedView& fv, const GraphLayout& layout) {
    scene()->clearSelection();
    scene()->clear();
    nodeItems_.assign(graph_->nodeCount(), nullptr);
    scopeItems_.clear();
    const Graph& g = *graph_;
    // Items are added with the scene's index off, then indexed once: adding thousands of items
    // to a live BSP tree costs far more than building it at the end.
    scene()->setItemIndexMethod(QGraphicsScene::NoIndex);
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
        // Arrowhead: a small triangle pointing from tail to tip.
        QPolygonF head;
        const QLineF dir(tip, tail);
        if (dir.length() > 0.1) {
            const double angle = std::atan2(-dir.dy(), dir.dx());
            const double size = 7;
            head << tip << tip + QPointF(std::cos(angle + 0.45) * size, -std::sin(angle + 0.45) * size)
                 << tip + QPointF(std::cos(angle - 0.45) * size, -std::sin(angle - 0.45) * size);
        }
        // Edge ends as node ids (for tooltips and the placement's red edges); -1 for a folded box.
        auto nodeOf = [&](int item) {
            return item >= 0 && item < static_cast<int>(fv.items.size()) ? fv.items[static_cast<size_t>(item)].node : -1;
        };
        scene()->addItem(new EdgeItem(path, edgePen, &g, nodeOf(e.src), nodeOf(e.dst), head, e.stub));
    }
    for (size_t i = 0; i < fv.items.size() && i < layout.nodes.size(); ++i) {
        const FoldedView::Item& it = fv.items[i];
        if (it.node >= 0) {
            auto* item = new NodeItem(it.node, g.nodes()[static_cast<size_t>(it.node)], layout.nodes[i], &g);
            scene()->addItem(item);
            nodeItems_[static_cast<size_t>(it.node)] = item;
        } else {
            auto* item = new ScopeItem(it.scope, folding_.tree().scopes()[static_cast<size_t>(it.scope)], layout.nodes[i], fv.members[i]);
            scene()->addItem(item);
            scopeItems_.push_back(item);
        }
    }
    scene()->setItemIndexMethod(QGraphicsScene::BspTreeIndex);
    scene()->setSceneRect(QRectF(-20, -20, layout.width + 40, layout.height + 40));
    drawn_ = true;
}

void GraphView::updateBreadcrumb() {
    const QString plain = breadcrumbText();
    if (plain.isEmpty()) {
        breadcrumb_->hide();
        return;
    }
    QString html;
    if (folding_.anyFolded()) {
        html = tr("Folded by scope") + " &nbsp;";
        const auto& scopes = folding_.tree().scopes();
        if (lastOpened_ > 0 && folding_.isOpen(lastOpened_)) {
            for (int s : folding_.tree().pathTo(lastOpened_)) {
                if (s == 0) continue;
                html += QString(" &rsaquo; <a href='close:%1'>%2</a>").arg(s).arg(QString::fromStdString(scopes[s].label).toHtmlEscaped());
            }
            html += " &nbsp;";
        }
        html += "<a href='unfold'>" + tr("unfold all") + "</a>";
    } else {
        html = "<a href='fold'>" + tr("fold by scope") + "</a>";
    }
    breadcrumb_->setText(html);
    breadcrumb_->adjustSize();
    breadcrumb_->move(frameWidth() + 12, frameWidth() + 8);
    breadcrumb_->show();
    breadcrumb_->raise();
    legend_->move(frameWidth() + 12, frameWidth() + 12 + breadcrumb_->height() + 6);
}

QString GraphView::breadcrumbText() const {
    if (!graph_ || !folding_.tree().hasScopes() || graph_->nodeCount() < 2) return {};
    if (!folding_.anyFolded()) return tr("fold by scope");
    QString text = tr("Folded by scope");
    if (lastOpened_ > 0 && folding_.isOpen(lastOpened_))
        for (int s : folding_.tree().pathTo(lastOpened_))
            if (s > 0) text += " > " + QString::fromStdString(folding_.tree().scopes()[s].label);
    return text + " " + tr("unfold all");
}

void GraphView::openScope(int scope) {
    if (!graph_ || scope <= 0) return;
    folding_.open(scope);
    lastOpened_ = scope;
    redraw();
    emit foldingChanged(!folding_.anyFolded());
}

void GraphView::closeScope(int scope) {
    if (!graph_ || scope <= 0) return;
    folding_.close(scope);
    lastOpened_ = folding_.tree().scopes()[static_cast<size_t>(scope)].parent;
    redraw();
    emit foldingChanged(!folding_.anyFolded());
}

void GraphView::unfoldAll() {
    if (!graph_) return;
    folding_.openAll();
    redraw();
    emit foldingChanged(true);
}

void GraphView::foldByScope() {
    if (!graph_) return;
    // Asked for: fold whatever the graph's size (the default folding only starts above foldAbove).
    folding_.foldToFit(0, std::min(std::max(foldAbove_, 1), kFoldedItems));
    lastOpened_ = -1;
    redraw();
    emit foldingChanged(!folding_.anyFolded());
}

void GraphView::setFoldAbove(int nodes) {
    foldAbove_ = std::max(0, nodes);
    if (!graph_) return;
    folding_.openAll();
    if (foldAbove_ > 0) folding_.foldToFit(foldAbove_, std::min(foldAbove_, kFoldedItems));
    lastOpened_ = -1;
    redraw();
    emit foldingChanged(!folding_.anyFolded());
}

void GraphView::mouseDoubleClickEvent(QMouseEvent* event) {
    for (QGraphicsItem* it : items(event->pos()))
        if (auto* s = dynamic_cast<ScopeItem*>(it)) {
            openScope(s->scope());
            event->accept();
            return;
        }
    QGraphicsView::mouseDoubleClickEvent(event);
}

QColor GraphView::nodeColor(int node) const {
    return node >= 0 && node < static_cast<int>(nodeItems_.size()) && nodeItems_[node] ? nodeItems_[node]->fill() : QColor();
}

int GraphView::selectedNode() const {
    const auto items = scene()->selectedItems();
    for (auto* it : items)
        if (auto* n = dynamic_cast<NodeItem*>(it)) return n->id();
    return -1;
}

int GraphView::nodeAtViewportCentre() const {
    const std::optional<Anchor> a = captureAnchor();
    return a ? a->node : -1;
}

QPoint GraphView::viewportPosOf(int node) const {
    QGraphicsItem* item = itemShowing(node);
    return item ? mapFromScene(item->sceneBoundingRect().center()) : QPoint(-1, -1);
}

void GraphView::selectNode(int node) {
    if (!graph_ || node < 0 || node >= static_cast<int>(graph_->nodeCount())) return;
    if (folding_.isHidden(node)) {  // open the box it is in
        folding_.reveal(node);
        lastOpened_ = folding_.tree().scopeOf(node);
        redraw();
        emit foldingChanged(!folding_.anyFolded());
    }
    if (node >= static_cast<int>(nodeItems_.size()) || !nodeItems_[node]) return;
    scene()->clearSelection();
    nodeItems_[node]->setSelected(true);
    if (transform().m11() < 0.6) {  // zoom in enough to read the node
        resetTransform();
        scale(0.8, 0.8);
    }
    centerOn(nodeItems_[node]);
}

int GraphView::findNext(const QString& text) {
    if (text.isEmpty() || !graph_ || graph_->nodeCount() == 0) return -1;
    const int n = static_cast<int>(graph_->nodeCount());
    const int start = selectedNode() + 1;
    for (int k = 0; k < n; ++k) {
        const int v = (start + k) % n;
        const Node& node = graph_->nodes()[static_cast<size_t>(v)];
        if (QString::fromStdString(node.name).contains(text, Qt::CaseInsensitive) ||
            QString::fromStdString(node.op).contains(text, Qt::CaseInsensitive)) {
            selectNode(v);
            return v;
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
            if (!readsInput) continue;
            QGraphicsItem* item = itemShowing(static_cast<int>(id));
            if (!item) continue;
            const QRectF box = item->sceneBoundingRect();
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
