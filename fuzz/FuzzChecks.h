// What each fuzz target does with one input file, shared by the libFuzzer targets (fuzz_*.cpp,
// clang + sanitizers) and by FuzzRegressionTest (tests/fuzz/, the normal build), which runs every
// file of tests/data/fuzz-regressions/TARGET through the same check.
//
// A check calls the loader and catches the exceptions the loader documents (a clear refusal).
// When the loader accepts the input, the check goes on as the program would with it (for a graph:
// the totals `graphopt info` prints, the native JSON round trip, a schedule per objective). Any
// other exception escapes, and a broken promise throws Finding; in a fuzzer both end the process
// (an uncaught exception aborts), so libFuzzer keeps the input, as for a crash, a sanitizer
// report, a timeout or running out of memory.
#pragma once

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "graph/Graph.h"
#include "graph/GraphError.h"
#include "graph/Loaders.h"
#include "placement/model/DeviceModel.h"
#include "placement/regal/RegalPolicy.h"
#include "placement/model/ScheduleDetail.h"
#include "placement/model/ScheduleProblem.h"
#include "placement/model/ScheduleSimulator.h"
#include "placement/partitioners/Partitioners.h"
#include "graph/LayeredLayout.h"
#include "graph/ScopeFolding.h"
#include "tuning/Task.h"
#include "tuning/Tuner.h"
#if GRAPHOPT_FUZZ_WITH_TORCH
#include "placement/regal/RegalEngine.h"
#include "tuning/LearnedTuners.h"
#endif

