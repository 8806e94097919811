#include "ScheduleView.h"

#include <QAbstractScrollArea>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QLabel>
#include <QLocale>
#include <QPainter>
#include <QScrollBar>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "DeviceColors.h"
#include "graph/Graph.h"
#include "run/Units.h"

namespace graphopt::ui {

namespace {

constexpr int kDeviceLaneHeight = 30;
constexpr int kLinkLaneHeight = 22;
constexpr int kLaneGap = 2;
constexpr int kGroupGap = 10;    // between the device lanes and the link lanes
constexpr int kRightMargin = 24;  // room after the makespan when fitted
constexpr int kMinTickSpacing = 90;
constexpr double kMaxContentPixels = 1e9;  // scroll bars are int: keep the zoomed width below this

struct Bar {
    double start = 0, end = 0;
    int index = -1;  // index into the schedule's ops (device lanes) or transfers (link lanes)
};

struct Lane {
    QString name;
    bool link = false;
    int from = -1, to = -1;  // device for a device lane; both ends for a link lane
    int top = 0, height = 0;  // in content coordinates (0 = first lane)
    std::vector<Bar> bars;    // by start
    std::vector<double> maxEnd;  // running max of end: monotone, so binary-searchable
};

struct Hit {
    enum Kind { None, Op, Transfer } kind = None;
    int index = -1;
    int lane = -1;
    bool operator==(const Hit& o) const { return kind == o.kind && index == o.index; }
};

QString formatSeconds(double s) { return QString::fromStdString(units::seconds(s)); }
QString formatBytes(double b) { return QString::fromStdString(units::bytes(b)); }

// `c` mixed with white; `amount` of white.
QColor tint(const QColor& c, double amount) {
    auto mix = [amount](int v) { return static_cast<int>(std::lround(v + (255 - v) * amount)); };
    return QColor(mix(c.red()), mix(c.green()), mix(c.blue()));
}

// 1, 2 or 5 times a power of ten, at least `raw`.
double niceStep(double raw) {
    const double p = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * p >= raw * (1 - 1e-9)) return m * p;
    return 10 * p;
}

}  // namespace

class ScheduleCanvas : public QAbstractScrollArea {
public:
    explicit ScheduleCanvas(ScheduleView* owner) : QAbstractScrollArea(owner), owner_(owner) {
        viewport()->setMouseTracking(true);
        viewport()->setAutoFillBackground(false);
        setFocusPolicy(Qt::StrongFocus);
        setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
        setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
        setFrameShape(QFrame::NoFrame);
        QFont f = font();
        f.setPointSizeF(9);
        setFont(f);
    }

    void setResult(const PlacementResult& r, const Graph* graph) {
        clearAll();
        const ScheduleDetail& s = r.schedule;
        nodeNames_.clear();
        for (const auto& n : r.nodeNames) nodeNames_ << QString::fromStdString(n);
        int devices = static_cast<int>(std::max(r.deviceNames.size(), s.memory.size()));
        for (const ScheduledOp& op : s.ops) devices = std::max(devices, op.device + 1);
        deviceNames_.clear();
        for (int k = 0; k < devices; ++k)
            deviceNames_ << (k < static_cast<int>(r.deviceNames.size()) ? QString::fromStdString(r.deviceNames[k])
                                                                         : QString("device %1").arg(k));
        if (graph) {
            for (const Node& n : graph->nodes()) opTypes_ << QString::fromStdString(n.op);
            for (const Tensor& t : graph->tensors()) tensorNames_ << QString::fromStdString(t.name);
        }
        ops_ = s.ops;
        transfers_ = s.transfers;
        microBatches_ = std::max(1, std::max(s.microBatches, r.microBatches));
        for (const ScheduledOp& op : ops_) microBatches_ = std::max(microBatches_, op.microBatch + 1);
        for (const ScheduledTransfer& t : transfers_) microBatches_ = std::max(microBatches_, t.microBatch + 1);
        makespan_ = s.makespan;
        for (const ScheduledOp& op : ops_) makespan_ = std::max(makespan_, op.end);
        for (const ScheduledTransfer& t : transfers_) makespan_ = std::max(makespan_, t.end);

        for (int k = 0; k < devices; ++k) {
            Lane lane;
            lane.name = deviceNames_[k];
            lane.from = lane.to = k;
            lanes_.push_back(std::move(lane));
        }
        for (size_t i = 0; i < ops_.size(); ++i) {
            const ScheduledOp& op = ops_[i];
            if (op.device < 0) continue;  // not scheduled (e.g. a cancelled run's leftovers)
            lanes_[op.device].bars.push_back({op.start, op.end, static_cast<int>(i)});
            ++opBars_;
        }
        std::map<std::pair<int, int>, int> linkLane;
        for (const ScheduledTransfer& t : transfers_) linkLane.emplace(std::make_pair(t.from, t.to), 0);
        for (auto& [key, index] : linkLane) {
            index = static_cast<int>(lanes_.size());
            Lane lane;
            lane.link = true;
            lane.from = key.first;
            lane.to = key.second;
            lane.name = deviceName(key.first) + QString::fromUtf8(" → ") + deviceName(key.second);
            lanes_.push_back(std::move(lane));
        }
        for (size_t i = 0; i < transfers_.size(); ++i) {
            const ScheduledTransfer& t = transfers_[i];
            lanes_[linkLane[{t.from, t.to}]].bars.push_back({t.start, t.end, static_cast<int>(i)});
        }
        int top = 0;
        for (Lane& lane : lanes_) {
            std::stable_sort(lane.bars.begin(), lane.bars.end(),
                             [](const Bar& a, const Bar& b) { return a.start < b.start; });
            double m = -1e300;
            lane.maxEnd.reserve(lane.bars.size());
            for (const Bar& b : lane.bars) lane.maxEnd.push_back(m = std::max(m, b.end));
            if (lane.link && (&lane == &lanes_.front() || !(&lane - 1)->link)) top += kGroupGap;
            lane.top = top;
            lane.height = lane.link ? kLinkLaneHeight : kDeviceLaneHeight;
            top += lane.height + kLaneGap;
        }
        contentHeight_ = top;
        hasResult_ = true;
        updateGeometry();
        const QFontMetrics fm(font());
        nameWidth_ = fm.horizontalAdvance("device / link");
        for (const Lane& lane : lanes_) nameWidth_ = std::max(nameWidth_, fm.horizontalAdvance(lane.name) + 18);
        nameWidth_ = std::clamp(nameWidth_ + 16, 90, 260);
        fitToWindow();
    }

