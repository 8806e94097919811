#include "RunRecording.h"

#include <csignal>

#include "StoreOptions.h"
#include "store/GraphFingerprint.h"
#include "store/RunExport.h"
#include "store/RunRecorder.h"

namespace graphopt::cli {

namespace {

// One engine run per CLI process: a process-wide token the signal handler can reach. Setting an
// atomic<bool> (lock-free) is async-signal-safe.
CancellationToken gSignalToken;
static_assert(std::atomic<bool>::is_always_lock_free);

// The first Ctrl-C asks the run to stop (it stores its best so far); a second one, for a run that
// does not stop quickly enough, ends the process the default way (the run is then found
// `interrupted` at the next open). signal() and raise() are async-signal-safe.
extern "C" void cancelOnSignal(int sig) {
    if (gSignalToken.isCancelled()) {
        std::signal(sig, SIG_DFL);
        std::raise(sig);
        return;
    }
    gSignalToken.cancel();
}

}  // namespace

RunRecording::RunRecording(const Args& args, const RunSpec& spec, const Graph& graph, const std::string& modelPath) {
    std::signal(SIGINT, cancelOnSignal);
    std::signal(SIGTERM, cancelOnSignal);
    if (args.has(kNoStoreFlag)) return;
    path_ = storePathFrom(args);
    recorder_ = std::make_unique<RunRecorder>(path_, spec, describeGraph(graph, modelPath));
}

RunRecording::~RunRecording() {
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
}

std::optional<int64_t> RunRecording::runId() const {
    if (!recorder_) return std::nullopt;
    return recorder_->runId();
}

ProgressCallback RunRecording::callback() {
    if (!recorder_) return {};
    return recorder_->callback();
}

const CancellationToken* RunRecording::cancellationToken() const { return &gSignalToken; }

void RunRecording::measurement(const TuningMeasurement& m) {
    if (recorder_) recorder_->recordMeasurement(m);
}

void RunRecording::finished(const nlohmann::json& result, bool cancelled) {
    if (!recorder_) return;
    RunResult r = runResultFromEngineJson(result);
    if (cancelled)
        recorder_->cancel(r);
    else
        recorder_->finish(r);
}

void RunRecording::failed(const std::string& error) {
    if (recorder_) recorder_->fail(error);
}

}  // namespace graphopt::cli
