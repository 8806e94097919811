#include "store/RecordedRun.h"

#include <atomic>
#include <chrono>
#include <thread>

#include "graph/Graph.h"
#include "store/GraphFingerprint.h"
#include "store/StoreError.h"
#include "store/RunRecorder.h"

namespace graphopt {

RecordedRun::RecordedRun(Run& run, const std::string& dbPath) : run_(run), dbPath_(dbPath) {
    if (dbPath_.empty()) return;
    const RunSubject subject = run_.subject();
    std::optional<GraphRecord> graph;
    RunSpec spec = run_.spec();
    if (subject.graph) {
        graph = describeGraph(*subject.graph, subject.modelPath);
        // The input sizes the model was loaded with (--batch, --input-shape) are part of what ran.
        const auto dims = subject.graph->metadata.find("onnx.input_dims");
        if (spec.inputDims.empty() && dims != subject.graph->metadata.end()) spec.inputDims = dims->second;
    }
    recorder_ = std::make_unique<RunRecorder>(dbPath_, spec, graph, subject.note);
}

RecordedRun::~RecordedRun() = default;

std::optional<int64_t> RecordedRun::runId() const {
    if (!recorder_) return std::nullopt;
    return recorder_->runId();
}

std::unique_ptr<RunOutcome> RecordedRun::execute(const RunReporter& reporter, const CancellationToken* cancel) {
    RunRecorder* rec = recorder_.get();
    RunReporter both;
    both.progress = [rec, &reporter](const ProgressEvent& e) {
        if (rec) rec->record(e);
        reporter.report(e);
    };
    both.measurement = [rec, &reporter](const TuningMeasurement& m) {
        if (rec) rec->recordMeasurement(m);
        reporter.measured(m);
    };
    both.checkpoint = [rec, &reporter] {
        if (rec) rec->flush();
        reporter.commit();
    };
    both.step = reporter.step;  // empty stays empty: runs add step detail only when someone steps
    // A run whose record can no longer be written (a full disk) is stopped: what it finds would be
    // lost anyway. The run sees one token, cancelled by the caller's or by a write failure.
    CancellationToken stop;
    std::atomic<bool> done{false};
    std::thread watcher;
    if (rec)
        watcher = std::thread([&] {
            while (!done.load()) {
                if ((cancel && cancel->isCancelled()) || !rec->writeFailure().empty()) {
                    stop.cancel();
                    return;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
            }
        });
    struct JoinWatcher {
        std::atomic<bool>& done;
        std::thread& watcher;
        ~JoinWatcher() {
            done.store(true);
            if (watcher.joinable()) watcher.join();
        }
    } joinWatcher{done, watcher};
    std::unique_ptr<RunOutcome> out;
    try {
        out = run_.execute(both, rec ? &stop : cancel);
    } catch (const std::exception& e) {
        if (rec) rec->fail(e.what());
        throw;
    }
    if (rec) {
        switch (out->status()) {
            case RunStatus::Cancelled: rec->cancel(out->toRunResult()); break;
            case RunStatus::Failed: rec->fail(out->error()); break;
            default: rec->finish(out->toRunResult()); break;
        }
        // A run the store could not keep whole is no stored run: say so instead of a result.
        if (const std::string failure = rec->writeFailure(); !failure.empty())
            throw StoreWriteError(failure + " (run " + std::to_string(rec->runId()) +
                                  " is not recorded completely; the runs recorded before it are intact)");
    }
    return out;
}

}  // namespace graphopt
