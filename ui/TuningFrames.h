// What the tuning view draws of a tuning run, batch by batch, built from the run's progress events
// and measurements (live, or read back from the store) with a task's KnobProjection:
//  - a frame per batch: the explorer's candidates of the plan that batch came from, projected to
//    2-D, with their adaptive-sampling cluster (or none), the configurations picked for measuring
//    (representatives) marked, and the k-means loss curve with the chosen k;
//  - a convergence curve: best GFLOP/s against measurements and against seconds.
// Plain data, no widgets: the view and the tests read the same frames.
#pragma once

#include <QPointF>
#include <QVector>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "run/Run.h"
#include "run/RunRecords.h"
#include "tuning/KnobProjection.h"

namespace graphopt::ui {

struct ScatterPoint {
    int64_t config = 0;
    QPointF at;
    int64_t cluster = -1;         // -1: the tuner does not cluster (random, annealing only)
    bool representative = false;  // picked for measuring in this batch's plan (or measured, without a plan)
    std::optional<double> predicted;  // the cost model's score, when the explorer gave one
};

struct BatchFrame {
    int batch = 0;                      // 1-based
    std::vector<ScatterPoint> points;
    int k = 0;                          // chosen k (0: no clustering)
    std::vector<QPointF> kmeansLosses;  // (k, loss)
    int candidates = 0;                 // the configurations the plan chose from (the clustered pool)
    int visited = 0;                    // the explorer's visited set (0: not reported)
    QString phase;                      // "random" or "model"
};

struct ConvergenceSample {
    double measurements = 0, seconds = 0, bestGflops = 0;
};

class TuningFrames {
public:
    explicit TuningFrames(const tuning::KnobProjection* projection = nullptr) : projection_(projection) {}
    void setProjection(const tuning::KnobProjection* p) { projection_ = p; }

    void addEvent(const ProgressEvent& e);
    void addMeasurement(const TuningMeasurement& m);

    const std::vector<BatchFrame>& frames() const { return frames_; }
    const std::vector<ConvergenceSample>& convergence() const { return convergence_; }
    // The measurement of a configuration, when it was measured.
    const TuningMeasurement* measured(int64_t config) const;
    double bestGflops() const { return convergence_.empty() ? 0 : convergence_.back().bestGflops; }

private:
    ScatterPoint point(int64_t config) const;

    const tuning::KnobProjection* projection_;
    std::vector<BatchFrame> frames_;
    std::vector<ConvergenceSample> convergence_;
    std::map<int64_t, TuningMeasurement> measured_;
};

}  // namespace graphopt::ui
