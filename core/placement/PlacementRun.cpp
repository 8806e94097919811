#include "placement/PlacementRun.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "placement/PlacementEngines.h"

namespace graphopt {

namespace {
// No devices named: the graph's own setup when it brings one (a NeurIPS workload), else the
// default preset; DeviceModel::kFromModel insists on the graph's own.
DeviceModel devicesFor(const Graph& graph, const std::string& devices) {
    if (devices.empty() || devices == DeviceModel::kFromModel) {
        if (auto own = DeviceModel::fromGraph(graph)) return *own;
        if (!devices.empty())
            throw std::invalid_argument("graph '" + graph.name + "' brings no device setup of its own; choose devices");
        return DeviceModel::preset(DeviceModel::defaultPresetName());
    }
    return DeviceModel::load(devices);
}
}  // namespace

PlacementRun::PlacementRun(const Graph& graph, RunSpec spec, std::string modelPath)
    : PlacementRun(graph, spec, devicesFor(graph, spec.devices), std::move(modelPath)) {}

PlacementRun::PlacementRun(const Graph& graph, RunSpec spec, DeviceModel devices, std::string modelPath)
    : graph_(graph), spec_(std::move(spec)), devices_(std::move(devices)), modelPath_(std::move(modelPath)) {
    if (spec_.kind.empty()) spec_.kind = "placement";
    if (spec_.objective.empty()) spec_.objective = "runtime";
    if (spec_.engine.empty()) spec_.engine = "brkga";
    if (spec_.devices.empty()) spec_.devices = devices_.name;
    objectiveFromName(spec_.objective);   // validates
    // The engine must know every parameter, with the right type and in range.
    std::vector<ParamSpec> known = placementRunParams();
    for (const auto& p : describePlacementEngine(spec_.engine).params) known.push_back(p);  // validates the name
    checkParams(spec_.engine, known, spec_.params);
    if (spec_.budget < 0) throw std::invalid_argument("budget must be >= 0");
    if (devices_.deviceCount() < 1) throw std::invalid_argument("the device model has no devices");
}

std::unique_ptr<RunOutcome> PlacementRun::execute(const RunReporter& reporter, const CancellationToken* cancel) {
    return std::make_unique<PlacementResult>(run(reporter, cancel));
}

std::shared_ptr<ScheduleProblem> compilePlacementProblem(const Graph& graph, const DeviceModel& devices,
                                                         const RunSpec& spec) {
    ScheduleOptions opts;
    opts.objective = objectiveFromName(spec.objective);
    opts.countWeights = spec.params.value("count_weights", true);
    opts.microBatches = spec.params.value("micro_batches", 1);
    auto compiled = std::make_shared<ScheduleProblem>(graph, devices, opts);
    // Measured costs (a profile's cost file, the tuning engine) replace the model's estimate for
    // those nodes, scaled per device like any given cost, on the devices of the kind measured.
    if (spec.params.contains("measured_costs_s")) {
        const auto& measured = spec.params["measured_costs_s"];
        if (!measured.is_object()) throw std::invalid_argument("params.measured_costs_s must map node names to seconds");
        const std::string kind = spec.params.value("measured_costs_kind", std::string());
        std::vector<int> takers;
        for (int k = 0; k < compiled->d; ++k)
            if (kind.empty() || devices.devices[size_t(k)].kind == kind) takers.push_back(k);
        if (takers.empty())
            throw std::invalid_argument("the costs were measured on devices of kind '" + kind + "', and none of " +
                                        devices.name + "'s devices is of that kind");
        for (auto it = measured.begin(); it != measured.end(); ++it) {
            const int v = graph.findNode(it.key());
            if (v < 0) throw std::invalid_argument("params.measured_costs_s names unknown node '" + it.key() + "'");
            if (!it.value().is_number() || it.value().get<double>() < 0)
                throw std::invalid_argument("params.measured_costs_s['" + it.key() + "'] must be a number >= 0");
            for (int k : takers)
                compiled->opCost[size_t(v) * compiled->d + k] = it.value().get<double>() / devices.devices[size_t(k)].speedFactor;
        }
    }
    compiled->computeCostBound();  // the costs are final: the infeasibility penalty's scale,
    compiled->preparePipeline();   // and the pipeline copies them
    return compiled;
}

PlacementResult PlacementRun::run(const RunReporter& reporter, const CancellationToken* cancel) {
    const auto t0 = std::chrono::steady_clock::now();
    auto compiled = compilePlacementProblem(graph_, devices_, spec_);
    const ScheduleOptions& opts = compiled->options;
    std::shared_ptr<const ScheduleProblem> problem = compiled;

    int threads = spec_.threads > 0 ? spec_.threads : int(std::max(1u, std::thread::hardware_concurrency()));
    SearchContext ctx{graph_, devices_, problem, 0, 1, 1, {}, {}, nullptr, t0, {}, nullptr};
    ctx.budget = spec_.budget;
    ctx.seed = spec_.seed;
    ctx.threads = threads;
    ctx.params = spec_.params;
    ctx.progress = reporter.progress;
    ctx.cancel = cancel;
    ctx.started = t0;

    // The result for a chromosome: the simulator decodes it once more, with the full schedule.
    auto resultFor = [&](std::span<const double> keys) {
        PlacementResult r;
        r.engine = spec_.engine;
        r.objective = spec_.objective;
        r.devices = devices_.name;
        r.budget = spec_.budget;
        r.seed = spec_.seed;
        r.countWeights = opts.countWeights;
        for (const auto& n : graph_.nodes()) r.nodeNames.push_back(n.name);
        for (const auto& d : devices_.devices) r.deviceNames.push_back(d.name);
        ScheduleSimulator sim(problem);
        if (keys.size() != sim.keyCount())
            throw std::logic_error("placement engine '" + spec_.engine + "' returned a chromosome of the wrong length");
        const ScheduleCosts c = sim.simulate(keys, &r.schedule);
        r.placement.assign(sim.placement().begin(), sim.placement().end());
        r.order = r.schedule.order;
        r.cost = c.cost;
        r.runtimeS = c.makespan;
        r.peakBytes = c.peakBytes;
        r.devicePeakBytes = r.schedule.devicePeakBytes;
        r.feasible = c.feasible;
        r.microBatches = opts.microBatches;
        r.throughputS = sim.maxLoad(r.placement);
        for (int k = 0; k < problem->d; ++k) {
            const int64_t peak = k < int(r.devicePeakBytes.size()) ? r.devicePeakBytes[k] : 0;
            r.deviceCapacityBytes.push_back(problem->capacity[k]);
            r.overLimitBytes.push_back(std::max<int64_t>(0, peak - problem->capacity[k]));
        }
        return r;
    };
    if (reporter.step)
        ctx.step = [&](int64_t step, int64_t evaluations, std::span<const double> bestKeys) {
            PlacementResult best = resultFor(bestKeys);
            best.evaluations = evaluations;
            best.engineInfo = {{"step", step}};
            best.wallS = ctx.elapsedS();
            reporter.stepped(best);
        };

    SearchOutcome outcome = findPlacementEngine(spec_.engine)(ctx);

    PlacementResult r = resultFor(outcome.keys);
    r.evaluations = outcome.evaluations;
    r.cancelled = outcome.cancelled;
    r.engineInfo = outcome.info;
    r.wallS = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

}  // namespace graphopt
