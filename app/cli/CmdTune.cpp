// graphopt tune MODEL [--task K|--all] --tuner NAME [--tuner-params JSON] --measurer halide|sim
//               --trials N --seed S [--batch B] [--min-time S] [--timeout S] [--worker PATH]
//               [--peak] [--json]
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <thread>

#include <nlohmann/json.hpp>

#include "Args.h"
#include "Commands.h"
#include "RunRecording.h"
#include "StoreOptions.h"
#include "graph/Loaders.h"
#include "tuning/HalideMeasurer.h"
#include "tuning/LibtorchReference.h"
#include "tuning/PeakFlops.h"
#include "tuning/SimulatedMeasurer.h"
#include "tuning/TemplateSpace.h"
#include "tuning/TuningRun.h"

namespace graphopt::cli {

int cmdTune(const ArgList& argv) {
    using namespace graphopt::tuning;
    Args args(argv,
              {"task", "tuner", "tuner-params", "measurer", "trials", "seed", "batch", "min-time", "timeout", "worker",
               "template", kDbFlag},
              {"all", "json", "peak", "quiet", kNoStoreFlag});
    const std::string path = args.onePositional("MODEL");
    const std::string tunerName = args.get("tuner", "random");
    {
        const auto names = tunerNames();
        bool known = false;
        for (const auto& n : names) known |= n == tunerName;
        if (!known) {
            std::string list;
            for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
            throw UsageError("--tuner must be one of: " + list);
        }
    }
    nlohmann::json tunerParams = nlohmann::json::object();
    if (auto p = args.get("tuner-params")) {
        try {
            tunerParams = nlohmann::json::parse(*p);
        } catch (const std::exception&) {
            throw UsageError("--tuner-params must be a JSON object, e.g. '{\"population\": 50}'");
        }
        if (!tunerParams.is_object()) throw UsageError("--tuner-params must be a JSON object");
    }
    const std::string measurerName = args.getChoice("measurer", "halide", {"halide", "sim"});
    const int64_t trials = args.getInt("trials", 32, 1, 1000000);
    const uint64_t seed = args.getSeed("seed", 1);
    const int batch = static_cast<int>(args.getInt("batch", 8, 1, 4096));
    if (args.has("all") && args.has("task")) throw UsageError("give --task K or --all, not both");

    const Graph g = loadGraph(path);
    // Conv tasks take the packed template with real measurements (NCHW with --template nchw).
    const std::string templ = args.getChoice("template", measurerName == "halide" ? "packed" : "nchw", {"packed", "nchw"});
    auto tasks = extractTasks(g);
    if (templ == "packed")
        for (auto& t : tasks) t = withPackedTemplate(t);
    if (tasks.empty()) throw std::runtime_error(path + ": no tunable operators (Conv, Gemm, MatMul)");
    std::vector<size_t> chosen;
    if (args.has("task")) {
        const int64_t k = args.getInt("task", 0, 0, static_cast<int64_t>(tasks.size()) - 1);
        chosen.push_back(static_cast<size_t>(k));
    } else if (args.has("all")) {
        for (size_t i = 0; i < tasks.size(); ++i) chosen.push_back(i);
    } else {
        throw UsageError("give --task K (see graphopt tasks " + path + ") or --all");
    }

    // Real measurements are compared with libtorch's own kernels on the same shapes, on one thread
    // and on all cores, the faster counting (the tuned kernels choose too, with their `parallel`
    // knob): on a busy machine torch's OpenMP pool can be 10x slower than one thread. Timed first,
    // before the measure worker starts competing for the cores.
    struct Reference {
        LibtorchTiming best, oneThread, allThreads;
        int threads = 1;  // of the faster
    };
    std::map<size_t, Reference> libtorch;
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    if (measurerName == "halide")
        for (size_t idx : chosen) {
            try {
                Reference r;
                r.oneThread = timeLibtorch(tasks[idx], 1, 0.1);
                r.allThreads = cores > 1 ? timeLibtorch(tasks[idx], cores, 0.1) : r.oneThread;
                const bool all = r.allThreads.medianS < r.oneThread.medianS;
                r.best = all ? r.allThreads : r.oneThread;
                r.threads = all ? cores : 1;
                libtorch[idx] = r;
            } catch (const std::invalid_argument&) {
                // a shape torch cannot express (asymmetric padding): no comparison for that task
            }
        }

    std::unique_ptr<Measurer> measurer;
    if (measurerName == "sim") {
        measurer = std::make_unique<SimulatedMeasurer>(seed);
    } else {
        HalideMeasurerOptions o;
        o.minTimeS = args.getDouble("min-time", 0.05, 0.0, 60.0);
        o.timeoutS = args.getDouble("timeout", 20.0, 0.1, 3600.0);
        o.workerPath = args.get("worker", "");
        measurer = std::make_unique<HalideMeasurer>(o);
    }

    const bool json = args.has("json"), quiet = args.has("quiet") || json;
    nlohmann::json out;
    out["model"] = path;
    out["tuner"] = tunerName;
    out["measurer"] = measurerName;
    out["trials"] = trials;
    out["seed"] = seed;
    out["batch_size"] = batch;
    out["tasks"] = nlohmann::json::array();
    double totalS = 0, libtorchS = 0;
    bool allTuned = true, allReferenced = !libtorch.empty();
    double fairTunedS = 0, fairLibtorchS = 0;  // the best kernels and libtorch timed interleaved
    bool allFair = measurerName == "halide";
    for (size_t idx : chosen) {
        const TuningTask& task = tasks[idx];
        const KnobSpace space = templateSpace(task);
        TuningRunOptions opts;
        opts.budget = trials;
        opts.batchSize = batch;
        opts.seed = seed;
        TuningRun run(task, *measurer, makeTuner(tunerName, task, seed, tunerParams), opts);
        if (!quiet) std::cerr << "task " << idx << ": " << task.describe() << " (" << space.size() << " configs)\n";

        // One stored run per task: its progress events while it runs, then every measurement.
        RunSpec spec;
        spec.kind = "tuning";
        spec.engine = tunerName;
        spec.objective = "latency";
        spec.budget = trials;
        spec.seed = seed;
        spec.params = {{"task_index", idx}, {"task", task.describe()}, {"measurer", measurerName},
                       {"batch_size", batch}, {"tuner_params", tunerParams}};
        RunRecording recording(args, spec, g, path);
        ProgressCallback record = recording.callback();
        ProgressCallback progress = [&](const ProgressEvent& e) {
            if (record) record(e);
            if (quiet) return;
            std::cerr << "  " << e.evaluations << "/" << trials << " measured, best " << std::fixed
                      << std::setprecision(2) << e.values.value("best_gflops", 0.0) << " GFLOP/s\r" << std::flush;
            std::cerr.unsetf(std::ios::fixed);
        };
        const TuningResult res = recording.guard([&] { return run.run(progress, recording.cancellationToken()); });
        if (!quiet) std::cerr << "\n";
        if (res.status == RunStatus::Failed) {
            recording.failed(res.error);
            throw std::runtime_error("task " + std::to_string(idx) + ": " + res.error);
        }
        const std::string taskName = task.describe();
        for (const auto& m : res.measurements) {
            graphopt::TuningMeasurement stored;
            stored.task = taskName;
            stored.config = {{"index", m.result.config}, {"knobs", space.describeText(m.result.config)}};
            if (m.result.ok) {
                stored.latencyS = m.result.latencyS;
                stored.gflops = m.result.gflops;
            }
            stored.error = m.result.error;
            stored.clusterId = m.cluster;
            recording.measurement(stored);
        }
        nlohmann::json t = res.toJson();
        {
            nlohmann::json summary = t;
            summary.erase("measurements");  // stored one by one above
            if (res.hasBest()) summary["cost"] = res.bestLatencyS();
            recording.finished(summary, res.status == RunStatus::Cancelled);
        }
        if (recording.runId()) t["run_id"] = *recording.runId();
        t["task_index"] = idx;
        t["weight"] = task.weight;
        const nlohmann::json taskJson = t["task"];
        t["task"] = idx;  // `task` is the index in `graphopt tasks`; the shapes follow
        t["task_info"] = taskJson;
        t["template"] = task.templateName();
        if (measurerName == "halide" && res.hasBest()) {
            HalideMeasurerOptions fo;
            fo.workerPath = args.get("worker", "");
            const FairComparison fair = compareFairly(task, res.measurements[res.best].result.config, {1, cores}, fo);
            t.update(fair.taskFields());
            if (const LibtorchComparison* b = fair.libtorchBest()) {
                fairTunedS += b->tunedS * task.weight;
                fairLibtorchS += b->libtorchS * task.weight;
            } else {
                allFair = false;
            }
        } else {
            allFair = false;
        }
        if (res.hasBest())
            totalS += res.bestLatencyS() * task.weight;
        else
            allTuned = false;
        const auto ref = libtorch.find(idx);
        if (ref != libtorch.end()) {
            const Reference& r = ref->second;
            t["libtorch"] = {{"latency_s", r.best.medianS},
                             {"gflops", r.best.gflops},
                             {"threads", r.threads},
                             {"latency_1_thread_s", r.oneThread.medianS},
                             {"latency_all_threads_s", r.allThreads.medianS},
                             {"all_threads", cores}};
            libtorchS += r.best.medianS * task.weight;
        } else {
            allReferenced = false;
        }
        out["tasks"].push_back(t);
        if (!json) {
            std::cout << std::left << std::setw(4) << idx << std::setw(52) << task.describe() << std::right
                      << std::fixed << std::setprecision(2) << std::setw(9) << res.bestGflops() << " GFLOP/s "
                      << std::setprecision(4) << std::setw(10) << res.bestLatencyS() * 1e3 << " ms  "
                      << res.measurements.size() << " measured, " << res.failures() << " failed";
            std::cout.unsetf(std::ios::fixed);
            if (res.hasBest()) std::cout << "\n     best: " << space.describeText(res.measurements[res.best].result.config);
            if (ref != libtorch.end() && res.hasBest())
                std::cout << "\n     libtorch: " << std::fixed << std::setprecision(2) << ref->second.best.gflops
                          << " GFLOP/s " << std::setprecision(4) << ref->second.best.medianS * 1e3 << " ms on "
                          << ref->second.threads << " thread(s) (tuned / libtorch time " << std::setprecision(2)
                          << res.bestLatencyS() / ref->second.best.medianS << ")";
            std::cout.unsetf(std::ios::fixed);
            std::cout << "\n";
        }
    }
    out["estimated_total_latency_s"] = allTuned ? nlohmann::json(totalS) : nlohmann::json(nullptr);
    // libtorch's time for the same operators (halide measurer only) and the ratio tuned / libtorch.
    const bool compared = allTuned && allReferenced && libtorchS > 0;
    out["libtorch_total_latency_s"] = allReferenced ? nlohmann::json(libtorchS) : nlohmann::json(nullptr);
    out["tuned_vs_libtorch"] = compared ? nlohmann::json(totalS / libtorchS) : nlohmann::json(nullptr);
    // Tuned / libtorch time from the interleaved comparisons (libtorch at its faster thread count).
    if (allFair && fairLibtorchS > 0) out["tuned_vs_libtorch"] = fairTunedS / fairLibtorchS;
    if (args.has("peak")) {
        const PeakFlops p = measurePeakFlops();
        out["peak"] = {{"gflops_1_thread", p.gflops1}, {"gflops_all_threads", p.gflopsAll}, {"threads", p.threads},
                       {"isa", p.isa}};
    }
    if (json) {
        std::cout << out.dump(2) << "\n";
        return 0;
    }
    if (allTuned) {
        std::cout << std::setprecision(4) << "estimated time of the tuned operators (best latency x uses): "
                  << totalS * 1e3 << " ms";
        if (compared)
            std::cout << "; libtorch on the same operators (faster of 1 and " << cores << " threads): " << libtorchS * 1e3
                      << " ms; tuned / libtorch: " << std::setprecision(3) << totalS / libtorchS;
        std::cout << "\n";
    }
    if (out.contains("peak"))
        std::cout << "machine peak (" << out["peak"]["isa"].get<std::string>() << " FMA): "
                  << out["peak"]["gflops_1_thread"].get<double>() << " GFLOP/s on 1 thread, "
                  << out["peak"]["gflops_all_threads"].get<double>() << " on " << out["peak"]["threads"].get<int>()
                  << "\n";
    return 0;
}

}  // namespace graphopt::cli
