// The packed conv template (NCHW[x]c activations, OIHW[i]o weights): its tasks and spaces, its
// layouts, and its kernels through the measure worker, whose every output is checked against
// libtorch's conv2d on the same random data. Both vector widths are compiled and run here (8
// lanes as AVX2, 16 as AVX-512), which needs an AVX-512 host for the second. Timing is never
// asserted: measurements use min_time 0.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "graph/Loaders.h"
#include "tuning/HalideMeasurer.h"
#include "run/Rng.h"
#include "tuning/TemplateSpace.h"
#include "tuning/halide/PackedLayout.h"

using namespace graphopt;
using namespace graphopt::tuning;

namespace {

HalideMeasurerOptions fastOptions() {
    HalideMeasurerOptions o;
    o.workerPath = GRAPHOPT_MEASURE_WORKER;
    o.minTimeS = 0;
    o.maxRepeats = 1;
    o.timeoutS = 60;
    o.threads = 2;
    return o;
}

std::vector<TuningTask> modelConvTasks(const std::string& model) {
    std::vector<TuningTask> out;
    for (const TuningTask& t : extractTasks(loadGraph(std::string(GRAPHOPT_SOURCE_DIR) + "/resources/models/" + model)))
        if (t.isConv()) out.push_back(t);
    return out;
}

// Every conv task of ResNet-18 and MobileNet-v2 at `lanes`, `perTask` random configurations each
// (seeded), all of which must compile, run and agree with libtorch.
void expectModelsAgreeWithLibtorch(int lanes, int perTask) {
    HalideMeasurer m(fastOptions());
    Rng rng(static_cast<uint64_t>(lanes));
    int tasks = 0, measured = 0;
    for (const char* model : {"resnet18.onnx", "mobilenet_v2.onnx"}) {
        for (const TuningTask& base : modelConvTasks(model)) {
            const TuningTask t = withPackedTemplate(base, lanes);
            ASSERT_TRUE(t.isPacked()) << base.describe();
            const KnobSpace s = templateSpace(t);
            std::set<ConfigIndex> configs;
            while (static_cast<int>(configs.size()) < std::min<int>(perTask, static_cast<int>(s.size())))
                configs.insert(s.random(rng));
            const auto results = m.measure(t, {configs.begin(), configs.end()});
            for (const auto& r : results) {
                EXPECT_TRUE(r.ok) << model << " " << t.describe() << " lanes " << lanes << " config " << r.config
                                  << " (" << s.describeText(r.config) << "): " << r.error;
                ++measured;
            }
            ++tasks;
        }
    }
    EXPECT_GE(tasks, 11 + 20);  // ResNet-18's 11 convs and MobileNet-v2's distinct ones
    EXPECT_EQ(measured, tasks * perTask);
}

}  // namespace

TEST(PackedTemplate, TaskKeepsItsTemplateThroughJsonAndKey) {
    const TuningTask nchw = makeConv2d(1, 64, 56, 56, 64, 3, 1, 1);
    const TuningTask packed = withPackedTemplate(nchw, 16);
    EXPECT_TRUE(packed.isPacked());
    EXPECT_EQ(packed.lanes, 16);
    EXPECT_NE(packed.key(), nchw.key());  // different kernels, different measurements
    const TuningTask back = TuningTask::fromJson(packed.toJson());
    EXPECT_EQ(back.key(), packed.key());
    EXPECT_EQ(std::string(back.templateName()), "packed");
    EXPECT_EQ(TuningTask::fromJson(nchw.toJson()).key(), nchw.key());
    // Shapes the packed template cannot serve keep the NCHW template and say why.
    const TuningTask grouped = makeConv2d(1, 8, 8, 8, 8, 3, 1, 1, 2);
    std::string why;
    EXPECT_FALSE(packedTemplateServes(grouped, &why));
    EXPECT_NE(why.find("grouped"), std::string::npos);
    EXPECT_FALSE(withPackedTemplate(grouped, 16).isPacked());
    EXPECT_FALSE(withPackedTemplate(makeConv2d(1, 4, 8, 8, 8, 3, 1, 1, 4), 16).isPacked());  // multiplier 2
    EXPECT_FALSE(withPackedTemplate(makeDense(1, 10, 10), 16).isPacked());
}

TEST(PackedTemplate, SpacesFollowTheShape) {
    // The first conv (3 channels) is not blocked over input channels.
    const TuningTask first = withPackedTemplate(makeConv2d(1, 3, 224, 224, 64, 7, 2, 3), 16);
    const KnobSpace fs = templateSpace(first);
    EXPECT_EQ(fs.knob(fs.knobIndex("ic_bn")).size(), 1u);
    EXPECT_EQ(decodePacked(first, fs, fs.size() - 1).icBn, 3);
    // 1x1 without padding: no kernel-width unrolling, no padding choice.
    const TuningTask pw = withPackedTemplate(makeConv2d(1, 64, 56, 56, 128, 1, 2, 0), 8);
    const KnobSpace ps = templateSpace(pw);
    EXPECT_THROW(ps.knobIndex("unroll_kw"), std::out_of_range);
    EXPECT_THROW(ps.knobIndex("pad_at"), std::out_of_range);
    for (ConfigIndex c = 0; c < ps.size(); c += 37) {
        const PackedParams p = decodePacked(pw, ps, c);
        EXPECT_EQ(p.ocBn % 8, 0);
        EXPECT_LE(p.regN, pw.outW());
    }
    // Large enough to need a tuner.
    EXPECT_GT(templateSpace(withPackedTemplate(makeConv2d(1, 128, 28, 28, 128, 3, 1, 1), 16)).size(), 1000u);
    // Depthwise: one channel block for input and output.
    const TuningTask dw = withPackedTemplate(makeConv2d(1, 144, 56, 56, 144, 3, 2, 1, 144), 16);
    const KnobSpace ds = templateSpace(dw);
    const PackedParams dp = decodePacked(dw, ds, ds.size() - 1);
    EXPECT_EQ(dp.icBn, dp.ocBn);
}

