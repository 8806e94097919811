#include "store/RunRecorder.h"

#include <vector>

#include "store/RunStore.h"
#include "store/SqliteDatabase.h"
#include "store/SqliteTransaction.h"
#include "store/StoreError.h"

namespace graphopt {

RunRecorder::RunRecorder(const std::string& dbPath, const RunSpec& spec, const std::optional<GraphRecord>& graph,
                         const std::string& note, std::chrono::milliseconds batchInterval)
    : dbPath_(dbPath), store_(std::make_unique<RunStore>(dbPath)), batchInterval_(batchInterval) {
    store_->requireWritable("start a run");
    std::optional<int64_t> graphId;
    if (graph) graphId = store_->addGraph(*graph);
    runId_ = store_->beginRun(spec, graphId, note);
    writer_ = std::thread([this] { writerLoop(); });
}

RunRecorder::~RunRecorder() {
    try {
        bool ended;
        {
            std::lock_guard lk(mutex_);
            ended = ended_;
        }
        if (!ended) end({RunStatus::Failed, std::nullopt, "the run ended without reporting finish, cancel or failure"});
    } catch (...) {
        // A destructor must not throw; the writer still flushes what it has below.
    }
    {
        std::lock_guard lk(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    writer_.join();
}

void RunRecorder::enqueue(Item item) {
    {
        std::lock_guard lk(mutex_);
        queue_.push_back(std::move(item));
        ++enqueued_;
    }
    wake_.notify_one();
}

void RunRecorder::record(const ProgressEvent& event) { enqueue(event); }

void RunRecorder::recordMeasurement(const TuningMeasurement& measurement) { enqueue(measurement); }

ProgressCallback RunRecorder::callback() {
    return [this](const ProgressEvent& e) { record(e); };
}

void RunRecorder::end(Final final) {
    {
        std::lock_guard lk(mutex_);
        if (ended_) throw StoreError(dbPath_ + ": run " + std::to_string(runId_) + " already has a final status");
        ended_ = true;
    }
    enqueue(std::move(final));
    flush();
}

void RunRecorder::finish(const RunResult& result) { end({RunStatus::Finished, result, ""}); }

void RunRecorder::cancel(const std::optional<RunResult>& partial) { end({RunStatus::Cancelled, partial, ""}); }

void RunRecorder::fail(const std::string& error) { end({RunStatus::Failed, std::nullopt, error}); }

void RunRecorder::flush() {
    std::unique_lock lk(mutex_);
    const uint64_t target = enqueued_;
    if (done_ >= target) return;
    flushRequested_ = true;
    wake_.notify_all();
    written_.wait(lk, [&] { return done_ >= target; });
}

std::string RunRecorder::lastError() const {
    std::lock_guard lk(mutex_);
    return lastError_;
}

std::string RunRecorder::writeFailure() const {
    std::lock_guard lk(mutex_);
    return writeFailure_;
}

int64_t RunRecorder::eventsWritten() const {
    std::lock_guard lk(mutex_);
    return eventsWritten_;
}

void RunRecorder::writerLoop() {
    std::unique_lock lk(mutex_);
    auto nextWrite = std::chrono::steady_clock::now();
    for (;;) {
        wake_.wait(lk, [&] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) break;  // stopping, nothing left
        // Let events gather for up to batchInterval after the previous commit, unless someone waits.
        if (!flushRequested_ && !stopping_)
            wake_.wait_until(lk, nextWrite, [&] { return flushRequested_ || stopping_; });
        std::deque<Item> batch;
        batch.swap(queue_);
        flushRequested_ = false;
        lk.unlock();
        writeBatch(batch);
        nextWrite = std::chrono::steady_clock::now() + batchInterval_;
        lk.lock();
        done_ += batch.size();
        written_.notify_all();
    }
}

void RunRecorder::writeBatch(std::deque<Item>& batch) {
    int64_t events = 0;
    std::string error;
    // Events are committed with synchronous=NORMAL: safe when the process dies, and a power cut
    // loses at most the last moments of progress. The batch that ends the run is fsynced too, so
    // a finished run survives even that.
    bool final = false;
    for (const auto& item : batch) final = final || std::holds_alternative<Final>(item);
    struct SyncFull {
        SqliteDatabase* db = nullptr;
        ~SyncFull() {
            if (!db) return;
            try {
                db->exec("PRAGMA synchronous = NORMAL");
            } catch (...) {
                // Only costs speed: the connection stays correct with FULL.
            }
        }
    } syncFull;
    if (final) {
        try {
            store_->database().exec("PRAGMA synchronous = FULL");
            syncFull.db = &store_->database();
        } catch (...) {
            // Not fatal: the commit below is still safe against a crash of this process.
        }
    }
    // After a write the database refused (a full disk, an I/O error) the run's record has a gap:
    // later events are not written (a record with a hole would read as a whole run), and the
    // final status says the run failed to be recorded, if there is room for that much.
    bool broken;
    std::string firstError;
    {
        std::lock_guard lk(mutex_);
        broken = !writeFailure_.empty();
        firstError = writeFailure_;
    }
    if (broken) {
        for (auto& item : batch) {
            auto* f = std::get_if<Final>(&item);
            if (!f) continue;
            try {
                store_->endRun(runId_, RunStatus::Failed, "not recorded completely: " + firstError);
            } catch (const std::exception&) {
                // Still no room: the run stays `running` and the next open marks it interrupted.
            }
        }
        return;
    }
    // The busy timeout already waits 10 s for another writer; a few retries cover a longer hold-up
    // (e.g. a big delete in the GUI) before the batch is given up. A full disk is not retried.
    bool writeFailed = false;
    for (int attempt = 0; attempt < 5; ++attempt) {
        try {
            events = 0;
            SqliteTransaction tx(store_->database());
            std::vector<ProgressEvent> pendingEvents;
            std::vector<TuningMeasurement> pendingMeasurements;
            auto flushPending = [&] {
                store_->appendEvents(runId_, pendingEvents);
                store_->addMeasurements(runId_, pendingMeasurements);
                events += int64_t(pendingEvents.size());
                pendingEvents.clear();
                pendingMeasurements.clear();
            };
            for (auto& item : batch) {
                if (auto* e = std::get_if<ProgressEvent>(&item)) {
                    pendingEvents.push_back(*e);
                } else if (auto* m = std::get_if<TuningMeasurement>(&item)) {
                    pendingMeasurements.push_back(*m);
                } else {
                    flushPending();
                    auto& f = std::get<Final>(item);
                    if (f.result) store_->setResult(runId_, *f.result);
                    store_->endRun(runId_, f.status, f.error);
                }
            }
            flushPending();
            tx.commit();
            error.clear();
            break;
        } catch (const StoreWriteError& e) {
            error = e.what();
            writeFailed = true;
            break;
        } catch (const std::exception& e) {
            error = e.what();
            std::this_thread::sleep_for(std::chrono::milliseconds(100 * (attempt + 1)));
        }
    }
    if (writeFailed) {
        {
            std::lock_guard lk(mutex_);
            writeFailure_ = error;
        }
        for (auto& item : batch)
            if (std::holds_alternative<Final>(item)) {
                try {
                    store_->endRun(runId_, RunStatus::Failed, "not recorded completely: " + error);
                } catch (const std::exception&) {
                }
            }
    }
    std::lock_guard lk(mutex_);
    if (error.empty())
        eventsWritten_ += events;
    else
        lastError_ = error;
}

}  // namespace graphopt
