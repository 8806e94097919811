#include "tuning/halide/PackedConv.h"

#include <stdexcept>

#include "tuning/halide/PackedLayout.h"

namespace graphopt::tuning {

using namespace Halide;

namespace {

int i32(int64_t v) {
    if (v > INT32_MAX || v < INT32_MIN) throw std::runtime_error("size too large for a 32-bit Halide index");
    return static_cast<int>(v);
}

// Dense row-major strides, fixed sizes: Halide specialises the kernel to the task's shapes and
// checks the buffers it is given against them.
void setDense(OutputImageParam p, const std::vector<int>& extents) {
    int stride = 1;
    for (size_t d = 0; d < extents.size(); ++d) {
        p.dim(static_cast<int>(d)).set_bounds(0, extents[d]).set_stride(stride);
        stride *= extents[d];
    }
}

}  // namespace

void definePackedConvAlgorithm(const TuningTask& t, const PackedParams& p, PackedConvPipeline& k, bool dropLastBlock,
                               PackedConvAlgorithm& a) {
    const bool depthwise = t.kind == TaskKind::DepthwiseConv2d;
    const PackedShape s = packedShape(t, p);
    const int L = p.lanes, icbn = p.icBn, ocbn = p.ocBn;
    const int Cb = i32(s.icBlocks), Kb = i32(s.ocBlocks), N = i32(t.batch);
    const int KW = i32(t.kernelW), KH = i32(t.kernelH), OW = i32(t.outW()), OH = i32(t.outH());
    if (ocbn % L) throw std::runtime_error("oc_bn must be a multiple of the vector lanes");

    setDense(k.input, {icbn, i32(s.inW), i32(s.inH), Cb, N});
    const Var c = a.c, x = a.x, y = a.y, cb = a.cb, n = a.n;

    // The padded input: either it arrives padded (reads need no boundary condition) or the kernel
    // makes a padded copy once per run, before the convolution.
    Func& src = a.src;
    if (p.padAt == 0) {
        src(c, x, y, cb, n) = k.input(c, x, y, cb, n);
    } else {
        Region bounds = {Range(), Range(0, i32(t.inW)), Range(0, i32(t.inH)), Range(), Range()};
        Func bounded = BoundaryConditions::constant_exterior(k.input, 0.0f, bounds);
        src(c, x, y, cb, n) = bounded(c, x - i32(t.padLeft), y - i32(t.padTop), cb, n);
    }

    const int sw = i32(t.strideW), sh = i32(t.strideH), dw = i32(t.dilationW), dh = i32(t.dilationH);
    Func& conv = a.conv;
    conv(c, x, y, cb, n) = 0.0f;
    RDom& r = a.r;
    if (depthwise) {
        setDense(k.dwWeights, {icbn, KW, KH, Cb});
        r = RDom(0, dropLastBlock ? KW - 1 : KW, 0, KH, "r");
        conv(c, x, y, cb, n) += src(c, x * sw + r.x * dw, y * sh + r.y * dh, cb, n) * k.dwWeights(c, r.x, r.y, cb);
    } else {
        setDense(k.weights, {ocbn, icbn, KW, KH, Cb, Kb});
        // r.x: channel in the input block, r.y: kernel column, r.z: kernel row, r.w: input block.
        const int blocks = dropLastBlock && Cb > 1 ? Cb - 1 : Cb;
        const int cols = dropLastBlock && Cb == 1 ? KW - 1 : KW;
        r = RDom(0, icbn, 0, cols, 0, KH, 0, blocks, "r");
        conv(c, x, y, cb, n) +=
            src(r.x, x * sw + r.y * dw, y * sh + r.z * dh, r.w, n) * k.weights(c, r.x, r.y, r.z, r.w, cb);
    }
    k.out(c, x, y, cb, n) = conv(c, x, y, cb, n);
    setDense(k.out.output_buffer(), {ocbn, OW, OH, Kb, N});
}

void definePackedConv(const TuningTask& t, const PackedParams& p, PackedConvPipeline& k, bool dropLastBlock) {
    PackedConvAlgorithm a;
    definePackedConvAlgorithm(t, p, k, dropLastBlock, a);
    const bool depthwise = t.kind == TaskKind::DepthwiseConv2d;
    const int L = p.lanes, icbn = p.icBn, OW = i32(t.outW());
    const Var c = a.c, x = a.x, y = a.y, cb = a.cb, n = a.n;
    Func &src = a.src, &conv = a.conv;
    RDom& r = a.r;

    // Output: register tiles of reg_n columns (the last tile shifted inwards when reg_n does not
    // divide the width) x the whole channel block, in vectors of L lanes.
    const int regN = std::min(p.regN, OW);
    Var xo("xo"), xi("xi"), co("co"), ci("ci"), tile("tile");
    k.out.split(x, xo, xi, regN, TailStrategy::ShiftInwards);
    k.out.split(c, co, ci, L).vectorize(ci).unroll(co).unroll(xi);
    switch (p.parallel) {
        case 0:  // a row per task: each task walks every output-channel block over the same input rows
            k.out.reorder(ci, co, xi, xo, cb, y, n).parallel(y);
            break;
        case 1:  // blocks x rows: the most tasks, for layers with few rows
            k.out.reorder(ci, co, xi, xo, y, cb, n).fuse(y, cb, tile).parallel(tile);
            break;
        default:  // a block per task: its weights stay in the core's cache
            k.out.reorder(ci, co, xi, xo, y, cb, n).parallel(cb);
            break;
    }

    // The accumulators: one tile, vectorized and unrolled whole so that LLVM keeps them in
    // registers across the reduction (the update's reduction loops are all outside them).
    conv.compute_at(k.out, xo);
    Var cco("cco"), cci("cci");
    conv.split(c, cco, cci, L).vectorize(cci).unroll(cco).unroll(x);
    Stage u = conv.update();
    u.split(c, cco, cci, L);
    if (depthwise) {
        u.reorder(cci, cco, x, r.x, r.y, y, cb, n);
    } else {
        switch (p.order) {
            case 0:  // outer to inner: input blocks, kernel rows, kernel columns, channels of a block
                u.reorder(cci, cco, x, r.x, r.y, r.z, r.w, y, cb, n);
                break;
            case 1:  // input blocks, kernel rows, channels of a block, kernel columns
                u.reorder(cci, cco, x, r.y, r.x, r.z, r.w, y, cb, n);
                break;
            default:  // kernel rows, kernel columns, input blocks, channels of a block
                u.reorder(cci, cco, x, r.x, r.w, r.y, r.z, y, cb, n);
                break;
        }
    }
    u.vectorize(cci).unroll(cco).unroll(x);
    if (p.unrollKw) u.unroll(depthwise ? r.x : r.y);  // the kernel columns

    if (p.padAt != 0) {
        // One padded copy per run, rows in parallel, channel vectors when the block fills them.
        src.compute_root().parallel(y);
        if (icbn % L == 0) src.vectorize(c, L);
    }
}

}  // namespace graphopt::tuning
