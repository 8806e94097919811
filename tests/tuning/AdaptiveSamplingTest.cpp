#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_set>

#include "tuning/AdaptiveSampling.h"
#include "tuning/TemplateSpace.h"

using namespace graphopt::tuning;
using graphopt::Rng;

namespace {

// `blobs` well-separated centres in `dim` dimensions, `per` points around each (noise 0.01).
std::vector<Point> blobPoints(int blobs, int per, int dim, Rng& rng, std::vector<int>& truth) {
    std::vector<Point> centres;
    while (static_cast<int>(centres.size()) < blobs) {
        Point c(dim);
        for (auto& x : c) x = rng.uniform();
        bool far = true;
        for (const auto& o : centres) {
            double d = 0;
            for (int j = 0; j < dim; ++j) d += (c[j] - o[j]) * (c[j] - o[j]);
            far &= d > 0.3 * 0.3;
        }
        if (far) centres.push_back(c);
    }
    std::vector<Point> pts;
    truth.clear();
    for (int i = 0; i < per; ++i)
        for (int b = 0; b < blobs; ++b) {
            Point p = centres[b];
            for (auto& x : p) x += (rng.uniform() - 0.5) * 0.02;
            pts.push_back(p);
            truth.push_back(b);
        }
    return pts;
}

// Same clusters up to renaming: a bijection between truth labels and found labels.
void expectSamePartition(const std::vector<int>& truth, const std::vector<int>& found) {
    ASSERT_EQ(truth.size(), found.size());
    std::map<int, int> t2f, f2t;
    for (size_t i = 0; i < truth.size(); ++i) {
        auto [a, newA] = t2f.emplace(truth[i], found[i]);
        auto [b, newB] = f2t.emplace(found[i], truth[i]);
        EXPECT_EQ(a->second, found[i]) << "blob " << truth[i] << " split";
        EXPECT_EQ(b->second, truth[i]) << "cluster " << found[i] << " merges blobs";
    }
}

}  // namespace

TEST(KMeans, SeparatesWellSeparatedBlobs) {
    Rng rng(7);
    std::vector<int> truth;
    const auto pts = blobPoints(5, 20, 4, rng, truth);
    const KMeansResult r = kmeans(pts, 5, rng);
    EXPECT_EQ(r.k, 5);
    expectSamePartition(truth, r.assignment);
    EXPECT_LT(r.loss, 100 * 4 * 0.02 * 0.02);
}

TEST(KMeans, ClampsKAndHandlesDuplicates) {
    Rng rng(1);
    const std::vector<Point> same(6, Point{0.5, 0.5});
    const KMeansResult r = kmeans(same, 4, rng);
    EXPECT_EQ(r.k, 4);
    EXPECT_DOUBLE_EQ(r.loss, 0);
    const KMeansResult big = kmeans({{0.0}, {1.0}}, 10, rng);
    EXPECT_EQ(big.k, 2);
    EXPECT_NE(big.assignment[0], big.assignment[1]);
    EXPECT_THROW(kmeans({}, 2, rng), std::invalid_argument);
}

TEST(KneeKMeans, FindsTheNumberOfBlobs) {
    for (uint64_t seed : {1, 2, 3}) {
        Rng rng(seed);
        std::vector<int> truth;
        const auto pts = blobPoints(5, 20, 4, rng, truth);
        // Around the truth: 4 clusters must merge two blobs (a big loss), 6 only split one. (From
        // k = 1 the ratio rule stops early: merging 3 blobs instead of 2 costs less than 2.5x.)
        const KneeSelection s = kneeKMeans(pts, {4, 5, 6, 7}, rng, 2.5);
        EXPECT_EQ(s.clustering.k, 5) << "seed " << seed;
        expectSamePartition(truth, s.clustering.assignment);
        ASSERT_EQ(s.losses.size(), 3u);  // stopped at k = 6, the first that did not pay off
        EXPECT_EQ(s.losses.back().first, 6);
    }
}

