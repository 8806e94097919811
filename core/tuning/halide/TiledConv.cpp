#include "tuning/halide/TiledConv.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace graphopt::tuning {

using namespace Halide;

void defineTiledConv(const TuningTask& t, const TiledParams& q, PackedConvPipeline& k, bool dropLastBlock) {
    if (!t.isTiled()) throw std::runtime_error("defineTiledConv needs a conv2d task with the tiled template");
    const PackedParams& p = q.packed;
    PackedConvAlgorithm a;
    definePackedConvAlgorithm(t, p, k, dropLastBlock, a);
    const int L = p.lanes;
    const int regN = std::min<int>(p.regN, static_cast<int>(t.outW()));
    const bool unrollRows = tiledUnrollsRows(t, q);  // a register tile's rows too (TemplateSpace.h)
    const Var c = a.c, x = a.x, y = a.y, cb = a.cb, n = a.n;
    Func &src = a.src, &conv = a.conv;
    RDom& r = a.r;

    // The output: outer tile loops, the cache tile, the register tile. Every split but the
    // columns' is exact (the knobs factor the extents); the last column tile shifts inwards.
    Var xo("xo"), xi("xi"), co("co"), ci("ci"), cbo("cbo"), cbi("cbi"), yo("yo"), yt("yt"), ym("ym"), yr("yr"),
        tile("tile");
    k.out.split(x, xo, xi, regN, TailStrategy::ShiftInwards);
    k.out.split(c, co, ci, L).vectorize(ci).unroll(co).unroll(xi);
    k.out.split(cb, cbo, cbi, q.cbInner);
    k.out.split(y, yo, yt, q.yMid * q.yReg).split(yt, ym, yr, q.yReg);
    if (unrollRows) k.out.unroll(yr);
    const Var cacheInner = q.innerOrder == 0 ? ym : cbi, cacheOuter = q.innerOrder == 0 ? cbi : ym;
    const Var outerInner = q.outerOrder == 0 ? yo : cbo, outerOuter = q.outerOrder == 0 ? cbo : yo;
    k.out.reorder(ci, co, xi, yr, xo, cacheInner, cacheOuter, outerInner, outerOuter, n);
    Var cacheLevel = outerInner;  // where accum 1 computes the accumulators
    if (q.parallel == 1) {
        k.out.fuse(outerInner, outerOuter, tile).parallel(tile);
        cacheLevel = tile;
    } else {
        k.out.parallel(outerOuter);
    }

    // The reduction, inner to outer per `order`; ic_o (when split) always outermost.
    Stage u = conv.update();
    RVar rxo("rxo"), rxi("rxi"), rwo("rwo"), rwi("rwi");
    std::vector<VarOrRVar> channels;  // the channels of a block, inner first
    if (q.unrollIc > 1) {
        u.split(r.x, rxo, rxi, q.unrollIc);
        channels = {rxi, rxo};
    } else {
        channels = {r.x};
    }
    VarOrRVar blocks = r.w;
    if (q.icOuter > 1) {
        u.split(r.w, rwo, rwi, q.icInner);
        blocks = rwi;
    }
    std::vector<VarOrRVar> reduction;
    auto add = [&](const std::vector<VarOrRVar>& vs) { reduction.insert(reduction.end(), vs.begin(), vs.end()); };
    switch (p.order) {
        case 0:  // outer to inner: input blocks, kernel rows, kernel columns, channels of a block
            add(channels), add({r.y, r.z, blocks});
            break;
        case 1:  // input blocks, kernel rows, channels of a block, kernel columns
            add({r.y}), add(channels), add({r.z, blocks});
            break;
        default:  // kernel rows, kernel columns, input blocks, channels of a block
            add(channels), add({blocks, r.y, r.z});
            break;
    }

    Var cco("cco"), cci("cci");
    u.split(c, cco, cci, L);
    std::vector<VarOrRVar> loops;
    if (q.accum == 0) {
        // One register tile of accumulators, the whole reduction inside it (as the packed template).
        conv.compute_at(k.out, xo);
        conv.split(c, cco, cci, L).vectorize(cci).unroll(cco).unroll(x);
        loops = {cci, cco, x, y};
        loops.insert(loops.end(), reduction.begin(), reduction.end());
        if (q.icOuter > 1) loops.push_back(rwo);
        loops.insert(loops.end(), {cb, n});
        u.reorder(loops).vectorize(cci).unroll(cco).unroll(x);
        if (unrollRows) conv.unroll(y), u.unroll(y);
    } else {
        // The cache tile's accumulators: each ic_o chunk sweeps the tile's register tiles.
        conv.compute_at(k.out, cacheLevel);
        conv.vectorize(c, L);
        Var uxo("uxo"), uxi("uxi"), uym("uym"), uyr("uyr");
        u.split(x, uxo, uxi, regN, TailStrategy::GuardWithIf);
        u.split(y, uym, uyr, q.yReg);
        loops = {cci, cco, uxi, uyr};
        loops.insert(loops.end(), reduction.begin(), reduction.end());
        loops.push_back(uxo);
        if (q.innerOrder == 0)
            loops.insert(loops.end(), {uym, cb});
        else
            loops.insert(loops.end(), {cb, uym});
        if (q.icOuter > 1) loops.push_back(rwo);
        loops.push_back(n);
        u.reorder(loops).vectorize(cci).unroll(cco).unroll(uxi);
        if (unrollRows) u.unroll(uyr);
    }
    if (q.unrollIc > 1) u.unroll(rxi);
    if (p.unrollKw) u.unroll(r.y);  // the kernel columns

    if (p.padAt != 0) {
        src.compute_root().parallel(y);
        if (p.icBn % L == 0) src.vectorize(c, L);
    }
}

}  // namespace graphopt::tuning