    void clearAll() {
        lanes_.clear();
        ops_.clear();
        transfers_.clear();
        nodeNames_.clear();
        deviceNames_.clear();
        opTypes_.clear();
        tensorNames_.clear();
        opBars_ = 0;
        microBatches_ = 1;
        makespan_ = 0;
        contentHeight_ = 0;
        hasResult_ = false;
        hovered_ = {};
        shownOp_ = -1;
        updateScrollBars();
        viewport()->update();
    }

    // --- geometry -------------------------------------------------------------------------------
    int axisHeight() const { return QFontMetrics(font()).height() + 14; }
    int chartLeft() const { return nameWidth_; }
    int chartWidth() const { return std::max(1, viewport()->width() - nameWidth_); }
    double timeToX(double t) const { return chartLeft() + t * pps_ - horizontalScrollBar()->value(); }
    double xToTime(double x) const { return (x - chartLeft() + horizontalScrollBar()->value()) / pps_; }
    int laneY(const Lane& lane) const { return axisHeight() + lane.top - verticalScrollBar()->value(); }
    double minPps() const { return makespan_ > 0 ? 0.5 * (chartWidth() - kRightMargin) / makespan_ : 1.0; }
    double maxPps() const {
        const double byPrecision = chartWidth() / 1e-8;  // 10 ns across the chart
        return makespan_ > 0 ? std::min(byPrecision, kMaxContentPixels / makespan_) : byPrecision;
    }

    void updateScrollBars() {
        const double content = makespan_ * pps_ + kRightMargin;
        QScrollBar* h = horizontalScrollBar();
        h->setRange(0, std::max(0, static_cast<int>(std::ceil(content)) - chartWidth()));
        h->setPageStep(chartWidth());
        h->setSingleStep(std::max(1, chartWidth() / 20));
        QScrollBar* v = verticalScrollBar();
        v->setRange(0, std::max(0, contentHeight_ - (viewport()->height() - axisHeight())));
        v->setPageStep(std::max(1, viewport()->height() - axisHeight()));
        v->setSingleStep(kDeviceLaneHeight);
    }

    void fitToWindow() {
        fitted_ = true;
        pps_ = makespan_ > 0 ? std::max(1e-9, double(chartWidth() - kRightMargin) / makespan_) : 1.0;
        updateScrollBars();
        horizontalScrollBar()->setValue(0);
        viewport()->update();
    }

    // Zooms in time keeping the time under viewport x `anchorX` where it is.
    void zoomAbout(double factor, double anchorX) {
        if (!hasResult_ || makespan_ <= 0) return;
        anchorX = std::clamp(anchorX, double(chartLeft()), double(viewport()->width()));
        const double anchorT = xToTime(anchorX);
        const double target = std::clamp(pps_ * factor, minPps(), maxPps());
        if (target == pps_) return;
        pps_ = target;
        fitted_ = false;
        updateScrollBars();
        horizontalScrollBar()->setValue(static_cast<int>(std::lround(anchorT * pps_ - (anchorX - chartLeft()))));
        viewport()->update();
    }
    void zoomBy(double factor) { zoomAbout(factor, chartLeft() + chartWidth() / 2.0); }
    double visibleSeconds() const { return chartWidth() / pps_; }

