// The commands that run a model on this machine for real:
//   graphopt profile MODEL     every operator timed with libtorch -> a cost file (ProfileRun)
//   graphopt execute MODEL     a placement run on this machine's cores, beside the simulator's
//                              prediction for the same placement and costs (PlacementExecutor)
//   graphopt calibrate         the cpu-cores device setup, its link measured (CoreCalibration)
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "Args.h"
#include "Commands.h"
#include "Interrupt.h"
#include "ModelOptions.h"
#include "StoreOptions.h"
#include "execution/CoreCalibration.h"
#include "execution/MeasuredCosts.h"
#include "execution/PlacedSchedule.h"
#include "execution/PlacementExecutor.h"
#include "execution/ProfileRun.h"
#include "execution/TorchProgram.h"
#include "graph/Loaders.h"
#include "placement/PlacementRun.h"
#include "placement/model/ScheduleSimulator.h"
#include "run/CpuIdentity.h"
#include "run/Units.h"
#include "store/RecordedRun.h"
#include "store/RunStore.h"
#include "tuning/LibtorchReference.h"
#include "tuning/Task.h"

namespace graphopt::cli {

namespace {

int hardwareCores() { return int(std::max(1u, std::thread::hardware_concurrency())); }

// Graphs that carry op semantics: ONNX only (the other formats describe costs, not calls).
Graph loadExecutableModel(const std::string& path, const LoadOptions& options, ConstantValues& constants) {
    const std::string ext = std::filesystem::path(path).extension().string();
    if (ext != ".onnx")
        throw std::invalid_argument(path + ": running a model needs an ONNX file (its operators and attributes); "
                                           "other formats carry costs, not operators");
    return loadOnnx(path, options, &constants);
}

// Tuning runs in the store whose task matches a node of the graph at `threads` threads: the best
// kernel's latency per node, with the run it came from (params.tuned_costs of ProfileRun).
nlohmann::json tunedCostsFromStore(const Graph& g, const std::string& dbPath, int threads, std::vector<std::string>& used) {
    nlohmann::json out = nlohmann::json::object();
    if (dbPath.empty() || !std::filesystem::exists(dbPath)) return out;
    std::vector<std::string> skipped;
    const auto tasks = tuning::extractTasks(g, &skipped);
    if (tasks.empty()) return out;
    std::map<std::string, const tuning::TuningTask*> byDescription;
    for (const auto& t : tasks) byDescription[t.describe()] = &t;
    RunStore store(dbPath);
    RunFilter f;
    f.kind = "tuning";
    struct Best {
        double s = 0;
        int64_t run = 0;
    };
    std::map<std::string, Best> best;
    for (const auto& summary : store.listRuns(f)) {
        if (summary.run.spec.value("threads", 0) != threads) continue;
        if (summary.run.spec.value("params", nlohmann::json::object()).value("measurer", std::string("halide")) == "simulated") continue;
        for (const auto& m : store.measurements(summary.run.id)) {
            if (!m.ok || !byDescription.count(m.task)) continue;
            auto& b = best[m.task];
            if (b.run == 0 || m.latencyS < b.s) b = {m.latencyS, summary.run.id};
        }
    }
    for (const auto& [task, b] : best) {
        for (const auto& node : byDescription[task]->nodes) out[node] = {{"seconds", b.s}, {"run", b.run}};
        used.push_back(task + " <- run " + std::to_string(b.run));
    }
    return out;
}

}  // namespace

CommandSpec profileCommand() {
    CommandSpec spec{"profile",
                     "MODEL",
                     "Times every operator of an ONNX model with libtorch on this CPU (tensors of the model's shapes) "
                     "and writes a cost file that placement reads (`place --costs`); records the run",
                     {{"threads", "N", "1", "libtorch intra-op threads"},
                      {"repeats", "R", "7", "timed forward passes (with --isolated: at least R calls per operator, more until 20 ms)"},
                      {"isolated", "", "", "time each operator on its own, warm caches (a kernel benchmark's figure), not inside forward passes"},
                      {"seed", "S", "1", "seed of the random tensors"},
                      {"out", "FILE", "", "write the cost file here", {}, "MODEL's name + .costs.json in the current folder"},
                      {"no-tuned", "", "", "do not use tuning runs of the store for the tuned operators"},
                      {"json", "", "", "print the cost file instead of a table"},
                      noStoreOption(),
                      dbOption()},
                     {"graphopt profile resources/models/resnet18.onnx",
                      "graphopt profile resources/models/googlenet.onnx --threads 2 --out googlenet-2t.costs.json"}};
    for (auto& o : modelShapeOptions()) spec.options.insert(spec.options.end() - 2, o);
    spec.details =
        "Operators the executor cannot run are listed with the reason and keep the device model's estimate.\n"
        "Where a tuning run of one of the model's tasks at the same thread count is in the store, its best\n"
        "kernel's latency replaces libtorch's for that task's nodes (the cost's \"source\" says which run).\n";
    return spec;
}

int cmdProfile(const ArgList& argv) {
    const CommandSpec command = profileCommand();
    Args args(argv, command);
    const std::string path = args.onePositional("MODEL");
    RunSpec spec;
    spec.threads = int(args.getInt("threads", 1, 256));
    spec.seed = args.getSeed("seed");
    spec.params["repeats"] = args.getInt("repeats", 1, 1000);
    if (args.has("isolated")) spec.params["isolated"] = true;
    ConstantValues constants;
    const Graph g = loadExecutableModel(path, loadOptionsFrom(args), constants);
    const std::string out = args.has("out") ? args.require("out") : std::filesystem::path(path).stem().string() + ".costs.json";
    std::vector<std::string> tunedUsed;
    if (!args.has("no-tuned")) {
        try {
            spec.params["tuned_costs"] = tunedCostsFromStore(g, storePathFrom(args), spec.threads, tunedUsed);
        } catch (const std::exception& e) {
            std::cerr << "note: tuning runs not read (" << e.what() << ")\n";
        }
    }
    exec::ProfileRun run(g, constants, spec, path);
    RecordedRun recorded(run, recordingPathFrom(args));
    InterruptScope interrupt;
    const bool tty = !args.has("json");
    RunReporter reporter;
    reporter.progress = [&](const ProgressEvent& e) {
        if (!tty) return;
        if (e.values.contains("pass"))
            std::cerr << "\rforward pass " << e.step << "/" << e.values.value("passes", 0)
                      << (e.values.value("warmup", false) ? " (warm-up)" : "          ") << std::flush;
        else if (e.step % 10 == 0 || e.step == e.values.value("nodes", int64_t(0)))
            std::cerr << "\rprofiled " << e.step << "/" << e.values.value("nodes", 0) << " operators" << std::flush;
    };
    const exec::ProfileResult r = runOrFail([&] { return recorded.executeAs<exec::ProfileResult>(reporter, interrupt.token()); });
    if (tty) std::cerr << "\n";
    r.costs.save(out);
    if (args.has("json")) {
        nlohmann::ordered_json j = r.costs.toJson();
        j["file"] = out;
        if (recorded.runId()) j["run_id"] = *recorded.runId();
        std::cout << j.dump(2) << "\n";
        return interrupt.interrupted() ? kExitInterrupted : 0;
    }
    const auto& m = r.costs;
    std::cout << "model:     " << path << " (" << g.nodeCount() << " nodes" << (m.inputDims.empty() ? "" : ", inputs " + m.inputDims) << ")\n";
    std::cout << "machine:   " << (m.machine.empty() ? "unknown CPU" : m.machine) << ", " << m.threads << " thread"
              << (m.threads > 1 ? "s" : "") << ", " << (m.method == "isolated" ? "each op on its own" : "ops timed inside forward passes") << (m.loaded ? " (the machine was busy: other processes ran)" : "") << "\n";
    std::cout << "profiled:  " << m.costs.size() << " operators, " << m.notProfiled.size() << " not run\n";
    std::cout << "total:     " << humanSeconds(m.totalS()) << " (sum of the operators' medians)\n";
    std::map<std::string, std::pair<int, double>> byOp;
    for (const auto& [name, c] : m.costs) {
        auto& e = byOp[g.nodes()[size_t(g.findNode(name))].op];
        e.first += 1;
        e.second += c.medianS;
    }
    std::vector<std::pair<std::string, std::pair<int, double>>> ops(byOp.begin(), byOp.end());
    std::sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) { return a.second.second > b.second.second; });
    std::cout << std::left << std::setw(22) << "  op" << std::right << std::setw(6) << "nodes" << std::setw(12) << "total"
              << std::setw(8) << "share" << "\n";
    for (const auto& [op, e] : ops)
        std::cout << "  " << std::left << std::setw(20) << op << std::right << std::setw(6) << e.first << std::setw(12)
                  << humanSeconds(e.second) << std::setw(7) << std::fixed << std::setprecision(1)
                  << 100 * e.second / std::max(1e-12, m.totalS()) << "%\n";
    std::cout.unsetf(std::ios::fixed);
    for (const auto& n : m.notProfiled) std::cout << "  not run: " << n.node << " (" << n.op << "): " << n.reason << "\n";
    for (const auto& t : tunedUsed) std::cout << "  tuned: " << t << "\n";
    std::cout << "costs:     " << out << "\n";
    if (recorded.runId()) std::cout << "run:       " << *recorded.runId() << " in " << recorded.databasePath() << "\n";
    return interrupt.interrupted() ? kExitInterrupted : 0;
}