TEST(PackedLayout, PackingAndRepackingRoundTrip) {
    // 20 channels: the blocks of 8 and 16 do not divide them, so the last block is zero-padded.
    const TuningTask t = withPackedTemplate(makeConv2d(1, 20, 5, 6, 20, 3, 1, 1), 16);
    std::vector<float> x(20 * 5 * 6);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) + 0.5f;
    std::vector<float> b16(blockedSize(20, 5, 6, 16)), b8(blockedSize(20, 5, 6, 8)), back(x.size());
    repackActivation(20, 5, 6, 0, 16, x.data(), b16.data());
    repackActivation(20, 5, 6, 16, 8, b16.data(), b8.data());
    repackActivation(20, 5, 6, 8, 0, b8.data(), back.data());
    EXPECT_EQ(back, x);
    EXPECT_EQ(b16[(1 * 30 + 0) * 16 + 4], 0.0f);  // channel 20 of the second block is padding
    // The conv output layout: its packed buffer holds a value per (channel, pixel).
    PackedParams p;
    p.lanes = 16, p.icBn = 8, p.ocBn = 16;
    const PackedShape s = packedShape(t, p);
    EXPECT_EQ(s.icBlocks, 3);
    EXPECT_EQ(s.ocBlocks, 2);
    EXPECT_EQ(s.inH, 7);  // padded while packed (pad_at 0)
    std::vector<float> packed(static_cast<size_t>(s.outputSize));
    repackActivation(20, 5, 6, 0, 16, x.data(), packed.data());
    std::vector<float> out(x.size());
    unpackOutput(t, p, packed.data(), out.data());
    EXPECT_EQ(out, x);
    const std::vector<float> in = packInput(t, p, x.data());
    EXPECT_EQ(in[0], 0.0f);                                  // halo
    EXPECT_EQ(in[((0 * 7 + 1) * 8 + 1) * 8 + 0], x[0]);      // (c 0, y 0, x 0) after a 1-pixel halo
}

TEST(PackedTemplate, AgreesWithLibtorchOnResNet18AndMobileNetV2AtAvx512Width) {
    if (hostVectorLanes() < 16) GTEST_SKIP() << "this CPU has no AVX-512";
    expectModelsAgreeWithLibtorch(16, 1);
}

TEST(PackedTemplate, AgreesWithLibtorchOnResNet18AndMobileNetV2AtAvx2Width) {
    expectModelsAgreeWithLibtorch(8, 1);
}

TEST(PackedTemplate, ADroppedChannelBlockIsAFailedMeasurement) {
    // At the host's vector width only: the check of the output does not depend on it (both widths
    // are compiled and checked against libtorch above), and each width costs two workers.
    {
        const int lanes = hostVectorLanes();
        // Four input-channel blocks of 16 (ic_bn 16 is the second of its values); the broken kernel
        // leaves the last one out.
        const TuningTask t = withPackedTemplate(makeConv2d(1, 64, 14, 14, 64, 3, 1, 1), lanes);
        const KnobSpace s = templateSpace(t);
        KnobIndices idx(s.knobCount(), 0);
        idx[s.knobIndex("ic_bn")] = 1;
        const ConfigIndex c = s.encode(idx);
        ASSERT_EQ(decodePacked(t, s, c).icBn, 16);
        HalideMeasurerOptions o = fastOptions();
        o.testHooks[c] = "drop_block";
        HalideMeasurer m(o);
        const auto r = m.measure(t, {c, c + 1});
        ASSERT_EQ(r.size(), 2u);
        EXPECT_FALSE(r[0].ok);
        EXPECT_NE(r[0].error.find("wrong output"), std::string::npos) << r[0].error;
        EXPECT_NE(r[0].error.find("libtorch"), std::string::npos) << r[0].error;
        EXPECT_TRUE(r[1].ok) << r[1].error;  // the same worker goes on measuring correct kernels
        // Depthwise (one block): the broken kernel leaves a kernel column out.
        const TuningTask dw = withPackedTemplate(makeConv2d(1, 32, 14, 14, 32, 3, 1, 1, 32), lanes);
        HalideMeasurerOptions od = fastOptions();
        od.testHooks[0] = "drop_block";
        HalideMeasurer md(od);
        const auto rd = md.measure(dw, {0});
        EXPECT_FALSE(rd[0].ok);
        EXPECT_NE(rd[0].error.find("wrong output"), std::string::npos) << rd[0].error;
    }
}

TEST(PackedTemplate, ComparesWithLibtorchInOneWorkerPerThreadCount) {
    const TuningTask t = withPackedTemplate(makeConv2d(1, 32, 14, 14, 32, 3, 1, 1), hostVectorLanes());
    HalideMeasurerOptions o = fastOptions();
    const FairComparison f = compareFairly(t, 0, {1, 2}, o, 0.01);
    ASSERT_EQ(f.byThreads.size(), 2u);
    for (int threads : {1, 2}) {
        const LibtorchComparison* c = f.atThreads(threads);
        ASSERT_NE(c, nullptr) << f.toJson().dump();
        EXPECT_GT(c->tunedGflops, 0);
        EXPECT_GT(c->libtorchGflops, 0);
        EXPECT_GE(c->pairs, 5);
    }
    HalideMeasurer m(o);
    const nlohmann::json info = m.workerInfo();
    EXPECT_TRUE(info.value("ok", false)) << info.dump();
    EXPECT_EQ(info.value("threads", 0), 2);
}