    // --- bars -----------------------------------------------------------------------------------
    QRect barRect(const Lane& lane, const Bar& b) const {
        const int y = laneY(lane);
        const int x0 = static_cast<int>(std::floor(timeToX(b.start)));
        const int x1 = std::max(x0 + 1, static_cast<int>(std::ceil(timeToX(b.end))));
        return QRect(x0, y + 3, x1 - x0, lane.height - 6);
    }
    QRect chartArea() const {
        return QRect(chartLeft(), axisHeight(), chartWidth(), std::max(0, viewport()->height() - axisHeight()));
    }
    int nodeOf(int opIndex) const {
        if (opIndex < 0 || opIndex >= static_cast<int>(ops_.size())) return -1;
        return ops_[opIndex].node >= 0 ? ops_[opIndex].node : opIndex;
    }
    int microBatchOf(int opIndex) const {
        return opIndex >= 0 && opIndex < static_cast<int>(ops_.size()) ? ops_[opIndex].microBatch : 0;
    }
    // The bar of `node`'s run for micro-batch `microBatch` (-1: the earliest run).
    const Lane* opLane(int node, int microBatch, const Bar** bar) const {
        const Lane* found = nullptr;
        for (const Lane& lane : lanes_) {
            if (lane.link) break;
            for (const Bar& b : lane.bars)
                if (nodeOf(b.index) == node && (microBatch < 0 || microBatchOf(b.index) == microBatch) &&
                    (!found || b.start < (*bar)->start))
                    *bar = &b, found = &lane;
        }
        return found;
    }
    QRect visibleOpRect(int node, int microBatch = -1) const {
        const Bar* b = nullptr;
        const Lane* lane = opLane(node, microBatch, &b);
        return lane ? barRect(*lane, *b).intersected(chartArea()) : QRect();
    }
    QRect visibleTransferRect(int index) const {
        for (const Lane& lane : lanes_)
            if (lane.link)
                for (const Bar& b : lane.bars)
                    if (b.index == index) return barRect(lane, b).intersected(chartArea());
        return QRect();
    }

    Hit hitAt(const QPoint& pos) const {
        if (!hasResult_ || !chartArea().contains(pos)) return {};
        for (int li = 0; li < static_cast<int>(lanes_.size()); ++li) {
            const Lane& lane = lanes_[li];
            const int y = laneY(lane);
            if (pos.y() < y || pos.y() >= y + lane.height) continue;
            const double t = xToTime(pos.x() + 0.5);
            const double tol = 2.5 / pps_;  // a thin bar is still easy to point at
            auto it = std::lower_bound(lane.maxEnd.begin(), lane.maxEnd.end(), t - tol);
            int best = -1;
            double bestDist = 1e300;
            for (size_t i = it - lane.maxEnd.begin(); i < lane.bars.size() && lane.bars[i].start <= t + tol; ++i) {
                const Bar& b = lane.bars[i];
                const double d = t < b.start ? b.start - t : t > b.end ? t - b.end : 0;
                if (d < bestDist) bestDist = d, best = static_cast<int>(i);
                if (d == 0) break;
            }
            if (best < 0 || bestDist > tol) return {};
            return {lane.link ? Hit::Transfer : Hit::Op, lane.bars[best].index, li};
        }
        return {};
    }

    // A node's name without the leading '/' of ONNX paths; its op type when the name is empty.
    QString nodeLabel(int node) const {
        QString name = node < nodeNames_.size() ? nodeNames_[node] : QString();
        if (name.startsWith('/')) name.remove(0, 1);
        if (name.isEmpty()) name = node < opTypes_.size() ? opTypes_[node] : QString::number(node);
        return name;
    }

    QString deviceName(int k) const {
        return k >= 0 && k < deviceNames_.size() ? deviceNames_[k] : QString("device %1").arg(k);
    }

