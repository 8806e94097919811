#include "PopulationView.h"

#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QScatterSeries>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace graphopt::ui {

namespace {
QScatterSeries* makeSeries(const QString& name, QColor color, QScatterSeries::MarkerShape shape, double size, QObject* parent) {
    auto* s = new QScatterSeries(parent);
    s->setName(name);
    s->setColor(color);
    s->setBorderColor(color.darker(140));
    s->setMarkerShape(shape);
    s->setMarkerSize(size);
    return s;
}
}  // namespace

PopulationView::PopulationView(QWidget* parent) : QChartView(parent) {
    auto* chart = new QChart();
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->legend()->setAlignment(Qt::AlignBottom);
    initial_ = makeSeries(tr("initial (generation 0)"), QColor(120, 120, 120), QScatterSeries::MarkerShapeCircle, 7, this);
    elite_ = makeSeries(tr("elite, carried over"), QColor(214, 39, 40), QScatterSeries::MarkerShapeStar, 13, this);
    offspring_ = makeSeries(tr("crossover offspring"), QColor(31, 119, 180), QScatterSeries::MarkerShapeCircle, 7, this);
    mutant_ = makeSeries(tr("mutant"), QColor(44, 160, 44), QScatterSeries::MarkerShapeTriangle, 10, this);
    seeded_ = makeSeries(tr("heuristic seed"), QColor(148, 103, 189), QScatterSeries::MarkerShapeRectangle, 10, this);
    x_ = new QValueAxis(chart);
    y_ = new QValueAxis(chart);
    x_->setTitleText(tr("rank in the population (best first)"));
    x_->setLabelFormat("%.0f");
    y_->setLabelFormat("%.4g");
    chart->addAxis(x_, Qt::AlignBottom);
    chart->addAxis(y_, Qt::AlignLeft);
    for (QScatterSeries* s : {initial_, offspring_, mutant_, seeded_, elite_}) {  // elites drawn on top
        chart->addSeries(s);
        s->attachAxis(x_);
        s->attachAxis(y_);
    }
    setChart(chart);
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(220);
    clear();
}

QScatterSeries* PopulationView::seriesFor(char origin) const {
    switch (origin) {
        case 'e': return elite_;
        case 'o': return offspring_;
        case 'm': return mutant_;
        case 'i': return initial_;
        case 's': return seeded_;
        default: return nullptr;
    }
}

void PopulationView::clear() {
    for (QScatterSeries* s : {initial_, elite_, offspring_, mutant_, seeded_}) s->clear();
    generation_ = -1;
    chart()->setTitle(tr("Step mode shows the population here: tick Step mode in the run panel (BRKGA or REGAL)."));
    x_->setRange(0, 10);
    y_->setRange(0, 1);
}

void PopulationView::setPopulation(qint64 generation, const std::vector<double>& costs, const std::string& origins,
                                   const QString& objective) {
    const bool memory = objective == "memory";
    const double scale = memory ? 1.0 / (1024.0 * 1024.0) : 1e3;
    constexpr int kOrigins = 5;
    QList<QPointF> points[kOrigins];
    const char letters[kOrigins] = {'i', 'e', 'o', 'm', 's'};
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < costs.size(); ++i) {
        if (!std::isfinite(costs[i])) continue;
        const char o = i < origins.size() ? origins[i] : 'i';
        const int k = int(std::find(letters, letters + kOrigins, o) - letters);
        if (k == kOrigins) continue;
        const double y = costs[i] * scale;
        points[k].append(QPointF(double(i + 1), y));
        lo = std::min(lo, y);
        hi = std::max(hi, y);
    }
    for (int k = 0; k < kOrigins; ++k) seriesFor(letters[k])->replace(points[k]);
    generation_ = generation;
    y_->setTitleText(memory ? tr("peak (MiB)") : tr("time (ms)"));
    // An origin with nobody in it (no initial ones after generation 0) leaves the legend.
    for (int k = 0; k < kOrigins; ++k)
        for (QLegendMarker* m : chart()->legend()->markers(seriesFor(letters[k]))) m->setVisible(!points[k].isEmpty());
    if (lo > hi) lo = 0, hi = 1;
    const double pad = std::max(1e-9, (hi - lo) * 0.06);
    // Ranks 1..p on a round axis: four intervals of a multiple of 5 (100 -> 0, 25, 50, 75, 100).
    const double top = std::max(20.0, std::ceil(double(costs.size()) / 20.0) * 20.0);
    x_->setTickCount(5);
    x_->setRange(0, top);
    y_->setRange(std::max(0.0, lo - pad), hi + pad);
    chart()->setTitle(caption());
}

int PopulationView::pointCount() const {
    int n = 0;
    for (QScatterSeries* s : {initial_, elite_, offspring_, mutant_, seeded_}) n += s->count();
    return n;
}

int PopulationView::pointCount(char origin) const {
    QScatterSeries* s = seriesFor(origin);
    return s ? s->count() : 0;
}

QString PopulationView::caption() const {
    if (generation_ < 0) return chart()->title();
    return tr("Generation %1: %2 individuals (%3 elite, %4 offspring, %5 mutants%6)")
        .arg(generation_)
        .arg(pointCount())
        .arg(pointCount('e'))
        .arg(pointCount('o'))
        .arg(pointCount('m'))
        .arg((pointCount('i') ? tr(", %1 initial").arg(pointCount('i')) : QString()) +
             (pointCount('s') ? tr(", %1 heuristic seeds").arg(pointCount('s')) : QString()));
}

}  // namespace graphopt::ui
