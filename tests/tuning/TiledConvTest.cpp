// The tiled conv template (multi-level tiles over the packed layouts): its spaces, valid by
// construction; the packed configurations inside it, building the same kernels; and a few
// configurations per ResNet-18 conv through the measure worker, checked against libtorch.
// (bench/tuning/tiled_validity checks 200 per task.) Timing is never asserted.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "graph/Loaders.h"
#include "run/Rng.h"
#include "tuning/HalideMeasurer.h"
#include "tuning/LoopNest.h"
#include "tuning/TemplateSpace.h"
#include "tuning/halide/HalideKernel.h"

using namespace graphopt;
using namespace graphopt::tuning;

namespace {

std::vector<TuningTask> resnet18Convs() {
    std::vector<TuningTask> out;
    for (const TuningTask& t :
         extractTasks(loadGraph(std::string(GRAPHOPT_SOURCE_DIR) + "/resources/models/resnet18.onnx")))
        if (t.kind == TaskKind::Conv2d) out.push_back(t);
    return out;
}

std::vector<float> seededData(int64_t n, uint64_t seed) {
    Rng rng(seed);
    std::vector<float> v(static_cast<size_t>(n));
    for (float& x : v) x = static_cast<float>(rng.uniform() * 2 - 1);
    return v;
}

std::vector<float> runKernel(const TuningTask& t, ConfigIndex c) {
    const std::vector<float> in = seededData(t.inputElements(), 1), w = seededData(t.weightElements(), 2);
    std::vector<float> out(static_cast<size_t>(t.outputElements()));
    HalideKernel k(t, c);
    k.run(in.data(), w.data(), out.data());
    return out;
}

}  // namespace

TEST(TiledTemplate, EveryResNet18ConvHasAtLeast1e5Configurations) {
    const auto convs = resnet18Convs();
    ASSERT_EQ(convs.size(), 11u);
    for (int lanes : {8, 16})
        for (const TuningTask& base : convs) {
            const TuningTask t = withTiledTemplate(base, lanes);
            ASSERT_TRUE(t.isTiled()) << base.describe();
            EXPECT_GE(templateSpace(t).size(), 100000u) << t.describe() << " lanes " << lanes;
        }
    // Depthwise stays with the packed template; the task's key names its template.
    const TuningTask dw = withTiledTemplate(makeConv2d(1, 32, 14, 14, 32, 3, 1, 1, 32), 16);
    EXPECT_TRUE(dw.isPacked());
    EXPECT_FALSE(dw.isTiled());
    const TuningTask tiled = withTiledTemplate(convs[1], 16);
    EXPECT_NE(tiled.key(), withPackedTemplate(convs[1], 16).key());
    EXPECT_EQ(TuningTask::fromJson(tiled.toJson()).key(), tiled.key());
    EXPECT_THROW(withTemplate(convs[1], "blocked"), std::invalid_argument);
}

TEST(TiledTemplate, EveryConfigurationDecodesToExactTiles) {
    Rng rng(7);
    for (const TuningTask& base : resnet18Convs()) {
        const TuningTask t = withTiledTemplate(base, 16);
        const KnobSpace s = templateSpace(t);
        for (int i = 0; i < 300; ++i) {
            const ConfigIndex c = s.random(rng);
            const TiledParams q = decodeTiled(t, s, c);
            const int64_t ocVectors = (t.outC + 15) / 16;
            EXPECT_EQ(int64_t(q.cbOuter) * q.cbInner * (q.packed.ocBn / 16), ocVectors) << s.describeText(c);
            EXPECT_EQ(int64_t(q.yOuter) * q.yMid * q.yReg, t.outH()) << s.describeText(c);
            EXPECT_LE(q.yReg, 4);
            if (t.inC >= 8) {
                EXPECT_EQ(int64_t(q.icOuter) * q.icInner * q.packed.icBn, (t.inC + 7) / 8 * 8) << s.describeText(c);
                EXPECT_EQ(q.packed.icBn % q.unrollIc, 0);
            } else {
                EXPECT_EQ(q.packed.icBn, t.inC);
            }
            EXPECT_LE(q.packed.regN, t.outW());
            // The loop nest the cost models read fits their feature slots.
            EXPECT_NO_THROW(scheduleFeatures(t, s, c)) << s.describeText(c);
        }
    }
}

