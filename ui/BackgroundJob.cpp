#include "BackgroundJob.h"

#include <QPointer>
#include <QtConcurrent>

#include "store/RecordedRun.h"

namespace graphopt::ui {

namespace {
constexpr int kDefaultProgressIntervalMs = 200;  // at most 5 GUI updates a second
}

// One job's queue between its worker thread and the GUI thread.
struct JobContext::Shared {
    std::mutex mutex;
    QVector<ProgressEvent> events;
    QVector<TuningMeasurement> measurements;
};

void JobContext::progress(const ProgressEvent& e) {
    std::lock_guard lock(shared_->mutex);
    shared_->events.push_back(e);
}

void JobContext::measurement(const TuningMeasurement& m) {
    std::lock_guard lock(shared_->mutex);
    shared_->measurements.push_back(m);
}

BackgroundJob::BackgroundJob(QObject* parent) : QObject(parent) {
    pool_.setMaxThreadCount(2);
    qRegisterMetaType<graphopt::ProgressEvent>();
    qRegisterMetaType<graphopt::TuningMeasurement>();
    throttle_.setInterval(kDefaultProgressIntervalMs);
    connect(&throttle_, &QTimer::timeout, this, &BackgroundJob::flush);
}

BackgroundJob::~BackgroundJob() {
    if (token_) token_->cancel();
    ++generation_;  // nothing is delivered any more
    for (auto& f : futures_) f.waitForFinished();
}

std::shared_ptr<RunOutcome> BackgroundJob::outcome() const {
    if (auto* p = std::any_cast<std::shared_ptr<RunOutcome>>(&result_)) return *p;
    return nullptr;
}

void BackgroundJob::start(Work work) {
    if (token_) token_->cancel();  // supersede: the old job stops, and its deliveries are dropped
    const quint64 generation = ++generation_;
    current_ = std::make_shared<JobContext::Shared>();
    token_ = std::make_shared<CancellationToken>();
    result_.reset();
    gate_.reset();
    runId_ = -1;
    running_ = true;
    timer_.start();
    // Forget jobs that already returned; keep the others so the destructor can wait for them.
    futures_.erase(std::remove_if(futures_.begin(), futures_.end(), [](const QFuture<void>& f) { return f.isFinished(); }),
                   futures_.end());

    JobContext ctx;
    ctx.shared_ = current_;
    ctx.token_ = token_;
    QPointer<BackgroundJob> self(this);
    futures_.push_back(QtConcurrent::run(&pool_, [ctx, work = std::move(work), self, generation]() mutable {
        std::any result;
        QString error;
        try {
            result = work(ctx);
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
            if (error.isEmpty()) error = QStringLiteral("unknown error");
        }
        // Hand the result to the GUI thread; a job superseded meanwhile is dropped there.
        if (self)
            QMetaObject::invokeMethod(self.data(), [self, generation, result = std::move(result), error]() mutable {
                if (self) self->onDone(generation, std::move(result), error);
            }, Qt::QueuedConnection);
    }));
    throttle_.start();
}

bool BackgroundJob::startRun(std::shared_ptr<Run> run, const QString& dbPath, QString* error) {
    std::shared_ptr<RecordedRun> recorded;
    try {
        recorded = std::make_shared<RecordedRun>(*run, dbPath.toStdString());
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
    std::shared_ptr<StepGate> gate = stepMode_ ? std::make_shared<StepGate>() : nullptr;
    QPointer<BackgroundJob> self(this);
    const quint64 generation = generation_ + 1;  // the one start() gives this job
    start([run, recorded, gate, self, generation](JobContext& ctx) -> std::any {
        RunReporter reporter;
        reporter.progress = [&ctx](const ProgressEvent& e) { ctx.progress(e); };
        reporter.measurement = [&ctx](const TuningMeasurement& m) { ctx.measurement(m); };
        if (gate)
            reporter.step = [&ctx, gate, self, generation](const RunOutcome& bestSoFar) {
                if (gate->released()) return;
                // Hand the snapshot to the GUI thread (after this step's progress), then wait there.
                std::shared_ptr<const RunOutcome> snapshot = bestSoFar.clone();
                const qint64 step = static_cast<qint64>(gate->passed());
                if (self)
                    QMetaObject::invokeMethod(self.data(), [self, generation, step, snapshot] {
                        if (!self || generation != self->generation_) return;  // superseded
                        self->flush();
                        emit self->stepReady(step, snapshot);
                    }, Qt::QueuedConnection);
                gate->wait(&ctx.cancel());
            };
        return std::shared_ptr<RunOutcome>(recorded->execute(reporter, &ctx.cancel()));
    });
    gate_ = gate;
    runId_ = recorded->runId().value_or(-1);
    emit started(runId_);
    return true;
}

void BackgroundJob::cancel() {
    if (running_ && token_) token_->cancel();
}

void BackgroundJob::step() {
    if (running_ && gate_) gate_->step();
}

void BackgroundJob::runToEnd() {
    if (running_ && gate_) gate_->release();
}

void BackgroundJob::abandon() {
    if (!running_) return;
    if (token_) token_->cancel();
    ++generation_;
    throttle_.stop();
    current_.reset();
    running_ = false;
}

void BackgroundJob::flush() {
    if (!current_) return;
    QVector<ProgressEvent> events;
    QVector<TuningMeasurement> measurements;
    {
        std::lock_guard lock(current_->mutex);
        events.swap(current_->events);
        measurements.swap(current_->measurements);
    }
    if (!measurements.isEmpty()) emit measured(measurements);
    if (!events.isEmpty()) emit progress(events);
}

void BackgroundJob::onDone(quint64 generation, std::any result, QString error) {
    if (generation != generation_) return;  // superseded: dropped
    throttle_.stop();
    flush();  // the last events before the result
    running_ = false;
    current_.reset();
    if (!error.isEmpty()) {
        emit failed(error);
        return;
    }
    result_ = std::move(result);
    emit finished();
}

}  // namespace graphopt::ui
