// Records one run into the store from a writer thread of its own.
//
// The engine thread only enqueues (record() takes a mutex for a push_back, never touches SQLite);
// the writer drains the queue in batched transactions, at most one every `batchInterval`, so a
// run reporting thousands of events per second costs a few commits per second. Final statuses
// (finish, cancel, fail) wait until everything before them is written. The destructor flushes,
// and a run destroyed without a final status is recorded as failed.
//
//   RunRecorder rec(RunStore::defaultPath(), spec, describeGraph(g, path));
//   engine.run(g, spec, rec.callback(), token);   // events stream to the database
//   rec.finish(result);
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <variant>

#include "run/Run.h"
#include "store/StoreRecords.h"

namespace graphopt {

class RunStore;

class RunRecorder {
public:
    // Opens its own connection to `dbPath`, adds the graph (when given) and begins the run, all
    // before returning, so that errors (a corrupt database, ...) reach the caller as StoreError.
    RunRecorder(const std::string& dbPath, const RunSpec& spec, const std::optional<GraphRecord>& graph,
                const std::string& note = "",
                std::chrono::milliseconds batchInterval = std::chrono::milliseconds(50));
    ~RunRecorder();
    RunRecorder(const RunRecorder&) = delete;
    RunRecorder& operator=(const RunRecorder&) = delete;

    int64_t runId() const { return runId_; }
    const std::string& databasePath() const { return dbPath_; }

    // Thread-safe, cheap, never waits for the database.
    void record(const ProgressEvent& event);
    void recordMeasurement(const TuningMeasurement& measurement);
    // A callback for the engine that calls record().
    ProgressCallback callback();

    // Final outcome; each waits until the run and everything recorded before is in the database.
    void finish(const RunResult& result);
    void cancel(const std::optional<RunResult>& partial = std::nullopt);
    void fail(const std::string& error);

    // Waits until everything recorded so far is written.
    void flush();
    // The last write error ("" when none). The writer keeps going after an error (a busy database
    // is retried; the batch that failed for another reason is dropped).
    std::string lastError() const;
    // The first write the database refused for lack of room or an I/O error (StoreWriteError's
    // message; "" when none). From then on nothing more of the run is written but its final
    // status (failed, "not recorded completely: ..."), when that still fits.
    std::string writeFailure() const;
    int64_t eventsWritten() const;

private:
    struct Final {
        RunStatus status;
        std::optional<RunResult> result;
        std::string error;
    };
    using Item = std::variant<ProgressEvent, TuningMeasurement, Final>;

    void enqueue(Item item);
    void writerLoop();
    void writeBatch(std::deque<Item>& batch);
    void end(Final final);

    std::string dbPath_;
    std::unique_ptr<RunStore> store_;  // used only by the writer thread once it started
    int64_t runId_ = 0;
    std::chrono::milliseconds batchInterval_;

    mutable std::mutex mutex_;
    std::condition_variable wake_, written_;
    std::deque<Item> queue_;
    uint64_t enqueued_ = 0, done_ = 0;  // items
    int64_t eventsWritten_ = 0;
    bool flushRequested_ = false, stopping_ = false, ended_ = false;
    std::string lastError_, writeFailure_;
    std::thread writer_;
};

}  // namespace graphopt