namespace {

// A configuration of the tiled template for `t` with these knob values (a split knob by its
// factors, an enum knob by its value); knobs not named keep their first entity.
ConfigIndex tiledConfig(const TuningTask& t, const std::map<std::string, std::vector<int64_t>>& values) {
    const KnobSpace s = templateSpace(t);
    KnobIndices k(s.knobCount(), 0);
    for (const auto& [name, value] : values) {
        const Knob& knob = s.knob(s.knobIndex(name));
        bool found = false;
        for (size_t e = 0; e < knob.size() && !found; ++e)
            if (knob.entities[e] == value) k[s.knobIndex(name)] = static_cast<int>(e), found = true;
        EXPECT_TRUE(found) << name << " has no such entity in " << t.describe();
    }
    return s.encode(k);
}

}  // namespace

// A register tile taller than the packed template's largest (64 accumulator vectors) keeps its
// rows as a loop: unrolled, 4 rows x 12 columns x 4 vectors took 23.5 s to compile on a Zen 3
// host, past the measurer's limit. Up to 64, the rows are unrolled as before.
TEST(TiledTemplate, TallRegisterTilesKeepTheirRowsAsALoop) {
    Rng rng(5);
    int rolled = 0, unrolled = 0;
    for (int lanes : {8, 16})
        for (const TuningTask& base : resnet18Convs()) {
            const TuningTask t = withTiledTemplate(base, lanes);
            const KnobSpace s = templateSpace(t);
            for (int i = 0; i < 200; ++i) {
                const ConfigIndex c = s.random(rng);
                const TiledParams q = decodeTiled(t, s, c);
                const int64_t tile = int64_t(q.yReg) * std::min<int64_t>(q.packed.regN, t.outW()) * (q.packed.ocBn / lanes);
                // What the loop nest (the cost models' view of the schedule) unrolls of the tile.
                int64_t unrolledTile = 1;
                bool rowsUnrolled = false;
                for (const Loop& l : scheduleLoopNest(t, s, c).loops)
                    if ((l.var == "yr" || l.var == "x" || l.var == "cvo") && l.annotation == LoopAnnotation::Unrolled) {
                        unrolledTile *= l.extent;
                        rowsUnrolled = rowsUnrolled || l.var == "yr";
                    }
                EXPECT_LE(unrolledTile, kMaxUnrolledAccumulators) << t.describe() << ": " << s.describeText(c);
                EXPECT_EQ(rowsUnrolled, q.yReg > 1 && tile <= kMaxUnrolledAccumulators) << s.describeText(c);
                EXPECT_EQ(tiledUnrollsRows(t, q), rowsUnrolled) << s.describeText(c);
                if (q.yReg > 1) ++(rowsUnrolled ? unrolled : rolled);
            }
        }
    EXPECT_GT(rolled, 0);
    EXPECT_GT(unrolled, 0);

    // The configuration that timed out on the Zen 3 host builds, runs and agrees with libtorch
    // at this host's width, with both accumulator placements.
    const TuningTask t = withTiledTemplate(resnet18Convs().at(1), hostVectorLanes());
    HalideMeasurerOptions o;
    o.workerPath = GRAPHOPT_MEASURE_WORKER;
    o.minTimeS = 0;
    o.maxRepeats = 1;
    o.timeoutS = 60;
    HalideMeasurer m(o);
    const int64_t ocBlocks = (t.outC + t.lanes - 1) / t.lanes;
    std::vector<ConfigIndex> configs;
    for (int64_t accum : {0, 1})
        configs.push_back(tiledConfig(t, {{"tile_oc", {ocBlocks / 4, 1, 4}},
                                          {"tile_ic", {1, 4, 2}},
                                          {"tile_oh", {1, 14, 4}},
                                          {"reg_n", {12}},
                                          {"unroll_kw", {1}},
                                          {"order", {1}},
                                          {"unroll_ic", {2}},
                                          {"accum", {accum}}}));
    const KnobSpace s = templateSpace(t);
    EXPECT_FALSE(tiledUnrollsRows(t, decodeTiled(t, s, configs[0])));
    for (const auto& r : m.measure(t, configs)) EXPECT_TRUE(r.ok) << s.describeText(r.config) << ": " << r.error;
}

