#include "store/RunComparison.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "run/Units.h"
#include "store/RunStore.h"

namespace graphopt {

int figureDirection(const std::string& name) {
    static const std::set<std::string> notScores = {"evaluations", "budget", "seed", "measurements", "events",
                                                    "batches", "trials", "epochs", "generations", "population",
                                                    "micro_batches", "budget_evaluations"};
    if (notScores.count(name)) return 0;
    for (const char* up : {"gflops", "speedup", "win_rate", "improvement", "accuracy", "reward"})
        if (name.find(up) != std::string::npos) return +1;
    return -1;
}

namespace {

// `eligible[i]`: run i may be marked best (an infeasible answer is never the best of anything).
void markBest(ComparedFigure& f, const std::vector<bool>& eligible) {
    f.best.reset();
    if (f.better == 0) return;
    size_t have = 0;
    std::optional<size_t> best;
    bool allEqual = true;
    std::optional<double> first;
    for (size_t i = 0; i < f.values.size(); ++i) {
        const auto& v = f.values[i];
        if (!v || std::isnan(*v)) continue;
        ++have;
        if (first && *first != *v) allEqual = false;
        if (!first) first = *v;
        if (i < eligible.size() && !eligible[i]) continue;
        if (!best || (f.better < 0 ? *v < *f.values[*best] : *v > *f.values[*best])) best = i;
    }
    if (have >= 2 && !allEqual) f.best = best;
}

std::map<std::string, std::string> parseKnobs(const std::string& text) {
    std::map<std::string, std::string> knobs;
    std::istringstream in(text);
    for (std::string item; in >> item;) {
        const size_t eq = item.find('=');
        if (eq != std::string::npos) knobs[item.substr(0, eq)] = item.substr(eq + 1);
    }
    return knobs;
}

}  // namespace

std::string RunComparison::infeasibleText(size_t run) const {
    if (run < overLimit.size() && !overLimit[run].empty()) return "infeasible (" + overLimit[run] + ")";
    return "infeasible";
}

RunComparison compareRuns(RunStore& store, const std::vector<int64_t>& runIds) {
    RunComparison c;
    for (int64_t id : runIds) {
        c.runs.push_back(store.run(id));
        c.results.push_back(store.result(id));
    }
    const auto& results = c.results;
    const size_t n = c.runs.size();

    std::set<std::string> objectives, graphs;
    std::set<std::optional<int64_t>> graphIds;
    std::set<std::string> kinds;
    for (const auto& s : c.runs) {
        objectives.insert(s.run.objective);
        graphs.insert(s.run.graphName);
        graphIds.insert(s.run.graphId);
        kinds.insert(s.run.kind);
    }
    if (objectives.size() > 1) c.warnings.push_back("the runs minimise different objectives: their costs differ in kind");
    if (graphIds.size() > 1) c.warnings.push_back("the runs are on different graphs");

    // Feasibility and by how much a device is over its limit, from the stored figures.
    c.feasible.assign(n, true);
    c.overLimit.assign(n, "");
    for (size_t i = 0; i < n; ++i) {
        const auto& r = results[i];
        if (!r || !r->costs.is_object()) continue;
        const auto it = r->costs.find("feasible");
        if (it != r->costs.end() && it->is_boolean()) c.feasible[i] = it->get<bool>();
        const auto over = r->costs.find("over_limit_bytes");
        if (c.feasible[i] || over == r->costs.end() || !over->is_object()) continue;
        std::string text;
        for (auto d = over->begin(); d != over->end(); ++d)
            if (d.value().is_number() && d.value().get<double>() > 0)
                text += (text.empty() ? "" : ", ") + d.key() + " over by " + units::bytes(d.value().get<double>());
        c.overLimit[i] = text;
    }

    auto figure = [&](const std::string& name, int better, auto value) {
        ComparedFigure f;
        f.name = name;
        f.better = better;
        for (size_t i = 0; i < n; ++i) f.values.push_back(value(i));
        markBest(f, c.feasible);
        c.figures.push_back(std::move(f));
    };
    figure("best cost", objectives.size() == 1 ? -1 : 0, [&](size_t i) { return c.runs[i].bestCost; });
    figure("evaluations", 0, [&](size_t i) { return std::optional<double>(double(c.runs[i].evaluations)); });
    figure("elapsed s", -1, [&](size_t i) { return c.runs[i].elapsedS; });
    std::set<std::string> keys;  // every scalar result figure any run has
    for (const auto& r : results)
        if (r && r->costs.is_object())
            for (auto it = r->costs.begin(); it != r->costs.end(); ++it)
                if (it.value().is_number() && it.key() != "evaluations" && it.key() != "seed") keys.insert(it.key());
    for (const auto& k : keys)
        figure(k, figureDirection(k), [&](size_t i) -> std::optional<double> {
            const auto& r = results[i];
            if (!r || !r->costs.contains(k) || !r->costs[k].is_number()) return std::nullopt;
            return r->costs[k].get<double>();
        });

    // Ranking: feasibility first, then the best cost when the costs are of one kind.
    c.ranking.resize(n);
    for (size_t i = 0; i < n; ++i) c.ranking[i] = i;
    const bool costsComparable = objectives.size() == 1;
    std::stable_sort(c.ranking.begin(), c.ranking.end(), [&](size_t a, size_t b) {
        if (c.feasible[a] != c.feasible[b]) return bool(c.feasible[a]);
        if (!costsComparable) return false;
        const auto& ca = c.runs[a].bestCost;
        const auto& cb = c.runs[b].bestCost;
        const bool ha = ca && !std::isnan(*ca), hb = cb && !std::isnan(*cb);
        if (ha != hb) return ha;
        return ha && *ca < *cb;
    });

    // Placements of one graph: which nodes are not on the same device in every run.
    const bool oneGraph = graphIds.size() == 1 && *graphIds.begin();
    if (oneGraph && kinds == std::set<std::string>{"placement"} &&
        std::all_of(results.begin(), results.end(), [](const auto& r) { return r && r->placement.is_object(); })) {
        c.placementsComparable = true;
        std::set<std::string> nodes;
        for (const auto& r : results)
            for (auto it = r->placement.begin(); it != r->placement.end(); ++it) nodes.insert(it.key());
        c.placedNodes = static_cast<int64_t>(nodes.size());
        for (const auto& node : nodes) {
            std::set<std::string> devices;
            for (const auto& r : results)
                devices.insert(r->placement.contains(node) ? r->placement[node].dump() : std::string("(none)"));
            if (devices.size() > 1) c.nodesPlacedDifferently.push_back(node);
        }
    }

    // Tuning runs of one task: the best configuration of each and the knobs that differ.
    if (kinds == std::set<std::string>{"tuning"}) {
        std::set<std::string> tasks;
        std::vector<std::map<std::string, std::string>> best(n);
        c.bestKnobs.assign(n, "");
        for (size_t i = 0; i < n; ++i) {
            const TuningMeasurement* top = nullptr;
            const auto measured = store.measurements(c.runs[i].run.id);
            for (const auto& m : measured) {
                tasks.insert(m.task);
                if (m.ok && (!top || m.latencyS < top->latencyS)) top = &m;
            }
            if (top) {
                c.bestKnobs[i] = top->knobs;
                best[i] = parseKnobs(top->knobs);
            }
        }
        if (tasks.size() == 1) {
            c.tuningComparable = true;
            c.task = *tasks.begin();
            std::set<std::string> names;
            for (const auto& b : best)
                for (const auto& [k, v] : b) names.insert(k);
            for (const auto& k : names) {
                std::set<std::string> values;
                for (const auto& b : best)
                    if (!b.empty()) values.insert(b.count(k) ? b.at(k) : std::string("(none)"));
                if (values.size() > 1) c.knobsThatDiffer.push_back(k);
            }
        }
    }
    return c;
}

}  // namespace graphopt
