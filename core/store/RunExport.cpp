#include "store/RunExport.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "store/RunStore.h"

namespace graphopt {

namespace {

nlohmann::json optionalNumber(const std::optional<double>& v) {
    return v && std::isfinite(*v) ? nlohmann::json(*v) : nlohmann::json();
}

std::string csvNumber(double v) {
    if (std::isnan(v)) return "";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

std::string csvQuoted(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

}  // namespace

nlohmann::json runSummaryToJson(const RunSummary& s) {
    const RunRecord& r = s.run;
    return {{"id", r.id},
            {"kind", r.kind},
            {"engine", r.engine},
            {"objective", r.objective},
            {"graph_id", r.graphId ? nlohmann::json(*r.graphId) : nlohmann::json()},
            {"graph", r.graphName},
            {"seed", r.seed},
            {"status", runStatusName(r.status)},
            {"error", r.error},
            {"note", r.note},
            {"started_at", r.startedAt},
            {"ended_at", r.endedAt.empty() ? nlohmann::json() : nlohmann::json(r.endedAt)},
            {"owner_pid", r.ownerPid},
            {"owner_host", r.ownerHost},
            {"spec", r.spec},
            {"events", s.eventCount},
            {"evaluations", s.evaluations},
            {"best_cost", optionalNumber(s.bestCost)},
            {"elapsed_s", optionalNumber(s.elapsedS)}};
}

nlohmann::json progressEventToJson(const ProgressEvent& e) {
    return {{"step", e.step},
            {"evaluations", e.evaluations},
            {"best_cost", optionalNumber(e.bestCost)},
            {"elapsed_s", e.elapsedS},
            {"values", e.values}};
}

nlohmann::json runResultToJson(const RunResult& r) {
    return {{"cost", optionalNumber(r.cost)}, {"costs", r.costs}, {"placement", r.placement}, {"schedule", r.schedule}};
}

namespace {

nlohmann::json measurementToJson(const TuningMeasurement& m) {
    return {{"task", m.task},
            {"config", {{"index", m.config}, {"knobs", m.knobs}}},
            {"latency_s", m.ok ? nlohmann::json(m.latencyS) : nlohmann::json()},
            {"gflops", m.ok ? nlohmann::json(m.gflops) : nlohmann::json()},
            {"error", m.error},
            {"cluster_id", m.cluster ? nlohmann::json(*m.cluster) : nlohmann::json()},
            {"batch", m.batch},
            {"elapsed_s", m.elapsedS}};
}

}  // namespace

nlohmann::json exportRunJson(RunStore& store, int64_t runId) {
    RunSummary s = store.run(runId);
    nlohmann::json graph;
    if (s.run.graphId) {
        if (auto g = store.graph(*s.run.graphId))
            graph = {{"id", g->id},       {"name", g->name},   {"content_hash", g->contentHash},
                     {"source_path", g->sourcePath}, {"nodes", g->nodes}, {"edges", g->edges}};
    }
    nlohmann::json events = nlohmann::json::array();
    for (const auto& e : store.events(runId)) events.push_back(progressEventToJson(e));
    nlohmann::json measurements = nlohmann::json::array();
    for (const auto& m : store.measurements(runId)) measurements.push_back(measurementToJson(m));
    auto result = store.result(runId);
    return {{"run", runSummaryToJson(s)},
            {"graph", graph},
            {"events", std::move(events)},
            {"measurements", std::move(measurements)},
            {"result", result ? runResultToJson(*result) : nlohmann::json()}};
}

std::string exportRunCsv(RunStore& store, int64_t runId) {
    store.run(runId);  // throws for an unknown id
    std::ostringstream out;
    out << "record,step,evaluations,best_cost,elapsed_s,json\n";
    for (const auto& e : store.events(runId))
        out << "event," << e.step << ',' << e.evaluations << ',' << csvNumber(e.bestCost) << ','
            << csvNumber(e.elapsedS) << ',' << csvQuoted(e.values.dump()) << '\n';
    for (const auto& m : store.measurements(runId))
        out << "measurement,,,," << ',' << csvQuoted(measurementToJson(m).dump()) << '\n';
    if (auto r = store.result(runId)) {
        auto number = [&](const char* key) {
            return r->costs.contains(key) && r->costs[key].is_number() ? csvNumber(r->costs[key].get<double>()) : "";
        };
        out << "result,," << number("evaluations") << ',' << (r->cost ? csvNumber(*r->cost) : "") << ','
            << number("wall_s") << ','
            << csvQuoted(nlohmann::json{{"costs", r->costs}, {"placement", r->placement}, {"schedule", r->schedule}}
                             .dump())
            << '\n';
    }
    return out.str();
}

}  // namespace graphopt
