#include <gtest/gtest.h>

#include "tuning/SimulatedMeasurer.h"
#include "tuning/TemplateSpace.h"

using namespace graphopt::tuning;
using graphopt::Rng;

namespace {

// The configuration whose knobs take the given values (split knobs by their inner factor).
ConfigIndex pick(const KnobSpace& s, const std::map<std::string, int64_t>& values) {
    KnobIndices k(s.knobCount(), 0);
    for (const auto& [name, v] : values) {
        const int i = s.knobIndex(name);
        const Knob& knob = s.knob(i);
        bool found = false;
        for (size_t e = 0; e < knob.size(); ++e)
            if (knob.entities[e].back() == v) k[i] = static_cast<int>(e), found = true;
        EXPECT_TRUE(found) << name << "=" << v;
    }
    return s.encode(k);
}

}  // namespace

TEST(SimulatedMeasurer, IsDeterministicForASeed) {
    const TuningTask t = makeConv2d(1, 64, 56, 56, 64, 3, 1, 1);
    const KnobSpace s = templateSpace(t);
    SimulatedMeasurer a(5), b(5), c(6);
    std::vector<ConfigIndex> cfgs = {0, 17, 12345, s.size() - 1};
    const auto ra = a.measure(t, cfgs), rb = b.measure(t, cfgs), rc = c.measure(t, cfgs);
    bool differ = false;
    for (size_t i = 0; i < cfgs.size(); ++i) {
        EXPECT_TRUE(ra[i].ok);
        EXPECT_EQ(ra[i].config, cfgs[i]);
        EXPECT_EQ(ra[i].latencyS, rb[i].latencyS);
        EXPECT_GT(ra[i].gflops, 0);
        EXPECT_NEAR(ra[i].latencyS, rc[i].latencyS, ra[i].latencyS * 0.07);  // only the noise differs
        differ |= ra[i].latencyS != rc[i].latencyS;
    }
    EXPECT_TRUE(differ);
    // Order of measurement does not matter.
    EXPECT_EQ(a.measure(t, {12345})[0].latencyS, ra[2].latencyS);
}

TEST(SimulatedMeasurer, RanksObviouslyBadTilingsBelowGoodOnes) {
    const TuningTask t = makeConv2d(1, 64, 56, 56, 64, 3, 1, 1);
    const KnobSpace s = templateSpace(t);
    SimulatedMeasurer m(1);
    const ConfigIndex good = pick(s, {{"tile_co", 8}, {"tile_oh", 4}, {"tile_ow", 56}, {"tile_ci", 16},
                                      {"vec", 8}, {"unroll_co", 1}, {"unroll_kw", 1}, {"order", 1},
                                      {"parallel", 1}, {"pad_at", 1}});
    const ConfigIndex scalar = pick(s, {{"tile_co", 8}, {"tile_oh", 4}, {"tile_ow", 56}, {"tile_ci", 16},
                                        {"vec", 1}, {"unroll_co", 1}, {"unroll_kw", 1}, {"order", 1},
                                        {"parallel", 1}, {"pad_at", 1}});
    const ConfigIndex tiny = pick(s, {{"tile_co", 1}, {"tile_oh", 1}, {"tile_ow", 1}, {"tile_ci", 1},
                                      {"vec", 8}, {"unroll_co", 0}, {"order", 0}, {"parallel", 0}});
    const ConfigIndex serial = pick(s, {{"tile_co", 8}, {"tile_oh", 4}, {"tile_ow", 56}, {"tile_ci", 16},
                                        {"vec", 8}, {"unroll_co", 1}, {"unroll_kw", 1}, {"order", 1},
                                        {"parallel", 0}, {"pad_at", 1}});
    const double g = m.latency(t, good);
    EXPECT_LT(g * 3, m.latency(t, scalar));
    EXPECT_LT(g * 5, m.latency(t, tiny));
    EXPECT_LT(g * 1.5, m.latency(t, serial));
    // The good kernel is a plausible fraction of the model's peak.
    const double peak = 8 * 2 * 2 * 3.0 * 2;  // lanes x FMA x ports x GHz x cores
    const double gf = m.measure(t, {good})[0].gflops;
    EXPECT_GT(gf, 0.3 * peak);
    EXPECT_LE(gf, 1.05 * peak);
}

#include "tuning/PeakFlops.h"

TEST(PeakFlops, ReportsAPositiveRateForOneAndAllThreads) {
    const PeakFlops p = measurePeakFlops(0.01);
    EXPECT_FALSE(p.isa.empty());
    EXPECT_GE(p.threads, 1);
    EXPECT_GT(p.gflops1, 0);
    EXPECT_GT(p.gflopsAll, 0);
    EXPECT_EQ(p.runs, 9);
    // The load other processes put on the machine is read (Linux has /proc/stat) and reported.
    EXPECT_GE(p.otherBusyCores, 0);
    EXPECT_EQ(p.loaded, p.otherBusyCores >= 0.25);
    const nlohmann::json j = p.toJson();
    for (const char* key : {"gflops_1_thread", "gflops_all_threads", "runs", "other_busy_cores", "loaded", "remeasured"})
        EXPECT_TRUE(j.contains(key)) << key;
}

TEST(PeakFlops, AKernelAboveThePeakGetsItMeasuredAgain) {
    const PeakFlops p = measurePeakFlops(0.01, 2);
    // Below the peak: unchanged, not measured again.
    const PeakFlops same = remeasuredIfBeaten(p, p.gflops1 * 0.5, 1);
    EXPECT_FALSE(same.remeasured);
    EXPECT_EQ(same.gflops1, p.gflops1);
    // Above it (an impossible rate): measured again, never lower than before.
    const PeakFlops again = remeasuredIfBeaten(p, p.gflopsAll * 100, p.threads);
    EXPECT_TRUE(again.remeasured);
    EXPECT_GE(again.gflops1, p.gflops1);
    EXPECT_GE(again.gflopsAll, p.gflopsAll);
    EXPECT_TRUE(again.toJson()["remeasured"].get<bool>());
}