TEST(KneeKMeans, DoublingScheduleStopsAtTheFirstKnee) {
    EXPECT_EQ(kneeSchedule(8, 64), (std::vector<int>{8, 16, 32, 64}));
    EXPECT_EQ(kneeSchedule(8, 50), (std::vector<int>{8, 16, 32, 50}));
    EXPECT_EQ(kneeSchedule(8, 8), (std::vector<int>{8}));
    EXPECT_EQ(kneeSchedule(8, 3), (std::vector<int>{3}));
    Rng rng(3);
    std::vector<int> truth;
    const auto pts = blobPoints(12, 6, 4, rng, truth);  // 12 blobs: 8 is too few, 16 enough
    const KneeSelection s = kneeKMeans(pts, kneeSchedule(8, 64), rng, 2.5);
    EXPECT_EQ(s.clustering.k, 16);
    // Every blob lies inside one cluster (16 centres for 12 blobs split some, merge none).
    std::map<int, std::set<int>> blobsOfCluster;
    for (size_t i = 0; i < pts.size(); ++i) blobsOfCluster[s.clustering.assignment[i]].insert(truth[i]);
    for (const auto& [c, blobs] : blobsOfCluster) EXPECT_EQ(blobs.size(), 1u) << "cluster " << c;
}

TEST(AdaptiveSampling, SnapsToTheNearestKnobIndex) {
    KnobSpace s;
    s.addEnum("a", {1, 2, 3, 4, 5});  // indices 0..4
    s.addEnum("b", {0, 1});
    s.addEnum("c", {7});
    EXPECT_EQ(snapToSpace(s, {0.0, 0.0, 0.0}), (KnobIndices{0, 0, 0}));
    EXPECT_EQ(snapToSpace(s, {0.6, 0.49, 0.9}), (KnobIndices{2, 0, 0}));  // 0.6 * 4 = 2.4
    EXPECT_EQ(snapToSpace(s, {0.9, 0.51, 0.0}), (KnobIndices{4, 1, 0}));  // 3.6 -> 4
    EXPECT_EQ(snapToSpace(s, {1.7, -3.0, 0.0}), (KnobIndices{4, 0, 0}));  // clamped
}

// Property: whatever the candidates and whatever is taken, the representatives are valid,
// untaken, distinct, at most one per cluster and at most the batch size.
TEST(AdaptiveSampling, NeverReturnsATakenInvalidOrRepeatedConfiguration) {
    const std::vector<KnobSpace> spaces = {
        templateSpace(makeDense(2, 4, 3)),                  // 192 points: collisions everywhere
        templateSpace(makeConv2d(1, 16, 14, 14, 16, 3, 1, 1)),
        templateSpace(makeConv2d(1, 32, 28, 28, 32, 3, 1, 1, 32)),
    };
    int synthesizedSeen = 0, cases = 0;
    for (uint64_t seed = 1; seed <= 150; ++seed) {
        const KnobSpace& space = spaces[seed % spaces.size()];
        Rng rng(seed);
        // Taken: a random share of the space (up to all but a few points for the small space).
        std::unordered_set<ConfigIndex> taken;
        const uint64_t takeCount = std::min<uint64_t>(space.size() - 3, rng.below(std::min<uint64_t>(space.size(), 400)));
        while (taken.size() < takeCount) taken.insert(space.random(rng));
        // Candidates: distinct, mostly untaken; sometimes a few taken ones slip in.
        std::vector<ScoredConfig> cands;
        std::unordered_set<ConfigIndex> seen;
        const int want = 1 + static_cast<int>(rng.below(100));
        for (int tries = 0; static_cast<int>(cands.size()) < want && tries < 5000; ++tries) {
            const ConfigIndex c = space.random(rng);
            if (taken.count(c) && !rng.chance(0.1)) continue;
            if (seen.insert(c).second) cands.push_back({c, rng.uniform()});
        }
        if (cands.empty()) continue;
        ++cases;
        // Invalid: every configuration whose index is divisible by 7 (an arbitrary rule).
        const bool useValid = seed % 2 == 0;
        auto valid = [](ConfigIndex c) { return c % 7 != 0; };
        const int maxK = 1 + static_cast<int>(rng.below(64));
        const SampledBatch b = adaptiveSample(
            space, cands, maxK, [&](ConfigIndex c) { return taken.count(c) != 0; }, rng, {8, 2.5},
            useValid ? std::function<bool(ConfigIndex)>(valid) : std::function<bool(ConfigIndex)>());
        ASSERT_LE(static_cast<int>(b.representatives.size()), maxK);
        ASSERT_LE(static_cast<int>(b.representatives.size()), b.k);
        ASSERT_EQ(b.candidateCluster.size(), cands.size());
        std::set<ConfigIndex> reps;
        std::set<int> clusters;
        for (size_t i = 0; i < b.representatives.size(); ++i) {
            const ConfigIndex c = b.representatives[i];
            EXPECT_LT(c, space.size());
            EXPECT_FALSE(taken.count(c)) << "seed " << seed;
            if (useValid) EXPECT_TRUE(valid(c)) << "seed " << seed;
            EXPECT_TRUE(reps.insert(c).second) << "seed " << seed;
            EXPECT_TRUE(clusters.insert(b.representativeCluster[i]).second);
            synthesizedSeen += b.synthesized[i];
        }
        // Every cluster with a free member gets a representative.
        std::set<int> clustersWithFree;
        for (size_t i = 0; i < cands.size(); ++i)
            if (!taken.count(cands[i].config) && (!useValid || valid(cands[i].config)))
                clustersWithFree.insert(b.candidateCluster[i]);
        EXPECT_GE(b.representatives.size(), std::min(clustersWithFree.size(), size_t(1)));
    }
    EXPECT_GT(cases, 100);
    EXPECT_GT(synthesizedSeen, 0);  // the synthesis path was exercised
}

