// The bridge from a core PlacementRun to Qt: runs it on a worker thread, records it in the run
// store, and delivers its progress to the GUI thread as signals throttled to a few per second.
// The GUI thread never waits on the run or on SQLite.
#pragma once

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QObject>
#include <QTimer>
#include <QVector>
#include <memory>
#include <mutex>

#include "graph/Graph.h"
#include "placement/PlacementResult.h"
#include "run/Run.h"

namespace graphopt {
class RunRecorder;
}

namespace graphopt::ui {

struct ConvergencePoint {
    double evaluations = 0;
    double bestCost = 0;
};

class PlacementRunner : public QObject {
    Q_OBJECT
public:
    explicit PlacementRunner(QObject* parent = nullptr);
    ~PlacementRunner() override;  // cancels and waits for a running run

    // Store location; empty disables recording (tests may point it at a temporary file).
    void setDatabasePath(const QString& path) { dbPath_ = path; }
    QString databasePath() const { return dbPath_; }

    // Starts a run; returns false with `error` set when the spec is refused or the store cannot
    // be opened (nothing starts then). Only one run at a time.
    bool start(std::shared_ptr<const Graph> graph, const QString& modelPath, const RunSpec& spec, QString* error);
    void cancel();
    bool isRunning() const { return running_; }
    qint64 runId() const { return runId_; }  // the store's id, -1 when not recorded
    const RunSpec& spec() const { return spec_; }

signals:
    void started(qint64 runId);
    // Points since the last signal (best cost against evaluations) and overall progress 0..1.
    void progress(const QVector<graphopt::ui::ConvergencePoint>& points, double fraction);
    void finished(const graphopt::PlacementResult& result, qint64 runId);
    void failed(const QString& message);

private:
    void flushProgress();
    void onDone();

    struct Outcome {
        PlacementResult result;
        QString error;
    };

    QString dbPath_;
    RunSpec spec_;
    std::shared_ptr<const Graph> graph_;
    std::unique_ptr<CancellationToken> cancel_;
    std::unique_ptr<RunRecorder> recorder_;
    QFutureWatcher<Outcome> watcher_;
    QTimer throttle_;
    std::mutex mutex_;                   // guards pending_ and fraction_
    QVector<ConvergencePoint> pending_;  // filled on the run's thread
    double fraction_ = 0;
    bool running_ = false;
    qint64 runId_ = -1;
};

}  // namespace graphopt::ui

Q_DECLARE_METATYPE(graphopt::PlacementResult)