    QString toolTip(const Hit& hit) const {
        auto times = [](double start, double end) {
            return QString("<tr><td>start</td><td>%1</td></tr><tr><td>end</td><td>%2</td></tr>"
                           "<tr><td>duration</td><td>%3</td></tr>")
                .arg(formatSeconds(start), formatSeconds(end), formatSeconds(end - start));
        };
        if (hit.kind == Hit::Op) {
            if (hit.index < 0 || hit.index >= static_cast<int>(ops_.size())) return {};
            const ScheduledOp* op = &ops_[hit.index];
            const int node = nodeOf(hit.index);
            const QString name = node < nodeNames_.size() ? nodeNames_[node] : QString("node %1").arg(node);
            QString head = "<b>" + name.toHtmlEscaped() + "</b>";
            if (node < opTypes_.size()) head += " (" + opTypes_[node].toHtmlEscaped() + ")";
            // In a pipeline the same node runs once per micro-batch: say which run this is.
            if (microBatches_ > 1) head += tr("<br>node %1, micro-batch %2 of %3").arg(node).arg(op->microBatch).arg(microBatches_);
            return head + QString("<table><tr><td>node</td><td>%1</td></tr><tr><td>device</td><td>%2</td></tr>")
                              .arg(node)
                              .arg(deviceName(op->device).toHtmlEscaped()) +
                   (microBatches_ > 1 ? QString("<tr><td>micro-batch</td><td>%1</td></tr>").arg(op->microBatch) : QString()) +
                   times(op->start, op->end) + "</table>";
        }
        if (hit.kind == Hit::Transfer) {
            const ScheduledTransfer& t = transfers_[hit.index];
            QString head = "<b>transfer</b> of tensor " + QString::number(t.tensor);
            if (t.tensor >= 0 && t.tensor < tensorNames_.size())
                head += " <b>" + tensorNames_[t.tensor].toHtmlEscaped() + "</b>";
            if (microBatches_ > 1) head += tr(", micro-batch %1").arg(t.microBatch);
            return head +
                   QString("<table><tr><td>bytes</td><td>%1 (%2)</td></tr><tr><td>link</td><td>%3</td></tr>")
                       .arg(formatBytes(double(t.bytes)), QLocale().toString(qlonglong(t.bytes)),
                            (deviceName(t.from) + QString::fromUtf8(" → ") + deviceName(t.to)).toHtmlEscaped()) +
                   (microBatches_ > 1 ? QString("<tr><td>micro-batch</td><td>%1</td></tr>").arg(t.microBatch) : QString()) +
                   times(t.start, t.end) + "</table>";
        }
        return {};
    }

    void ensureOpVisible(int node) {
        const Bar* b = nullptr;
        const Lane* lane = opLane(node, -1, &b);
        if (!lane) return;
        const double x0 = timeToX(b->start), x1 = timeToX(b->end);
        if (x1 < chartLeft() + 10 || x0 > viewport()->width() - 10) {
            const double mid = (b->start + b->end) / 2 * pps_;
            horizontalScrollBar()->setValue(static_cast<int>(mid - chartWidth() / 2.0));
        }
        const int y = laneY(*lane);
        if (y < axisHeight() || y + lane->height > viewport()->height())
            verticalScrollBar()->setValue(lane->top - 4);
    }

    // A device's colour shaded for a micro-batch: darkest for the first, lighter for each later one
    // (eight steps, then again), so a pipeline's micro-batches read as a diagonal of shades across
    // the device lanes and the idle gaps (bubbles) between them stand out.
    QColor microBatchShade(const QColor& base, int microBatch) const {
        if (microBatches_ <= 1) return base;
        const int steps = std::min(microBatches_, 8);
        const int step = microBatch % steps;
        const double t = steps > 1 ? double(step) / (steps - 1) : 0;  // 0 .. 1
        return t < 0.2 ? base.darker(100 + static_cast<int>((0.2 - t) * 120)) : tint(base, (t - 0.2) * 0.65);
    }

    // What a bar of `width` pixels shows: the micro-batch number when there are micro-batches
    // (alone in a narrow bar, "2 · name" in a wide one), then the op's name or the transfer's size.
    // Sizes show whole or not at all; names keep their end ("…layer2.1/conv2/Conv"), the part that
    // tells ops apart in ONNX-style paths.
    QString barText(bool link, int index, int width, const QFontMetrics& fm) const {
        const bool pipeline = microBatches_ > 1;
        const int micro = link ? transfers_[index].microBatch : microBatchOf(index);
        const QString number = pipeline ? QString::number(micro) : QString();
        if (pipeline && width < fm.horizontalAdvance(number) + 2) return {};
        if (width < 36) return number;
        const QString prefix = pipeline ? number + QString::fromUtf8(" · ") : QString();
        const int room = width - fm.horizontalAdvance(prefix);
        if (link) {
            const QString size = formatBytes(double(transfers_[index].bytes));
            return fm.horizontalAdvance(size) <= room ? prefix + size : number;
        }
        const QString name = fm.elidedText(nodeLabel(nodeOf(index)), Qt::ElideLeft, room);
        return name.size() < 5 ? number : prefix + name;
    }

