#include "store/BestSoFarCurves.h"

#include <algorithm>
#include <cmath>

#include "store/RunStore.h"

namespace graphopt {

namespace {

struct Curve {
    std::vector<int64_t> x;      // evaluations, increasing
    std::vector<double> best;    // running minimum at x
};

Curve bestSoFar(const std::vector<ProgressEvent>& events) {
    std::vector<std::pair<int64_t, double>> pts;
    for (const auto& e : events)
        if (!std::isnan(e.bestCost)) pts.emplace_back(e.evaluations, e.bestCost);
    std::stable_sort(pts.begin(), pts.end(), [](auto& a, auto& b) { return a.first < b.first; });
    Curve c;
    double best = INFINITY;
    for (auto& [x, cost] : pts) {
        best = std::min(best, cost);
        if (!c.x.empty() && c.x.back() == x) {
            c.best.back() = best;
        } else {
            c.x.push_back(x);
            c.best.push_back(best);
        }
    }
    return c;
}

}  // namespace

AlignedCurves alignBestSoFar(const std::vector<std::pair<int64_t, std::vector<ProgressEvent>>>& runs,
                             size_t maxPoints) {
    AlignedCurves out;
    std::vector<Curve> curves;
    for (const auto& [id, events] : runs) {
        out.runIds.push_back(id);
        curves.push_back(bestSoFar(events));
        out.evaluations.insert(out.evaluations.end(), curves.back().x.begin(), curves.back().x.end());
    }
    std::sort(out.evaluations.begin(), out.evaluations.end());
    out.evaluations.erase(std::unique(out.evaluations.begin(), out.evaluations.end()), out.evaluations.end());
    if (maxPoints > 0 && out.evaluations.size() > maxPoints) {
        int64_t lo = out.evaluations.front(), hi = out.evaluations.back();
        std::vector<int64_t> grid;
        for (size_t i = 0; i < maxPoints; ++i) {
            int64_t x = maxPoints == 1 ? hi : lo + int64_t(std::llround(double(hi - lo) * double(i) / double(maxPoints - 1)));
            if (grid.empty() || grid.back() != x) grid.push_back(x);
        }
        out.evaluations = std::move(grid);
    }
    for (const auto& c : curves) {
        std::vector<std::optional<double>> ys;
        ys.reserve(out.evaluations.size());
        for (int64_t x : out.evaluations) {
            auto it = std::upper_bound(c.x.begin(), c.x.end(), x);
            if (it == c.x.begin() || c.x.empty() || x > c.x.back())
                ys.push_back(std::nullopt);
            else
                ys.push_back(c.best[size_t(it - c.x.begin() - 1)]);
        }
        out.best.push_back(std::move(ys));
    }
    return out;
}

AlignedCurves alignBestSoFar(RunStore& store, const std::vector<int64_t>& runIds, size_t maxPoints) {
    std::vector<std::pair<int64_t, std::vector<ProgressEvent>>> runs;
    for (int64_t id : runIds) {
        store.run(id);  // throws for an unknown id
        runs.emplace_back(id, store.events(id));
    }
    return alignBestSoFar(runs, maxPoints);
}

nlohmann::json AlignedCurves::toJson() const {
    nlohmann::json runs = nlohmann::json::array();
    for (size_t r = 0; r < runIds.size(); ++r) {
        nlohmann::json ys = nlohmann::json::array();
        for (const auto& y : best[r]) ys.push_back(y ? nlohmann::json(*y) : nlohmann::json());
        runs.push_back({{"id", runIds[r]}, {"best", std::move(ys)}});
    }
    return {{"evaluations", evaluations}, {"runs", std::move(runs)}};
}

}  // namespace graphopt
