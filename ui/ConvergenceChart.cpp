#include "ConvergenceChart.h"

#include <QChart>
#include <QLineSeries>
#include <QValueAxis>
#include <algorithm>
#include <limits>

namespace graphopt::ui {

ConvergenceChart::ConvergenceChart(QWidget* parent) : QChartView(parent) {
    auto* chart = new QChart();
    // No chart title: the tab says what it is, and the height goes to the plot.
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->legend()->setAlignment(Qt::AlignBottom);
    x_ = new QValueAxis(chart);
    y_ = new QValueAxis(chart);
    x_->setTitleText(tr("evaluations"));
    x_->setLabelFormat("%.0f");
    y_->setLabelFormat("%.3g");
    chart->addAxis(x_, Qt::AlignBottom);
    chart->addAxis(y_, Qt::AlignLeft);
    setChart(chart);
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(220);
    rescale();
}

double ConvergenceChart::scaleOf(double cost) const {
    return objective_ == "memory" ? cost / (1024.0 * 1024.0) : cost * 1e3;
}

void ConvergenceChart::clearRuns() {
    for (auto& line : runs_) {
        chart()->removeSeries(line.series);
        delete line.series;
    }
    runs_.clear();
    rescale();
}

void ConvergenceChart::beginRun(qint64 key, const QString& label, const QString& objective) {
    if (objective != objective_) {
        clearRuns();
        objective_ = objective;
        y_->setTitleText(objective == "memory"       ? tr("best peak (MiB)")
                         : objective == "throughput" ? tr("best time per sample (ms)")
                                                     : tr("best time (ms)"));
    }
    if (runs_.contains(key)) return;
    Line line;
    line.series = new QLineSeries(this);
    line.series->setName(label);
    chart()->addSeries(line.series);
    line.series->attachAxis(x_);
    line.series->attachAxis(y_);
    runs_.insert(key, line);
}

void ConvergenceChart::addPoints(qint64 key, const QVector<ConvergencePoint>& points) {
    auto it = runs_.find(key);
    if (it == runs_.end()) return;
    for (const auto& p : points) {
        if (!(p.bestCost < std::numeric_limits<double>::infinity())) continue;
        it->points.append(QPointF(p.evaluations, scaleOf(p.bestCost)));
    }
    it->series->replace(it->points);
    rescale();
}

int ConvergenceChart::pointCount(qint64 key) const {
    auto it = runs_.find(key);
    return it == runs_.end() ? 0 : static_cast<int>(it->points.size());
}

void ConvergenceChart::rescale() {
    // At least one evaluation per tick, so the whole-number labels of an empty or short run do
    // not repeat (0 0 0 1 1 1).
    double maxX = std::max(1, x_->tickCount() - 1), minY = std::numeric_limits<double>::max(), maxY = std::numeric_limits<double>::lowest();
    for (const auto& line : runs_)
        for (const auto& p : line.points) {
            maxX = std::max(maxX, p.x());
            minY = std::min(minY, p.y());
            maxY = std::max(maxY, p.y());
        }
    if (minY > maxY) minY = 0, maxY = 1;
    const double pad = std::max(1e-9, (maxY - minY) * 0.08);
    x_->setRange(0, maxX);
    y_->setRange(std::max(0.0, minY - pad), maxY + pad);
    x_->applyNiceNumbers();
}

}  // namespace graphopt::ui
