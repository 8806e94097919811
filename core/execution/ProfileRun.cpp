#include "execution/ProfileRun.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "execution/TorchProgram.h"
#include "run/CpuIdentity.h"

namespace graphopt::exec {

RunResult ProfileResult::toRunResult() const {
    RunResult r;
    r.cost = costs.totalS();
    r.costs = {{"total_s", costs.totalS()},
               {"nodes_profiled", costs.costs.size()},
               {"nodes_not_profiled", costs.notProfiled.size()},
               {"threads", costs.threads},
               {"machine", costs.machine},
               {"machine_loaded", costs.loaded},
               {"wall_s", wallS},
               {"op_costs", costs.toJson()}};
    return r;
}

ProfileRun::ProfileRun(const Graph& graph, const ConstantValues& constants, RunSpec spec, std::string modelPath)
    : graph_(graph), constants_(constants), spec_(std::move(spec)), modelPath_(std::move(modelPath)) {
    spec_.kind = kKind;
    if (spec_.engine.empty()) spec_.engine = "libtorch";
    if (spec_.objective.empty()) spec_.objective = "latency";
    if (spec_.devices.empty()) spec_.devices = "cpu";
    if (spec_.threads < 0) throw std::invalid_argument("threads must be >= 0");
    if (spec_.threads == 0) spec_.threads = 1;
    const int repeats = spec_.params.value("repeats", 7), warmup = spec_.params.value("warmup", 2);
    if (repeats < 1 || repeats > 1000) throw std::invalid_argument("repeats must be in [1, 1000]");
    if (warmup < 0 || warmup > 100) throw std::invalid_argument("warmup must be in [0, 100]");
    if (spec_.params.contains("tuned_costs") && !spec_.params["tuned_costs"].is_object())
        throw std::invalid_argument("params.tuned_costs must map node names to {seconds, run}");
}

std::unique_ptr<RunOutcome> ProfileRun::execute(const RunReporter& reporter, const CancellationToken* cancel) {
    return std::make_unique<ProfileResult>(run(reporter, cancel));
}

ProfileResult ProfileRun::run(const RunReporter& reporter, const CancellationToken* cancel) {
    const auto t0 = std::chrono::steady_clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    const int repeats = spec_.params.value("repeats", 7), warmup = spec_.params.value("warmup", 2);
    const int previous = torchThreads();
    setTorchThreads(spec_.threads);
    ProfileResult out;
    MeasuredCosts& m = out.costs;
    m.model = modelPath_;
    m.graph = graph_.name;
    if (auto it = graph_.metadata.find("onnx.input_dims"); it != graph_.metadata.end()) m.inputDims = it->second;
    m.threads = spec_.threads;
    m.machine = hostCpu().label();
    try {
        TorchProgram program(graph_, constants_, spec_.seed);
        const nlohmann::json tuned = spec_.params.value("tuned_costs", nlohmann::json::object());
        const auto order = graph_.topologicalOrder();
        const bool isolated = spec_.params.value("isolated", false);
        std::vector<std::vector<double>> samples;
        if (!isolated) {
            // Whole forward passes, each op timed where a run meets it (the default).
            for (int p = 0; p < warmup + repeats; ++p) {
                if (cancel && cancel->isCancelled()) {
                    out.runStatus = RunStatus::Cancelled;
                    break;
                }
                const auto one = program.timeForwardPasses(0, 1);
                if (samples.empty()) samples.resize(one.size());
                if (p >= warmup)  // a warm-up pass's times are dropped
                    for (size_t v = 0; v < one.size(); ++v) samples[v].insert(samples[v].end(), one[v].begin(), one[v].end());
                ProgressEvent e;
                e.step = p + 1;
                e.evaluations = p + 1;
                e.elapsedS = elapsed();
                e.values = {{"pass", p + 1}, {"passes", warmup + repeats}, {"warmup", p < warmup}};
                reporter.report(e);
            }
        }
        int64_t step = 0;
        for (int v : order) {
            if (cancel && cancel->isCancelled()) {
                out.runStatus = RunStatus::Cancelled;
                break;
            }
            const Node& n = graph_.nodes()[size_t(v)];
            if (!program.whyNotRun(v).empty()) {
                m.notProfiled.push_back({n.name, n.op, program.whyNotRun(v)});
            } else {
                std::vector<double> more;
                if (isolated) {
                    std::vector<double> s = program.timeNode(v, warmup, 1);
                    // Enough calls for 20 ms on the node (a 10 us op gets 1,000; a 20 ms conv the minimum).
                    const int want = std::clamp(int(0.02 / std::max(s[0], 1e-7)), repeats, 1000);
                    more = program.timeNode(v, 0, want);
                } else {
                    more = samples[size_t(v)];
                }
                if (more.empty()) continue;  // cancelled before a timed pass
                std::sort(more.begin(), more.end());
                MeasuredOpCost c;
                c.medianS = more[more.size() / 2];
                c.minS = more.front();
                c.maxS = more.back();
                c.repeats = int(more.size());
                if (tuned.contains(n.name)) {
                    c.medianS = tuned[n.name].value("seconds", c.medianS);
                    c.source = "tuned run " + std::to_string(tuned[n.name].value("run", int64_t(0))) + " (libtorch " +
                               std::to_string(more[more.size() / 2] * 1e3) + " ms)";
                }
                m.costs[n.name] = c;
            }
            ++step;
            if (isolated) {
                ProgressEvent e;
                e.step = step;
                e.evaluations = step;
                e.bestCost = m.totalS();
                e.elapsedS = elapsed();
                e.values = {{"node", n.name}, {"op", n.op}, {"nodes", order.size()}};
                reporter.report(e);
            }
        }
        m.method = isolated ? "isolated" : "forward-passes";
    } catch (...) {
        setTorchThreads(previous);
        throw;
    }
    setTorchThreads(previous);
    m.loaded = machineLoaded(spec_.threads);
    out.wallS = elapsed();
    return out;
}

bool machineLoaded(int threadsInUse) {
    double load1 = 0;
    if (FILE* f = std::fopen("/proc/loadavg", "r")) {
        if (std::fscanf(f, "%lf", &load1) != 1) load1 = 0;
        std::fclose(f);
    }
    // This process's own threads count in the load; more than half a core's worth beyond them is
    // someone else.
    return load1 > double(threadsInUse) + 0.5;
}

}  // namespace graphopt::exec
