#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>

#include "tuning/KnobProjection.h"
#include "tuning/LoopNest.h"
#include "tuning/KnobSpace.h"
#include "run/Rng.h"
#include "tuning/TemplateSpace.h"

using namespace graphopt::tuning;
using graphopt::Rng;

TEST(Factorizations, CountsMatchTheDivisorFormula) {
    // Ordered k-factorizations of prod p^a: prod C(a + k - 1, k - 1).
    EXPECT_EQ(factorizations(1, 4).size(), 1u);
    EXPECT_EQ(factorizations(7, 2).size(), 2u);
    EXPECT_EQ(factorizations(12, 2).size(), 6u);
    EXPECT_EQ(factorizations(64, 2).size(), 7u);
    EXPECT_EQ(factorizations(64, 3).size(), 28u);   // C(8,2)
    EXPECT_EQ(factorizations(56, 3).size(), 30u);   // C(5,2) * C(3,2)
    EXPECT_EQ(factorizations(224, 4).size(), 224u); // 2^5 * 7: C(8,3) * C(4,3) = 56 * 4
}

TEST(Factorizations, AreDistinctOrderedAndMultiplyBack) {
    for (int64_t n : {1, 6, 48, 56, 97, 360})
        for (int k : {1, 2, 3}) {
            const auto fs = factorizations(n, k);
            EXPECT_TRUE(std::is_sorted(fs.begin(), fs.end()));
            EXPECT_EQ(std::set<std::vector<int64_t>>(fs.begin(), fs.end()).size(), fs.size());
            for (const auto& f : fs) {
                ASSERT_EQ(f.size(), static_cast<size_t>(k));
                int64_t p = 1;
                for (int64_t v : f) p *= v;
                EXPECT_EQ(p, n);
            }
        }
    EXPECT_THROW(factorizations(0, 2), std::invalid_argument);
}

// Issue 20: factorizations tried every number up to the extent at every level, so a large extent
// ran for minutes (a prime near 2^31) or forever (2^40). Divisors now come from trial division up
// to the square root, and extents past 32 bits, too many parts or too many factorizations are
// refused naming the knob.
TEST(Factorizations, LargeExtentsAreQuick) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto prime = factorizations(2147483647, 3);  // 2^31 - 1 is prime: [1,1,p], [1,p,1], [p,1,1]
    EXPECT_EQ(prime.size(), 3u);
    const auto composite = factorizations(2147483646, 2);  // 2 * 3^2 * 7 * 11 * 31 * 151 * 331: 192 divisors
    EXPECT_EQ(composite.size(), 192u);
    EXPECT_EQ(composite.front(), (std::vector<int64_t>{1, 2147483646}));
    EXPECT_EQ(composite.back(), (std::vector<int64_t>{2147483646, 1}));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(seconds, 1.0);  // was about 2 x 2^31 trial divisions; now 2 x 46341
}

TEST(Factorizations, LimitsAreRefusedNamingTheKnob) {
    auto expectRefused = [](int64_t extent, int parts, const std::string& needle) {
        KnobSpace s;
        try {
            s.addSplit("tile_x", extent, parts);
            FAIL() << extent << " into " << parts;
        } catch (const std::invalid_argument& e) {
            const std::string msg = e.what();
            EXPECT_NE(msg.find("'tile_x'"), std::string::npos) << msg;
            EXPECT_NE(msg.find(needle), std::string::npos) << msg;
        }
        EXPECT_EQ(s.knobCount(), 0u);
    };
    expectRefused(int64_t(1) << 40, 2, "2^31 - 1");
    expectRefused(int64_t(1) << 62, 4, "2^31 - 1");
    expectRefused(64, 17, "parts");  // kMaxSplitParts + 1
    // 2^30 into 16 parts: C(45, 15) ways, far past the limit; counted, not enumerated.
    expectRefused(int64_t(1) << 30, 16, "more than");
    EXPECT_EQ(factorizations(1, 16).size(), 1u);
}

TEST(Factorizations, CountLimitIsExact) {
    EXPECT_EQ(factorizations(224, 4, 224).size(), 224u);  // exactly at the limit is fine
    EXPECT_THROW(factorizations(224, 4, 223), std::invalid_argument);
}

TEST(KnobSpace, SplitFilterKeepsSmallInnerFactors) {
    KnobSpace s;
    s.addSplit("t", 64, 2, 8);
    for (const auto& e : s.knob(0).entities) EXPECT_LE(e.back(), 8);
    EXPECT_EQ(s.size(), 4u);  // inner 1, 2, 4, 8
}

