// What every engine run shares: its spec, its progress events, cancellation and result summary.
//
// A run is a plain C++ object executed on a worker thread. It reports ProgressEvents through a
// callback (called on the run's own thread: receivers must be thread-safe or queue), checks the
// CancellationToken at every step (generation, batch, epoch), and is deterministic for a seed.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace graphopt {

enum class RunStatus { Running, Finished, Cancelled, Failed, Interrupted };
const char* runStatusName(RunStatus s);
RunStatus runStatusFromName(const std::string& s);  // throws std::invalid_argument

struct RunSpec {
    std::string engine;      // "brkga", "regal", "heft", ... / "random", "release", ...
    std::string kind;        // "placement", "tuning" or "training"
    std::string objective;   // "runtime", "memory" (placement); "latency" (tuning)
    std::string devices;     // preset name or file (placement)
    int64_t budget = 0;      // decoder evaluations (placement) or measurements (tuning)
    uint64_t seed = 1;
    int threads = 0;         // 0 = all cores
    nlohmann::json params = nlohmann::json::object();  // engine-specific parameters
    // The model's input dimensions the loader set (graph metadata `onnx.input_dims`, e.g.
    // "input:batch=4" or "input=4x3x224x224"); "" = the shapes in the file. A record of what ran,
    // filled by RecordedRun from the run's graph; toJson() writes it (key "input_dims") only when
    // set, so specs of runs without it read as before.
    std::string inputDims;
    nlohmann::json toJson() const;
    static RunSpec fromJson(const nlohmann::json& j);
};

// One progress report. `values` carries engine-specific series (population costs, clusters, ...).
struct ProgressEvent {
    int64_t step = 0;         // generation, batch or epoch
    int64_t evaluations = 0;  // decoder evaluations or measurements so far
    double bestCost = 0;      // best cost so far (lower is better)
    double elapsedS = 0;      // wall time since the run started
    nlohmann::json values = nlohmann::json::object();
};

using ProgressCallback = std::function<void(const ProgressEvent&)>;

// Shared between the thread that asks for cancellation and the run that honours it.
class CancellationToken {
public:
    void cancel() { cancelled_.store(true, std::memory_order_relaxed); }
    bool isCancelled() const { return cancelled_.load(std::memory_order_relaxed); }

private:
    std::atomic<bool> cancelled_{false};
};

}  // namespace graphopt
