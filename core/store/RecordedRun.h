// Any Run, recorded in the run store as it goes: the run is begun in the store before it starts;
// progress events, measurements and epochs stream to SQLite from the recorder's writer thread
// while it runs (measurements made durable at every RunReporter::commit(), i.e. after each batch);
// the final status and result are written when it ends. A run that throws is stored as failed
// (and the exception passed on); a process killed mid-run leaves a run the next open of the store
// marks `interrupted`, holding everything committed before the kill. When the database refuses a
// write for lack of room (a full disk) or an I/O error, execute() throws StoreWriteError after the
// run, in one line naming the file; the runs committed before are intact.
//
//   PlacementRun run(graph, spec, ...);
//   RecordedRun recorded(run, dbPath);                  // "" = not recorded
//   auto outcome = recorded.execute(reporter, &token);  // typed: recorded.executeAs<PlacementResult>()
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "run/RunContract.h"

namespace graphopt {

class RunRecorder;

class RecordedRun {
public:
    // Opens the store and begins the run (StoreError when the database cannot be used); with an
    // empty `dbPath` nothing is recorded.
    RecordedRun(Run& run, const std::string& dbPath);
    ~RecordedRun();
    RecordedRun(const RecordedRun&) = delete;
    RecordedRun& operator=(const RecordedRun&) = delete;

    bool recorded() const { return recorder_ != nullptr; }
    std::optional<int64_t> runId() const;
    const std::string& databasePath() const { return dbPath_; }

    // Runs it on this thread; `reporter` sees everything the store sees, at the same moments.
    std::unique_ptr<RunOutcome> execute(const RunReporter& reporter = {}, const CancellationToken* cancel = nullptr);

    template <typename Result>
    Result executeAs(const RunReporter& reporter = {}, const CancellationToken* cancel = nullptr) {
        std::unique_ptr<RunOutcome> out = execute(reporter, cancel);
        auto* typed = dynamic_cast<Result*>(out.get());
        if (!typed) throw std::logic_error("RecordedRun: the run returned another kind of result");
        return std::move(*typed);
    }

private:
    Run& run_;
    std::string dbPath_;
    std::unique_ptr<RunRecorder> recorder_;
};

}  // namespace graphopt
