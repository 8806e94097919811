// The tuning view's two charts.
//
// TuningConvergenceChart: best GFLOP/s against measurements or against wall-clock seconds (a
// switch), one line per run, overlaid; horizontal reference lines for the machine's measured FMA
// peak and libtorch's figure for the task. Runs measured on the simulated CPU say so in their
// label.
//
// ClusterScatter: one batch of a run (TuningFrames) at a time: the explorer's candidates in the
// task's 2-D projection, coloured by k-means cluster (grey when the tuner does not cluster), the
// representatives picked for measuring drawn as larger outlined diamonds, the points of earlier
// batches faded behind; beside it the k-means loss against k with the chosen k marked. A slider
// replays the run batch by batch; hovering or clicking a point shows its knobs, predicted cost and
// measured latency.
#pragma once

#include <QChartView>
#include <QHash>
#include <QWidget>
#include <functional>

#include "TuningFrames.h"

class QLabel;
class QLineSeries;
class QScatterSeries;
class QSlider;
class QValueAxis;

namespace graphopt::ui {

class TuningConvergenceChart : public QChartView {
    Q_OBJECT
public:
    enum class XAxis { Measurements, Seconds };
    explicit TuningConvergenceChart(QWidget* parent = nullptr);

    void setRun(qint64 key, const QString& label, const std::vector<ConvergenceSample>& samples);
    void clearRuns();
    int runCount() const { return int(runs_.size()); }
    void setXAxis(XAxis x);
    XAxis xAxis() const { return x_; }
    // 0 hides a line.
    void setReferences(double peakGflops, double libtorchGflops);

private:
    struct Line {
        QLineSeries* series = nullptr;
        std::vector<ConvergenceSample> samples;
    };
    void redraw();

    QHash<qint64, Line> runs_;
    XAxis x_ = XAxis::Measurements;
    QValueAxis* xAxis_ = nullptr;
    QValueAxis* yAxis_ = nullptr;
    QLineSeries* peak_ = nullptr;
    QLineSeries* libtorch_ = nullptr;
    double peakGflops_ = 0, libtorchGflops_ = 0;
};

class ClusterScatter : public QWidget {
    Q_OBJECT
public:
    explicit ClusterScatter(QWidget* parent = nullptr);

    // Shows `frames` (not owned; must outlive the next setFrames/clear). `follow`: jump to the
    // last batch whenever frames are added (live runs); otherwise stay on the slider's batch.
    void setFrames(const TuningFrames* frames, bool follow);
    void clear();
    void showBatch(int batch);  // 1-based
    int shownBatch() const { return shownBatch_; }
    // What the view holds now, for tests and status lines.
    int pointCount() const;
    int representativeCount() const;
    int clusterColourCount() const;  // distinct cluster colours in the shown batch
    int fadedPointCount() const;
    // Text for a point (knobs, predicted, measured); the describer names a configuration's knobs.
    void setDescriber(std::function<QString(int64_t)> describe) { describe_ = std::move(describe); }
    QString describePoint(int64_t config) const;
    QSlider* slider() const { return slider_; }

signals:
    void pointChosen(qint64 config, const QString& text);

private:
    void redraw();
    void onHover(const QPointF& p, bool state);
    void onClick(const QPointF& p);
    const ScatterPoint* nearest(const QPointF& p) const;

    const TuningFrames* frames_ = nullptr;
    int shownBatch_ = 0;
    bool follow_ = true;
    QChartView* scatterView_ = nullptr;
    QChartView* lossView_ = nullptr;
    QValueAxis* sx_ = nullptr;
    QValueAxis* sy_ = nullptr;
    QValueAxis* lx_ = nullptr;
    QValueAxis* ly_ = nullptr;
    QScatterSeries* faded_ = nullptr;
    QScatterSeries* representatives_ = nullptr;
    std::vector<QScatterSeries*> clusterSeries_;
    QLineSeries* loss_ = nullptr;
    QScatterSeries* chosenK_ = nullptr;
    QSlider* slider_ = nullptr;
    QLabel* batchLabel_ = nullptr;
    QLabel* detail_ = nullptr;
    std::function<QString(int64_t)> describe_;
};

}  // namespace graphopt::ui