CommandSpec executeCommand() {
    CommandSpec spec{"execute",
                     "MODEL",
                     "Runs a placement of an ONNX model for real on this machine's cores (one pinned worker per device, "
                     "libtorch on one thread each) and prints the measured makespan beside the simulator's prediction",
                     {{"placement", "RUN_ID|FILE", "",
                       "a stored placement run, or a file from `place --export`", {}, "every node on the first device"},
                      {"devices", "PRESET|FILE", "cpu-cores", "the devices the placement is on: cpu-cores or a device file from `graphopt calibrate`"},
                      {"costs", "FILE", "", "the cost file the prediction uses (`graphopt profile`)", {}, "the device model's estimates"},
                      {"repeats", "R", "3", "executions; the median makespan is reported"},
                      {"seed", "S", "1", "seed of the random tensors"},
                      {"no-pin", "", "", "do not pin the workers to cores"},
                      {"json", "", "", "print JSON"},
                      dbOption()},
                     {"graphopt execute resources/models/resnet18.onnx --costs resnet18.costs.json",
                      "graphopt execute resources/models/googlenet.onnx --placement 12 --costs googlenet.costs.json"}};
    for (auto& o : modelShapeOptions()) spec.options.insert(spec.options.end() - 1, o);
    spec.details =
        "The prediction is the schedule simulator's makespan and per-device peak memory for the same placement,\n"
        "order and costs. The devices' workers run on cores 0, 1, ... in turn (more devices than cores share).\n";
    return spec;
}

