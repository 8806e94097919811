#include "store/RunComparison.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "store/RunStore.h"

namespace graphopt {

int figureDirection(const std::string& name) {
    static const std::set<std::string> notScores = {"evaluations", "budget", "seed", "measurements", "events",
                                                    "batches", "trials", "epochs", "generations", "population"};
    if (notScores.count(name)) return 0;
    for (const char* up : {"gflops", "speedup", "win_rate", "improvement", "accuracy", "reward"})
        if (name.find(up) != std::string::npos) return +1;
    return -1;
}

namespace {

void markBest(ComparedFigure& f) {
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

    auto figure = [&](const std::string& name, int better, auto value) {
        ComparedFigure f;
        f.name = name;
        f.better = better;
        for (size_t i = 0; i < n; ++i) f.values.push_back(value(i));
        markBest(f);
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
