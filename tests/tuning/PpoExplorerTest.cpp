// ReLeASE's PPO explorer on toy spaces whose best configuration is known.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_set>

#include "tuning/PpoExplorer.h"

using namespace graphopt::tuning;
using graphopt::Rng;

namespace {

// Six knobs of eight values; the score peaks at kOptimum and falls with the L1 distance to it.
const std::vector<int> kOptimum = {6, 1, 5, 2, 7, 0};

KnobSpace toySpace() {
    KnobSpace s;
    for (size_t i = 0; i < kOptimum.size(); ++i) s.addEnum("k" + std::to_string(i), {0, 1, 2, 3, 4, 5, 6, 7});
    return s;
}

double toyScore(const KnobSpace& space, ConfigIndex c) {
    const KnobIndices k = space.decode(c);
    double d = 0;
    for (size_t i = 0; i < k.size(); ++i) d += std::abs(k[i] - kOptimum[i]);
    return 1.0 - d / (7.0 * static_cast<double>(k.size()));
}

ExploreRequest toyRequest(const KnobSpace& space, const std::unordered_set<ConfigIndex>* measured = nullptr) {
    ExploreRequest r;
    r.space = &space;
    r.score = [&space](const std::vector<ConfigIndex>& cs) {
        std::vector<double> out;
        for (ConfigIndex c : cs) out.push_back(toyScore(space, c));
        return out;
    };
    if (measured) r.measured = [measured](ConfigIndex c) { return measured->count(c) != 0; };
    r.wanted = 64;
    return r;
}

PpoParams smallParams() {
    PpoParams p;
    p.episodes = 32;
    p.steps = 30;
    p.restartFraction = 0;  // random starts only: what improves is the policy, not the starts
    return p;
}

}  // namespace

TEST(PpoExplorer, LearnsToWalkTowardsTheOptimum) {
    const KnobSpace space = toySpace();
    PpoExplorer ppo(smallParams());
    Rng rng(7);
    const auto request = toyRequest(space);
    std::vector<double> rewards;
    for (int i = 0; i < 16; ++i) {
        ppo.explore(request, rng);
        rewards.push_back(ppo.lastPpoStats().meanReward);
    }
    const double before = rewards.front();
    const double after = (rewards[13] + rewards[14] + rewards[15]) / 3;
    // A uniform random walk scores about 0.63 here; the trained agent heads for the optimum.
    EXPECT_GT(after, before + 0.1) << "first " << before << ", last three " << after;
    EXPECT_EQ(ppo.history().size(), 16u);
    EXPECT_LT(ppo.lastPpoStats().entropy, std::log(3.0));  // less uniform than at the start
}

TEST(PpoExplorer, ReturnsDistinctUnmeasuredCandidatesBestFirst) {
    const KnobSpace space = toySpace();
    // Measured: the optimum and every configuration one step from it.
    std::unordered_set<ConfigIndex> measured;
    const ConfigIndex best = space.encode(kOptimum);
    measured.insert(best);
    for (ConfigIndex n : space.neighbours(best)) measured.insert(n);
    PpoExplorer ppo(smallParams());
    Rng rng(3);
    auto request = toyRequest(space, &measured);
    for (int round = 0; round < 4; ++round) {
        const auto out = ppo.explore(request, rng);
        ASSERT_FALSE(out.empty());
        // The visited set (unmeasured part): more than a plan of 64, at most what was scored.
        EXPECT_GT(out.size(), 64u);
        EXPECT_LE(static_cast<int64_t>(out.size()), ppo.lastPpoStats().visited);
        EXPECT_EQ(static_cast<int>(out.size()), ppo.lastPpoStats().candidates);
        std::set<ConfigIndex> seen;
        for (size_t i = 0; i < out.size(); ++i) {
            EXPECT_TRUE(seen.insert(out[i].config).second) << "repeated " << out[i].config;
            EXPECT_FALSE(measured.count(out[i].config)) << "measured " << out[i].config;
            EXPECT_LT(out[i].config, space.size());
            EXPECT_DOUBLE_EQ(out[i].score, toyScore(space, out[i].config));
            if (i) EXPECT_GE(out[i - 1].score, out[i].score);
        }
        // The caller measures them; the next explore must not offer them again.
        for (const auto& c : out) measured.insert(c.config);
    }
    EXPECT_GT(ppo.lastStats().evaluations, 0);
    EXPECT_GT(ppo.lastStats().steps, 0);
}

TEST(PpoExplorer, IsDeterministicForASeed) {
    const KnobSpace space = toySpace();
    auto run = [&](uint64_t seed) {
        PpoParams p = smallParams();
        p.restartFraction = 0.25;
        PpoExplorer ppo(p);
        Rng rng(seed);
        const auto request = toyRequest(space);
        std::vector<ConfigIndex> all;
        for (int i = 0; i < 3; ++i)
            for (const auto& c : ppo.explore(request, rng)) all.push_back(c.config);
        all.push_back(rng.next());  // the Rng was advanced the same way too
        return all;
    };
    const auto a = run(11), b = run(11), c = run(12);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
}

TEST(PpoExplorer, EpisodesStopWhenMostKnobsStay) {
    const KnobSpace space = toySpace();
    PpoParams p = smallParams();
    p.stopFraction = 1.0 / 6.0;  // one knob staying (or at a bound) is enough
    p.steps = 200;
    PpoExplorer ppo(p);
    Rng rng(5);
    ppo.explore(toyRequest(space), rng);
    const PpoStats& s = ppo.lastPpoStats();
    EXPECT_EQ(s.endedEarly, p.episodes);  // with 6 knobs some knob stays almost at once
    EXPECT_LT(s.steps, int64_t{p.episodes} * p.steps / 10);
}

TEST(PpoExplorer, ParamsFromJson) {
    ParamCollector known;
    const PpoParams p = PpoParams::fromJson({{"episodes", 16}, {"steps", 40}, {"entropy", 0.1}, {"plan_size", 8}}, &known);
    EXPECT_EQ(p.episodes, 16);
    EXPECT_EQ(p.steps, 40);
    EXPECT_DOUBLE_EQ(p.entropy, 0.1);
    EXPECT_EQ(p.epochs, 3);
    EXPECT_TRUE(known.knows("episodes"));
    EXPECT_TRUE(known.knows("update_samples"));
    EXPECT_FALSE(known.knows("plan_size"));
    EXPECT_THROW(PpoParams::fromJson({{"episodes", 0}}), std::invalid_argument);
    EXPECT_THROW(PpoParams::fromJson({{"gamma", 1.5}}), std::invalid_argument);
    EXPECT_THROW(PpoParams::fromJson({{"stop_fraction", 0}}), std::invalid_argument);
}

TEST(PpoExplorer, RefusesAnotherKnobCount) {
    const KnobSpace space = toySpace();
    KnobSpace other;
    other.addEnum("a", {1, 2, 3});
    PpoExplorer ppo(smallParams());
    Rng rng(1);
    ppo.explore(toyRequest(space), rng);
    EXPECT_THROW(ppo.explore(toyRequest(other), rng), std::invalid_argument);
}