TEST(KnobSpace, IndexRoundTripsOverAWholeSmallSpace) {
    KnobSpace s;
    s.addSplit("a", 12, 2);
    s.addEnum("b", {0, 1, 2});
    s.addSplit("c", 8, 3);
    ASSERT_EQ(s.size(), 6u * 3u * 10u);
    std::set<KnobIndices> seen;
    for (ConfigIndex i = 0; i < s.size(); ++i) {
        const KnobIndices k = s.decode(i);
        EXPECT_TRUE(s.contains(k));
        EXPECT_EQ(s.encode(k), i);
        seen.insert(k);
    }
    EXPECT_EQ(seen.size(), s.size());
    EXPECT_EQ(s.decode(1)[0], 1);  // knob 0 is the fastest-varying digit
    EXPECT_THROW(s.decode(s.size()), std::out_of_range);
    EXPECT_THROW(s.encode({6, 0, 0}), std::out_of_range);
}

TEST(KnobSpace, IndexRoundTripsInTheResNetConvSpace) {
    const KnobSpace s = templateSpace(makeConv2d(1, 64, 56, 56, 64, 3, 1, 1));
    Rng rng(7);
    for (int i = 0; i < 2000; ++i) {
        const ConfigIndex c = s.random(rng);
        ASSERT_LT(c, s.size());
        EXPECT_EQ(s.encode(s.decode(c)), c);
    }
    EXPECT_EQ(s.encode(s.decode(s.size() - 1)), s.size() - 1);
}

TEST(KnobSpace, MovesClampAndNeighboursDifferInOneKnob) {
    KnobSpace s;
    s.addEnum("a", {1, 2, 3});
    s.addEnum("b", {0, 1});
    s.addSplit("c", 16, 2);
    const ConfigIndex start = s.encode({0, 1, 2});
    EXPECT_EQ(s.decode(s.move(start, {-1, 1, 1})), (KnobIndices{0, 1, 3}));
    EXPECT_EQ(s.decode(s.move(start, {1, -1, 0})), (KnobIndices{1, 0, 2}));
    EXPECT_EQ(s.move(start, {0, 0, 0}), start);
    const auto ns = s.neighbours(start);
    EXPECT_EQ(ns.size(), 4u);  // a up, b down, c down, c up
    for (ConfigIndex n : ns) {
        const auto a = s.decode(n), b = s.decode(start);
        int diff = 0;
        for (size_t i = 0; i < a.size(); ++i) diff += std::abs(a[i] - b[i]);
        EXPECT_EQ(diff, 1);
    }
    const auto norm = s.normalized(s.encode({2, 0, 4}));
    EXPECT_EQ(norm, (std::vector<double>{1.0, 0.0, 1.0}));
    EXPECT_EQ(s.describe(start)["c"], (std::vector<int64_t>{4, 4}));
    EXPECT_EQ(s.value(s.decode(start), "a"), 1);
}

TEST(Rng, IsDeterministicAndCoversTheRange) {
    Rng a(42), b(42), c(43);
    bool differ = false;
    for (int i = 0; i < 100; ++i) {
        const uint64_t x = a.next();
        EXPECT_EQ(x, b.next());
        differ |= x != c.next();
    }
    EXPECT_TRUE(differ);
    std::vector<int> counts(7);
    Rng r(1);
    for (int i = 0; i < 7000; ++i) counts[r.below(7)]++;
    for (int n : counts) EXPECT_GT(n, 800);
    for (int i = 0; i < 1000; ++i) {
        const double u = r.uniform();
        EXPECT_GE(u, 0.0);
        EXPECT_LT(u, 1.0);
        const int64_t v = r.between(-3, 3);
        EXPECT_GE(v, -3);
        EXPECT_LE(v, 3);
    }
    std::vector<int> w(3);
    for (int i = 0; i < 3000; ++i) w[r.weighted({0.0, 1.0, 3.0})]++;
    EXPECT_EQ(w[0], 0);
    EXPECT_GT(w[2], 2 * w[1]);
}