TEST(AdaptiveSampling, IsDeterministicForTheRngState) {
    const KnobSpace space = templateSpace(makeConv2d(1, 32, 28, 28, 64, 3, 1, 1));
    Rng g(5);
    std::vector<ScoredConfig> cands;
    for (int i = 0; i < 64; ++i) cands.push_back({space.random(g), g.uniform()});
    Rng a(9), b(9);
    auto none = [](ConfigIndex) { return false; };
    const SampledBatch x = adaptiveSample(space, cands, 64, none, a), y = adaptiveSample(space, cands, 64, none, b);
    EXPECT_EQ(x.representatives, y.representatives);
    EXPECT_EQ(x.candidateCluster, y.candidateCluster);
    EXPECT_GE(x.k, 8);
}

// The paper's sampling measures fewer configurations than it clusters: k is chosen below the
// candidate count by construction (at most a quarter of it), even when the batch would allow
// every candidate and every candidate is its own blob (where the loss falls to 0 at k = count).
TEST(AdaptiveSampling, NeverChoosesKAsLargeAsTheCandidateCount) {
    const KnobSpace space = templateSpace(makeConv2d(1, 64, 56, 56, 64, 3, 1, 1));
    for (int n : {2, 3, 5, 8, 9, 16, 31, 32, 33, 64, 100, 257}) {
        Rng rng(static_cast<uint64_t>(n));
        std::vector<ScoredConfig> cands;
        std::unordered_set<ConfigIndex> seen;
        while (static_cast<int>(cands.size()) < n) {
            const ConfigIndex c = space.random(rng);
            if (seen.insert(c).second) cands.push_back({c, rng.uniform()});
        }
        for (int maxK : {n, 4 * n, 64}) {
            const SampledBatch b = adaptiveSample(space, cands, maxK, [](ConfigIndex) { return false; }, rng);
            EXPECT_LT(b.k, n) << n << " candidates, batch " << maxK;
            EXPECT_LE(b.k, std::max(1, n / 4)) << n << " candidates, batch " << maxK;
            EXPECT_LE(b.k, maxK);
            EXPECT_EQ(b.k, static_cast<int>(b.representatives.size()));
            for (const auto& [k, loss] : b.losses) EXPECT_LE(k, adaptiveMaxK(cands.size(), maxK));
        }
    }
    EXPECT_EQ(adaptiveMaxK(512, 64), 64);
    EXPECT_EQ(adaptiveMaxK(100, 64), 25);
    EXPECT_EQ(adaptiveMaxK(3, 64), 1);
}
