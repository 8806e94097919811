#include "PlacementRunner.h"

#include <QtConcurrent>

#include "placement/PlacementRun.h"
#include "store/GraphFingerprint.h"
#include "store/RunExport.h"
#include "store/RunRecorder.h"

namespace graphopt::ui {

namespace {
constexpr int kProgressIntervalMs = 200;  // at most 5 chart updates a second
}

PlacementRunner::PlacementRunner(QObject* parent) : QObject(parent) {
    throttle_.setInterval(kProgressIntervalMs);
    connect(&throttle_, &QTimer::timeout, this, &PlacementRunner::flushProgress);
    connect(&watcher_, &QFutureWatcherBase::finished, this, &PlacementRunner::onDone);
}

PlacementRunner::~PlacementRunner() {
    if (cancel_) cancel_->cancel();
    watcher_.waitForFinished();
}

bool PlacementRunner::start(std::shared_ptr<const Graph> graph, const QString& modelPath, const RunSpec& spec,
                            QString* error) {
    if (running_) {
        if (error) *error = tr("A run is already going");
        return false;
    }
    RunSpec s = spec;
    s.kind = "placement";
    // Construct once here so that a bad spec (unknown engine, devices file) is refused before any
    // thread starts or anything is stored.
    try {
        PlacementRun probe(*graph, s);
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
    recorder_.reset();
    runId_ = -1;
    if (!dbPath_.isEmpty()) {
        try {
            recorder_ = std::make_unique<RunRecorder>(dbPath_.toStdString(), s,
                                                      describeGraph(*graph, modelPath.toStdString()));
            runId_ = recorder_->runId();
        } catch (const std::exception& e) {
            if (error) *error = QString::fromStdString(e.what());
            return false;
        }
    }
    spec_ = s;
    graph_ = std::move(graph);
    cancel_ = std::make_unique<CancellationToken>();
    {
        std::lock_guard<std::mutex> lock(mutex_);
        pending_.clear();
        fraction_ = 0;
    }
    running_ = true;

    RunRecorder* recorder = recorder_.get();
    CancellationToken* token = cancel_.get();
    std::shared_ptr<const Graph> g = graph_;
    const double budget = static_cast<double>(std::max<int64_t>(1, s.budget));
    auto onEvent = [this, recorder, budget](const ProgressEvent& e) {
        if (recorder) recorder->record(e);
        std::lock_guard<std::mutex> lock(mutex_);
        pending_.push_back({static_cast<double>(e.evaluations), e.bestCost});
        fraction_ = std::min(1.0, static_cast<double>(e.evaluations) / budget);
    };
    watcher_.setFuture(QtConcurrent::run([g, s, onEvent, token, recorder]() {
        Outcome out;
        try {
            PlacementRun run(*g, s, onEvent, token);
            out.result = run.run();
            if (recorder) {
                RunResult r = runResultFromEngineJson(out.result.toJson(true));
                if (out.result.cancelled)
                    recorder->cancel(r);
                else
                    recorder->finish(r);
            }
        } catch (const std::exception& e) {
            out.error = QString::fromStdString(e.what());
            if (recorder) recorder->fail(e.what());
        }
        return out;
    }));
    throttle_.start();
    emit started(runId_);
    return true;
}

void PlacementRunner::cancel() {
    if (running_ && cancel_) cancel_->cancel();
}

void PlacementRunner::flushProgress() {
    QVector<ConvergencePoint> points;
    double fraction;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        points.swap(pending_);
        fraction = fraction_;
    }
    if (!points.isEmpty()) emit progress(points, fraction);
}

void PlacementRunner::onDone() {
    throttle_.stop();
    flushProgress();
    running_ = false;
    const Outcome out = watcher_.result();
    recorder_.reset();  // everything is written by finish()/cancel()/fail()
    if (!out.error.isEmpty())
        emit failed(out.error);
    else
        emit finished(out.result, runId_);
}

}  // namespace graphopt::ui