    // --- painting -------------------------------------------------------------------------------
    void paintEvent(QPaintEvent*) override {
        QPainter p(viewport());
        const QRect all = viewport()->rect();
        p.fillRect(all, QColor(255, 255, 255));
        if (!hasResult_) {
            p.setPen(QColor(110, 110, 110));
            p.drawText(all, Qt::AlignCenter | Qt::TextWordWrap,
                       tr("No schedule yet.\nRun a placement to see its ops and transfers over time."));
            return;
        }
        if (ops_.empty()) {
            p.setPen(QColor(110, 110, 110));
            p.drawText(all, Qt::AlignCenter, tr("This result carries no schedule detail."));
            return;
        }
        const QRect chart = chartArea();
        const Ticks ticks = computeTicks();

        // Lanes: stripes, grid, bars (clipped to the chart area).
        p.save();
        p.setClipRect(chart);
        for (size_t li = 0; li < lanes_.size(); ++li) {
            const Lane& lane = lanes_[li];
            const int y = laneY(lane);
            if (y + lane.height < chart.top() || y > chart.bottom()) continue;
            p.fillRect(QRect(chart.left(), y, chart.width(), lane.height),
                       lane.link ? QColor(246, 246, 250) : QColor(240, 243, 248));
        }
        p.setPen(QPen(QColor(222, 222, 228), 1));
        for (double t : ticks.values) {
            const int x = static_cast<int>(std::lround(timeToX(t)));
            p.drawLine(x, chart.top(), x, chart.bottom());
        }
        QFont barFont = font();
        barFont.setPointSizeF(8);
        p.setFont(barFont);
        const QFontMetrics bfm(barFont);
        const double t0 = xToTime(chart.left()), t1 = xToTime(chart.right() + 1);
        std::vector<QRect> shownRects;  // every run of the shown node (one per micro-batch)
        QRect hoverRect;
        for (size_t li = 0; li < lanes_.size(); ++li) {
            const Lane& lane = lanes_[li];
            const int y = laneY(lane);
            if (y + lane.height < chart.top() || y > chart.bottom()) continue;
            // Transfers: a pale tint of the sending device (lighter() would saturate blue into
            // another palette colour), outlined in the receiving device's colour.
            const QColor laneFill = lane.link ? tint(deviceColor(lane.from), 0.5) : deviceColor(lane.from);
            int lastRight = std::numeric_limits<int>::min();
            auto it = std::lower_bound(lane.maxEnd.begin(), lane.maxEnd.end(), t0);
            for (size_t i = it - lane.maxEnd.begin(); i < lane.bars.size() && lane.bars[i].start <= t1; ++i) {
                const Bar& b = lane.bars[i];
                const QRect r = barRect(lane, b);
                if (!lane.link && shownOp_ >= 0 && nodeOf(b.index) == shownOp_) shownRects.push_back(r);
                if (hovered_.lane == static_cast<int>(li) && hovered_.index == b.index) hoverRect = r;
                if (r.right() < lastRight) continue;  // this pixel column is painted already
                lastRight = r.right() + 1;
                const int micro = lane.link ? transfers_[b.index].microBatch : microBatchOf(b.index);
                const QColor fill = microBatchShade(laneFill, micro);
                const QColor border = lane.link ? deviceColor(lane.to).darker(130) : laneFill.darker(160);
                const QColor text = contrastTextColor(fill);
                if (r.width() >= 4) {
                    p.fillRect(r, border);
                    p.fillRect(r.adjusted(1, 1, -1, -1), fill);
                } else {
                    p.fillRect(r, fill.darker(115));
                }
                const QRect textRect = (microBatches_ > 1 ? r.adjusted(2, 0, -2, 0) : r.adjusted(4, 0, -3, 0)).intersected(chart);
                const QString shown = barText(lane.link, b.index, textRect.width(), bfm);
                if (!shown.isEmpty()) {
                    p.setPen(text);
                    p.drawText(textRect, Qt::AlignVCenter | (shown.size() <= 3 ? Qt::AlignHCenter : Qt::AlignLeft), shown);
                }
            }
        }
        // Makespan marker.
        const int mx = static_cast<int>(std::lround(timeToX(makespan_)));
        p.setPen(QPen(QColor(200, 40, 40), 1, Qt::DashLine));
        p.drawLine(mx, chart.top(), mx, std::min(chart.bottom(), axisHeight() + contentHeight_ - verticalScrollBar()->value()));
        if (!hoverRect.isNull()) {
            p.setPen(QPen(QColor(20, 20, 20), 2));
            p.setBrush(Qt::NoBrush);
            p.drawRect(hoverRect.adjusted(-1, -1, 1, 1));
        }
        for (const QRect& shownRect : shownRects) {
            p.setPen(QPen(QColor(255, 140, 0), 3));
            p.setBrush(Qt::NoBrush);
            QRect r = shownRect.adjusted(-2, -2, 2, 2);
            if (r.width() < 7) r.adjust(-(7 - r.width()) / 2, 0, (7 - r.width() + 1) / 2, 0);
            p.drawRect(r);
        }
        p.restore();

        // Lane names (fixed on the left).
        p.fillRect(QRect(0, 0, chartLeft(), all.height()), QColor(248, 248, 250));
        p.save();
        p.setClipRect(QRect(0, chart.top(), chartLeft(), chart.height()));
        const QFontMetrics fm(font());
        for (const Lane& lane : lanes_) {
            const int y = laneY(lane);
            if (y + lane.height < chart.top() || y > chart.bottom()) continue;
            const QRect swatch(8, y + lane.height / 2 - 5, 10, 10);
            if (lane.link) {
                p.fillRect(QRect(swatch.left(), swatch.top(), 5, 10), deviceColor(lane.from));
                p.fillRect(QRect(swatch.left() + 5, swatch.top(), 5, 10), deviceColor(lane.to));
            } else {
                p.fillRect(swatch, deviceColor(lane.from));
            }
            p.setPen(QColor(30, 30, 30));
            const QRect nr(24, y, chartLeft() - 30, lane.height);
            p.drawText(nr, Qt::AlignVCenter | Qt::AlignLeft, fm.elidedText(lane.name, Qt::ElideMiddle, nr.width()));
        }
        p.restore();
        p.setPen(QColor(200, 200, 206));
        p.drawLine(chartLeft() - 1, 0, chartLeft() - 1, all.bottom());

        // Time axis (fixed at the top).
        const int ah = axisHeight();
        p.fillRect(QRect(0, 0, all.width(), ah), QColor(248, 248, 250));
        p.setPen(QColor(200, 200, 206));
        p.drawLine(0, ah - 1, all.right(), ah - 1);
        p.setPen(QColor(90, 90, 90));
        p.drawText(QRect(8, 0, chartLeft() - 12, ah), Qt::AlignVCenter | Qt::AlignLeft, tr("device / link"));
        p.save();
        p.setClipRect(QRect(chartLeft(), 0, chartWidth(), ah));
        for (size_t i = 0; i < ticks.values.size(); ++i) {
            const int x = static_cast<int>(std::lround(timeToX(ticks.values[i])));
            p.setPen(QColor(120, 120, 126));
            p.drawLine(x, ah - 6, x, ah - 1);
            const QString label = ticks.labels[i];
            const int w = fm.horizontalAdvance(label);
            if (x + 3 + w > all.width() - 2) continue;  // would be cut at the right edge
            p.setPen(QColor(40, 40, 40));
            p.drawText(QRect(x + 3, 0, w + 2, ah - 4), Qt::AlignVCenter | Qt::AlignLeft, label);
        }
        p.restore();
    }

