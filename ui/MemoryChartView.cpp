#include "MemoryChartView.h"

#include <QChart>
#include <QContextMenuEvent>
#include <QMenu>
#include <QCursor>
#include <QToolTip>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLocale>
#include <QScatterSeries>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

#include "DeviceColors.h"
#include "run/Units.h"

namespace graphopt::ui {

namespace {
// A capacity more than this many times the largest peak is left off the scale (see the header).
constexpr double kCapacityOnScaleFactor = 3.0;
const QColor kOverLimitColor(200, 30, 30);

QString sizeText(double bytes) { return QString::fromStdString(units::bytes(bytes)); }

// 0 .. the first multiple of a 1-2-5 step at or above `max`, with 3-8 intervals: tight around the
// data (applyNiceNumbers can add almost a whole interval) and with short labels.
void setNiceRange(QValueAxis* axis, double max) {
    const double raw = max / 8;
    const double p = std::pow(10.0, std::floor(std::log10(raw)));
    double step = 10 * p;
    for (double m : {1.0, 2.0, 5.0})
        if (m * p >= raw) {
            step = m * p;
            break;
        }
    const int intervals = std::max(1, static_cast<int>(std::ceil(max / step - 1e-9)));
    axis->setRange(0, intervals * step);
    axis->setTickCount(intervals + 1);
}

}  // namespace

MemoryChartView::MemoryChartView(QWidget* parent) : QChartView(parent) {
    auto* chart = new QChart;
    chart->setAnimationOptions(QChart::NoAnimation);  // results replace each other; no fly-ins
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->legend()->setShowToolTips(true);
    chart->legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);  // lines as lines, peaks as dots
    chart->setMargins(QMargins(6, 6, 12, 6));
    timeAxis_ = new QValueAxis;
    memoryAxis_ = new QValueAxis;
    timeAxis_->setLabelFormat("%g");
    memoryAxis_->setLabelFormat("%g");
    chart->addAxis(timeAxis_, Qt::AlignBottom);
    chart->addAxis(memoryAxis_, Qt::AlignLeft);
    setChart(chart);
    setRenderHint(QPainter::Antialiasing);
    setMinimumSize(320, 220);
    clear();
}

QLineSeries* MemoryChartView::memorySeries(int device) const {
    return device >= 0 && device < deviceCount() ? memory_[device] : nullptr;
}
QScatterSeries* MemoryChartView::peakSeries(int device) const {
    return device >= 0 && device < deviceCount() ? peaks_[device] : nullptr;
}
QLineSeries* MemoryChartView::capacitySeries(int device) const {
    return device >= 0 && device < deviceCount() ? capacity_[device] : nullptr;
}
QScatterSeries* MemoryChartView::overLimitSeries(int device) const {
    return device >= 0 && device < static_cast<int>(overLimit_.size()) ? overLimit_[device] : nullptr;
}
int64_t MemoryChartView::overLimitBytes(int device) const {
    return device >= 0 && device < static_cast<int>(overBytes_.size()) ? overBytes_[device] : 0;
}

void MemoryChartView::clear() {
    hasResult_ = false;
    result_ = PlacementResult();
    capacityBytes_.clear();
    rebuild();
}

void MemoryChartView::setResult(const PlacementResult& result, const std::vector<int64_t>& capacityBytes) {
    result_ = result;
    capacityBytes_ = capacityBytes;
    hasResult_ = true;
    rebuild();
}

void MemoryChartView::setCapacityAlwaysOnScale(bool on) {
    if (on == capacityOnScale_) return;
    capacityOnScale_ = on;
    rebuild();
}

void MemoryChartView::contextMenuEvent(QContextMenuEvent* event) {
    QMenu menu(this);
    QAction* onScale = menu.addAction(tr("Show capacity on scale"));
    onScale->setCheckable(true);
    onScale->setChecked(capacityOnScale_);
    onScale->setEnabled(!capacityBytes_.empty() || !result_.deviceCapacityBytes.empty());
    connect(onScale, &QAction::toggled, this, &MemoryChartView::setCapacityAlwaysOnScale);
    menu.exec(event->globalPos());
}

