// How a CLI command that runs an engine records it in the run store (issue: "graphopt place, tune,
// train-policy record every run unless --no-store"). Reads --db and --no-store from the command's
// Args (declare kDbFlag valued and kNoStoreFlag as a switch), forwards progress to the store from
// a writer thread, and turns SIGINT/SIGTERM into cancellation so a Ctrl-C'd run is stored as
// `cancelled` with its best result so far instead of being found `interrupted` later.
//
//   RunRecording rec(args, spec, graph, modelPath);
//   PlacementRun run(graph, spec, devices, rec.callback(), rec.cancellationToken());
//   auto result = rec.guard([&] { return run.run(); });   // records failure if it throws
//   rec.finished(result.toJson(), result.cancelled);
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "Args.h"
#include "graph/Graph.h"
#include "run/Run.h"
#include "store/StoreRecords.h"

namespace graphopt {
class RunRecorder;
}

namespace graphopt::cli {

class RunRecording {
public:
    RunRecording(const Args& args, const RunSpec& spec, const Graph& graph, const std::string& modelPath);
    ~RunRecording();
    RunRecording(const RunRecording&) = delete;
    RunRecording& operator=(const RunRecording&) = delete;

    bool enabled() const { return recorder_ != nullptr; }
    std::optional<int64_t> runId() const;
    const std::string& databasePath() const { return path_; }

    ProgressCallback callback();
    // Cancelled on SIGINT or SIGTERM while this object lives.
    const CancellationToken* cancellationToken() const;

    // Runs `body`; when it throws, records the run as failed with the message, then rethrows.
    template <typename F>
    auto guard(F&& body) -> decltype(body()) {
        try {
            return body();
        } catch (const std::exception& e) {
            failed(e.what());
            throw;
        }
    }

    // One kernel measurement of a tuning run (queued; written with the events).
    void measurement(const TuningMeasurement& m);
    void finished(const nlohmann::json& result, bool cancelled);
    void failed(const std::string& error);

private:
    std::string path_;
    std::unique_ptr<RunRecorder> recorder_;
};

}  // namespace graphopt::cli
