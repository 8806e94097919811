#include "tuning/AdaptiveSampling.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <unordered_set>

namespace graphopt::tuning {

namespace {

double dist2(const Point& a, const Point& b) {
    double s = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        const double d = a[i] - b[i];
        s += d * d;
    }
    return s;
}

// Nearest centroid of p and its squared distance (ties: the lower cluster).
std::pair<int, double> nearest(const Point& p, const std::vector<Point>& centroids) {
    int bestC = 0;
    double bestD = std::numeric_limits<double>::infinity();
    for (size_t c = 0; c < centroids.size(); ++c) {
        const double d = dist2(p, centroids[c]);
        if (d < bestD) {
            bestD = d;
            bestC = static_cast<int>(c);
        }
    }
    return {bestC, bestD};
}

}  // namespace

KMeansResult kmeans(const std::vector<Point>& points, int k, Rng& rng, int maxIterations) {
    if (points.empty()) throw std::invalid_argument("kmeans: no points");
    const size_t n = points.size(), dim = points[0].size();
    for (const auto& p : points)
        if (p.size() != dim) throw std::invalid_argument("kmeans: points of different dimensions");
    k = std::clamp(k, 1, static_cast<int>(n));

    KMeansResult r;
    r.k = k;
    // k-means++: the first centre uniformly, each next one with probability ~ D(x)^2.
    r.centroids.push_back(points[rng.below(n)]);
    std::vector<double> d2(n);
    for (size_t i = 0; i < n; ++i) d2[i] = dist2(points[i], r.centroids[0]);
    while (static_cast<int>(r.centroids.size()) < k) {
        const size_t pick = rng.weighted(d2);  // uniform when every point sits on a centre
        r.centroids.push_back(points[pick]);
        for (size_t i = 0; i < n; ++i) d2[i] = std::min(d2[i], dist2(points[i], r.centroids.back()));
    }

    // Lloyd: assign, recompute the means; an emptied cluster keeps its centre.
    r.assignment.assign(n, -1);
    for (int it = 0; it < std::max(1, maxIterations); ++it) {
        bool changed = false;
        for (size_t i = 0; i < n; ++i) {
            const int c = nearest(points[i], r.centroids).first;
            if (c != r.assignment[i]) {
                r.assignment[i] = c;
                changed = true;
            }
        }
        r.iterations = it + 1;
        if (!changed) break;
        std::vector<Point> sums(k, Point(dim, 0.0));
        std::vector<int> counts(k, 0);
        for (size_t i = 0; i < n; ++i) {
            ++counts[r.assignment[i]];
            for (size_t j = 0; j < dim; ++j) sums[r.assignment[i]][j] += points[i][j];
        }
        for (int c = 0; c < k; ++c)
            if (counts[c] > 0)
                for (size_t j = 0; j < dim; ++j) r.centroids[c][j] = sums[c][j] / counts[c];
    }
    r.loss = 0;
    for (size_t i = 0; i < n; ++i) r.loss += dist2(points[i], r.centroids[r.assignment[i]]);
    return r;
}

std::vector<int> kneeSchedule(int firstK, int maxK) {
    std::vector<int> ks;
    firstK = std::max(1, firstK);
    maxK = std::max(1, maxK);
    for (int k = firstK; k < maxK; k *= 2) ks.push_back(k);
    ks.push_back(maxK);
    return ks;
}

KneeSelection kneeKMeans(const std::vector<Point>& points, const std::vector<int>& ks, Rng& rng, double ratio,
                         int restarts) {
    if (ks.empty()) throw std::invalid_argument("kneeKMeans: no k to try");
    KneeSelection sel;
    for (size_t i = 0; i < ks.size(); ++i) {
        KMeansResult r = kmeans(points, ks[i], rng);
        for (int t = 1; t < restarts; ++t) {
            KMeansResult again = kmeans(points, ks[i], rng);
            if (again.loss < r.loss) r = std::move(again);
        }
        sel.losses.emplace_back(r.k, r.loss);
        if (i > 0) {
            const double prev = sel.clustering.loss;
            // Not `ratio` times smaller: the previous k is the knee. (A zero loss cannot shrink.)
            if (!(r.loss * ratio <= prev) || prev <= 0) return sel;
        }
        sel.clustering = std::move(r);
        if (sel.clustering.k >= static_cast<int>(points.size())) break;  // every point its own cluster
    }
    return sel;
}