TEST(TiledTemplate, PackedConfigurationsMapInAndBuildTheSameKernel) {
    const int lanes = hostVectorLanes();
    // A 3x3 conv with several blocks each way, a strided 1x1, the first conv's shape (3 channels).
    const std::vector<TuningTask> bases = {makeConv2d(1, 32, 10, 12, 64, 3, 1, 1), makeConv2d(1, 32, 14, 14, 32, 1, 2, 0),
                                           makeConv2d(1, 3, 20, 20, 32, 7, 2, 3)};
    Rng rng(3);
    int compared = 0;
    for (const TuningTask& base : bases) {
        const TuningTask packed = withPackedTemplate(base, lanes);
        const TuningTask tiled = withTiledTemplate(base, lanes);
        const KnobSpace ps = templateSpace(packed), ts = templateSpace(tiled);
        // Every packed configuration whose blocks divide the channels maps, onto one that decodes
        // to the same blocks, register tile, order and padding.
        int mapped = 0;
        for (ConfigIndex c = 0; c < ps.size(); ++c) {
            ConfigIndex tc = 0;
            if (!tiledFromPacked(packed, c, &tc)) continue;
            ++mapped;
            const PackedParams p = decodePacked(packed, ps, c), q = decodeTiled(tiled, ts, tc).packed;
            ASSERT_EQ(p.icBn, q.icBn);
            ASSERT_EQ(p.ocBn, q.ocBn);
            ASSERT_EQ(p.regN, q.regN);
            ASSERT_EQ(p.order, q.order);
            ASSERT_EQ(p.padAt, q.padAt);
            ASSERT_EQ(p.unrollKw, q.unrollKw);
        }
        EXPECT_GT(mapped, 0) << base.describe();
        // Channel counts that every block divides: the whole packed space maps.
        if (base.inC % 64 == 0 || base.inC < 8) EXPECT_EQ(mapped, static_cast<int>(ps.size())) << base.describe();
        // The same loop nest and reduction order: bit-identical outputs, for one configuration of
        // each packed parallel scheme and a few random others.
        std::vector<ConfigIndex> sample;
        for (int par = 0; par < 3; ++par) {
            KnobIndices k = ps.randomIndices(rng);
            k[ps.knobIndex("parallel")] = par;
            sample.push_back(ps.encode(k));
        }
        for (int i = 0; i < 2; ++i) sample.push_back(ps.random(rng));
        for (ConfigIndex c : sample) {
            ConfigIndex tc = 0;
            if (!tiledFromPacked(packed, c, &tc)) continue;
            EXPECT_EQ(runKernel(packed, c), runKernel(tiled, tc))
                << base.describe() << ": packed " << ps.describeText(c) << " vs tiled " << ts.describeText(tc);
            ++compared;
        }
    }
    EXPECT_GE(compared, 10);
}

TEST(TiledTemplate, ResNet18ConvsCompileAndAgreeWithLibtorch) {
    HalideMeasurerOptions o;
    o.workerPath = GRAPHOPT_MEASURE_WORKER;
    o.minTimeS = 0;
    o.maxRepeats = 1;
    o.timeoutS = 60;
    o.threads = 2;
    HalideMeasurer m(o);
    Rng rng(11);
    int measured = 0, taskNo = 0;
    for (const TuningTask& base : resnet18Convs()) {
        const TuningTask t = withTiledTemplate(base, hostVectorLanes());
        const KnobSpace s = templateSpace(t);
        // A random configuration, and one with an outer reduction split where the task has one and
        // the accumulator placement alternating from task to task (a few per task keep CI short
        // under the sanitizers; bench/tuning/tiled_validity checks 200 per task).
        std::vector<ConfigIndex> configs = {s.random(rng)};
        {
            const int accum = taskNo++ % 2;
            KnobIndices k = s.randomIndices(rng);
            k[s.knobIndex("accum")] = accum;
            if (t.inC >= 8) {
                const Knob& ic = s.knob(s.knobIndex("tile_ic"));
                for (size_t e = 0; e < ic.size(); ++e)
                    if (ic.entities[e][0] > 1) k[s.knobIndex("tile_ic")] = static_cast<int>(e);
            }
            configs.push_back(s.encode(k));
        }
        for (const auto& r : m.measure(t, configs)) {
            EXPECT_TRUE(r.ok) << t.describe() << " config " << r.config << " (" << s.describeText(r.config)
                              << "): " << r.error;
            ++measured;
        }
    }
    EXPECT_EQ(measured, 11 * 2);
}
