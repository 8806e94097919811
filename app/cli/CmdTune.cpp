// graphopt tune MODEL: tunes the kernels of a model's tasks, one recorded tuning run per task (see
// tuneCommand() for the options). Measurements stream to the run store as they complete; Ctrl-C
// stores the running task as cancelled with what it measured and starts no other task.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <thread>

#include <nlohmann/json.hpp>

#include "Args.h"
#include "Commands.h"
#include "DistributedOptions.h"
#include "Interrupt.h"
#include "ModelOptions.h"
#include "StoreOptions.h"
#include "graph/Loaders.h"
#include "store/RecordedRun.h"
#include "tuning/DistributedMeasurer.h"
#include "tuning/HalideMeasurer.h"
#include "tuning/LibtorchReference.h"
#include "tuning/PeakFlops.h"
#include "tuning/TemplateSpace.h"
#include "tuning/TuningRun.h"

namespace graphopt::cli {

CommandSpec tuneCommand() {
    using namespace graphopt::tuning;
    CommandSpec spec{
        "tune",
        "MODEL",
        "Tunes the kernels of a model's heavy operators: a tuner proposes schedule configurations, real Halide "
        "kernels (or the simulated CPU) measure them; one recorded run per task",
        {{"task", "K", "", "the task to tune (see graphopt tasks MODEL)"},
         {"all", "", "", "tune every task, one after the other"},
         {"tuner", "NAME", "random", "search strategy (listed below)", tunerNames()},
         {"tuner-params", "JSON", "", "the tuner's parameters as a JSON object (listed below)"},
         {"measurer", "M", "halide", "halide: real kernels timed on this CPU; sim: the simulated CPU", {"halide", "sim"}},
         {"template", "T", "",
          "conv template: tiled (multi-level tiles over NCHW[x]c blocks; depthwise stays packed), packed NCHW[x]c "
          "blocks, or plain NCHW",
          {"tiled", "packed", "nchw"},
          "tiled with halide, nchw with sim"},
         {"trials", "N", "32", "measurements per task"},
         {"seed", "S", "1", "random seed"},
         {"measure-batch", "B", "8", "configurations proposed and measured together (params.batch_size)"},
         modelShapeOptions()[0],
         modelShapeOptions()[1],
         {"min-time", "S", "0.05", "halide: timed runs per measurement add up to at least S seconds"},
         {"timeout", "S", "20", "halide: limit per measurement, compile included (s)"},
         {"worker", "PATH", "", "halide: the measure worker", {}, "graphopt-measure-worker beside this program"},
         {"peak", "", "", "also measure and print the machine's FMA peak"},
         {"quiet", "", "", "no progress on stderr"},
         {"json", "", "", "print the results as JSON"},
         {"distributed", "", "", "spread each batch's measurements over the ranks (rank 0 tunes and records; the "
                                 "others measure), see --world-size"},
         noStoreOption(),
         dbOption()},
        {"graphopt tune resources/models/resnet18.onnx --task 1 --tuner release --measurer halide --trials 48",
         "graphopt tune resources/models/resnet18.onnx --all --tuner autotvm --measurer sim --trials 128",
         "graphopt tune resources/models/transformer_encoder.onnx --task 0 --batch 32 --measurer sim --trials 64",
         "tools/launch-local.sh 2 graphopt tune resources/models/resnet18.onnx --task 1 --distributed --trials 48"}};
    for (OptionSpec& o : distributedOptions()) spec.options.push_back(std::move(o));
    spec.details = "With --distributed every rank runs the same command (WORLD_SIZE, RANK, MASTER_ADDR, MASTER_PORT or "
                   "--world-size, --rank, --master): rank 0 runs the tuner, sends configuration i of each batch to rank "
                   "i % N and measures its own share; a rank that dies or does not answer within --dist-timeout costs "
                   "its measurements (stored as failures naming it), and rank 0 measures the rest itself.\n";
    spec.details += "tuners (--tuner-params keys below each):\n";
    for (const auto& d : tunerDescriptions()) {
        spec.details += "  " + d.name + ": " + d.summary + "\n";
        spec.details += describeParams(d.params, "      ");
    }
    return spec;
}

int cmdTune(const ArgList& argv) {
    using namespace graphopt::tuning;
    const CommandSpec command = tuneCommand();
    Args args(argv, command);
    const std::string path = args.onePositional("MODEL");
    const std::string tunerName = args.getChoice("tuner");
    const nlohmann::json tunerParams = args.getJsonObject("tuner-params");
    const std::string measurerName = args.getChoice("measurer");
    const int64_t trials = args.getInt("trials", 1, 1000000);
    const uint64_t seed = args.getSeed("seed");
    // Configurations per batch of measurements; --batch is the model's batch size, as everywhere.
    const int batch = static_cast<int>(args.getInt("measure-batch", 1, 4096));
    const LoadOptions inputs = loadOptionsFrom(args);
    if (args.has("all") && args.has("task")) throw UsageError("give --task K or --all, not both");

    // Tasks are extracted from the shapes re-inferred for these inputs; each stored run records them.
    const Graph g = loadGraph(path, inputs);
    const auto inputDims = g.metadata.find("onnx.input_dims");
    // Conv tasks take the tiled template with real measurements (NCHW with --template nchw).
    const std::string templ = args.has("template") ? args.getChoice("template") : (measurerName == "halide" ? "tiled" : "nchw");
    auto tasks = extractTasks(g);
    for (auto& t : tasks) t = withTemplate(t, templ);
    if (tasks.empty()) throw std::runtime_error(path + ": no tunable operators (Conv, Gemm, MatMul)");
    std::vector<size_t> chosen;
    if (args.has("task")) {
        const int64_t k = args.getInt("task", 0, static_cast<int64_t>(tasks.size()) - 1);
        chosen.push_back(static_cast<size_t>(k));
    } else if (args.has("all")) {
        for (size_t i = 0; i < tasks.size(); ++i) chosen.push_back(i);
    } else {
        throw UsageError("give --task K (see graphopt tasks " + path + ") or --all");
    }
    // One spec per task; the first is checked (tuner parameters, ...) before anything is timed.
    auto specFor = [&](size_t idx) {
        RunSpec spec;
        spec.kind = "tuning";
        spec.engine = tunerName;
        spec.objective = "latency";
        spec.budget = trials;
        spec.seed = seed;
        spec.params = {{"task_index", idx}, {"measurer", measurerName}, {"batch_size", batch},
                       {"tuner_params", tunerParams}, {"template", templ}};
        if (measurerName == "halide") {
            spec.params["min_time"] = args.getDouble("min-time", 0.0, 60.0);
            spec.params["timeout"] = args.getDouble("timeout", 0.1, 3600.0);
            if (args.has("worker")) spec.params["worker"] = args.require("worker");
        }
        return spec;
    };
    // One measurer for every task (one worker process for real measurements, started at the first
    // measurement, so after libtorch's timings below).
    const std::unique_ptr<Measurer> measurer = makeMeasurer(specFor(chosen.front()));
    // A bad option fails every task the same way: refused now. With --all a task the run cannot
    // take is reported and left out below, so the check passes when some task can be tuned.
    {
        std::string firstError;
        bool usable = false;
        for (size_t idx : chosen) {
            try {
                TuningRun probe(g, specFor(idx), path, measurer.get());
                usable = true;
                break;
            } catch (const std::invalid_argument& e) {
                if (firstError.empty()) firstError = e.what();
            }
            if (!args.has("all")) break;
        }
        if (!usable) throw UsageError(firstError);
    }
    std::unique_ptr<Communicator> comm;
    std::unique_ptr<DistributedMeasurer> spread;
    if (args.has("distributed")) {
        comm = joinRanks(args);
        if (comm->rank() != 0) {
            try {
                const int64_t n = serveMeasurements(*comm, *measurer);
                if (!args.has("quiet")) std::cerr << "tune: rank " << comm->rank() << " measured " << n << " configurations\n";
                return 0;
            } catch (const DistributedError& e) {
                throw RunFailure("rank " + std::to_string(comm->rank()) + " stops: " + e.what());
            }
        }
        spread = std::make_unique<DistributedMeasurer>(*comm, *measurer);
    }
    Measurer* const measuring = spread ? static_cast<Measurer*>(spread.get()) : measurer.get();

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

    const bool json = args.has("json"), quiet = args.has("quiet") || json;
    nlohmann::json out;
    out["model"] = path;
    out["tuner"] = tunerName;
    out["measurer"] = measurerName;
    out["trials"] = trials;
    out["seed"] = seed;
    out["batch_size"] = batch;  // --measure-batch (the key of stored runs' params)
    if (inputDims != g.metadata.end()) out["input_dims"] = inputDims->second;
    out["tasks"] = nlohmann::json::array();
    double totalS = 0, libtorchS = 0;
    bool allTuned = true, allReferenced = !libtorch.empty();
    double fairTunedS = 0, fairLibtorchS = 0;  // the best kernels and libtorch timed interleaved
    std::vector<std::pair<double, int>> tunedRates;  // each best kernel's GFLOP/s and thread count (for --peak)
    bool allFair = measurerName == "halide";
    InterruptScope interrupt;
    const std::string dbPath = recordingPathFrom(args);
    // The simulated CPU is a model, not this machine: every line its figures appear on says so.
    const bool simulated = measurerName == "sim";
    const std::string sim = simulated ? "[simulated CPU] " : "";
    out["simulated"] = simulated;
    if (!quiet && inputDims != g.metadata.end()) std::cerr << sim << "model inputs: " << inputDims->second << "\n";
    // With --all, a task that cannot be tuned (the run refuses it, or fails) is reported with the
    // reason, and the others go on; only when none could be tuned is that a failure.
    const bool all = args.has("all");
    nlohmann::json skipped = nlohmann::json::array();
    size_t tuned = 0;
    auto skip = [&](size_t idx, const std::string& reason) {
        skipped.push_back({{"task", idx}, {"reason", reason}});
        allTuned = false;
        if (!quiet) std::cerr << sim << "task " << idx << " skipped: " << reason << "\n";
    };
    for (size_t idx : chosen) {
        const TuningTask& task = tasks[idx];
        const KnobSpace space = templateSpace(task);
        std::unique_ptr<TuningRun> runPtr;
        try {
            runPtr = std::make_unique<TuningRun>(g, specFor(idx), path, measuring);
        } catch (const std::invalid_argument& e) {
            if (!all) throw UsageError(e.what());
            skip(idx, e.what());
            continue;
        }
        TuningRun& run = *runPtr;
        if (!quiet) std::cerr << sim << "task " << idx << ": " << task.describe() << " (" << space.size() << " configs)\n";
        // One stored run per task: measurements and progress stream to the store as they come.
        RecordedRun recorded(run, dbPath);
        RunReporter reporter;
        if (!quiet)
            reporter.progress = [&](const ProgressEvent& e) {
                std::cerr << "  " << sim << e.evaluations << "/" << trials << " measured, best " << std::fixed
                          << std::setprecision(2) << e.values.value("best_gflops", 0.0) << " GFLOP/s\r" << std::flush;
                std::cerr.unsetf(std::ios::fixed);
            };
        const TuningResult res = runOrFail([&] { return recorded.executeAs<TuningResult>(reporter, interrupt.token()); });
        if (!quiet) std::cerr << "\n";
        if (res.status() == RunStatus::Failed) {
            if (!all) throw RunFailure("task " + std::to_string(idx) + ": " + res.error());
            skip(idx, res.error());
            continue;
        }
        ++tuned;
        nlohmann::json t = res.toJson();
        if (recorded.runId()) t["run_id"] = *recorded.runId();
        t["task_index"] = idx;
        t["weight"] = task.weight;
        const nlohmann::json taskJson = t["task"];
        t["task"] = idx;  // `task` is the index in `graphopt tasks`; the shapes follow
        t["task_info"] = taskJson;
        t["template"] = task.templateName();
        if (measurerName == "halide" && res.hasBest() && !interrupt.interrupted()) {
            // The best kernel and libtorch, timed interleaved in one worker per thread count.
            HalideMeasurerOptions fo;
            fo.workerPath = args.get("worker").value_or("");
            const FairComparison fair = compareFairly(task, res.measurements[res.best].config, {1, cores}, fo);
            t.update(fair.taskFields());
            for (const auto& c : fair.byThreads)
                if (c.ok) tunedRates.push_back({c.tunedGflops, c.threads});
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
            std::cout << sim << std::left << std::setw(4) << idx << std::setw(52) << task.describe() << std::right
                      << std::fixed << std::setprecision(2) << std::setw(9) << res.bestGflops() << " GFLOP/s "
                      << std::setprecision(4) << std::setw(10) << res.bestLatencyS() * 1e3 << " ms  "
                      << res.measurements.size() << " measured, " << res.failures() << " failed";
            std::cout.unsetf(std::ios::fixed);
            if (res.hasBest()) std::cout << "\n     " << sim << "best: " << res.measurements[res.best].knobs;
            if (ref != libtorch.end() && res.hasBest())
                std::cout << "\n     libtorch: " << std::fixed << std::setprecision(2) << ref->second.best.gflops
                          << " GFLOP/s " << std::setprecision(4) << ref->second.best.medianS * 1e3 << " ms on "
                          << ref->second.threads << " thread(s) (tuned / libtorch time " << std::setprecision(2)
                          << res.bestLatencyS() / ref->second.best.medianS << ")";
            std::cout.unsetf(std::ios::fixed);
            std::cout << "\n";
        }
        if (interrupt.interrupted()) {
            allTuned = false;  // the other tasks are not started
            if (!quiet) std::cerr << sim << "interrupted: task " << idx << " stored as cancelled; no other task started\n";
            break;
        }
    }
    out["skipped"] = skipped;  // tasks that could not be tuned, and why
    if (tuned == 0 && !skipped.empty() && !interrupt.interrupted()) {
        std::string list;
        for (const auto& k : skipped)
            list += (list.empty() ? "" : "; ") + ("task " + std::to_string(k["task"].get<size_t>())) + ": " +
                    k["reason"].get<std::string>();
        throw RunFailure("none of the " + std::to_string(chosen.size()) + " tasks could be tuned: " + list);
    }
    const int status = interrupt.interrupted() ? kExitInterrupted : 0;
    if (spread) {
        spread->finish();
        out["world_size"] = comm->worldSize();
        if (!spread->lostRanks().empty()) {
            out["lost_ranks"] = spread->lostRanks();
            if (!quiet) std::cerr << "tune: measured alone after losing the other ranks: " << spread->lostRanks() << "\n";
        }
    }
    out["estimated_total_latency_s"] = allTuned ? nlohmann::json(totalS) : nlohmann::json(nullptr);
    // libtorch's time for the same operators (halide measurer only) and the ratio tuned / libtorch.
    const bool compared = allTuned && allReferenced && libtorchS > 0;
    out["libtorch_total_latency_s"] = allReferenced ? nlohmann::json(libtorchS) : nlohmann::json(nullptr);
    out["tuned_vs_libtorch"] = compared ? nlohmann::json(totalS / libtorchS) : nlohmann::json(nullptr);
    // Tuned / libtorch time from the interleaved comparisons (libtorch at its faster thread count).
    if (allFair && fairLibtorchS > 0 && !interrupt.interrupted()) out["tuned_vs_libtorch"] = fairTunedS / fairLibtorchS;
    if (args.has("peak")) {
        // Measured again when a tuned kernel beat it (a peak measured in a busy moment).
        PeakFlops p = measurePeakFlops();
        for (const auto& [gflops, threads] : tunedRates) p = remeasuredIfBeaten(p, gflops, threads);
        out["peak"] = p.toJson();
    }
    if (json) {
        std::cout << out.dump(2) << "\n";
        return status;
    }
    if (allTuned) {
        std::cout << std::setprecision(4) << sim << "estimated time of the tuned operators (best latency x uses): "
                  << totalS * 1e3 << " ms";
        if (compared)
            std::cout << "; libtorch on the same operators (faster of 1 and " << cores << " threads): " << libtorchS * 1e3
                      << " ms; tuned / libtorch: " << std::setprecision(3) << totalS / libtorchS;
        std::cout << "\n";
    }
    if (!skipped.empty()) {
        std::cout << sim << "skipped " << skipped.size() << " of " << chosen.size() << " tasks:\n";
        for (const auto& k : skipped)
            std::cout << "  task " << k["task"].get<size_t>() << ": " << k["reason"].get<std::string>() << "\n";
    }
    if (out.contains("peak"))
        std::cout << "machine peak (" << out["peak"]["isa"].get<std::string>() << " FMA): "
                  << out["peak"]["gflops_1_thread"].get<double>() << " GFLOP/s on 1 thread, "
                  << out["peak"]["gflops_all_threads"].get<double>() << " on " << out["peak"]["threads"].get<int>()
                  << (out["peak"]["remeasured"].get<bool>() ? " (measured again: a tuned kernel beat the first figure)" : "")
                  << (out["peak"]["loaded"].get<bool>() ? "; other processes were busy meanwhile, it may be low" : "")
                  << "\n";
    return status;
}

}  // namespace graphopt::cli
