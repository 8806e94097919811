#include "tuning/TuningRun.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "tuning/TemplateSpace.h"

namespace graphopt::tuning {

int TuningResult::failures() const {
    int n = 0;
    for (const auto& m : measurements) n += !m.result.ok;
    return n;
}

RunSpec TuningResult::spec() const {
    RunSpec s;
    s.engine = tuner;
    s.kind = "tuning";
    s.objective = "latency";
    s.budget = options.budget;
    s.seed = options.seed;
    s.params = {{"measurer", measurer}, {"batch_size", options.batchSize}, {"task", task.toJson()}};
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
    j["status"] = runStatusName(status);
    if (!error.empty()) j["error"] = error;
    j["elapsed_s"] = elapsedS;
    j["space_size"] = haveSpace ? space.size() : 0;
    j["best_gflops"] = bestGflops();
    j["best_latency_s"] = bestLatencyS();
    j["failures"] = failures();
    if (hasBest()) {
        const ConfigIndex c = measurements[best].result.config;
        j["best_config_index"] = c;
        j["best_config"] = haveSpace ? space.describe(c) : nlohmann::json(c);
    } else {
        j["best_config_index"] = nullptr;
        j["best_config"] = nullptr;
    }
    nlohmann::json ms = nlohmann::json::array();
    for (const auto& m : measurements) {
        nlohmann::json e = m.result.toJson();
        if (haveSpace) e["knobs"] = space.describe(m.result.config);
        e["batch"] = m.batch;
        e["elapsed_s"] = m.elapsedS;
        if (m.cluster) e["cluster"] = *m.cluster;
        ms.push_back(std::move(e));
    }
    j["measurements"] = std::move(ms);
    return j;
}

TuningRun::TuningRun(TuningTask task, Measurer& measurer, std::unique_ptr<Tuner> tuner, TuningRunOptions options)
    : task_(std::move(task)), measurer_(measurer), tuner_(std::move(tuner)), options_(options) {
    if (!tuner_) throw std::invalid_argument("TuningRun needs a tuner");
    if (options_.budget < 0 || options_.batchSize < 1)
        throw std::invalid_argument("TuningRun: budget must be >= 0 and batch size >= 1");
}

TuningResult TuningRun::run(const ProgressCallback& progress, const CancellationToken* cancel) {
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
    TuningResult res;
    res.task = task_;
    res.tuner = tuner_->name();
    res.measurer = measurer_.name();
    res.options = options_;
    int batch = 0;
    while (static_cast<int64_t>(res.measurements.size()) < options_.budget) {
        if (cancel && cancel->isCancelled()) {
            res.status = RunStatus::Cancelled;
            break;
        }
        const int64_t left = options_.budget - static_cast<int64_t>(res.measurements.size());
        const std::vector<ConfigIndex> configs =
            tuner_->proposeBatch(static_cast<int>(std::min<int64_t>(left, options_.batchSize)));
        if (configs.empty()) break;  // the tuner has nothing left (space exhausted)
        ++batch;
        std::vector<MeasureResult> results;
        try {
            results = measurer_.measure(task_, configs);
        } catch (const std::exception& e) {
            res.status = RunStatus::Failed;
            res.error = e.what();
            break;
        }
        nlohmann::json tunerInfo = tuner_->lastBatchInfo();
        tuner_->observe(results);
        nlohmann::json cfgs = nlohmann::json::array(), gf = nlohmann::json::array(), ok = nlohmann::json::array(),
                       clusters = nlohmann::json::array();
        bool anyCluster = false;
        for (const auto& r : results) {
            res.measurements.push_back({r, batch, elapsed(), tuner_->clusterOf(r.config)});
            const auto& cluster = res.measurements.back().cluster;
            anyCluster |= cluster.has_value();
            clusters.push_back(cluster ? nlohmann::json(*cluster) : nlohmann::json());
            const int i = static_cast<int>(res.measurements.size()) - 1;
            if (r.ok && (res.best < 0 || r.latencyS < res.measurements[res.best].result.latencyS)) res.best = i;
            cfgs.push_back(r.config);
            gf.push_back(r.gflops);
            ok.push_back(r.ok);
        }
        if (progress) {
            ProgressEvent ev;
            ev.step = batch;
            ev.evaluations = static_cast<int64_t>(res.measurements.size());
            ev.bestCost = res.bestLatencyS();
            ev.elapsedS = elapsed();
            ev.values = {{"best_gflops", res.bestGflops()}, {"batch_configs", cfgs}, {"batch_gflops", gf},
                         {"batch_ok", ok}};
            if (anyCluster) ev.values["batch_clusters"] = std::move(clusters);
            if (!tunerInfo.is_null()) ev.values["tuner"] = std::move(tunerInfo);
            progress(ev);
        }
    }
    if (res.status == RunStatus::Running) res.status = RunStatus::Finished;
    res.elapsedS = elapsed();
    return res;
}

}  // namespace graphopt::tuning
