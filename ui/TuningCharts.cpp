#include "TuningCharts.h"

#include <QChart>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QSlider>
#include <QToolTip>
#include <QValueAxis>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "DeviceColors.h"

namespace graphopt::ui {

namespace {

// Cluster colours: the device palette (Okabe-Ito, then darker rounds), so neighbouring cluster
// ids differ clearly.
QColor clusterColor(int64_t cluster) { return deviceColor(static_cast<int>(cluster % 24)); }

void fitAxis(QValueAxis* axis, double lo, double hi) {
    if (!(hi > lo)) {
        lo -= 1;
        hi += 1;
    }
    const double pad = (hi - lo) * 0.05;
    axis->setRange(lo - pad, hi + pad);
}

}  // namespace

// ---- convergence ----------------------------------------------------------------------------

TuningConvergenceChart::TuningConvergenceChart(QWidget* parent) : QChartView(parent) {
    auto* chart = new QChart();
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->legend()->setAlignment(Qt::AlignBottom);
    xAxis_ = new QValueAxis(chart);
    yAxis_ = new QValueAxis(chart);
    xAxis_->setLabelFormat("%.0f");
    yAxis_->setLabelFormat("%.0f");
    yAxis_->setTitleText(tr("best GFLOP/s"));
    chart->addAxis(xAxis_, Qt::AlignBottom);
    chart->addAxis(yAxis_, Qt::AlignLeft);
    peak_ = new QLineSeries(this);
    libtorch_ = new QLineSeries(this);
    QPen peakPen(QColor(120, 120, 120), 1.5, Qt::DashLine), torchPen(QColor(200, 40, 40), 1.5, Qt::DashDotLine);
    peak_->setPen(peakPen);
    libtorch_->setPen(torchPen);
    for (auto* s : {peak_, libtorch_}) {
        chart->addSeries(s);
        s->attachAxis(xAxis_);
        s->attachAxis(yAxis_);
    }
    setChart(chart);
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(200);
    redraw();
}

void TuningConvergenceChart::setRun(qint64 key, const QString& label, const std::vector<ConvergenceSample>& samples) {
    auto it = runs_.find(key);
    if (it == runs_.end()) {
        Line line;
        line.series = new QLineSeries(this);
        chart()->addSeries(line.series);
        line.series->attachAxis(xAxis_);
        line.series->attachAxis(yAxis_);
        it = runs_.insert(key, line);
    }
    it->series->setName(label);
    it->samples = samples;
    redraw();
}

void TuningConvergenceChart::clearRuns() {
    for (auto& line : runs_) {
        chart()->removeSeries(line.series);
        delete line.series;
    }
    runs_.clear();
    redraw();
}

void TuningConvergenceChart::setXAxis(XAxis x) {
    x_ = x;
    redraw();
}

void TuningConvergenceChart::setReferences(double peakGflops, double libtorchGflops) {
    peakGflops_ = peakGflops;
    libtorchGflops_ = libtorchGflops;
    redraw();
}

void TuningConvergenceChart::redraw() {
    xAxis_->setTitleText(x_ == XAxis::Measurements ? tr("measurements") : tr("seconds"));
    xAxis_->setLabelFormat(x_ == XAxis::Measurements ? "%.0f" : "%.1f");
    double xMax = 1, yMax = 1;
    for (auto& line : runs_) {
        QList<QPointF> pts;
        pts.reserve(qsizetype(line.samples.size()));
        for (const auto& s : line.samples) {
            const double x = x_ == XAxis::Measurements ? s.measurements : s.seconds;
            // A step line: the best so far holds until the next improvement.
            if (!pts.isEmpty()) pts.append(QPointF(x, pts.back().y()));
            pts.append(QPointF(x, s.bestGflops));
            xMax = std::max(xMax, x);
            yMax = std::max(yMax, s.bestGflops);
        }
        line.series->replace(pts);
    }
    for (auto [series, value, name] :
         {std::tuple{peak_, peakGflops_, tr("machine FMA peak %1 GFLOP/s").arg(peakGflops_, 0, 'f', 0)},
          std::tuple{libtorch_, libtorchGflops_, tr("libtorch %1 GFLOP/s").arg(libtorchGflops_, 0, 'f', 1)}}) {
        series->setVisible(value > 0);
        series->setName(name);
        if (value > 0) {
            series->replace(QList<QPointF>{QPointF(0, value), QPointF(xMax, value)});
            yMax = std::max(yMax, value);
        }
    }
    xAxis_->setRange(0, xMax);
    yAxis_->setRange(0, yMax * 1.08);
}

// ---- clusters -------------------------------------------------------------------------------

ClusterScatter::ClusterScatter(QWidget* parent) : QWidget(parent) {
    auto* scatter = new QChart();
    scatter->setMargins(QMargins(2, 2, 2, 2));
    scatter->legend()->setAlignment(Qt::AlignBottom);
    sx_ = new QValueAxis(scatter);
    sy_ = new QValueAxis(scatter);
    scatter->setTitle(tr("Candidates of the batch's plan, coloured by k-means cluster"));
    sx_->setTitleText(tr("knob space, 1st principal component"));
    sy_->setTitleText(tr("2nd component"));
    sx_->setLabelFormat("%.1f");
    sy_->setLabelFormat("%.1f");
    scatter->addAxis(sx_, Qt::AlignBottom);
    scatter->addAxis(sy_, Qt::AlignLeft);
    faded_ = new QScatterSeries(this);
    faded_->setName(tr("earlier batches"));
    faded_->setMarkerSize(6);
    faded_->setColor(QColor(190, 190, 190, 110));
    faded_->setBorderColor(QColor(0, 0, 0, 0));
    representatives_ = new QScatterSeries(this);
    representatives_->setName(tr("picked for measuring"));
    representatives_->setMarkerShape(QScatterSeries::MarkerShapeRotatedRectangle);
    representatives_->setMarkerSize(15);
    representatives_->setColor(QColor(0, 0, 0, 0));
    representatives_->setBorderColor(Qt::black);
    representatives_->setPen(QPen(Qt::black, 2));
    for (auto* s : {faded_, representatives_}) {
        scatter->addSeries(s);
        s->attachAxis(sx_);
        s->attachAxis(sy_);
    }
    scatterView_ = new QChartView(scatter, this);
    scatterView_->setRenderHint(QPainter::Antialiasing);
    scatterView_->setMinimumSize(320, 240);

    auto* loss = new QChart();
    loss->setMargins(QMargins(2, 2, 2, 2));
    loss->legend()->hide();
    loss->setTitle(tr("k-means loss"));
    lx_ = new QValueAxis(loss);
    ly_ = new QValueAxis(loss);
    lx_->setTitleText(tr("k"));
    lx_->setLabelFormat("%.0f");
    ly_->setLabelFormat("%.4g");
    loss->addAxis(lx_, Qt::AlignBottom);
    loss->addAxis(ly_, Qt::AlignLeft);
    loss_ = new QLineSeries(this);
    chosenK_ = new QScatterSeries(this);
    chosenK_->setMarkerSize(12);
    chosenK_->setColor(QColor(213, 94, 0));
    for (QXYSeries* s : std::initializer_list<QXYSeries*>{loss_, chosenK_}) {
        loss->addSeries(s);
        s->attachAxis(lx_);
        s->attachAxis(ly_);
    }
    lossView_ = new QChartView(loss, this);
    lossView_->setRenderHint(QPainter::Antialiasing);
    lossView_->setMinimumSize(200, 160);

    slider_ = new QSlider(Qt::Horizontal, this);
    slider_->setObjectName("batchSlider");
    slider_->setRange(0, 0);
    slider_->setToolTip(tr("Replay the run batch by batch"));
    batchLabel_ = new QLabel(this);
    detail_ = new QLabel(this);
    detail_->setWordWrap(true);
    detail_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    detail_->setText(tr("Hover over or click a point for its knobs, predicted cost and measured latency."));

    auto* side = new QVBoxLayout();
    side->addWidget(lossView_, 2);
    side->addWidget(detail_, 1);
    auto* top = new QHBoxLayout();
    top->addWidget(scatterView_, 3);
    top->addLayout(side, 2);
    auto* sliderRow = new QHBoxLayout();
    sliderRow->addWidget(batchLabel_);
    sliderRow->addWidget(slider_, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(top, 1);
    layout->addLayout(sliderRow);

    connect(slider_, &QSlider::valueChanged, this, [this](int v) {
        if (!frames_) return;
        follow_ = v >= int(frames_->frames().size());
        shownBatch_ = v;
        redraw();
    });
    connect(representatives_, &QScatterSeries::hovered, this, &ClusterScatter::onHover);
    connect(representatives_, &QScatterSeries::clicked, this, &ClusterScatter::onClick);
    connect(faded_, &QScatterSeries::clicked, this, &ClusterScatter::onClick);
    redraw();
}

void ClusterScatter::setFrames(const TuningFrames* frames, bool follow) {
    frames_ = frames;
    const int n = frames ? int(frames->frames().size()) : 0;
    if (follow || follow_ || shownBatch_ > n || shownBatch_ == 0) {
        shownBatch_ = n;
        follow_ = true;
    }
    {
        QSignalBlocker block(slider_);
        slider_->setRange(n > 0 ? 1 : 0, n);
        slider_->setValue(shownBatch_);
    }
    redraw();
}

void ClusterScatter::clear() { setFrames(nullptr, true); }

void ClusterScatter::showBatch(int batch) {
    follow_ = false;
    slider_->setValue(batch);  // redraws through valueChanged
    shownBatch_ = batch;
    redraw();
}

int ClusterScatter::pointCount() const {
    int n = representatives_->count();
    for (auto* s : clusterSeries_) n += s->count();
    return n;
}

int ClusterScatter::representativeCount() const { return representatives_->count(); }

int ClusterScatter::fadedPointCount() const { return faded_->count(); }

int ClusterScatter::clusterColourCount() const {
    std::set<QRgb> colours;
    for (auto* s : clusterSeries_)
        if (s->count() > 0 && s->name().isEmpty()) colours.insert(s->color().rgb());
    return int(colours.size());
}

QString ClusterScatter::describePoint(int64_t config) const {
    QString text = tr("<b>configuration %1</b>").arg(config);
    if (describe_) text += "<br>" + describe_(config).toHtmlEscaped();
    if (frames_ && shownBatch_ > 0) {
        for (const auto& p : frames_->frames()[size_t(shownBatch_ - 1)].points)
            if (p.config == config) {
                if (p.cluster >= 0) text += tr("<br>cluster %1").arg(p.cluster);
                if (p.predicted) text += tr("<br>predicted score %1").arg(*p.predicted, 0, 'g', 4);
                if (p.representative) text += tr("<br>picked for measuring");
                break;
            }
        if (const TuningMeasurement* m = frames_->measured(config))
            text += m->ok ? tr("<br>measured: %1 ms, %2 GFLOP/s (batch %3)")
                                .arg(m->latencyS * 1e3, 0, 'f', 4)
                                .arg(m->gflops, 0, 'f', 1)
                                .arg(m->batch)
                          : tr("<br>measurement failed: %1").arg(QString::fromStdString(m->error).toHtmlEscaped());
        else
            text += tr("<br>not measured");
    }
    return text;
}

const ScatterPoint* ClusterScatter::nearest(const QPointF& at) const {
    if (!frames_ || shownBatch_ < 1) return nullptr;
    const ScatterPoint* best = nullptr;
    double bestD = std::numeric_limits<double>::max();
    for (const auto& p : frames_->frames()[size_t(shownBatch_ - 1)].points) {
        const double d = std::hypot(p.at.x() - at.x(), p.at.y() - at.y());
        if (d < bestD) {
            bestD = d;
            best = &p;
        }
    }
    return best;
}

void ClusterScatter::onHover(const QPointF& p, bool state) {
    if (!state) {
        QToolTip::hideText();
        return;
    }
    if (const ScatterPoint* sp = nearest(p)) QToolTip::showText(QCursor::pos(), describePoint(sp->config), this);
}

void ClusterScatter::onClick(const QPointF& p) {
    if (const ScatterPoint* sp = nearest(p)) {
        const QString text = describePoint(sp->config);
        detail_->setText(text);
        emit pointChosen(sp->config, text);
    }
}

void ClusterScatter::redraw() {
    // Cluster series are kept and refilled, not re-created: adding and removing series makes the
    // chart lay out its legend and axes again, the slowest part of a redraw.
    for (auto* s : clusterSeries_) s->clear();
    faded_->clear();
    representatives_->clear();
    loss_->clear();
    chosenK_->clear();
    const int n = frames_ ? int(frames_->frames().size()) : 0;
    if (!frames_ || shownBatch_ < 1 || shownBatch_ > n) {
        batchLabel_->setText(tr("no batch yet"));
        fitAxis(sx_, -1, 1);
        fitAxis(sy_, -1, 1);
        return;
    }
    const BatchFrame& f = frames_->frames()[size_t(shownBatch_ - 1)];
    double x0 = 1e300, x1 = -1e300, y0 = 1e300, y1 = -1e300;
    auto extend = [&](const QPointF& p) {
        x0 = std::min(x0, p.x());
        x1 = std::max(x1, p.x());
        y0 = std::min(y0, p.y());
        y1 = std::max(y1, p.y());
    };
    // Earlier batches, faded: every point shown before this batch's plan, once.
    std::set<int64_t> current;
    for (const auto& p : f.points) current.insert(p.config);
    std::set<int64_t> fadedSeen;
    QList<QPointF> fadedPts;
    for (int b = 0; b < shownBatch_ - 1; ++b)
        for (const auto& p : frames_->frames()[size_t(b)].points)
            if (!current.count(p.config) && fadedSeen.insert(p.config).second) {
                fadedPts.append(p.at);
                extend(p.at);
            }
    faded_->replace(fadedPts);
    // This batch, one series per cluster (grey when not clustered), picks outlined on top.
    std::map<int64_t, QList<QPointF>> byCluster;
    QList<QPointF> picks;
    for (const auto& p : f.points) {
        byCluster[p.cluster].append(p.at);
        if (p.representative) picks.append(p.at);
        extend(p.at);
    }
    size_t used = 0;
    for (const auto& [cluster, pts] : byCluster) {
        if (used == clusterSeries_.size()) {
            auto* s = new QScatterSeries();
            s->setMarkerSize(9);
            s->setBorderColor(QColor(0, 0, 0, 0));
            scatterView_->chart()->addSeries(s);
            s->attachAxis(sx_);
            s->attachAxis(sy_);
            connect(s, &QScatterSeries::hovered, this, &ClusterScatter::onHover);
            connect(s, &QScatterSeries::clicked, this, &ClusterScatter::onClick);
            clusterSeries_.push_back(s);
        }
        QScatterSeries* s = clusterSeries_[used++];
        s->setColor(cluster >= 0 ? clusterColor(cluster) : QColor(120, 120, 120, 190));
        s->setName(cluster >= 0 ? QString() : tr("not clustered"));
        // The colours speak for themselves (hover names the cluster); the legend keeps the fixed entries.
        for (auto* marker : scatterView_->chart()->legend()->markers(s)) marker->setVisible(cluster < 0);
        s->replace(pts);
    }
    // The picks stay on top of the cluster colours (moved up only when a new series went above them).
    if (scatterView_->chart()->series().back() != representatives_) {
        scatterView_->chart()->removeSeries(representatives_);
        scatterView_->chart()->addSeries(representatives_);
        representatives_->attachAxis(sx_);
        representatives_->attachAxis(sy_);
    }
    representatives_->replace(picks);
    if (x0 > x1) x0 = -1, x1 = 1, y0 = -1, y1 = 1;
    fitAxis(sx_, x0, x1);
    fitAxis(sy_, y0, y1);

    QList<QPointF> lossPts(f.kmeansLosses.begin(), f.kmeansLosses.end());
    loss_->replace(lossPts);
    double lossMax = 1;
    for (const auto& p : lossPts) lossMax = std::max(lossMax, p.y());
    for (const auto& p : lossPts)
        if (int(p.x()) == f.k) chosenK_->append(p);
    // k is a whole number: whole ticks (an empty curve spans 1..16, not -0..1 in repeated labels).
    const double k0 = lossPts.isEmpty() ? 1 : lossPts.front().x(), k1 = lossPts.isEmpty() ? 16 : lossPts.back().x();
    lx_->setRange(k0, std::max(k1, k0 + 1));
    lx_->applyNiceNumbers();
    ly_->setRange(0, lossMax * 1.1);
    // A batch without clustering is either random (a model-based tuner's first measurements, or
    // epsilon's share) or from a tuner that never clusters; say which.
    lossView_->chart()->setTitle(f.k > 0               ? tr("k-means loss (chosen k = %1)").arg(f.k)
                                 : f.phase == "random" ? tr("k-means loss (none: a random batch)")
                                                       : tr("k-means loss (this tuner does not cluster)"));
    const QString visited = f.visited > 0 ? tr("%1 visited, ").arg(f.visited) : QString();
    batchLabel_->setText(tr("batch %1 of %2 (%3): %4%5 candidates, %6 picked")
                             .arg(shownBatch_)
                             .arg(n)
                             .arg(f.phase)
                             .arg(visited)
                             .arg(f.candidates)
                             .arg(picks.size()));
}

}  // namespace graphopt::ui
