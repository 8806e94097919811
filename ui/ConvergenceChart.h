// Best cost against evaluations, live, for several runs on one model (one line each, with a
// legend), like Optuna's optimization history. Points arrive in batches and are applied with
// QXYSeries::replace(), so a long run costs one repaint per batch.
#pragma once

#include <QChartView>
#include <QHash>
#include <QVector>

class QLineSeries;
class QValueAxis;

namespace graphopt::ui {

struct ConvergencePoint {
    double evaluations = 0;
    double bestCost = 0;
};

class ConvergenceChart : public QChartView {
    Q_OBJECT
public:
    explicit ConvergenceChart(QWidget* parent = nullptr);

    // Starts a new line; `objective` is "runtime" (seconds, shown in ms) or "memory" (bytes,
    // shown in MiB). A run of another objective than the lines already there clears the chart.
    void beginRun(qint64 key, const QString& label, const QString& objective);
    void addPoints(qint64 key, const QVector<ConvergencePoint>& points);
    void clearRuns();
    int runCount() const { return static_cast<int>(runs_.size()); }
    int pointCount(qint64 key) const;

private:
    struct Line {
        QLineSeries* series = nullptr;
        QVector<QPointF> points;
    };
    void rescale();
    double scaleOf(double cost) const;

    QHash<qint64, Line> runs_;
    QString objective_;
    QValueAxis* x_ = nullptr;
    QValueAxis* y_ = nullptr;
};

}  // namespace graphopt::ui