int cmdExecute(const ArgList& argv) {
    const CommandSpec command = executeCommand();
    Args args(argv, command);
    const std::string path = args.onePositional("MODEL");
    const int repeats = int(args.getInt("repeats", 1, 100));
    const uint64_t seed = args.getSeed("seed");
    const DeviceModel devices = DeviceModel::load(args.require("devices"));
    ConstantValues constants;
    const Graph g = loadExecutableModel(path, loadOptionsFrom(args), constants);

    // The placement: a stored run, an export file, or every node on device 0.
    exec::PlacedSchedule placed;
    std::string placementText = "every node on " + devices.devices[0].name;
    bool countWeights = true;
    if (args.has("placement")) {
        const std::string p = args.require("placement");
        const bool isId = !p.empty() && std::all_of(p.begin(), p.end(), ::isdigit) && !std::filesystem::exists(p);
        if (isId) {
            const std::string db = storePathFrom(args);
            RunStore store(db);
            const RunSummary s = store.run(std::stoll(p));
            if (s.run.kind != "placement") throw std::invalid_argument("run " + p + " is a " + s.run.kind + " run, not a placement");
            const auto result = store.result(s.run.id);
            if (!result) throw std::invalid_argument("run " + p + " has no result");
            const PlacementResult pr = PlacementResult::fromRunResult(*result);
            countWeights = pr.countWeights;
            placed = exec::placedScheduleFromResult(pr, g, devices, "run " + p);
            placementText = "run " + p + " (" + pr.engine + ")";
        } else {
            placed = exec::loadPlacedSchedule(p, g, devices);
            placementText = p + (placed.engine.empty() ? "" : " (" + placed.engine + ")");
        }
    } else {
        placed.deviceOf.assign(g.nodeCount(), 0);
        placed.priority = g.topologicalOrder();
    }

    // The prediction, with the same placement, order and costs.
    RunSpec spec;
    spec.objective = "runtime";
    spec.params["count_weights"] = countWeights;
    std::string costsText = "the device model's estimates";
    if (args.has("costs")) {
        const auto costs = exec::MeasuredCosts::load(args.require("costs"));
        spec.params.update(costs.placementParams(g, args.require("costs")));
        costsText = args.require("costs") + " (" + std::to_string(costs.threads) + " thread" + (costs.threads > 1 ? "s" : "") + ")";
    }
    auto problem = compilePlacementProblem(g, devices, spec);
    ScheduleSimulator sim(problem);
    ScheduleDetail detail;
    const ScheduleCosts predicted = sim.evaluatePlacement(placed.deviceOf, placed.priority, &detail);

    // The execution: repeated, the median makespan's run reported.
    exec::ExecutionPlan plan;
    plan.deviceOf = placed.deviceOf;
    plan.priority = placed.priority;
    plan.devices = devices.deviceCount();
    plan.countWeights = countWeights;
    for (int k = 0; k < plan.devices; ++k) plan.cores.push_back(args.has("no-pin") ? -1 : k % hardwareCores());
    exec::setTorchThreads(1);
    exec::TorchProgram program(g, constants, seed);
    InterruptScope interrupt;
    std::vector<exec::ExecutionReport> runs = exec::executePlacement(program, plan, repeats, 1);
    std::vector<size_t> idx(runs.size());
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return runs[a].makespanS < runs[b].makespanS; });
    const exec::ExecutionReport& r = runs[idx[idx.size() / 2]];
    int notRun = 0;
    for (size_t v = 0; v < g.nodeCount(); ++v) notRun += !program.whyNotRun(int(v)).empty();
    const bool loaded = exec::machineLoaded(std::min(plan.devices, hardwareCores()));

    std::vector<double> predictedBusy(size_t(plan.devices), 0);
    for (size_t v = 0; v < g.nodeCount(); ++v)
        predictedBusy[size_t(placed.deviceOf[v])] += problem->opCost[v * size_t(problem->d) + size_t(placed.deviceOf[v])];
    const double errorPct = 100 * (r.makespanS - predicted.makespan) / std::max(1e-12, predicted.makespan);
    if (args.has("json")) {
        nlohmann::ordered_json j;
        j["model"] = path;
        j["placement"] = placementText;
        j["devices"] = devices.name;
        j["costs"] = costsText;
        j["machine"] = hostCpu().label();
        j["machine_loaded"] = loaded;
        j["repeats"] = runs.size();
        j["predicted_makespan_s"] = predicted.makespan;
        j["measured_makespan_s"] = r.makespanS;
        j["error_pct"] = errorPct;
        std::vector<double> all;
        for (const auto& x : runs) all.push_back(x.makespanS);
        j["measured_makespans_s"] = all;
        j["nodes_not_run"] = notRun;
        nlohmann::ordered_json per = nlohmann::ordered_json::array();
        for (int k = 0; k < plan.devices; ++k) {
            const auto& d = r.devices[size_t(k)];
            per.push_back({{"device", devices.devices[size_t(k)].name},
                           {"core", d.core},
                           {"ops", d.ops},
                           {"predicted_busy_s", predictedBusy[size_t(k)]},
                           {"measured_busy_s", d.busyS},
                           {"copy_s", d.copyS},
                           {"copies", d.copies},
                           {"copy_bytes", d.copyBytes},
                           {"predicted_peak_bytes", k < int(detail.devicePeakBytes.size()) ? detail.devicePeakBytes[size_t(k)] : 0},
                           {"measured_peak_bytes", d.peakBytes}});
        }
        j["per_device"] = std::move(per);
        std::cout << j.dump(2) << "\n";
        return interrupt.interrupted() ? kExitInterrupted : 0;
    }
    std::cout << "model:      " << path << " (" << g.nodeCount() << " nodes" << (notRun ? ", " + std::to_string(notRun) + " not run: stand-in values" : "") << ")\n";
    std::cout << "placement:  " << placementText << " on " << devices.name << "\n";
    std::cout << "costs:      " << costsText << "\n";
    std::cout << "machine:    " << hostCpu().label() << (loaded ? " (busy: other processes ran)" : " (idle)") << "\n";
    std::cout << "makespan:   measured " << humanSeconds(r.makespanS) << " (median of " << runs.size() << "), predicted "
              << humanSeconds(predicted.makespan) << " (" << std::showpos << std::fixed << std::setprecision(1) << errorPct
              << std::noshowpos << " %)\n";
    std::cout.unsetf(std::ios::fixed);
    for (int k = 0; k < plan.devices; ++k) {
        const auto& d = r.devices[size_t(k)];
        if (d.ops == 0) continue;
        std::cout << "  " << std::left << std::setw(8) << devices.devices[size_t(k)].name << std::right << " core " << d.core << ": "
                  << d.ops << " ops, busy " << humanSeconds(d.busyS) << " (predicted " << humanSeconds(predictedBusy[size_t(k)])
                  << "), copies " << d.copies << " in " << humanSeconds(d.copyS) << ", peak " << humanBytes(double(d.peakBytes))
                  << " (predicted "
                  << humanBytes(double(k < int(detail.devicePeakBytes.size()) ? detail.devicePeakBytes[size_t(k)] : 0)) << ")\n";
    }
    return interrupt.interrupted() ? kExitInterrupted : 0;
}

