// Real kernels through the measure worker: correctness of the templates over whole (small)
// spaces, and the worker's isolation from crashing and hanging kernels. Timing figures are never
// asserted; the measurements use min_time 0 (one timed run) to stay fast.
#include <gtest/gtest.h>

#include <algorithm>

#include "tuning/HalideMeasurer.h"
#include "run/Rng.h"
#include "tuning/TemplateSpace.h"
#include "tuning/TuningRun.h"

using namespace graphopt::tuning;
using graphopt::Rng;

namespace {

HalideMeasurerOptions fastOptions() {
    HalideMeasurerOptions o;
    o.workerPath = GRAPHOPT_MEASURE_WORKER;
    o.minTimeS = 0;
    o.maxRepeats = 1;
    o.timeoutS = 60;
    return o;
}

// A few configurations that together give every value of every knob: configuration i sets knob k
// to value (i + offset_k) mod size_k, with random offsets (max knob size configurations in all).
std::vector<ConfigIndex> coveringSample(const KnobSpace& s, uint64_t seed) {
    Rng rng(seed);
    size_t n = 0;
    std::vector<size_t> offset(s.knobCount());
    for (size_t k = 0; k < s.knobCount(); ++k) {
        n = std::max(n, s.knob(k).size());
        offset[k] = static_cast<size_t>(rng.below(s.knob(k).size()));
    }
    std::vector<ConfigIndex> out;
    for (size_t i = 0; i < n; ++i) {
        KnobIndices idx(s.knobCount());
        for (size_t k = 0; k < s.knobCount(); ++k) idx[k] = static_cast<int>((i + offset[k]) % s.knob(k).size());
        out.push_back(s.encode(idx));
    }
    return out;
}

void expectAllCorrect(HalideMeasurer& m, const TuningTask& t, const std::vector<ConfigIndex>& configs) {
    const KnobSpace s = templateSpace(t);
    const auto results = m.measure(t, configs);
    ASSERT_EQ(results.size(), configs.size());
    for (const auto& r : results) {
        EXPECT_TRUE(r.ok) << t.describe() << " config " << r.config << " (" << s.describeText(r.config)
                          << "): " << r.error;
        if (r.ok) EXPECT_GT(r.gflops, 0);
    }
}

}  // namespace

TEST(HalideMeasurer, EveryConfigurationOfASmallDenseSpaceIsCorrect) {
    const TuningTask t = makeDense(1, 2, 2);
    const KnobSpace s = templateSpace(t);
    ASSERT_EQ(s.size(), 64u);
    std::vector<ConfigIndex> all;
    for (ConfigIndex c = 0; c < s.size(); ++c) all.push_back(c);
    HalideMeasurer m(fastOptions());
    expectAllCorrect(m, t, all);
    EXPECT_EQ(m.workerStarts(), 1);
}

TEST(HalideMeasurer, EveryKnobValueOfTheConvTemplatesIsCorrect) {
    HalideMeasurer m(fastOptions());
    // Strided, padded asymmetrically, dilated, grouped: the awkward cases of the conv template.
    TuningTask conv = makeConv2d(1, 4, 9, 7, 6, 3, 2, 1, 2);
    conv.dilationW = 2;
    conv.padRight = 2;
    conv.validate();
    const KnobSpace convSpace = templateSpace(conv);
    expectAllCorrect(m, conv, coveringSample(convSpace, 1));
    // Register-tiled kernels (order 0, channels unrolled, a tile small enough to unroll whole).
    std::vector<ConfigIndex> registerTiled;
    Rng rng(9);
    while (registerTiled.size() < 4) {
        const ConfigIndex c = convSpace.random(rng);
        const ScheduleParams p = decodeSchedule(conv, convSpace, c);
        if (p.order == 0 && p.unrollC && p.tileH > 1 && p.tileC * p.tileH * ((p.tileW + p.vec - 1) / p.vec) <= 24)
            registerTiled.push_back(c);
    }
    expectAllCorrect(m, conv, registerTiled);
    // Depthwise with channel multiplier 2.
    const TuningTask dw = makeConv2d(1, 4, 8, 8, 8, 3, 1, 1, 4);
    ASSERT_EQ(dw.kind, TaskKind::DepthwiseConv2d);
    expectAllCorrect(m, dw, coveringSample(templateSpace(dw), 2));
    // Dense with tiles that do not fit the vector width.
    expectAllCorrect(m, makeDense(3, 10, 12), coveringSample(templateSpace(makeDense(3, 10, 12)), 3));
    // Batched products (attention): every matrix of the batch must be right, each with its own B.
    const TuningTask bmm = makeBatchMatMul(3, 6, 10, 12);
    expectAllCorrect(m, bmm, coveringSample(templateSpace(bmm), 4));
    // 3-D convolution (video): strided in depth, padded, grouped, a depth-dilated window.
    TuningTask c3 = makeConv3d(1, 4, 6, 7, 9, 6, 3, 1, 1, 2);
    c3.strideD = 2;
    c3.dilationD = 2;
    c3.padFront = c3.padBack = 2;
    c3.validate();
    expectAllCorrect(m, c3, coveringSample(templateSpace(c3), 5));
}

TEST(HalideMeasurer, SurvivesAWorkerThatCrashes) {
    HalideMeasurerOptions o = fastOptions();
    o.testHooks[1] = "abort";
    HalideMeasurer m(o);
    const TuningTask t = makeDense(2, 8, 4);
    const auto r = m.measure(t, {0, 1, 2});
    ASSERT_EQ(r.size(), 3u);
    EXPECT_TRUE(r[0].ok) << r[0].error;
    EXPECT_FALSE(r[1].ok);
    EXPECT_NE(r[1].error.find("crashed"), std::string::npos) << r[1].error;
    EXPECT_TRUE(r[2].ok) << r[2].error;
    EXPECT_EQ(m.workerStarts(), 2);
}

TEST(HalideMeasurer, SurvivesAKernelThatExceedsTheTimeout) {
    HalideMeasurerOptions o = fastOptions();
    o.timeoutS = 3.0;  // generous for these tiny kernels (JIT warm-up is not counted), short for a test
    o.testHooks[1] = "hang";
    HalideMeasurer m(o);
    const TuningTask t = makeDense(2, 8, 4);
    const auto r = m.measure(t, {0, 1, 2});
    EXPECT_TRUE(r[0].ok) << r[0].error;
    EXPECT_FALSE(r[1].ok);
    EXPECT_NE(r[1].error.find("timeout"), std::string::npos) << r[1].error;
    EXPECT_TRUE(r[2].ok) << r[2].error;
    EXPECT_EQ(m.workerStarts(), 2);
}

TEST(HalideMeasurer, AMissingWorkerIsAnError) {
    HalideMeasurerOptions o = fastOptions();
    o.workerPath = "/nonexistent/graphopt-measure-worker";
    HalideMeasurer m(o);
    EXPECT_THROW(m.measure(makeDense(2, 2, 2), {0}), std::runtime_error);
}

TEST(HalideMeasurer, AMissingWorkerFailsTheRunWithItsReason) {
    HalideMeasurerOptions o = fastOptions();
    o.workerPath = "/nonexistent/graphopt-measure-worker";
    HalideMeasurer m(o);
    const TuningTask t = makeDense(2, 2, 2);
    TuningRun run(t, m, makeTuner("random", t, 1), TuningRunOptions{});
    const TuningResult r = run.run();
    EXPECT_EQ(r.status(), graphopt::RunStatus::Failed);
    EXPECT_NE(r.error().find("cannot run the measure worker"), std::string::npos) << r.error();
}