namespace graphopt::fuzz {

// A promise broken without a crash: the message says which.
struct Finding : std::logic_error {
    using std::logic_error::logic_error;
};

// Bigger graphs are loaded and checked but not simulated or saved (keeps every run short).
constexpr size_t kMaxExercisedNodes = 4000;

// A diamond with a graph input, a weight and temporaries: enough for every link and memory rule
// of the simulator to matter.
inline const Graph& diamondGraph() {
    static const Graph g = [] {
        Graph g;
        g.name = "diamond";
        auto tensor = [&](const char* name, TensorKind kind, int64_t bytes) {
            Tensor t;
            t.name = name;
            t.kind = kind;
            t.bytes = bytes;
            return g.addTensor(t);
        };
        const int x = tensor("x", TensorKind::GraphInput, 4096);
        const int w = tensor("w", TensorKind::Weight, 1 << 20);
        const int a = tensor("a", TensorKind::Activation, 1 << 16);
        const int b = tensor("b", TensorKind::Activation, 1 << 18);
        const int c = tensor("c", TensorKind::Activation, 1 << 12);
        const int y = tensor("y", TensorKind::Activation, 4096);
        auto node = [&](const char* name, std::vector<int> in, int out, double flops, int64_t temp) {
            Node n;
            n.name = name;
            n.op = "Op";
            n.inputs = std::move(in);
            n.outputs = {out};
            n.flops = flops;
            n.tempBytes = temp;
            g.addNode(n);
        };
        node("n0", {x, w}, a, 1e9, 1 << 10);
        node("n1", {a}, b, 3e8, 0);
        node("n2", {a, w}, c, 5e9, 1 << 20);
        node("n3", {b, c}, y, 1e6, 0);
        g.mutableTensors()[y].isGraphOutput = true;
        g.finalize();
        g.validate();
        return g;
    }();
    return g;
}

// One decoding per objective, as `graphopt place` does: evaluate() (the search's fast path) and
// simulate() (memory tracked, the detail the views draw) must agree on the makespan.
inline void simulate(const Graph& g, const DeviceModel& devices) {
    if (g.nodeCount() == 0 || g.nodeCount() > kMaxExercisedNodes) return;
    for (PlacementObjective objective : {PlacementObjective::Runtime, PlacementObjective::Memory}) {
        ScheduleOptions options;
        options.objective = objective;
        std::shared_ptr<const ScheduleProblem> problem;
        try {
            problem = std::make_shared<const ScheduleProblem>(g, devices, options);
        } catch (const std::invalid_argument&) {
            return;  // documented refusal
        }
        ScheduleSimulator sim(problem);
        // Deterministic keys that spread the nodes over the devices and vary their priorities.
        std::vector<double> keys(sim.keyCount());
        for (size_t i = 0; i < keys.size(); ++i) keys[i] = double((i * 2654435761u) % 1000) / 1000.0;
        const ScheduleCosts fast = sim.evaluate(keys);
        ScheduleDetail detail;
        const ScheduleCosts full = sim.simulate(keys, &detail);
        if (!(fast.makespan == full.makespan)) throw Finding("evaluate() and simulate() disagree on the makespan");
        if (full.peakBytes < 0) throw Finding("negative peak memory");
        if (std::isnan(full.cost)) throw Finding("a NaN schedule cost");
    }
}

// The partitioners on a workload, with their own devices, for throughput: each returns a full
// placement, and dp-contiguous's max-load (its block model) is the simulator's for it (the
// workloads give every transfer time, so the two must agree). Few ideals, no time limit: the same
// input takes the same path on every machine.
inline void partition(const Graph& g, const DeviceModel& devices) {
    if (g.nodeCount() == 0 || g.nodeCount() > 400) return;
    ScheduleOptions options;
    options.objective = PlacementObjective::Throughput;
    std::shared_ptr<const ScheduleProblem> problem;
    try {
        problem = std::make_shared<const ScheduleProblem>(g, devices, options);
    } catch (const std::invalid_argument&) {
        return;  // documented refusal
    }
    using Engine = SearchOutcome (*)(const SearchContext&);
    const std::pair<const char*, Engine> engines[] = {{"dp-contiguous", dpContiguousEngine},
                                                      {"pipedream", pipeDreamEngine},
                                                      {"m-topo", mTopoEngine},
                                                      {"m-etf", mEtfEngine},
                                                      {"greedy-latency", greedyLatencyEngine}};
    ScheduleSimulator sim(problem);
    for (const auto& [name, engine] : engines) {
        SearchContext ctx{g, devices, problem};
        ctx.budget = 10;
        ctx.params = {{"max_ideals", 300}, {"time_limit_s", 86400}};
        if (std::string(name) != "dp-contiguous") ctx.params = nlohmann::json::object();
        const SearchOutcome out = engine(ctx);
        if (out.keys.size() != sim.keyCount()) throw Finding(std::string(name) + " returned keys of the wrong size");
        const int d = problem->d;
        std::vector<int> placement(problem->n);
        for (int v = 0; v < problem->n; ++v) {
            const double* k = out.keys.data() + size_t(v) * (d + 1);
            placement[v] = int(std::max_element(k, k + d) - k);
        }
        const ScheduleCosts c = sim.evaluate(out.keys);
        if (std::isnan(c.cost)) throw Finding(std::string(name) + ": a NaN cost");
        if (out.info.contains("max_load_s")) {
            const double dp = out.info["max_load_s"].get<double>(), load = sim.maxLoad(placement);
            if (std::abs(dp - load) > 1e-9 * std::max(1.0, load))
                throw Finding(std::string(name) + "'s max-load " + std::to_string(dp) + " is not the simulator's " +
                              std::to_string(load));
        }
    }
}

// What the graph view does with it: the fast layout (every node a finite box, every edge routed
// or a stub) and folding by scope (every node shown by exactly one item).
inline void drawing(const Graph& g) {
    const GraphLayout l = layoutGraphFast(g);
    if (l.nodes.size() != g.nodeCount()) throw Finding("the fast layout lost nodes");
    for (const NodeBox& b : l.nodes)
        if (!std::isfinite(b.x) || !std::isfinite(b.y) || b.x < 0 || b.y < 0) throw Finding("a box off the drawing");
    for (const EdgeRoute& e : l.edges)
        if (e.points.size() < 2) throw Finding("an edge without a route");
    ScopeFolding folding(g);
    folding.foldToFit(0, 20);
    const FoldedView v = folding.view();
    size_t shown = 0;
    for (const auto& m : v.members) shown += m.size();
    if (shown != g.nodeCount()) throw Finding("folding by scope shows " + std::to_string(shown) + " of " + std::to_string(g.nodeCount()) + " nodes");
    (void)layeredLayout(layeredInput(g, folding.tree(), v));
    for (const Node& n : g.nodes()) (void)elideScopedName(n.name, 12);
}

// What the program does with a graph a loader accepted.
inline void exerciseGraph(const Graph& g, const std::string& scratch) {
    if (g.activationBytes() < 0 || g.weightBytes() < 0 || g.inputBytes() < 0) throw Finding("a negative byte total");
    (void)g.totalFlops();
    if (g.nodeCount() > kMaxExercisedNodes) return;
    // Every graph is saved as native JSON by the GUI and `graphopt generate`; it must load again.
    bool saved = false;
    try {
        saveJson(g, scratch);
        saved = true;
    } catch (const GraphError&) {
        // documented: names that are not valid UTF-8, a non-finite cost
    }
    if (saved) {
        try {
            const Graph back = loadJson(scratch);
            if (back.nodeCount() != g.nodeCount() || back.tensorCount() != g.tensorCount())
                throw Finding("the JSON round trip changed the graph's size");
        } catch (const GraphError& e) {
            throw Finding(std::string("a graph saved as JSON does not load again: ") + e.what());
        }
        std::remove(scratch.c_str());
    }
    simulate(g, DeviceModel::preset("2xgpu-pcie"));
    drawing(g);
}

// Where the JSON round trip writes: the temporary directory, one file per process, under a name
// that is the same in every process (no pid: see workFolder() in FuzzSupport.h).
inline std::string scratchPath() {
    static std::string path;
    if (path.empty()) {
        std::string pattern = (std::filesystem::temp_directory_path() / "graphopt-fuzz-roundtrip-XXXXXX").string();
        if (!::mkdtemp(pattern.data())) throw std::runtime_error(pattern + ": cannot make a scratch folder");
        path = pattern + "/roundtrip.json";
        static const std::string dir = pattern;
        std::atexit([] {
            std::error_code ec;
            std::filesystem::remove_all(dir, ec);
        });
    }
    return path;
}

// The graph loaders: GraphError is their documented refusal.
template <class Load>
void checkGraphLoader(const std::string& path, Load load) {
    std::optional<Graph> g;
    try {
        g.emplace(load(path));
    } catch (const GraphError&) {
        return;
    }
    exerciseGraph(*g, scratchPath());
}
inline void checkOnnx(const std::string& path) { checkGraphLoader(path, [](const std::string& p) { return loadOnnx(p); }); }
inline void checkCostGraph(const std::string& path) { checkGraphLoader(path, loadCostGraphText); }
inline void checkDot(const std::string& path) { checkGraphLoader(path, loadDot); }
inline void checkJsonGraph(const std::string& path) { checkGraphLoader(path, loadJson); }

// The partitioning workloads. A NeurIPS 2020 file brings its own machine: the device setup it
// wrote must be one DeviceModel accepts, and the graph is scheduled on it as `graphopt place` does.
inline void checkNeurips(const std::string& path) {
    std::optional<Graph> g;
    try {
        g.emplace(loadNeuripsWorkload(path));
    } catch (const GraphError&) {
        return;
    }
    std::optional<DeviceModel> own;
    try {
        own = DeviceModel::fromGraph(*g);
    } catch (const std::invalid_argument& e) {
        throw Finding(std::string("a loaded workload's device setup is refused: ") + e.what());
    }
    if (!own) throw Finding("a loaded NeurIPS workload has no device setup");
    exerciseGraph(*g, scratchPath());
    simulate(*g, *own);
    partition(*g, *own);
}
// A PipeDream profile, read for inference and for training (the same lines, other costs).
inline void checkPipeDream(const std::string& path) {
    checkGraphLoader(path, [](const std::string& p) { return loadPipeDreamProfile(p, false); });
    checkGraphLoader(path, [](const std::string& p) { return loadPipeDreamProfile(p, true); });
    try {
        partition(loadPipeDreamProfile(path, true), DeviceModel::preset("4xgpu-nvlink"));
    } catch (const GraphError&) {
    }
}

// Device model files (`--devices FILE`): std::invalid_argument is the refusal. An accepted model's
// JSON form must load again, and a small graph is placed on it.
inline void checkDevices(const std::string& path) {
    std::optional<DeviceModel> m;
    try {
        m.emplace(DeviceModel::loadFile(path));
    } catch (const std::invalid_argument&) {
        return;
    }
    try {
        const DeviceModel again = DeviceModel::fromJson(m->toJson());
        if (again.deviceCount() != m->deviceCount()) throw Finding("the device model's JSON form has other devices");
    } catch (const std::invalid_argument& e) {
        throw Finding(std::string("an accepted device model's JSON form is refused: ") + e.what());
    }
    simulate(diamondGraph(), *m);
}

// REGAL policy files (`--policy FILE`): std::invalid_argument is the refusal. With LibTorch, the
// whole of regal::loadPolicyModel (header, config, then the network built from the config and its
// parameters set from the file) and what the regal engine does next: features of a small graph on
// a device model with the policy's device count, a prediction, the greedy action, its key bias.
// Without LibTorch, regal::readPolicyFile: everything parsed before the network exists.
inline void checkPolicy(const std::string& path) {
#if GRAPHOPT_FUZZ_WITH_TORCH
    std::unique_ptr<regal::PolicyModel> model;
    try {
        model = regal::loadPolicyModel(path);
    } catch (const std::invalid_argument&) {
        return;
    }
    std::vector<DeviceSpec> specs(size_t(model->config().devices));
    for (size_t i = 0; i < specs.size(); ++i) specs[i].name = "gpu" + std::to_string(i);
    const DeviceModel devices("fuzz", specs, LinkSpec{});
    const Graph& g = diamondGraph();
    const auto problem = std::make_shared<const ScheduleProblem>(g, devices, ScheduleOptions{});
    const regal::PolicyOutput out = model->predict(regal::extractFeatures(g, devices, *problem));
    for (float p : out.betaProbs)
        if (!(p >= 0 && p <= 1)) throw Finding("a policy predicted a probability outside [0, 1]");
    (void)regal::biasFromAction(regal::greedyAction(out), out.keysPerNode);
#else
    try {
        (void)regal::readPolicyFile(path);
    } catch (const std::invalid_argument&) {
    }
#endif
}

// Tuner parameters (`graphopt tune --tuner-params JSON`, the GUI's Parameters field): the text goes
// through what the CLI does with the option (not JSON, or not an object, is a usage error), then
// every registered tuner is built with it on a small conv task (std::invalid_argument is the
// refusal) and, when it accepts, asked for a first batch.
inline void checkTunerParams(const std::string& path) {
    using namespace tuning;
#if GRAPHOPT_FUZZ_WITH_TORCH
    static const bool registered = (registerLearnedTuners(), true);  // release
    (void)registered;
#endif
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    nlohmann::json params;
    try {
        params = nlohmann::json::parse(text.str());
    } catch (const nlohmann::json::exception&) {
        return;
    }
    if (!params.is_object()) return;
    static const TuningTask task = makeConv2d(1, 16, 14, 14, 16, 3, 1, 1);
    for (const std::string& name : tunerNames()) {
        std::unique_ptr<Tuner> tuner;
        try {
            tuner = makeTuner(name, task, 1, params);
        } catch (const std::invalid_argument&) {
            continue;
        }
        for (ConfigIndex c : tuner->proposeBatch(2))
            if (c >= tuner->space().size()) throw Finding(name + " proposed a configuration outside its space");
    }
}

// Every fuzz target: its name (fuzz/fuzz_NAME.cpp, tests/data/fuzz-regressions/NAME/), the
// extension its input file gets (as GRAPHOPT_FUZZ_TARGET in that file gives it) and its check.
// For the programs that run checks by name: FuzzRegressionTest and fuzz_replay.
struct Target {
    const char* name;
    const char* extension;
    std::function<void(const std::string&)> check;
};

inline const std::vector<Target>& targets() {
    static const std::vector<Target> t = {
        {"onnx", ".onnx", checkOnnx},       {"costgraph", ".pbtxt", checkCostGraph},
        {"dot", ".dot", checkDot},          {"json_graph", ".json", checkJsonGraph},
        {"neurips", ".json", checkNeurips}, {"pipedream", ".txt", checkPipeDream},
        {"devices", ".json", checkDevices}, {"policy", ".json", checkPolicy},
        {"tuner_params", ".json", checkTunerParams},
    };
    return t;
}

}  // namespace graphopt::fuzz
