#include "tuning/AnnealingExplorer.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "tuning/TunerParams.h"

namespace graphopt::tuning {

namespace {

// One knob of `c` set to another of its values, chosen uniformly; `c` itself when no knob has two.
ConfigIndex randomMove(const KnobSpace& space, ConfigIndex c, const std::vector<size_t>& movable, Rng& rng) {
    if (movable.empty()) return c;
    KnobIndices k = space.decode(c);
    const size_t knob = movable[rng.below(movable.size())];
    const int size = static_cast<int>(space.knob(knob).size());
    int v = static_cast<int>(rng.below(static_cast<uint64_t>(size - 1)));
    if (v >= k[knob]) ++v;  // skip the current value
    k[knob] = v;
    return space.encode(k);
}

}  // namespace

void AnnealingOptions::readParams(const nlohmann::json& params, ParamCollector& known) {
    chains = int(integerParam(params, "chains", chains, 1, 100000, "parallel annealing chains", known));
    steps = int(integerParam(params, "steps", steps, 1, 1000000, "annealing steps at most", known));
    earlyStop = int(integerParam(params, "early_stop", earlyStop, 1, 1000000,
                                 "stop after this many steps without a better candidate", known));
    startTemperature = numberParam(params, "temperature", startTemperature, 0, 1e9, "starting temperature", known);
}

std::vector<ScoredConfig> AnnealingExplorer::explore(const ExploreRequest& request, Rng& rng) {
    if (!request.space || !request.score) throw std::invalid_argument("AnnealingExplorer: request without space or score");
    const KnobSpace& space = *request.space;
    stats_ = {};
    const int wanted = std::max(1, request.wanted);
    const int chains = std::max(1, options_.chains);
    auto isMeasured = [&](ConfigIndex c) { return request.measured && request.measured(c); };

    std::vector<size_t> movable;
    for (size_t i = 0; i < space.knobCount(); ++i)
        if (space.knob(i).size() > 1) movable.push_back(i);

    // Start points: the caller's (at most half the chains), then last time's ends, then random.
    if (chainSpaceSize_ != space.size()) chainPoints_.clear();
    std::vector<ConfigIndex> points;
    points.reserve(chains);
    for (ConfigIndex s : request.starts) {
        if (static_cast<int>(points.size()) >= chains / 2 && !points.empty()) break;
        if (s < space.size()) points.push_back(s);
    }
    if (options_.keepChains)
        for (size_t i = 0; i < chainPoints_.size() && static_cast<int>(points.size()) < chains; ++i)
            points.push_back(chainPoints_[i]);
    while (static_cast<int>(points.size()) < chains) points.push_back(space.random(rng));

    std::vector<double> scores = request.score(points);
    if (scores.size() != points.size()) throw std::logic_error("AnnealingExplorer: score returned the wrong count");
    stats_.evaluations += static_cast<int64_t>(points.size());

    // Every distinct unmeasured point the chains scored (the visited set returned), and the best
    // `wanted` of them (score -> configs, plus membership), whose changes drive the early stop.
    // visit() says whether that best set changed.
    std::unordered_map<ConfigIndex, double> visited;
    std::multimap<double, ConfigIndex> best;
    std::unordered_set<ConfigIndex> inBest;
    auto visit = [&](ConfigIndex c, double s) -> bool {
        if (isMeasured(c)) return false;
        visited.emplace(c, s);
        if (inBest.count(c)) return false;
        if (static_cast<int>(best.size()) >= wanted) {
            auto lowest = best.begin();
            if (!(s > lowest->first)) return false;
            inBest.erase(lowest->second);
            best.erase(lowest);
        }
        best.emplace(s, c);
        inBest.insert(c);
        return true;
    };
    for (size_t i = 0; i < points.size(); ++i) visit(points[i], scores[i]);

    const int steps = std::max(1, options_.steps);
    int lastChange = 0;
    std::vector<ConfigIndex> next(points.size());
    for (int step = 1; step <= steps; ++step) {
        // Linear cooling: T = T0 at the first step, 0 at the last.
        const double t = options_.startTemperature * (1.0 - static_cast<double>(step - 1) / std::max(1, steps - 1));
        for (size_t i = 0; i < points.size(); ++i) next[i] = randomMove(space, points[i], movable, rng);
        const std::vector<double> nextScores = request.score(next);
        if (nextScores.size() != next.size()) throw std::logic_error("AnnealingExplorer: score returned the wrong count");
        stats_.evaluations += static_cast<int64_t>(next.size());
        stats_.steps = step;
        for (size_t i = 0; i < points.size(); ++i) {
            const double gain = nextScores[i] - scores[i];
            // exp(min(gain / T, 1)): uphill moves always pass; at T = 0 only they do.
            const double p = gain >= 0 ? 1.0 : (t > 0 ? std::exp(std::min(gain / t, 1.0)) : 0.0);
            if (rng.uniform() < p) {
                points[i] = next[i];
                scores[i] = nextScores[i];
            }
            if (visit(next[i], nextScores[i])) lastChange = step;
        }
        if (step - lastChange >= options_.earlyStop) break;
    }
    chainPoints_ = points;
    chainSpaceSize_ = space.size();

    std::vector<ScoredConfig> out;
    out.reserve(visited.size());
    for (const auto& [c, s] : visited) out.push_back({c, s});
    // Equal scores: lower index first, so the order never depends on insertion history.
    std::stable_sort(out.begin(), out.end(), [](const ScoredConfig& a, const ScoredConfig& b) {
        return a.score != b.score ? a.score > b.score : a.config < b.config;
    });
    return out;
}

}  // namespace graphopt::tuning