    struct Ticks {
        std::vector<double> values;
        QStringList labels;
    };
    Ticks computeTicks() const {
        Ticks ticks;
        const double t0 = std::max(0.0, xToTime(chartLeft())), t1 = xToTime(viewport()->width());
        if (!(t1 > t0) || pps_ <= 0) return ticks;
        // Unit from the largest visible time, decimals from the step: labels read "0.5 ms" or "12 ms".
        double unit = 1;
        QString unitName = "s";
        if (t1 < 1e-3) unit = 1e-6, unitName = QString::fromUtf8("µs");
        else if (t1 < 1) unit = 1e-3, unitName = "ms";
        const QFontMetrics fm(font());
        double step = niceStep(kMinTickSpacing / pps_);
        for (int attempt = 0; attempt < 4; ++attempt) {
            const int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step / unit) + 1e-9)));
            const QString widest = QString::number(t1 / unit, 'f', decimals) + ' ' + unitName;
            if (fm.horizontalAdvance(widest) + 12 <= step * pps_) {
                ticks.values.clear();
                ticks.labels.clear();
                for (double t = std::ceil(t0 / step - 1e-9) * step; t <= t1; t += step) {
                    ticks.values.push_back(t);
                    ticks.labels << (std::abs(t) < step * 1e-6 ? QString("0")
                                                                : QString::number(t / unit, 'f', decimals) + ' ' + unitName);
                }
                return ticks;
            }
            step = niceStep(step * 1.01);
        }
        return ticks;
    }

    // Tall enough for every lane, so a dock shows them all without scrolling when it can.
    QSize sizeHint() const override {
        const int lanes = hasResult_ ? contentHeight_ : 2 * (kDeviceLaneHeight + kLaneGap);
        return QSize(900, axisHeight() + lanes + 4 + horizontalScrollBar()->sizeHint().height());
    }

    // --- interaction ----------------------------------------------------------------------------
    void resizeEvent(QResizeEvent* e) override {
        QAbstractScrollArea::resizeEvent(e);
        if (fitted_) fitToWindow();
        else {
            pps_ = std::clamp(pps_, minPps(), maxPps());
            updateScrollBars();
        }
    }
    void scrollContentsBy(int, int) override { viewport()->update(); }

    void wheelEvent(QWheelEvent* e) override {
        const QPoint d = e->angleDelta();
        if (e->modifiers() & Qt::ShiftModifier || std::abs(d.x()) > std::abs(d.y())) {
            const int delta = std::abs(d.x()) > std::abs(d.y()) ? d.x() : d.y();
            horizontalScrollBar()->setValue(horizontalScrollBar()->value() - delta * chartWidth() / 1200);
        } else if (d.y() != 0) {
            zoomAbout(std::pow(1.25, d.y() / 120.0), e->position().x());
        }
        e->accept();
    }

    void keyPressEvent(QKeyEvent* e) override {
        switch (e->key()) {
        case Qt::Key_Plus:
        case Qt::Key_Equal: zoomBy(1.5); break;
        case Qt::Key_Minus: zoomBy(1 / 1.5); break;
        case Qt::Key_0:
        case Qt::Key_F: fitToWindow(); break;
        case Qt::Key_Left: horizontalScrollBar()->setValue(horizontalScrollBar()->value() - chartWidth() / 8); break;
        case Qt::Key_Right: horizontalScrollBar()->setValue(horizontalScrollBar()->value() + chartWidth() / 8); break;
        case Qt::Key_Home: horizontalScrollBar()->setValue(0); break;
        case Qt::Key_End: horizontalScrollBar()->setValue(horizontalScrollBar()->maximum()); break;
        default: QAbstractScrollArea::keyPressEvent(e); return;
        }
        e->accept();
    }

    void mousePressEvent(QMouseEvent* e) override {
        if (e->button() == Qt::LeftButton) {
            pressPos_ = lastDragPos_ = e->position().toPoint();
            dragging_ = true;
        }
        e->accept();
    }
    void mouseMoveEvent(QMouseEvent* e) override {
        const QPoint pos = e->position().toPoint();
        if (dragging_ && (e->buttons() & Qt::LeftButton)) {
            const QPoint d = pos - lastDragPos_;
            lastDragPos_ = pos;
            if ((pos - pressPos_).manhattanLength() > 3) {
                viewport()->setCursor(Qt::ClosedHandCursor);
                horizontalScrollBar()->setValue(horizontalScrollBar()->value() - d.x());
                verticalScrollBar()->setValue(verticalScrollBar()->value() - d.y());
            }
            return;
        }
        const Hit h = hitAt(pos);
        if (!(h == hovered_)) {
            hovered_ = h;
            viewport()->setCursor(h.kind == Hit::Op ? Qt::PointingHandCursor : Qt::ArrowCursor);
            viewport()->update();
        }
    }
    void mouseReleaseEvent(QMouseEvent* e) override {
        if (e->button() != Qt::LeftButton) return;
        dragging_ = false;
        viewport()->setCursor(Qt::ArrowCursor);
        const QPoint pos = e->position().toPoint();
        if ((pos - pressPos_).manhattanLength() <= 3) {
            const Hit h = hitAt(pos);
            if (h.kind == Hit::Op) {
                shownOp_ = nodeOf(h.index);
                viewport()->update();
                emit owner_->opClicked(shownOp_);
            }
        }
    }

    bool viewportEvent(QEvent* e) override {
        if (e->type() == QEvent::ToolTip) {
            auto* he = static_cast<QHelpEvent*>(e);
            const QString text = toolTip(hitAt(he->pos()));
            if (text.isEmpty()) QToolTip::hideText();
            else QToolTip::showText(he->globalPos(), text, viewport());
            return true;
        }
        if (e->type() == QEvent::Leave && hovered_.kind != Hit::None) {
            hovered_ = {};
            viewport()->update();
        }
        return QAbstractScrollArea::viewportEvent(e);
    }

    ScheduleView* owner_;
    std::vector<Lane> lanes_;
    std::vector<ScheduledOp> ops_;
    std::vector<ScheduledTransfer> transfers_;
    QStringList nodeNames_, deviceNames_, opTypes_, tensorNames_;
    int opBars_ = 0;
    int microBatches_ = 1;
    double makespan_ = 0;
    double pps_ = 1;  // pixels per second
    bool fitted_ = true;
    bool hasResult_ = false;
    int nameWidth_ = 90;
    int contentHeight_ = 0;
    Hit hovered_;
    int shownOp_ = -1;
    bool dragging_ = false;
    QPoint pressPos_, lastDragPos_;
};

