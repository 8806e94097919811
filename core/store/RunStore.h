// The SQLite run store: graphs, runs, progress events, results, tuning measurements, policies.
//
// Opening checks the file before writing anything (StoreFileProbe), then migrates the schema,
// switches on WAL, a busy timeout and foreign keys, and marks as `interrupted` the runs left
// `running` by a process that has died. Several connections (threads or processes: the GUI and
// a CLI run at once) may use one file; each RunStore is one connection for one thread at a time.
// Every write is one transaction; writes inside an open transaction join it.
//
// A database that cannot be written (a read-only mount, which even root cannot write, or file
// modes) opens read-only: it can be listed and read (`graphopt runs list`, the Runs tab), and every
// write, beginning a run first, throws StoreError saying the database is read-only.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "run/Run.h"
#include "store/ProcessIdentity.h"
#include "store/StoreRecords.h"

namespace graphopt {

class SqliteDatabase;

class RunStore {
public:
    // $XDG_DATA_HOME/graphopt-studio/runs.db, else ~/.local/share/graphopt-studio/runs.db. The
    // folder is created when missing.
    static std::string defaultPath();

    // Opens (creating when absent) the run database at `path`. Throws StoreError naming the file
    // when it is not a usable run store; such a file is left unchanged.
    explicit RunStore(const std::string& path);
    // For tests of the migrations: creates or migrates only up to `schemaVersion`.
    RunStore(const std::string& path, int schemaVersion);
    ~RunStore();
    RunStore(const RunStore&) = delete;
    RunStore& operator=(const RunStore&) = delete;

    const std::string& path() const { return path_; }
    int schemaVersion();
    // Opened read-only because the file (or its folder) cannot be written; why in readOnlyReason().
    bool readOnly() const { return !readOnlyReason_.empty(); }
    const std::string& readOnlyReason() const { return readOnlyReason_; }
    // Throws StoreError naming the file when it is read-only; `what` says what was refused
    // ("start a run").
    void requireWritable(const std::string& what) const;
    // Runs this open found `running` with a dead owner and marked `interrupted`.
    const std::vector<int64_t>& interruptedAtOpen() const { return interruptedAtOpen_; }
    // Checks again (the GUI calls this when it refreshes its run list). Returns the runs marked.
    std::vector<int64_t> markInterruptedRuns();

    // --- writing ------------------------------------------------------------------------------
    // Returns the id of the graph with the same content hash, adding it when new.
    int64_t addGraph(const GraphRecord& graph);
    // A new run in status `running`, owned by `owner` (this process by default).
    int64_t beginRun(const RunSpec& spec, std::optional<int64_t> graphId, const std::string& note = "",
                     const ProcessIdentity& owner = ProcessIdentity::current());
    void appendEvents(int64_t runId, const std::vector<ProgressEvent>& events);
    void setResult(int64_t runId, const RunResult& result);
    void addMeasurements(int64_t runId, const std::vector<TuningMeasurement>& measurements);
    // Final status (finished, cancelled, failed, interrupted) and end time.
    void endRun(int64_t runId, RunStatus status, const std::string& error = "");
    int64_t addPolicy(const PolicyRecord& policy);
    // Deletes a run with its events, result and measurements in one transaction. Refuses a run
    // that is still being written by a live process.
    void deleteRun(int64_t runId);

    // --- reading ------------------------------------------------------------------------------
    std::vector<RunSummary> listRuns(const RunFilter& filter = {});
    std::optional<RunSummary> findRun(int64_t runId);
    RunSummary run(int64_t runId);  // throws StoreError "PATH: no run with id N"
    std::optional<GraphRecord> graph(int64_t graphId);
    std::vector<ProgressEvent> events(int64_t runId);
    std::optional<RunResult> result(int64_t runId);
    std::vector<TuningMeasurement> measurements(int64_t runId);
    std::vector<PolicyRecord> policies();

    SqliteDatabase& database() { return *db_; }

private:
    void open(int schemaVersion);
    std::vector<RunSummary> querySummaries(const std::string& where, const std::vector<std::string>& args,
                                           int64_t limit);

    std::string path_;
    std::unique_ptr<SqliteDatabase> db_;
    std::vector<int64_t> interruptedAtOpen_;
    std::string readOnlyReason_;
};

// Current time as ISO-8601 UTC with milliseconds, as stored in the database.
std::string storeTimestampNow();

}  // namespace graphopt
