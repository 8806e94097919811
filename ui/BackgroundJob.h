// The one class the GUI uses to do anything off its thread: placement, tuning and training runs
// (through the run contract, core/run/RunContract.h) and the graph layout. In the spirit of Qt
// Creator's Utils::Async / QPromise and Hotspot's JobTracker:
//
//  - start() runs a work function on a worker thread (QtConcurrent) with a CancellationToken and a
//    progress sink; startRun() does so for any Run, recorded in the run store as it goes;
//  - progress reaches the GUI thread in batches, at most every progressInterval() ms, so a run
//    reporting thousands of events a second costs a few signals a second;
//  - a job started while another runs supersedes it: the old one is cancelled and whatever it
//    still delivers (progress, result) is dropped;
//  - step mode (setStepMode before startRun): a run that can pause (BRKGA, REGAL) stops after
//    every step; stepReady() delivers that step's progress and best-so-far outcome, and step() /
//    runToEnd() let it go on (run/StepGate.h);
//  - cancel() asks the running job to stop (it delivers its result, e.g. a cancelled run with its
//    best so far); the destructor cancels every job still going and waits for it.
//
// All signals are emitted on the GUI thread. The result of the finished job stays readable
// (result<T>(), outcome()) until the next start().
#pragma once

#include <QElapsedTimer>
#include <QFuture>
#include <QThreadPool>
#include <QList>
#include <QObject>
#include <QTimer>
#include <QVector>
#include <any>
#include <functional>
#include <memory>
#include <mutex>

#include "run/RunContract.h"
#include "run/StepGate.h"

namespace graphopt::ui {

// What the work function gets, on its worker thread.
class JobContext {
public:
    const CancellationToken& cancel() const { return *token_; }
    bool cancelled() const { return token_->isCancelled(); }
    // Thread-safe; delivered on the GUI thread with the next batch.
    void progress(const ProgressEvent& e);
    void measurement(const TuningMeasurement& m);

private:
    friend class BackgroundJob;
    struct Shared;
    std::shared_ptr<Shared> shared_;
    std::shared_ptr<CancellationToken> token_;
};

class BackgroundJob : public QObject {
    Q_OBJECT
public:
    using Work = std::function<std::any(JobContext&)>;

    explicit BackgroundJob(QObject* parent = nullptr);
    ~BackgroundJob() override;

    // Starts `work`; any running job is superseded. The work's return value becomes result();
    // an exception it throws becomes failed(message).
    void start(Work work);
    // Records `run` in the store at `dbPath` (empty: not recorded) and starts it. False, with
    // `error` set and nothing started, when the store cannot be opened.
    bool startRun(std::shared_ptr<Run> run, const QString& dbPath, QString* error = nullptr);
    void cancel();
    // Step mode, for the next startRun(): the run waits after each step until step() or
    // runToEnd(). Runs that cannot pause ignore it.
    void setStepMode(bool on) { stepMode_ = on; }
    bool stepMode() const { return stepMode_; }
    // The running step-mode job may take one more step / run to the end without pausing again.
    void step();
    void runToEnd();
    // The running job waits for step() (its last step was delivered by stepReady).
    bool isWaitingForStep() const { return running_ && gate_ && !gate_->released() && gate_->waiting(); }
    // Cancels the running job and drops whatever it still delivers: no finished() or failed()
    // follows (a layout nobody waits for any more).
    void abandon();

    bool isRunning() const { return running_; }
    qint64 runId() const { return runId_; }  // the stored run of the last startRun, -1 if none
    double elapsedSeconds() const { return timer_.isValid() ? timer_.elapsed() / 1000.0 : 0.0; }
    void setProgressInterval(int ms) { throttle_.setInterval(ms); }
    int progressInterval() const { return throttle_.interval(); }

    // The last finished job's result.
    const std::any& result() const { return result_; }
    template <typename T>
    const T* resultAs() const {
        return std::any_cast<T>(&result_);
    }
    // For startRun: the run's typed outcome (PlacementResult, TuningResult, TrainingResult, ...).
    std::shared_ptr<RunOutcome> outcome() const;
    template <typename T>
    const T* outcomeAs() const {
        return dynamic_cast<const T*>(outcome().get());
    }

signals:
    void started(qint64 runId);
    void progress(const QVector<graphopt::ProgressEvent>& events);
    void measured(const QVector<graphopt::TuningMeasurement>& measurements);
    void finished();  // result() / outcome() hold it
    void failed(const QString& message);
    // Step mode: the run finished step `step` and waits; the progress up to it came before.
    void stepReady(qint64 step, std::shared_ptr<const graphopt::RunOutcome> bestSoFar);

private:
    void flush();
    void onDone(quint64 generation, std::any result, QString error);

    QTimer throttle_;
    QElapsedTimer timer_;
    std::shared_ptr<JobContext::Shared> current_;  // the running job's queue
    std::shared_ptr<CancellationToken> token_;
    std::shared_ptr<StepGate> gate_;  // of the running step-mode job
    bool stepMode_ = false;
    QList<QFuture<void>> futures_;  // every job not yet returned, superseded ones included
    // This object's own threads: jobs of different objects (a training, a tuning, a placement
    // and a layout at once) never wait for each other, as they would in Qt's global pool of one
    // thread per core. Two: a superseded job winding down and the job that replaced it.
    QThreadPool pool_;
    quint64 generation_ = 0;
    bool running_ = false;
    qint64 runId_ = -1;
    std::any result_;
};

}  // namespace graphopt::ui

Q_DECLARE_METATYPE(graphopt::ProgressEvent)
Q_DECLARE_METATYPE(graphopt::TuningMeasurement)
