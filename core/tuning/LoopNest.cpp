#include "tuning/LoopNest.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <stdexcept>

#include "tuning/TemplateSpace.h"

namespace graphopt::tuning {

namespace {


// Builds a nest: loops outer to inner, then accesses whose dimensions name loop variables.
class NestBuilder {
public:
    void loop(const std::string& var, int64_t extent, LoopAnnotation a = LoopAnnotation::Serial) {
        index_[var] = nest_.loops.size();
        nest_.loops.push_back({var, std::max<int64_t>(1, extent), a});
    }
    // One dimension of an access: its extent in the buffer's layout and its index terms.
    struct Dim {
        int64_t extent;
        std::vector<std::pair<std::string, int64_t>> terms;  // loop variable, coefficient
    };
    // Dimensions innermost (contiguous) first.
    void access(const std::string& buffer, const std::vector<Dim>& dims) {
        BufferAccess a;
        a.buffer = buffer;
        int64_t stride = 1;
        for (const Dim& d : dims) {
            a.dimStride.push_back(stride);
            stride *= std::max<int64_t>(1, d.extent);
            std::vector<int64_t> c(nest_.loops.size(), 0);
            for (const auto& [var, k] : d.terms) {
                auto it = index_.find(var);
                if (it == index_.end()) throw std::logic_error("loop nest: no loop '" + var + "'");
                c[it->second] += k;
            }
            a.coeff.push_back(std::move(c));
        }
        nest_.accesses.push_back(std::move(a));
    }
    LoopNest take() { return std::move(nest_); }

private:
    LoopNest nest_;
    std::map<std::string, size_t> index_;
};

using L = LoopAnnotation;

// The packed template (halide/PackedConv.cpp): output loops down to the register tile (xo), then
// the update's reduction loops in the chosen order, then the tile: reg_n columns x channel
// vectors, unrolled, and the lanes, vectorized.
// The tiled template (halide/TiledConv.cpp), the update's loops: the outer tile loops, then
// (accum 1) the outer reduction chunk, the cache tile, the register tiles along the row, (accum 0)
// the outer chunk, the reduction in its order, and the register tile.
LoopNest tiledNest(const TuningTask& t, const TiledParams& q) {
    const PackedParams& p = q.packed;
    const int64_t lanes = p.lanes, icbn = p.icBn, ocbn = p.ocBn;
    const int64_t ow = t.outW(), regN = std::min<int64_t>(p.regN, ow);
    const int64_t inH = p.padAt == 0 ? t.inH + t.padTop + t.padBottom : t.inH;
    const int64_t inW = p.padAt == 0 ? t.inW + t.padLeft + t.padRight : t.inW;
    const int64_t cb = int64_t(q.icOuter) * q.icInner, kb = int64_t(q.cbOuter) * q.cbInner;
    NestBuilder b;
    b.loop("n", t.batch);
    const L outerPar = L::Parallel, innerPar = q.parallel == 1 ? L::Parallel : L::Serial;
    if (q.outerOrder == 0) {
        b.loop("cbo", q.cbOuter, outerPar);
        b.loop("yo", q.yOuter, innerPar);
    } else {
        b.loop("yo", q.yOuter, outerPar);
        b.loop("cbo", q.cbOuter, innerPar);
    }
    if (q.accum == 1) b.loop("icbo", q.icOuter);
    if (q.innerOrder == 0) {
        b.loop("cbi", q.cbInner);
        b.loop("ym", q.yMid);
    } else {
        b.loop("ym", q.yMid);
        b.loop("cbi", q.cbInner);
    }
    b.loop("xo", ceilDiv(ow, regN));
    if (q.accum == 0) b.loop("icbo", q.icOuter);
    auto kw = [&] { b.loop("kw", t.kernelW, p.unrollKw ? L::Unrolled : L::Serial); };
    auto ic = [&] {
        b.loop("ico", icbn / q.unrollIc);
        if (q.unrollIc > 1) b.loop("ici", q.unrollIc, L::Unrolled);
    };
    if (p.order == 2) {
        b.loop("kh", t.kernelH);
        kw();
        b.loop("icb", q.icInner);
        ic();
    } else {
        b.loop("icb", q.icInner);
        b.loop("kh", t.kernelH);
        if (p.order == 0) {
            kw();
            ic();
        } else {
            ic();
            kw();
        }
    }
    b.loop("yr", q.yReg, tiledUnrollsRows(t, q) ? L::Unrolled : L::Serial);
    b.loop("x", regN, L::Unrolled);
    b.loop("cvo", ocbn / lanes, L::Unrolled);
    b.loop("cvi", lanes, L::Vectorized);

    const std::vector<std::pair<std::string, int64_t>> outX = {{"xo", regN}, {"x", 1}};
    const std::vector<std::pair<std::string, int64_t>> inX = {{"xo", regN * t.strideW}, {"x", t.strideW},
                                                              {"kw", t.dilationW}};
    const int64_t yTile = int64_t(q.yMid) * q.yReg;
    const std::vector<std::pair<std::string, int64_t>> outY = {{"yo", yTile}, {"ym", q.yReg}, {"yr", 1}};
    const std::vector<std::pair<std::string, int64_t>> inY = {
        {"yo", yTile * t.strideH}, {"ym", q.yReg * t.strideH}, {"yr", t.strideH}, {"kh", t.dilationH}};
    const std::vector<std::pair<std::string, int64_t>> chan = {{"cvo", lanes}, {"cvi", 1}};
    std::vector<std::pair<std::string, int64_t>> icIdx = {{"ico", q.unrollIc}};
    if (q.unrollIc > 1) icIdx.push_back({"ici", 1});
    const std::vector<std::pair<std::string, int64_t>> icbIdx = {{"icbo", q.icInner}, {"icb", 1}};
    const std::vector<std::pair<std::string, int64_t>> cbIdx = {{"cbo", q.cbInner}, {"cbi", 1}};
    b.access("in", {{icbn, icIdx}, {inW, inX}, {inH, inY}, {cb, icbIdx}, {t.batch, {{"n", 1}}}});
    b.access("w", {{ocbn, chan},
                   {icbn, icIdx},
                   {t.kernelW, {{"kw", 1}}},
                   {t.kernelH, {{"kh", 1}}},
                   {cb, icbIdx},
                   {kb, cbIdx}});
    b.access("out", {{ocbn, chan}, {ow, outX}, {t.outH(), outY}, {kb, cbIdx}, {t.batch, {{"n", 1}}}});
    return b.take();
}

LoopNest packedNest(const TuningTask& t, const PackedParams& p) {
    const bool dw = t.kind == TaskKind::DepthwiseConv2d;
    const int64_t lanes = p.lanes, icbn = p.icBn, ocbn = p.ocBn;
    const int64_t cb = ceilDiv(t.inC, icbn), kb = ceilDiv(t.outC, ocbn);
    const int64_t ow = t.outW(), oh = t.outH(), regN = std::min<int64_t>(p.regN, ow);
    const int64_t inH = p.padAt == 0 ? t.inH + t.padTop + t.padBottom : t.inH;
    const int64_t inW = p.padAt == 0 ? t.inW + t.padLeft + t.padRight : t.inW;
    NestBuilder b;
    b.loop("n", t.batch);
    switch (p.parallel) {
        case 0:
            b.loop("y", oh, L::Parallel);
            b.loop("cb", kb);
            break;
        case 1:  // fused blocks x rows
            b.loop("cb", kb, L::Parallel);
            b.loop("y", oh, L::Parallel);
            break;
        default:
            b.loop("cb", kb, L::Parallel);
            b.loop("y", oh);
            break;
    }
    b.loop("xo", ceilDiv(ow, regN));
    if (dw) {
        b.loop("kh", t.kernelH);
        b.loop("kw", t.kernelW, p.unrollKw ? L::Unrolled : L::Serial);
    } else {
        const int order = p.order;
        auto kw = [&] { b.loop("kw", t.kernelW, p.unrollKw ? L::Unrolled : L::Serial); };
        if (order == 2) {
            b.loop("kh", t.kernelH);
            kw();
            b.loop("icb", cb);
            b.loop("ic", icbn);
        } else {
            b.loop("icb", cb);
            b.loop("kh", t.kernelH);
            if (order == 0) {
                kw();
                b.loop("ic", icbn);
            } else {
                b.loop("ic", icbn);
                kw();
            }
        }
    }
    b.loop("x", regN, L::Unrolled);
    b.loop("cvo", ocbn / lanes, L::Unrolled);
    b.loop("cvi", lanes, L::Vectorized);

    const std::vector<std::pair<std::string, int64_t>> outX = {{"xo", regN}, {"x", 1}};
    const std::vector<std::pair<std::string, int64_t>> inX = {{"xo", regN * t.strideW}, {"x", t.strideW},
                                                              {"kw", t.dilationW}};
    const std::vector<std::pair<std::string, int64_t>> inY = {{"y", t.strideH}, {"kh", t.dilationH}};
    const std::vector<std::pair<std::string, int64_t>> chan = {{"cvo", lanes}, {"cvi", 1}};
    if (dw) {
        b.access("in", {{icbn, chan}, {inW, inX}, {inH, inY}, {cb, {{"cb", 1}}}, {t.batch, {{"n", 1}}}});
        b.access("w", {{icbn, chan}, {t.kernelW, {{"kw", 1}}}, {t.kernelH, {{"kh", 1}}}, {cb, {{"cb", 1}}}});
    } else {
        b.access("in", {{icbn, {{"ic", 1}}}, {inW, inX}, {inH, inY}, {cb, {{"icb", 1}}}, {t.batch, {{"n", 1}}}});
        b.access("w", {{ocbn, chan},
                       {icbn, {{"ic", 1}}},
                       {t.kernelW, {{"kw", 1}}},
                       {t.kernelH, {{"kh", 1}}},
                       {cb, {{"icb", 1}}},
                       {kb, {{"cb", 1}}}});
    }
    b.access("out", {{ocbn, chan}, {ow, outX}, {oh, {{"y", 1}}}, {kb, {{"cb", 1}}}, {t.batch, {{"n", 1}}}});
    return b.take();
}

// The NCHW templates (halide/HalideKernel.cpp): output tiles (tile_c x tile_h x tile_w), the
// accumulator computed per tile at xo, then the update's loops.
LoopNest nchwConvNest(const TuningTask& t, const ScheduleParams& p) {
    const bool dw = t.kind == TaskKind::DepthwiseConv2d;
    const int64_t vec = std::max(1, p.vec), xVectors = ceilDiv(p.tileW, vec);
    const L tileAnn = p.parallel ? L::Parallel : L::Serial;
    NestBuilder b;
    b.loop("n", t.batch);
    b.loop("co", ceilDiv(t.outC, p.tileC), tileAnn);
    b.loop("yo", ceilDiv(t.outH(), p.tileH), tileAnn);
    b.loop("xo", ceilDiv(t.outW(), p.tileW));
    const int64_t cin = t.inC / t.groups;
    if (dw) {
        b.loop("c", p.tileC);
        b.loop("y", p.tileH);
        b.loop("x", xVectors);
        b.loop("kh", t.kernelH, p.unrollK ? L::Unrolled : L::Serial);
        b.loop("kw", t.kernelW, p.unrollK ? L::Unrolled : L::Serial);
    } else {
        // Register tile: order 0 with the channels unrolled and a tile that fits the register file
        // has its rows and column vectors unrolled too (the template's rule).
        const bool wholeTile = p.order == 0 && p.unrollC && p.tileC * p.tileH * xVectors <= 24;
        const L xAnn = wholeTile && xVectors > 1 ? L::Unrolled : L::Serial;
        const L yAnn = wholeTile && p.tileH > 1 ? L::Unrolled : L::Serial;
        b.loop("rco", ceilDiv(cin, p.tileR));
        if (p.order == 0) {
            b.loop("rci", p.tileR);
            b.loop("kh", t.kernelH);
            b.loop("kw", t.kernelW, p.unrollK ? L::Unrolled : L::Serial);
            b.loop("y", p.tileH, yAnn);
            b.loop("x", xVectors, xAnn);
        } else {
            b.loop("y", p.tileH);
            b.loop("x", xVectors);
            b.loop("rci", p.tileR);
            b.loop("kh", t.kernelH);
            b.loop("kw", t.kernelW, p.unrollK ? L::Unrolled : L::Serial);
        }
        b.loop("c", p.tileC, p.unrollC ? L::Unrolled : L::Serial);
    }
    b.loop("xv", vec, vec > 1 ? L::Vectorized : L::Serial);

    const std::vector<std::pair<std::string, int64_t>> outX = {{"xo", p.tileW}, {"x", vec}, {"xv", 1}};
    const std::vector<std::pair<std::string, int64_t>> inX = {
        {"xo", p.tileW * t.strideW}, {"x", vec * t.strideW}, {"xv", t.strideW}, {"kw", t.dilationW}};
    const std::vector<std::pair<std::string, int64_t>> inY = {
        {"yo", p.tileH * t.strideH}, {"y", t.strideH}, {"kh", t.dilationH}};
    const std::vector<std::pair<std::string, int64_t>> outC = {{"co", p.tileC}, {"c", 1}};
    if (dw) {
        b.access("in", {{t.inW, inX}, {t.inH, inY}, {t.inC, outC}, {t.batch, {{"n", 1}}}});
        b.access("w", {{t.kernelW, {{"kw", 1}}}, {t.kernelH, {{"kh", 1}}}, {1, {}}, {t.outC, outC}});
    } else {
        const std::vector<std::pair<std::string, int64_t>> red = {{"rco", p.tileR}, {"rci", 1}};
        b.access("in", {{t.inW, inX}, {t.inH, inY}, {t.inC, red}, {t.batch, {{"n", 1}}}});
        b.access("w", {{t.kernelW, {{"kw", 1}}}, {t.kernelH, {{"kh", 1}}}, {cin, red}, {t.outC, outC}});
    }
    b.access("out", {{t.outW(), outX}, {t.outH(), {{"yo", p.tileH}, {"y", 1}}}, {t.outC, outC}, {t.batch, {{"n", 1}}}});
    return b.take();
}

// The 3-D conv template (halide/HalideKernel.cpp, buildConv3d): output tiles (tile_c x tile_d x
// tile_h x tile_w), the accumulator per tile at xo, then the update: input-channel blocks, the
// tile's frames, rows and column vectors, the window and the channels of a block inside them.
LoopNest conv3dNest(const TuningTask& t, const ScheduleParams& p) {
    const int64_t vec = std::max(1, p.vec), xVectors = ceilDiv(p.tileW, vec);
    const L tileAnn = p.parallel ? L::Parallel : L::Serial;
    const int64_t cin = t.inC / t.groups;
    NestBuilder b;
    b.loop("n", t.batch);
    b.loop("co", ceilDiv(t.outC, p.tileC), tileAnn);
    b.loop("zo", ceilDiv(t.outD(), p.tileD), tileAnn);
    b.loop("yo", ceilDiv(t.outH(), p.tileH), tileAnn);
    b.loop("xo", ceilDiv(t.outW(), p.tileW));
    b.loop("rco", ceilDiv(cin, p.tileR));
    b.loop("z", p.tileD);
    b.loop("y", p.tileH);
    b.loop("x", xVectors);
    b.loop("rci", p.tileR);
    b.loop("kd", t.kernelD);
    b.loop("kh", t.kernelH);
    b.loop("kw", t.kernelW, p.unrollK ? L::Unrolled : L::Serial);
    b.loop("c", p.tileC, p.unrollC ? L::Unrolled : L::Serial);
    b.loop("xv", vec, vec > 1 ? L::Vectorized : L::Serial);

    const std::vector<std::pair<std::string, int64_t>> outX = {{"xo", p.tileW}, {"x", vec}, {"xv", 1}};
    const std::vector<std::pair<std::string, int64_t>> inX = {
        {"xo", p.tileW * t.strideW}, {"x", vec * t.strideW}, {"xv", t.strideW}, {"kw", t.dilationW}};
    const std::vector<std::pair<std::string, int64_t>> inY = {
        {"yo", p.tileH * t.strideH}, {"y", t.strideH}, {"kh", t.dilationH}};
    const std::vector<std::pair<std::string, int64_t>> inZ = {
        {"zo", p.tileD * t.strideD}, {"z", t.strideD}, {"kd", t.dilationD}};
    const std::vector<std::pair<std::string, int64_t>> outC = {{"co", p.tileC}, {"c", 1}};
    const std::vector<std::pair<std::string, int64_t>> red = {{"rco", p.tileR}, {"rci", 1}};
    b.access("in", {{t.inW, inX}, {t.inH, inY}, {t.inD, inZ}, {t.inC, red}, {t.batch, {{"n", 1}}}});
    b.access("w", {{t.kernelW, {{"kw", 1}}}, {t.kernelH, {{"kh", 1}}}, {t.kernelD, {{"kd", 1}}}, {cin, red},
                   {t.outC, outC}});
    b.access("out", {{t.outW(), outX}, {t.outH(), {{"yo", p.tileH}, {"y", 1}}}, {t.outD(), {{"zo", p.tileD}, {"z", 1}}},
                     {t.outC, outC}, {t.batch, {{"n", 1}}}});
    return b.take();
}

LoopNest denseNest(const TuningTask& t, const ScheduleParams& p) {
    const int64_t vec = std::max(1, p.vec);
    const L tileAnn = p.parallel ? L::Parallel : L::Serial;
    NestBuilder b;
    const int64_t batch = t.matmulBatch();
    if (batch > 1) b.loop("b", batch, tileAnn);
    b.loop("io", ceilDiv(t.m, p.tileH), tileAnn);
    b.loop("jo", ceilDiv(t.n, p.tileW), tileAnn);
    b.loop("ro", ceilDiv(t.k, p.tileR));
    b.loop("j", ceilDiv(p.tileW, vec));
    b.loop("ri", p.tileR);
    b.loop("i", p.tileH, p.unrollC ? L::Unrolled : L::Serial);
    b.loop("jv", vec, vec > 1 ? L::Vectorized : L::Serial);
    const std::vector<std::pair<std::string, int64_t>> k = {{"ro", p.tileR}, {"ri", 1}};
    const std::vector<std::pair<std::string, int64_t>> m = {{"io", p.tileH}, {"i", 1}};
    const std::vector<std::pair<std::string, int64_t>> n = {{"jo", p.tileW}, {"j", vec}, {"jv", 1}};
    if (batch > 1) {
        const std::vector<std::pair<std::string, int64_t>> bv = {{"b", 1}};
        b.access("in", {{t.k, k}, {t.m, m}, {batch, bv}});   // A [b][m][k]
        b.access("w", {{t.n, n}, {t.k, k}, {batch, bv}});    // B [b][k][n]
        b.access("out", {{t.n, n}, {t.m, m}, {batch, bv}});  // Y [b][m][n]
        return b.take();
    }
    b.access("in", {{t.k, k}, {t.m, m}});   // A [m][k]
    b.access("w", {{t.n, n}, {t.k, k}});    // B [k][n]
    b.access("out", {{t.n, n}, {t.m, m}});  // Y [m][n]
    return b.take();
}

const char* annotationName(LoopAnnotation a) {
    switch (a) {
        case L::Parallel: return ":par";
        case L::Vectorized: return ":vec";
        case L::Unrolled: return ":unroll";
        default: return "";
    }
}

const char* const kBuffers[] = {"in", "w", "out"};

}  // namespace

std::string LoopNest::describe() const {
    std::ostringstream os;
    for (size_t i = 0; i < loops.size(); ++i)
        os << (i ? " " : "") << loops[i].var << "(" << loops[i].extent << ")" << annotationName(loops[i].annotation);
    return os.str();
}

LoopNest scheduleLoopNest(const TuningTask& task, const KnobSpace& space, ConfigIndex config) {
    if (task.isTiled()) return tiledNest(task, decodeTiled(task, space, config));
    if (task.isPacked()) return packedNest(task, decodePacked(task, space, config));
    const ScheduleParams p = decodeSchedule(task, space, config);
    if (task.is3d()) return conv3dNest(task, p);
    return task.isConv() ? nchwConvNest(task, p) : denseNest(task, p);
}

std::vector<double> loopNestFeatures(const LoopNest& nest) {
    constexpr size_t perBuffer = 3, perSlot = 4 + 3 * perBuffer;
    std::vector<double> f(kLoopFeatureSlots * perSlot, 0.0);
    const size_t n = nest.loops.size();
    if (n > kLoopFeatureSlots) throw std::logic_error("loop nest deeper than the feature slots: " + nest.describe());
    for (size_t level = 0; level < n; ++level) {
        const Loop& loop = nest.loops[level];
        double* s = f.data() + (n - 1 - level) * perSlot;  // slot 0 = innermost
        s[0] = std::log2(static_cast<double>(loop.extent));
        s[1] = loop.annotation == L::Parallel;
        s[2] = loop.annotation == L::Vectorized;
        s[3] = loop.annotation == L::Unrolled;
    }
    for (size_t bi = 0; bi < 3; ++bi) {
        const BufferAccess* a = nullptr;
        for (const auto& acc : nest.accesses)
            if (acc.buffer == kBuffers[bi]) a = &acc;
        if (!a) continue;
        // Inner to outer: per dimension, the index range the loops at and inside the level span
        // and the iterations of those loops; the touch is their product over dimensions.
        const size_t dims = a->coeff.size();
        std::vector<double> span(dims, 1.0), iterations(dims, 1.0);
        double inside = 1;  // iterations of every loop at and inside the level
        for (size_t level = n; level-- > 0;) {
            const double extent = static_cast<double>(nest.loops[level].extent);
            inside *= extent;
            double touch = 1, stride = 0;
            for (size_t d = 0; d < dims; ++d) {
                const int64_t c = a->coeff[d][level];
                if (c) {
                    span[d] += static_cast<double>(std::llabs(c)) * (extent - 1);
                    iterations[d] *= extent;
                }
                touch *= std::min(span[d], iterations[d]);
                stride += static_cast<double>(c) * static_cast<double>(a->dimStride[d]);
            }
            double* sb = f.data() + (n - 1 - level) * perSlot + 4 + bi * perBuffer;
            sb[0] = std::log2(touch * static_cast<double>(nest.elementBytes));
            sb[1] = std::log2(1.0 + std::fabs(stride));
            sb[2] = std::log2(inside / touch);
        }
    }
    return f;
}

std::vector<std::string> loopNestFeatureNames() {
    std::vector<std::string> names;
    for (size_t s = 0; s < kLoopFeatureSlots; ++s) {
        const std::string p = "L" + std::to_string(s) + "_";
        for (const char* x : {"log2_extent", "parallel", "vectorized", "unrolled"}) names.push_back(p + x);
        for (const char* b : kBuffers)
            for (const char* x : {"log2_touch_bytes", "log2_stride", "log2_reuse"})
                names.push_back(p + b + "_" + x);
    }
    return names;
}

}  // namespace graphopt::tuning
