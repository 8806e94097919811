#include "tuning/TuningRun.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "graph/Graph.h"
#include "tuning/HalideMeasurer.h"
#include "tuning/SimulatedMeasurer.h"
#include "tuning/TemplateSpace.h"

namespace graphopt::tuning {

const EngineDescription& tuningRunDescription() {
    static const EngineDescription d{
        "tuning",
        "Kernel tuning of one task of a model: a tuner proposes configurations, a measurer times them",
        {
            ParamSpec::integer("task_index", 0, 0, 1000000, "the task, as numbered by `graphopt tasks MODEL`"),
            ParamSpec::choice("measurer", "halide", {"halide", "sim"},
                              "halide: real Halide kernels timed on this CPU; sim: the simulated CPU"),
            ParamSpec::integer("batch_size", 8, 1, 4096, "configurations proposed and measured together"),
            ParamSpec::object("tuner_params", "the tuner's own parameters"),
            ParamSpec::number("min_time", 0.05, 0, 60, "halide: timed runs per measurement add up to this (s)"),
            ParamSpec::number("timeout", 20, 0.1, 3600, "halide: limit per measurement (s)"),
            ParamSpec::string("worker", "", "halide: the measure worker binary [default: beside the program]"),
            ParamSpec::string("task", "", "the task's description (recorded; must match task_index when given)"),
            ParamSpec::choice("template", "", {"tiled", "packed", "nchw"},
                              "conv template: tiled (multi-level tiles over NCHW[x]c), packed NCHW[x]c or the plain "
                              "NCHW one [default: tiled with halide, nchw with sim]"),
        }};
    return d;
}

std::unique_ptr<Measurer> makeMeasurer(const RunSpec& spec) {
    const nlohmann::json& p = spec.params;
    if (p.value("measurer", std::string("halide")) == "sim") return std::make_unique<SimulatedMeasurer>(spec.seed);
    HalideMeasurerOptions o;
    o.minTimeS = p.value("min_time", o.minTimeS);
    o.timeoutS = p.value("timeout", o.timeoutS);
    o.workerPath = p.value("worker", std::string());
    return std::make_unique<HalideMeasurer>(o);
}

int TuningResult::failures() const {
    int n = 0;
    for (const auto& m : measurements) n += !m.ok;
    return n;
}

RunSpec TuningResult::spec() const {
    RunSpec s;
    s.engine = tuner;
    s.kind = "tuning";
    s.objective = "latency";
    s.budget = options.budget;
    s.seed = options.seed;
    s.params = {{"measurer", measurer}, {"batch_size", options.batchSize}, {"task", task.describe()}};
    return s;
}

nlohmann::json TuningResult::toJson() const {
    KnobSpace space;
    bool haveSpace = true;
    try {
        space = templateSpace(task);
    } catch (const std::exception&) {
        haveSpace = false;
    }
    nlohmann::json j;
    j["task"] = task.toJson();
    j["tuner"] = tuner;
    j["measurer"] = measurer;
    j["seed"] = options.seed;
    j["budget"] = options.budget;
    j["batch_size"] = options.batchSize;
    j["status"] = runStatusName(runStatus);
    if (!failure.empty()) j["error"] = failure;
    j["elapsed_s"] = elapsedS;
    j["space_size"] = haveSpace ? space.size() : 0;
    j["best_gflops"] = bestGflops();
    j["best_latency_s"] = bestLatencyS();
    j["failures"] = failures();
    if (hasBest()) {
        const ConfigIndex c = measurements[best].config;
        j["best_config_index"] = c;
        j["best_config"] = haveSpace ? space.describe(c) : nlohmann::json(c);
    } else {
        j["best_config_index"] = nullptr;
        j["best_config"] = nullptr;
    }
    nlohmann::json ms = nlohmann::json::array();
    for (const auto& m : measurements) {
        nlohmann::json e = {{"config", m.config}, {"ok", m.ok},       {"latency_s", m.latencyS},
                            {"gflops", m.gflops}, {"compile_s", m.compileS}, {"repeats", m.repeats}};
        if (!m.error.empty()) e["error"] = m.error;
        if (haveSpace) e["knobs"] = space.describe(m.config);
        e["batch"] = m.batch;
        e["elapsed_s"] = m.elapsedS;
        if (m.cluster) e["cluster"] = *m.cluster;
        ms.push_back(std::move(e));
    }
    j["measurements"] = std::move(ms);
    return j;
}

RunResult TuningResult::toRunResult() const {
    RunResult r;
    r.costs = toJson();
    r.costs.erase("measurements");
    if (hasBest()) r.cost = bestLatencyS();
    return r;
}

TuningRun::TuningRun(const Graph& graph, RunSpec spec, std::string modelPath, Measurer* measurer)
    : spec_(std::move(spec)), graph_(&graph), modelPath_(std::move(modelPath)) {
    spec_.kind = "tuning";
    spec_.objective = "latency";
    if (spec_.engine.empty()) spec_.engine = "random";
    const EngineDescription& d = tuningRunDescription();
    checkParams("tuning", d.params, spec_.params);
    nlohmann::json p = d.defaults();
    for (auto it = spec_.params.begin(); it != spec_.params.end(); ++it) p[it.key()] = it.value();
    const std::string measurerName = p["measurer"].get<std::string>();
    if (measurerName != "halide" && measurerName != "sim")
        throw std::invalid_argument("tuning: measurer must be halide or sim, not '" + measurerName + "'");
    const auto tasks = extractTasks(graph);
    if (tasks.empty())
        throw std::invalid_argument((modelPath_.empty() ? std::string("the graph") : modelPath_) +
                                    ": no tunable operators (Conv, Gemm, MatMul)");
    const int64_t index = p["task_index"].get<int64_t>();
    if (index >= int64_t(tasks.size()))
        throw std::invalid_argument("tuning: task_index must be between 0 and " + std::to_string(tasks.size() - 1) +
                                    ", not " + std::to_string(index));
    task_ = tasks[size_t(index)];
    // Real measurements use the tiled conv template unless told otherwise; the simulated CPU
    // models the NCHW one.
    const std::string templ = p.value("template", std::string(measurerName == "halide" ? "tiled" : "nchw"));
    task_ = withTemplate(task_, templ);
    spec_.params["template"] = templ;
    if (spec_.params.contains("task") && spec_.params["task"].get<std::string>() != task_.describe())
        throw std::invalid_argument("tuning: task " + std::to_string(index) + " is " + task_.describe() + ", not " +
                                    spec_.params["task"].get<std::string>());
    spec_.params["task_index"] = index;
    spec_.params["task"] = task_.describe();
    spec_.params["measurer"] = measurerName;
    if (spec_.budget < 1) throw std::invalid_argument("tuning: the budget is at least 1 measurement");
    options_.budget = spec_.budget;
    options_.batchSize = p["batch_size"].get<int>();
    options_.seed = spec_.seed;
    const nlohmann::json tunerParams = p.value("tuner_params", nlohmann::json::object());
    tuner_ = makeTuner(spec_.engine, task_, spec_.seed, tunerParams.is_null() ? nlohmann::json::object() : tunerParams);
    if (measurer) {
        measurer_ = measurer;
    } else {
        ownMeasurer_ = makeMeasurer(spec_);
        measurer_ = ownMeasurer_.get();
    }
    if (measurer_->name() != measurerName)
        throw std::invalid_argument("tuning: the given measurer is '" + measurer_->name() + "', the spec says '" +
                                    measurerName + "'");
}

TuningRun::TuningRun(TuningTask task, Measurer& measurer, std::unique_ptr<Tuner> tuner, TuningRunOptions options)
    : task_(std::move(task)), measurer_(&measurer), tuner_(std::move(tuner)), options_(options) {
    if (!tuner_) throw std::invalid_argument("TuningRun needs a tuner");
    if (options_.budget < 0 || options_.batchSize < 1)
        throw std::invalid_argument("TuningRun: budget must be >= 0 and batch size >= 1");
    spec_ = TuningResult{}.spec();
    spec_.engine = tuner_->name();
    spec_.budget = options_.budget;
    spec_.seed = options_.seed;
    spec_.params = {{"measurer", measurer.name()}, {"batch_size", options_.batchSize}, {"task", task_.describe()}};
}

std::unique_ptr<RunOutcome> TuningRun::execute(const RunReporter& reporter, const CancellationToken* cancel) {
    return std::make_unique<TuningResult>(run(reporter, cancel));
}

TuningResult TuningRun::run(const RunReporter& reporter, const CancellationToken* cancel) {
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
    TuningResult res;
    res.task = task_;
    res.tuner = tuner_->name();
    res.measurer = measurer_->name();
    res.options = options_;
    const std::string taskName = task_.describe();
    const KnobSpace& space = tuner_->space();
    int batch = 0;
    while (static_cast<int64_t>(res.measurements.size()) < options_.budget) {
        if (cancel && cancel->isCancelled()) {
            res.runStatus = RunStatus::Cancelled;
            break;
        }
        const int64_t left = options_.budget - static_cast<int64_t>(res.measurements.size());
        const std::vector<ConfigIndex> configs =
            tuner_->proposeBatch(static_cast<int>(std::min<int64_t>(left, options_.batchSize)));
        if (configs.empty()) break;  // the tuner has nothing left (space exhausted)
        ++batch;
        std::vector<MeasureResult> results;
        try {
            results = measurer_->measure(task_, configs);
        } catch (const std::exception& e) {
            res.runStatus = RunStatus::Failed;
            res.failure = e.what();
            break;
        }
        nlohmann::json tunerInfo = tuner_->lastBatchInfo();
        tuner_->observe(results);
        nlohmann::json cfgs = nlohmann::json::array(), gf = nlohmann::json::array(), ok = nlohmann::json::array(),
                       clusters = nlohmann::json::array();
        bool anyCluster = false;
        for (const auto& r : results) {
            TuningMeasurement m;
            m.task = taskName;
            m.config = r.config;
            m.knobs = space.describeText(r.config);
            m.ok = r.ok;
            m.latencyS = r.latencyS;
            m.gflops = r.gflops;
            m.compileS = r.compileS;
            m.repeats = r.repeats;
            m.error = r.error;
            m.cluster = tuner_->clusterOf(r.config);
            m.batch = batch;
            m.elapsedS = elapsed();
            anyCluster |= m.cluster.has_value();
            clusters.push_back(m.cluster ? nlohmann::json(*m.cluster) : nlohmann::json());
            res.measurements.push_back(m);
            const int i = static_cast<int>(res.measurements.size()) - 1;
            if (r.ok && (res.best < 0 || r.latencyS < res.measurements[res.best].latencyS)) res.best = i;
            cfgs.push_back(r.config);
            gf.push_back(r.gflops);
            ok.push_back(r.ok);
            reporter.measured(m);
        }
        reporter.commit();  // the batch's measurements are durable before the run goes on
        ProgressEvent ev;
        ev.step = batch;
        ev.evaluations = static_cast<int64_t>(res.measurements.size());
        ev.bestCost = res.bestLatencyS();
        ev.elapsedS = elapsed();
        ev.values = {{"best_gflops", res.bestGflops()}, {"batch_configs", cfgs}, {"batch_gflops", gf}, {"batch_ok", ok}};
        if (anyCluster) ev.values["batch_clusters"] = std::move(clusters);
        if (!tunerInfo.is_null()) ev.values["tuner"] = std::move(tunerInfo);
        reporter.report(ev);
    }
    if (res.runStatus == RunStatus::Running) res.runStatus = RunStatus::Finished;
    res.elapsedS = elapsed();
    return res;
}

}  // namespace graphopt::tuning