TEST(TemplateSpace, EveryKindHasItsKnobsAndDecodes) {
    for (const TuningTask& t : {makeConv2d(1, 64, 56, 56, 128, 3, 2, 1), makeConv2d(1, 32, 28, 28, 32, 3, 1, 1, 32),
                                makeDense(1, 1000, 512), makeBatchMatMul(8, 128, 128, 32),
                                makeConv3d(1, 64, 8, 56, 56, 64, 3, 1, 1)}) {
        const KnobSpace s = templateSpace(t);
        Rng rng(3);
        for (int i = 0; i < 200; ++i) {
            const ScheduleParams p = decodeSchedule(t, s, s.random(rng));
            if (t.isConv()) {
                EXPECT_EQ(t.outD() % p.tileD, 0);
                EXPECT_EQ(t.outC % p.tileC, 0);
                EXPECT_EQ(t.outH() % p.tileH, 0);
                EXPECT_EQ(t.outW() % p.tileW, 0);
            } else {
                EXPECT_EQ(t.n % p.tileW, 0);
                EXPECT_EQ(t.m % p.tileH, 0);
                EXPECT_EQ(t.k % p.tileR, 0);
            }
        }
    }
    EXPECT_EQ(templateSpace(makeConv2d(1, 32, 28, 28, 32, 3, 1, 1, 32)).knobCount(), 7u);
}

TEST(TemplateSpace, FeaturesHaveOneNamePerValueAndAreFinite) {
    for (const TuningTask& t : {makeConv2d(1, 64, 56, 56, 64, 3, 1, 1), makeConv2d(1, 32, 28, 28, 32, 3, 2, 1, 32),
                                makeDense(1, 1000, 512), makeBatchMatMul(8, 128, 32, 128),
                                makeConv3d(1, 3, 8, 112, 112, 64, 3, 2, 1)}) {
        const KnobSpace s = templateSpace(t);
        const auto names = scheduleFeatureNames(t, s);
        Rng rng(5);
        for (int i = 0; i < 50; ++i) {
            const auto f = scheduleFeatures(t, s, s.random(rng));
            ASSERT_EQ(f.size(), names.size());
            for (double v : f) EXPECT_TRUE(std::isfinite(v));
        }
    }
}

TEST(KnobProjection, IsDeterministicCentredAndSeparatesConfigurations) {
    const KnobSpace space = templateSpace(makeConv2d(1, 64, 56, 56, 64, 3, 1, 1));
    const KnobProjection a = KnobProjection::fit(space, 1), b = KnobProjection::fit(space, 1);
    ASSERT_TRUE(a.valid());
    EXPECT_GT(a.explained()[0], 0.0);
    EXPECT_GE(a.explained()[0], a.explained()[1]);
    EXPECT_LE(a.explained()[0] + a.explained()[1], 1.0 + 1e-9);
    Rng rng(9);
    double meanX = 0, meanY = 0;
    const int n = 4000;
    for (int i = 0; i < n; ++i) {
        const ConfigIndex c = space.random(rng);
        const auto pa = a.project(c), pb = b.project(c);
        EXPECT_EQ(pa, pb);  // the same fit draws every batch in the same place
        for (double v : a.normalized(c)) {
            EXPECT_GE(v, 0.0);
            EXPECT_LE(v, 1.0);
        }
        meanX += pa[0] / n;
        meanY += pa[1] / n;
    }
    EXPECT_NEAR(meanX, 0.0, 0.05);  // centred on the space's mean
    EXPECT_NEAR(meanY, 0.0, 0.05);
    EXPECT_NE(a.project(0), a.project(space.size() - 1));
}