void MemoryChartView::rebuild() {
    chart()->removeAllSeries();
    memory_.clear();
    capacity_.clear();
    peaks_.clear();
    overLimit_.clear();
    overBytes_.clear();
    chart()->setTitleBrush(palette().text());
    chart()->setTitle(tr("Memory per device: run a placement to see it"));
    timeAxis_->setTitleText(tr("time (ms)"));
    memoryAxis_->setTitleText(tr("memory (MiB)"));
    timeAxis_->setRange(0, 1);
    memoryAxis_->setRange(0, 1);
    timeAxis_->setLabelsVisible(hasResult_);  // no made-up 0..1 scale before there is data
    memoryAxis_->setLabelsVisible(hasResult_);
    timeAxis_->setTitleVisible(hasResult_);  // titles without labels get squeezed to "..."
    memoryAxis_->setTitleVisible(hasResult_);
    if (!hasResult_) return;
    const PlacementResult& result = result_;
    const ScheduleDetail& s = result.schedule;
    const int devices = static_cast<int>(std::max(s.memory.size(), result.devicePeakBytes.size()));
    // Each device's limit: the result's own (deviceCapacityBytes) where it has one, else the one given.
    std::vector<int64_t> capacityBytes = capacityBytes_;
    if (capacityBytes.size() < result.deviceCapacityBytes.size()) capacityBytes.resize(result.deviceCapacityBytes.size(), 0);
    for (size_t k = 0; k < result.deviceCapacityBytes.size(); ++k)
        if (result.deviceCapacityBytes[k] > 0) capacityBytes[k] = result.deviceCapacityBytes[k];
    // Bytes over the limit at the peak: the result's figure, else peak - capacity.
    overBytes_.assign(devices, 0);
    for (int k = 0; k < devices; ++k) {
        if (k < static_cast<int>(result.overLimitBytes.size())) overBytes_[k] = std::max<int64_t>(0, result.overLimitBytes[k]);
        else if (result.overLimitBytes.empty() && k < static_cast<int>(capacityBytes.size()) && capacityBytes[k] > 0 &&
                 k < static_cast<int>(result.devicePeakBytes.size()))
            overBytes_[k] = std::max<int64_t>(0, result.devicePeakBytes[k] - capacityBytes[k]);
    }
    QStringList overNames;
    for (int k = 0; k < devices; ++k)
        if (overBytes_[k] > 0)
            overNames << (k < static_cast<int>(result.deviceNames.size()) ? QString::fromStdString(result.deviceNames[k])
                                                                          : QString("device %1").arg(k));
    chart()->setTitle(tr("Memory per device: %1 on %2").arg(QString::fromStdString(result.engine),
                                                             QString::fromStdString(result.devices)) +
                      (overNames.isEmpty() ? QString() : tr(": %1 over the memory limit").arg(overNames.join(", "))));
    if (!overNames.isEmpty()) chart()->setTitleBrush(kOverLimitColor);
    double makespan = s.makespan;
    int64_t top = 0;
    for (int k = 0; k < devices; ++k) {
        if (k < static_cast<int>(result.devicePeakBytes.size())) top = std::max(top, result.devicePeakBytes[k]);
        if (k < static_cast<int>(s.memory.size()))
            for (const MemoryPoint& m : s.memory[k]) {
                top = std::max(top, m.bytes);
                makespan = std::max(makespan, m.time);
            }
    }
    const int64_t curvesTop = std::max<int64_t>(top, 1);
    // A capacity that a device exceeds lies below its peak, so it is always on the scale.
    auto onScale = [&](int k) {
        return capacityOnScale_ || capacityBytes[k] <= kCapacityOnScaleFactor * curvesTop || overBytes_[k] > 0;
    };
    for (int k = 0; k < devices && k < static_cast<int>(capacityBytes.size()); ++k)
        if (capacityBytes[k] > 0 && onScale(k)) top = std::max(top, capacityBytes[k]);

    // Units that keep the tick labels short.
    const double kib = 1024.0, mib = kib * 1024, gib = mib * 1024;
    QString memUnit;
    if (top >= 2 * gib) bytesPerUnit_ = gib, memUnit = "GiB";
    else if (top >= 2 * mib) bytesPerUnit_ = mib, memUnit = "MiB";
    else bytesPerUnit_ = kib, memUnit = "KiB";
    QString timeUnit;
    if (makespan < 1e-3) secondsPerUnit_ = 1e-6, timeUnit = QString::fromUtf8("µs");
    else if (makespan < 2) secondsPerUnit_ = 1e-3, timeUnit = "ms";
    else secondsPerUnit_ = 1, timeUnit = "s";
    timeAxis_->setTitleText(tr("time (%1)").arg(timeUnit));
    memoryAxis_->setTitleText(tr("memory (%1)").arg(memUnit));
    const double endX = std::max(makespan, 1e-12) / secondsPerUnit_;

    // Long curves are filled last: adding a series or attaching an axis re-lays out every point
    // already in the chart (about 12 ms per 20,000 points each time).
    std::vector<std::pair<QLineSeries*, QList<QPointF>>> curves;
    // Equal capacities would draw as one line in mixed colours: draw one grey line instead.
    bool sharedCapacity = devices > 1 && static_cast<int>(capacityBytes.size()) >= devices && capacityBytes[0] > 0;
    for (int k = 1; sharedCapacity && k < devices; ++k) sharedCapacity = capacityBytes[k] == capacityBytes[0];
    for (int k = 0; k < devices; ++k) {
        const QString name = k < static_cast<int>(result.deviceNames.size())
                                 ? QString::fromStdString(result.deviceNames[k])
                                 : QString("device %1").arg(k);
        const QColor color = deviceColor(k);

        // Steps: each point holds from its time on, so draw horizontal, then vertical.
        QList<QPointF> points;
        double peakTime = 0;
        int64_t curveMax = -1;
        if (k < static_cast<int>(s.memory.size())) {
            const auto& curve = s.memory[k];
            points.reserve(static_cast<qsizetype>(curve.size()) * 2 + 1);
            for (size_t i = 0; i < curve.size(); ++i) {
                const double x = curve[i].time / secondsPerUnit_, y = curve[i].bytes / bytesPerUnit_;
                if (i > 0) points.append(QPointF(x, points.back().y()));
                points.append(QPointF(x, y));
                if (curve[i].bytes > curveMax) curveMax = curve[i].bytes, peakTime = curve[i].time;
            }
            if (!points.isEmpty() && points.back().x() < endX) points.append(QPointF(endX, points.back().y()));
        }
        auto* line = new QLineSeries;
        line->setName(name);
        line->setPen(QPen(color, 2));
        curves.emplace_back(line, std::move(points));
        // Hovering a curve tells the level there (the step holds the value of the point before).
        connect(line, &QLineSeries::hovered, this, [this, line, name](const QPointF& at, bool state) {
            if (!state) return QToolTip::hideText();
            const auto pts = line->points();
            auto it = std::upper_bound(pts.begin(), pts.end(), at.x(),
                                       [](double x, const QPointF& p) { return x < p.x(); });
            if (it == pts.begin()) return;
            const double bytes = std::prev(it)->y() * bytesPerUnit_;
            QToolTip::showText(QCursor::pos(), tr("%1 at %2 %3: %4")
                                                   .arg(name)
                                                   .arg(at.x(), 0, 'g', 4)
                                                   .arg(timeAxis_->titleText().section('(', 1).chopped(1))
                                                   .arg(sizeText(bytes)),
                               this);
        });
        chart()->addSeries(line);
        line->attachAxis(timeAxis_);
        line->attachAxis(memoryAxis_);
        memory_.push_back(line);

        auto* peak = new QScatterSeries;
        const int64_t peakBytes = k < static_cast<int>(result.devicePeakBytes.size()) ? result.devicePeakBytes[k]
                                                                                      : std::max<int64_t>(curveMax, 0);
        peak->setName(tr("%1 peak %2").arg(name, sizeText(double(peakBytes))));
        peak->setColor(color);
        peak->setBorderColor(QColor(30, 30, 30));
        peak->setMarkerSize(11);
        peak->replace(QList<QPointF>{QPointF(peakTime / secondsPerUnit_, peakBytes / bytesPerUnit_)});
        chart()->addSeries(peak);
        peak->attachAxis(timeAxis_);
        peak->attachAxis(memoryAxis_);
        peaks_.push_back(peak);

        QLineSeries* cap = nullptr;
        if (sharedCapacity && k > 0) {
            cap = capacity_.front();  // one line stands for every device
        } else if (k < static_cast<int>(capacityBytes.size()) && capacityBytes[k] > 0) {
            const int64_t c = capacityBytes[k];
            cap = new QLineSeries;
            bool shown = onScale(k);
            for (int j = 0; sharedCapacity && j < devices; ++j) shown = shown || overBytes_[j] > 0;
            const QString size = sizeText(double(c));
            if (sharedCapacity)
                cap->setName(shown ? tr("capacity %1 (each device)").arg(size)
                                   : tr("capacity %1 (each device, off scale)").arg(size));
            else
                cap->setName(shown ? tr("%1 capacity %2").arg(name, size)
                                   : tr("%1 capacity %2 (off scale)").arg(name, size));
            cap->setPen(QPen(sharedCapacity ? QColor(90, 90, 90) : color, 1.5, Qt::DashLine));
            cap->replace(QList<QPointF>{QPointF(0, c / bytesPerUnit_), QPointF(endX, c / bytesPerUnit_)});
            chart()->addSeries(cap);
            cap->attachAxis(timeAxis_);
            cap->attachAxis(memoryAxis_);
        }
        capacity_.push_back(cap);

        // Over its limit: a red mark on the peak and a legend entry that says by how much.
        QScatterSeries* over = nullptr;
        if (overBytes_[k] > 0) {
            over = new QScatterSeries;
            over->setName(tr("%1: over by %2").arg(name, sizeText(double(overBytes_[k]))));
            over->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
            over->setColor(kOverLimitColor);
            over->setBorderColor(QColor(90, 0, 0));
            over->setMarkerSize(9);
            over->replace(QList<QPointF>{QPointF(peakTime / secondsPerUnit_, peakBytes / bytesPerUnit_)});
            chart()->addSeries(over);
            over->attachAxis(timeAxis_);
            over->attachAxis(memoryAxis_);
            for (QLegendMarker* m : chart()->legend()->markers(over)) {
                m->setLabelBrush(kOverLimitColor);
                QFont f = m->font();
                f.setBold(true);
                m->setFont(f);
            }
        }
        overLimit_.push_back(over);
    }
    setNiceRange(timeAxis_, endX);
    for (QLineSeries* cap : capacity_)  // capacity holds for the whole axis, not just the run
        if (cap) cap->replace(1, QPointF(timeAxis_->max(), cap->at(1).y()));
    setNiceRange(memoryAxis_, std::max(1.0, top * 1.04 / bytesPerUnit_));
    for (auto& [line, points] : curves) line->replace(points);
    placeLegend();
}

void MemoryChartView::placeLegend() {
    // A bottom legend elides its entries when they do not fit in one row: list them on the right
    // then. Per entry: the marker and spacing (about 32 px) and the text.
    const QFontMetrics fm(chart()->legend()->font());
    int width = 0;
    for (QAbstractSeries* series : chart()->series()) width += fm.horizontalAdvance(series->name()) + 32;
    const Qt::Alignment wanted = width > this->width() - 40 ? Qt::AlignRight : Qt::AlignBottom;
    if (chart()->legend()->alignment() != wanted) chart()->legend()->setAlignment(wanted);
}

void MemoryChartView::resizeEvent(QResizeEvent* event) {
    QChartView::resizeEvent(event);
    placeLegend();
}

}  // namespace graphopt::ui