KnobIndices snapToSpace(const KnobSpace& space, const Point& normalized) {
    if (normalized.size() != space.knobCount()) throw std::invalid_argument("snapToSpace: wrong dimension");
    KnobIndices k(space.knobCount());
    for (size_t i = 0; i < k.size(); ++i) {
        const int top = static_cast<int>(space.knob(i).size()) - 1;
        const double x = std::isfinite(normalized[i]) ? normalized[i] : 0.0;
        k[i] = std::clamp(static_cast<int>(std::lround(x * top)), 0, top);
    }
    return k;
}

int adaptiveMaxK(size_t candidates, int maxK, const AdaptiveSamplingOptions& options) {
    const int64_t perCluster = std::max(1, options.minClusterSize);
    const int64_t byCount = std::max<int64_t>(1, static_cast<int64_t>(candidates) / perCluster);
    return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(maxK, byCount)));
}

SampledBatch adaptiveSample(const KnobSpace& space, const std::vector<ScoredConfig>& candidates, int maxK,
                            const std::function<bool(ConfigIndex)>& taken, Rng& rng,
                            const AdaptiveSamplingOptions& options, const std::function<bool(ConfigIndex)>& valid) {
    SampledBatch out;
    if (candidates.empty() || maxK < 1) return out;
    std::unordered_set<ConfigIndex> chosen;
    auto usable = [&](ConfigIndex c) {
        return c < space.size() && !chosen.count(c) && !(taken && taken(c)) && (!valid || valid(c));
    };

    std::vector<Point> points;
    points.reserve(candidates.size());
    for (const auto& c : candidates) points.push_back(space.normalized(c.config));
    const int limit = adaptiveMaxK(candidates.size(), maxK, options);
    const KneeSelection sel = kneeKMeans(points, kneeSchedule(std::min(options.firstK, limit), limit), rng,
                                         options.kneeRatio);
    const KMeansResult& km = sel.clustering;
    out.k = km.k;
    out.losses = sel.losses;
    out.candidateCluster = km.assignment;

    // Members per cluster (best score first) and each cluster's best score.
    std::vector<std::vector<size_t>> members(km.k);
    for (size_t i = 0; i < candidates.size(); ++i) members[km.assignment[i]].push_back(i);
    std::vector<double> top(km.k, -std::numeric_limits<double>::infinity());
    for (int c = 0; c < km.k; ++c) {
        std::stable_sort(members[c].begin(), members[c].end(),
                         [&](size_t a, size_t b) { return candidates[a].score > candidates[b].score; });
        if (!members[c].empty()) top[c] = candidates[members[c][0]].score;
    }
    std::vector<int> order(km.k);
    for (int c = 0; c < km.k; ++c) order[c] = c;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return top[a] > top[b]; });

    for (int c : order) {
        if (members[c].empty()) continue;  // a centre no point chose: nothing to stand for
        std::optional<ConfigIndex> pick;
        bool synthesized = true;
        const ConfigIndex snapped = space.encode(snapToSpace(space, km.centroids[c]));
        if (usable(snapped)) {
            pick = snapped;
            synthesized = false;
        }
        if (!pick) {
            // Majority vote per knob over the cluster's members (ties: the lower index).
            KnobIndices vote(space.knobCount());
            for (size_t j = 0; j < space.knobCount(); ++j) {
                std::map<int, int> counts;
                for (size_t m : members[c]) ++counts[space.decode(candidates[m].config)[j]];
                int bestV = 0, bestN = -1;
                for (const auto& [v, cnt] : counts)
                    if (cnt > bestN) {
                        bestN = cnt;
                        bestV = v;
                    }
                vote[j] = bestV;
            }
            const ConfigIndex v = space.encode(vote);
            if (usable(v)) pick = v;
        }
        for (size_t m : members[c]) {  // the cluster's best free member
            if (pick) break;
            if (usable(candidates[m].config)) pick = candidates[m].config;
        }
        if (!pick) {  // a draw from every candidate still free
            std::vector<ConfigIndex> free;
            for (const auto& cand : candidates)
                if (usable(cand.config)) free.push_back(cand.config);
            if (!free.empty()) pick = free[rng.below(free.size())];
        }
        if (!pick) continue;
        chosen.insert(*pick);
        out.representatives.push_back(*pick);
        out.representativeCluster.push_back(c);
        out.synthesized.push_back(synthesized);
    }
    return out;
}

}  // namespace graphopt::tuning