// The loop nest read from a schedule, checked by hand on a dense task: Y[8][32] = A[8][16] B[16][32]
// with tiles of 16 columns x 4 rows, k in steps of 8, vectors of 8 lanes, rows unrolled, parallel.
TEST(LoopNest, DenseNestMatchesTheScheduleByHand) {
    const TuningTask t = makeDense(8, 32, 16);
    const KnobSpace s = templateSpace(t);
    KnobIndices k(s.knobCount());
    auto pick = [&](const std::string& knob, const std::vector<int64_t>& wanted) {
        for (size_t i = 0; i < s.knobCount(); ++i) {
            if (s.knob(i).name != knob) continue;
            for (size_t v = 0; v < s.knob(i).size(); ++v) {
                KnobIndices probe = k;
                probe[i] = static_cast<int>(v);
                const bool split = s.knob(i).kind == Knob::Kind::Split;
                if (split ? s.split(probe, knob) == wanted : s.value(probe, knob) == wanted[0]) {
                    k[i] = static_cast<int>(v);
                    return;
                }
            }
        }
        FAIL() << "no value for " << knob;
    };
    pick("tile_n", {2, 16});
    pick("tile_m", {2, 4});
    pick("tile_k", {2, 8});
    pick("vec", {8});
    pick("unroll_m", {1});
    pick("parallel", {1});
    const LoopNest nest = scheduleLoopNest(t, s, s.encode(k));
    EXPECT_EQ(nest.describe(), "io(2):par jo(2):par ro(2) j(2) ri(8) i(4):unroll jv(8):vec");
    const auto f = loopNestFeatures(nest);
    const auto names = loopNestFeatureNames();
    ASSERT_EQ(f.size(), names.size());
    auto feature = [&](const std::string& name) {
        const auto it = std::find(names.begin(), names.end(), name);
        EXPECT_NE(it, names.end()) << name;
        return f[it - names.begin()];
    };
    // Innermost (jv): 8 lanes; B is read along n (stride 1), A not at all (stride 0), 8 floats of B.
    EXPECT_DOUBLE_EQ(feature("L0_log2_extent"), 3);
    EXPECT_DOUBLE_EQ(feature("L0_vectorized"), 1);
    EXPECT_DOUBLE_EQ(feature("L0_w_log2_stride"), 1);  // log2(1 + 1)
    EXPECT_DOUBLE_EQ(feature("L0_in_log2_stride"), 0);
    EXPECT_DOUBLE_EQ(feature("L0_w_log2_touch_bytes"), std::log2(8 * 4));
    EXPECT_DOUBLE_EQ(feature("L0_in_log2_touch_bytes"), std::log2(4));  // one element of A, 8 times
    EXPECT_DOUBLE_EQ(feature("L0_in_log2_reuse"), 3);
    // i (slot 1): 4 rows unrolled; A moves by a row (16 floats) per i.
    EXPECT_DOUBLE_EQ(feature("L1_unrolled"), 1);
    EXPECT_DOUBLE_EQ(feature("L1_in_log2_stride"), std::log2(17));
    // ro (slot 4): the whole k range of A's 4 rows (4 x 16 floats), B's 16 x 16 tile, Y's 4 x 16.
    EXPECT_DOUBLE_EQ(feature("L4_in_log2_touch_bytes"), std::log2(4 * 16 * 4));
    EXPECT_DOUBLE_EQ(feature("L4_w_log2_touch_bytes"), std::log2(16 * 16 * 4));
    EXPECT_DOUBLE_EQ(feature("L4_out_log2_touch_bytes"), std::log2(4 * 16 * 4));
    // io (slot 6, outermost): parallel; every element of each buffer.
    EXPECT_DOUBLE_EQ(feature("L6_parallel"), 1);
    EXPECT_DOUBLE_EQ(feature("L6_w_log2_touch_bytes"), std::log2(16 * 32 * 4));
    EXPECT_DOUBLE_EQ(feature("L7_log2_extent"), 0);  // no loop there
}

TEST(LoopNest, EveryTemplatesNestFitsTheSlotsAndNamesItsLoops) {
    for (const TuningTask& t : {makeConv2d(1, 64, 56, 56, 64, 3, 1, 1), makeConv2d(1, 32, 28, 28, 32, 3, 2, 1, 32),
                                makeDense(1, 1000, 512), makeBatchMatMul(8, 128, 128, 32),
                                makeConv3d(1, 64, 8, 56, 56, 128, 3, 2, 1),
                                withPackedTemplate(makeConv2d(1, 64, 56, 56, 64, 3, 1, 1), 16),
                                withPackedTemplate(makeConv2d(1, 3, 224, 224, 64, 7, 2, 3), 16),
                                withPackedTemplate(makeConv2d(1, 96, 14, 14, 96, 3, 1, 1, 96), 8)}) {
        const KnobSpace s = templateSpace(t);
        Rng rng(2);
        for (int i = 0; i < 100; ++i) {
            const ConfigIndex c = s.random(rng);
            const LoopNest nest = scheduleLoopNest(t, s, c);
            ASSERT_LE(nest.loops.size(), kLoopFeatureSlots) << nest.describe();
            ASSERT_EQ(nest.accesses.size(), 3u);
            // Every loop indexes some buffer, except the batch loop of a batch of one.
            for (size_t l = 0; l < nest.loops.size(); ++l) {
                bool used = false;
                for (const auto& a : nest.accesses)
                    for (const auto& dim : a.coeff) used |= dim[l] != 0;
                EXPECT_TRUE(used || nest.loops[l].extent == 1) << nest.loops[l].var << " in " << nest.describe();
            }
            for (double v : loopNestFeatures(nest)) EXPECT_TRUE(std::isfinite(v));
        }
    }
}