ScheduleView::ScheduleView(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(6, 3, 6, 3);
    auto button = [this, bar](const QString& text, const QString& tip) {
        auto* b = new QToolButton(this);
        b->setEnabled(false);  // until there is a schedule
        buttons_.push_back(b);
        b->setText(text);
        b->setToolTip(tip);
        b->setAutoRaise(true);
        bar->addWidget(b);
        return b;
    };
    canvas_ = new ScheduleCanvas(this);
    connect(button(tr("Zoom in"), tr("Zoom in time (+, wheel up)")), &QToolButton::clicked, this,
            [this] { zoomBy(1.5); });
    connect(button(tr("Zoom out"), tr("Zoom out in time (-, wheel down)")), &QToolButton::clicked, this,
            [this] { zoomBy(1 / 1.5); });
    connect(button(tr("Fit"), tr("Show the whole schedule (0)")), &QToolButton::clicked, this,
            [this] { fitToWindow(); });
    summary_ = new QLabel(this);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    bar->addSpacing(12);
    bar->addWidget(summary_, 1);
    layout->addLayout(bar);
    layout->addWidget(canvas_, 1);
    setMinimumSize(320, 160);
}

ScheduleView::~ScheduleView() = default;

void ScheduleView::setResult(const PlacementResult& result, const Graph* graph) {
    canvas_->setResult(result, graph);
    for (QToolButton* b : buttons_) b->setEnabled(!result.schedule.ops.empty());
    const ScheduleDetail& s = result.schedule;
    int64_t moved = 0;
    for (const ScheduledTransfer& t : s.transfers) moved += t.bytes;
    QString text = tr("%1 on %2 · makespan %3 · %4 ops on %5 devices · %6 transfers (%7)")
                       .arg(QString::fromStdString(result.engine), QString::fromStdString(result.devices),
                            formatSeconds(canvas_->makespan_))
                       .arg(canvas_->opBars_)
                       .arg(deviceLaneCount())
                       .arg(s.transfers.size())
                       .arg(formatBytes(double(moved)));
    if (microBatchCount() > 1) {
        // The pipeline's bubbles as one figure: the share of device time spent idle before the makespan.
        double busy = 0;
        for (const ScheduledOp& op : s.ops)
            if (op.device >= 0) busy += op.end - op.start;
        const double capacity = canvas_->makespan_ * std::max(1, deviceLaneCount());
        text += tr(" · %1 micro-batches, devices idle %2 % of the time")
                    .arg(microBatchCount())
                    .arg(capacity > 0 ? QString::number(100.0 * std::max(0.0, 1 - busy / capacity), 'f', 0) : QString("-"));
    }
    summary_->setText(text);
}

