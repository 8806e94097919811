// HalideMeasurer: real measurements of the Halide kernels, made in a separate worker process
// (graphopt-measure-worker) so that a kernel that crashes or hangs costs one failed measurement,
// not the program.
//
// The worker is started on first use (fork + exec) and speaks one JSON object per line over a
// Unix socket pair connected to its stdin/stdout (see halide/MeasureWorkbench.h for the requests).
// Every request has a deadline: past it the worker is killed (SIGKILL) and the measurement fails
// with "timeout"; when the worker dies the measurement fails with the signal's name. Either way
// the next request starts a fresh worker. Each task is prepared once (inputs and the plain C++
// reference output, under a longer deadline); every measured kernel's output is checked against
// that reference (tolerance in Reference.h) before it is timed. Measurements are made one at a
// time so they do not disturb each other's timing.
#pragma once

#include <map>
#include <string>
#include <sys/types.h>

#include "tuning/Measurer.h"

namespace graphopt::tuning {

struct HalideMeasurerOptions {
    std::string workerPath;        // empty: findMeasureWorker()
    double minTimeS = 0.05;        // timed runs per measurement add up to at least this
    int maxRepeats = 1000;
    double timeoutS = 20;          // per measurement: compile, check and timing
    double prepareTimeoutS = 120;  // per task: test data and the reference output
    bool check = true;
    // Threads of the worker's kernels (HL_NUM_THREADS) and of libtorch in it; 0: all cores.
    int threads = 0;
    // Test only: configurations that make the worker "abort" or "hang" instead of measuring, or
    // "drop_block": measure a packed kernel that leaves an input-channel block out.
    std::map<ConfigIndex, std::string> testHooks;
};

// A tuned kernel against libtorch's on the same data, in the same process, interleaved.
struct LibtorchComparison {
    bool ok = false;
    std::string error;
    int threads = 0;
    double tunedS = 0, libtorchS = 0;  // medians
    double tunedGflops = 0, libtorchGflops = 0;
    int pairs = 0;
    double speedup() const { return tunedS > 0 ? libtorchS / tunedS : 0; }  // > 1: tuned faster
    nlohmann::json toJson() const;
};

// The worker binary: $GRAPHOPT_MEASURE_WORKER, else graphopt-measure-worker beside the running
// executable, else in ../libexec/graphopt-studio (installed), else in its ../app directory (the
// build tree), else the name alone (PATH).
std::string findMeasureWorker();

class HalideMeasurer : public Measurer {
public:
    explicit HalideMeasurer(HalideMeasurerOptions options = {});
    ~HalideMeasurer() override;
    HalideMeasurer(const HalideMeasurer&) = delete;
    HalideMeasurer& operator=(const HalideMeasurer&) = delete;

    std::string name() const override { return "halide"; }
    std::vector<MeasureResult> measure(const TuningTask& task, const std::vector<ConfigIndex>& configs) override;

    // The configuration against libtorch (the worker's "compare" request; its threads are
    // options().threads). Failures are results with ok=false.
    LibtorchComparison compareWithLibtorch(const TuningTask& task, ConfigIndex config, double minTimeS = 0.2);
    // The worker's threads, the BLAS library its libtorch uses and the host's vector lanes.
    nlohmann::json workerInfo();

    int workerStarts() const { return workerStarts_; }  // how many workers were started so far
    const HalideMeasurerOptions& options() const { return options_; }

private:
    void startWorker();
    void stopWorker();
    // Sends one request, waits for one reply line; on timeout or worker death returns
    // {"ok": false, "error": ...} and stops the worker.
    nlohmann::json request(const nlohmann::json& req, double timeoutS);
    // Prepares the task in the worker unless it already is; returns the error, empty when ready.
    std::string prepare(const TuningTask& task);

    HalideMeasurerOptions options_;
    pid_t pid_ = -1;
    int fd_ = -1;
    std::string readBuffer_;
    std::string preparedKey_;
    int workerStarts_ = 0;
};

// A configuration against libtorch at each of several thread counts (e.g. 1 and 2), each timed
// interleaved in a worker process of its own started at that thread count.
struct FairComparison {
    std::vector<LibtorchComparison> byThreads;  // one per thread count, ascending
    const LibtorchComparison* atThreads(int threads) const;
    // The comparison at libtorch's faster thread count (null when none succeeded).
    const LibtorchComparison* libtorchBest() const;
    nlohmann::json toJson() const;
    // The fields `graphopt tune --measurer halide` adds to a task: "libtorch_gflops" and
    // "tuned_fair_gflops" at libtorch's faster thread count (null when no comparison succeeded),
    // "libtorch_threads", and "libtorch_fair" with every thread count's comparison.
    nlohmann::json taskFields() const;
};
FairComparison compareFairly(const TuningTask& task, ConfigIndex config, const std::vector<int>& threadCounts,
                             HalideMeasurerOptions options = {}, double minTimeS = 0.2);

}  // namespace graphopt::tuning