CommandSpec calibrateCommand() {
    return {"calibrate",
            "",
            "Measures this machine for the cpu-cores device setup (one device per core, kind cpu): a core's "
            "sustained conv rate with libtorch, and the latency and bandwidth of a copy between two cores; "
            "writes the device JSON",
            {{"cores", "N", "", "devices in the setup", {}, "the machine's cores"},
             {"memory-per-core", "GIB", "", "memory of each device, GiB", {}, "the machine's memory / cores"},
             {"out", "FILE", "cpu-cores.json", "the device file to write"},
             {"json", "", "", "print the device JSON"}},
            {"graphopt calibrate --out cpu-cores.json", "graphopt calibrate --cores 2 --memory-per-core 1"}};
}

int cmdCalibrate(const ArgList& argv) {
    const CommandSpec command = calibrateCommand();
    Args args(argv, command);
    args.noPositional();
    const int cores = args.has("cores") ? int(args.getInt("cores", 1, DeviceModel::kMaxDevices)) : hardwareCores();
    int64_t memory = 0;
    if (args.has("memory-per-core")) {
        memory = int64_t(args.getDouble("memory-per-core", 1.0 / 1024, 1 << 20) * double(int64_t(1) << 30));
    } else {
        const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
        memory = int64_t(pages) * int64_t(page) / std::max(1, cores);
    }
    std::cerr << "measuring the link between cores 0 and 1 ...\n";
    const exec::CoreLinkMeasurement link = exec::measureCoreLink(0, 1 % hardwareCores());
    // A core's sustained rate: libtorch's 3x3 conv of ResNet-18's second stage at one thread.
    tuning::TuningTask conv;
    conv.kind = tuning::TaskKind::Conv2d;
    conv.inC = 128, conv.inH = 28, conv.inW = 28, conv.outC = 128, conv.kernelH = conv.kernelW = 3;
    conv.padTop = conv.padLeft = conv.padBottom = conv.padRight = 1;
    std::cerr << "measuring a core's conv rate with libtorch ...\n";
    const auto timing = tuning::timeLibtorch(conv, 1, 0.5);
    // The per-op overhead: libtorch's time for a 1x1x1 matrix product, all dispatch and no work.
    tuning::TuningTask tiny;
    tiny.kind = tuning::TaskKind::Dense;
    tiny.m = tiny.n = tiny.k = 1;
    const double overhead = tuning::timeLibtorch(tiny, 1, 0.1).medianS;
    DeviceModel m = exec::cpuCoresModel(cores, timing.gflops * 1e9, overhead, memory, link);
    nlohmann::json j = m.toJson();
    j["calibration"] = {{"machine", hostCpu().label()},
                        {"conv_gflops_1_thread", timing.gflops},
                        {"op_overhead_s", overhead},
                        {"link_latency_s", link.latencyS},
                        {"link_bandwidth", link.bandwidth},
                        {"copy_bandwidth_one_core", link.localBandwidth},
                        {"machine_loaded", exec::machineLoaded(1)}};
    const std::string out = args.require("out");
    {
        std::ofstream f(out);
        if (!f) throw std::invalid_argument(out + ": cannot write the device file");
        f << j.dump(2) << "\n";
        if (!f) throw std::invalid_argument(out + ": writing the device file failed");
    }
    if (args.has("json")) {
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    std::cout << "machine:    " << hostCpu().label() << "\n";
    std::cout << "devices:    " << cores << " x core (kind cpu), " << humanBytes(double(memory)) << " each\n";
    std::cout << "conv rate:  " << std::fixed << std::setprecision(1) << timing.gflops << " GFLOP/s on one core (libtorch)\n";
    std::cout << "overhead:   " << std::setprecision(2) << overhead * 1e6 << " us per op (libtorch's 1x1 product)\n";
    std::cout << "link:       " << std::setprecision(2) << link.latencyS * 1e6 << " us + bytes / " << link.bandwidth / 1e9
              << " GB/s (core to core); " << link.localBandwidth / 1e9 << " GB/s within a core\n";
    std::cout.unsetf(std::ios::fixed);
    std::cout << "written:    " << out << " (use it as --devices " << out << ")\n";
    return 0;
}

}  // namespace graphopt::cli