void ScheduleView::clear() {
    canvas_->clearAll();
    summary_->clear();
    for (QToolButton* b : buttons_) b->setEnabled(false);
}

bool ScheduleView::hasResult() const { return canvas_->hasResult_; }
int ScheduleView::laneCount() const { return static_cast<int>(canvas_->lanes_.size()); }
int ScheduleView::deviceLaneCount() const {
    return static_cast<int>(std::count_if(canvas_->lanes_.begin(), canvas_->lanes_.end(),
                                          [](const Lane& l) { return !l.link; }));
}
int ScheduleView::linkLaneCount() const { return laneCount() - deviceLaneCount(); }
QString ScheduleView::laneName(int lane) const {
    return lane >= 0 && lane < laneCount() ? canvas_->lanes_[lane].name : QString();
}
int ScheduleView::opBarCount() const { return canvas_->opBars_; }
int ScheduleView::transferBarCount() const { return static_cast<int>(canvas_->transfers_.size()); }
void ScheduleView::zoomBy(double factor) { canvas_->zoomBy(factor); }
void ScheduleView::fitToWindow() { canvas_->fitToWindow(); }
double ScheduleView::visibleSeconds() const { return canvas_->visibleSeconds(); }

void ScheduleView::showOp(int node) {
    canvas_->shownOp_ = node;
    if (node >= 0) canvas_->ensureOpVisible(node);
    canvas_->viewport()->update();
}
int ScheduleView::shownOp() const { return canvas_->shownOp_; }
QWidget* ScheduleView::canvas() const { return canvas_->viewport(); }
QRect ScheduleView::opBarRect(int node, int microBatch) const { return canvas_->visibleOpRect(node, microBatch); }
int ScheduleView::microBatchCount() const { return canvas_->microBatches_; }
QString ScheduleView::summaryText() const { return summary_->text(); }
QString ScheduleView::opBarText(int node, int microBatch) const {
    const QRect r = opBarRect(node, microBatch);
    if (r.isEmpty()) return {};
    const Bar* b = nullptr;
    QFont f = canvas_->font();
    f.setPointSizeF(8);
    canvas_->opLane(node, microBatch, &b);
    const int inset = canvas_->microBatches_ > 1 ? 4 : 7;
    return b ? canvas_->barText(false, b->index, r.width() - inset, QFontMetrics(f)) : QString();
}
QRect ScheduleView::transferBarRect(int transfer) const { return canvas_->visibleTransferRect(transfer); }
QString ScheduleView::toolTipAt(const QPoint& canvasPos) const { return canvas_->toolTip(canvas_->hitAt(canvasPos)); }

}  // namespace graphopt::ui
