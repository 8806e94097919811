#include "tuning/halide/HalideKernel.h"

#include <algorithm>
#include <stdexcept>

#include <Halide.h>

#include "tuning/TemplateSpace.h"
#include "tuning/halide/PackedConv.h"
#include "tuning/halide/TiledConv.h"
#include "tuning/halide/PackedLayout.h"

namespace graphopt::tuning {

using namespace Halide;

struct HalideKernel::Impl {
    TuningTask task;
    ImageParam inputParam{Float(32), 4, "input"};
    ImageParam weightsParam{Float(32), 4, "weights"};
    ImageParam denseA{Float(32), 2, "a"};
    ImageParam denseB{Float(32), 2, "b"};
    ImageParam input3d{Float(32), 5, "input"};
    ImageParam weights3d{Float(32), 5, "weights"};
    ImageParam batchA{Float(32), 3, "a"};
    ImageParam batchB{Float(32), 3, "b"};
    Func out{"out"};
    Pipeline pipeline;

    // Packed template: its parameters, the packed copies of the bound data and its output.
    bool packed = false;
    PackedParams pp;
    PackedConvPipeline pk;
    std::vector<float> packedInput, packedWeights, packedOutput;
    Buffer<float> inB, wB, outB;

    // NCHW template and matrix products: the bound data and the output.
    const float* input = nullptr;
    const float* weights = nullptr;
    std::vector<float> output;
};

namespace {

// Fixed sizes and dense strides let Halide specialise the kernel to the task's shapes.
void setDense4(ImageParam& p, int d0, int d1, int d2, int d3) {
    p.dim(0).set_bounds(0, d0).set_stride(1);
    p.dim(1).set_bounds(0, d1).set_stride(d0);
    p.dim(2).set_bounds(0, d2).set_stride(d0 * d1);
    p.dim(3).set_bounds(0, d3).set_stride(d0 * d1 * d2);
}

void setOutput4(Func& f, int d0, int d1, int d2, int d3) {
    auto b = f.output_buffer();
    b.dim(0).set_bounds(0, d0).set_stride(1);
    b.dim(1).set_bounds(0, d1).set_stride(d0);
    b.dim(2).set_bounds(0, d2).set_stride(d0 * d1);
    b.dim(3).set_bounds(0, d3).set_stride(d0 * d1 * d2);
}

int i32(int64_t v) {
    if (v > INT32_MAX || v < INT32_MIN) throw std::runtime_error("size too large for a 32-bit Halide index");
    return static_cast<int>(v);
}

// Where the zero-padded input is made: inline (a select in the inner loop), per output tile, or
// once for the whole input before the convolution.
void schedulePadded(Func& padded, Func& out, const Var& tileLoop, const ScheduleParams& p,
                    const std::vector<Var>& args) {
    if (p.padAt == 1) {
        padded.compute_at(out, tileLoop);
        if (p.vec > 1) padded.vectorize(args[0], p.vec, TailStrategy::RoundUp);
    } else if (p.padAt == 2) {
        padded.compute_root();
        if (p.vec > 1) padded.vectorize(args[0], p.vec, TailStrategy::RoundUp);
        if (p.parallel) padded.parallel(args[2]);
    }
}

// Vector accumulators of a conv output tile; up to kMaxRegisterTile of them are kept in registers
// (AVX-512 has 32 vector registers; some hold inputs and weights).
constexpr int64_t kMaxRegisterTile = 24;
int64_t registerTile(const ScheduleParams& p) {
    return p.tileC * p.tileH * ((p.tileW + p.vec - 1) / p.vec);
}

void buildConv(HalideKernel::Impl& k, const ScheduleParams& p) {
    const TuningTask& t = k.task;
    const int W = i32(t.inW), H = i32(t.inH), C = i32(t.inC), N = i32(t.batch);
    const int OW = i32(t.outW()), OH = i32(t.outH()), K = i32(t.outC);
    const int cinG = i32(t.inC / t.groups), coutG = i32(t.outC / t.groups);
    setDense4(k.inputParam, W, H, C, N);
    setDense4(k.weightsParam, i32(t.kernelW), i32(t.kernelH), cinG, K);

    Var x("x"), y("y"), c("c"), n("n");
    Func padded = BoundaryConditions::constant_exterior(k.inputParam, 0.0f, {{0, W}, {0, H}, {0, C}, {0, N}});
    const bool depthwise = t.kind == TaskKind::DepthwiseConv2d;

    Func conv("conv");
    conv(x, y, c, n) = 0.0f;
    Expr sx = x * i32(t.strideW) - i32(t.padLeft), sy = y * i32(t.strideH) - i32(t.padTop);
    RDom r;
    if (depthwise) {
        r = RDom(0, i32(t.kernelW), 0, i32(t.kernelH), "r");
        const int mult = K / C;
        Expr ic = mult == 1 ? Expr(c) : c / mult;
        conv(x, y, c, n) += padded(sx + r.x * i32(t.dilationW), sy + r.y * i32(t.dilationH), ic, n) *
                            k.weightsParam(r.x, r.y, 0, c);
    } else {
        r = RDom(0, i32(t.kernelW), 0, i32(t.kernelH), 0, cinG, "r");
        Expr ic = t.groups == 1 ? Expr(r.z) : (c / coutG) * cinG + r.z;
        conv(x, y, c, n) += padded(sx + r.x * i32(t.dilationW), sy + r.y * i32(t.dilationH), ic, n) *
                            k.weightsParam(r.x, r.y, r.z, c);
    }
    k.out(x, y, c, n) = conv(x, y, c, n);
    setOutput4(k.out, OW, OH, K, N);

    // Output tiles: tileW x tileH x tileC, all exact divisors of their loops.
    Var xo("xo"), xi("xi"), yo("yo"), yi("yi"), co("co"), ci("ci"), tile("tile");
    k.out.split(x, xo, xi, i32(p.tileW)).split(y, yo, yi, i32(p.tileH)).split(c, co, ci, i32(p.tileC));
    k.out.reorder(xi, yi, ci, xo, yo, co, n);
    if (p.vec > 1) k.out.vectorize(xi, p.vec, TailStrategy::GuardWithIf);
    if (p.parallel) k.out.fuse(yo, co, tile).parallel(tile);

    // The accumulator lives per tile; RoundUp lets vectors run past a tile edge into scratch.
    conv.compute_at(k.out, xo);
    Var xv("xv");
    if (p.vec > 1) conv.vectorize(x, p.vec, TailStrategy::RoundUp);
    Stage u = conv.update();
    if (p.vec > 1) u.split(x, x, xv, p.vec, TailStrategy::RoundUp);
    if (depthwise) {
        if (p.vec > 1)
            u.reorder(xv, r.x, r.y, x, y, c, n).vectorize(xv);
        else
            u.reorder(r.x, r.y, x, y, c, n);
        if (p.unrollK) u.unroll(r.x).unroll(r.y);
    } else {
        RVar rzo("rzo"), rzi("rzi");
        u.split(r.z, rzo, rzi, i32(p.tileR));
        std::vector<VarOrRVar> order;
        if (p.vec > 1) order.push_back(xv);
        order.push_back(c);
        if (p.order == 0) {
            for (VarOrRVar v : {VarOrRVar(x), VarOrRVar(y), VarOrRVar(r.x), VarOrRVar(r.y), VarOrRVar(rzi)})
                order.push_back(v);
        } else {
            for (VarOrRVar v : {VarOrRVar(r.x), VarOrRVar(r.y), VarOrRVar(rzi), VarOrRVar(x), VarOrRVar(y)})
                order.push_back(v);
        }
        order.push_back(rzo);
        order.push_back(n);
        u.reorder(order);
        if (p.vec > 1) u.vectorize(xv);
        if (p.unrollC) u.unroll(c);
        // Order 0 with the channels unrolled: when the whole tile fits the register file, unroll its
        // rows and column vectors too, so the accumulators stay in registers across the reduction.
        if (p.order == 0 && p.unrollC && registerTile(p) <= kMaxRegisterTile) {
            if (p.tileW > p.vec) u.unroll(x);
            if (p.tileH > 1) u.unroll(y);
        }
        if (p.unrollK) u.unroll(r.x);
    }
    std::vector<Var> pargs = padded.args();
    schedulePadded(padded, k.out, xo, p, pargs);
    k.pipeline = Pipeline(k.out);
}

// Dense strides for a 5-D input or output (innermost first).
void setDense5(OutputImageParam p, const std::vector<int>& extents) {
    int stride = 1;
    for (int d = 0; d < 5; ++d) {
        p.dim(d).set_bounds(0, extents[static_cast<size_t>(d)]).set_stride(stride);
        stride *= extents[static_cast<size_t>(d)];
    }
}

// 3-D convolution (NCDHW): the NCHW template with a depth axis. Output tiles of tileW x tileH x
// tileD x tileC; the reduction over the kernel window and tileR input channels at a time runs
// inside the tile, vectors over the output width.
void buildConv3d(HalideKernel::Impl& k, const ScheduleParams& p) {
    const TuningTask& t = k.task;
    const int W = i32(t.inW), H = i32(t.inH), D = i32(t.inD), C = i32(t.inC), N = i32(t.batch);
    const int OW = i32(t.outW()), OH = i32(t.outH()), OD = i32(t.outD()), K = i32(t.outC);
    const int cinG = i32(t.inC / t.groups), coutG = i32(t.outC / t.groups);
    setDense5(k.input3d, {W, H, D, C, N});
    setDense5(k.weights3d, {i32(t.kernelW), i32(t.kernelH), i32(t.kernelD), cinG, K});

    Var x("x"), y("y"), z("z"), c("c"), n("n");
    Func padded = BoundaryConditions::constant_exterior(k.input3d, 0.0f, {{0, W}, {0, H}, {0, D}, {0, C}, {0, N}});
    Func conv("conv");
    conv(x, y, z, c, n) = 0.0f;
    Expr sx = x * i32(t.strideW) - i32(t.padLeft), sy = y * i32(t.strideH) - i32(t.padTop),
         sz = z * i32(t.strideD) - i32(t.padFront);
    RDom r(0, i32(t.kernelW), 0, i32(t.kernelH), 0, i32(t.kernelD), 0, cinG, "r");
    Expr ic = t.groups == 1 ? Expr(r.w) : (c / coutG) * cinG + r.w;
    conv(x, y, z, c, n) += padded(sx + r.x * i32(t.dilationW), sy + r.y * i32(t.dilationH),
                                  sz + r.z * i32(t.dilationD), ic, n) *
                           k.weights3d(r.x, r.y, r.z, r.w, c);
    k.out(x, y, z, c, n) = conv(x, y, z, c, n);
    setDense5(k.out.output_buffer(), {OW, OH, OD, K, N});

    Var xo("xo"), xi("xi"), yo("yo"), yi("yi"), zo("zo"), zi("zi"), co("co"), ci("ci"), rows("rows"), tile("tile");
    k.out.split(x, xo, xi, i32(p.tileW))
        .split(y, yo, yi, i32(p.tileH))
        .split(z, zo, zi, i32(p.tileD))
        .split(c, co, ci, i32(p.tileC));
    k.out.reorder(xi, yi, zi, ci, xo, yo, zo, co, n);
    if (p.vec > 1) k.out.vectorize(xi, p.vec, TailStrategy::GuardWithIf);
    if (p.parallel) k.out.fuse(yo, zo, rows).fuse(rows, co, tile).parallel(tile);

    conv.compute_at(k.out, xo);
    if (p.vec > 1) conv.vectorize(x, p.vec, TailStrategy::RoundUp);
    Stage u = conv.update();
    Var xv("xv");
    RVar rco("rco"), rci("rci");
    u.split(r.w, rco, rci, i32(p.tileR));
    if (p.vec > 1) u.split(x, x, xv, p.vec, TailStrategy::RoundUp);
    std::vector<VarOrRVar> order;
    if (p.vec > 1) order.push_back(xv);
    for (VarOrRVar v : {VarOrRVar(c), VarOrRVar(r.x), VarOrRVar(r.y), VarOrRVar(r.z), VarOrRVar(rci), VarOrRVar(x),
                        VarOrRVar(y), VarOrRVar(z), VarOrRVar(rco), VarOrRVar(n)})
        order.push_back(v);
    u.reorder(order);
    if (p.vec > 1) u.vectorize(xv);
    if (p.unrollC) u.unroll(c);
    if (p.unrollK) u.unroll(r.x);
    std::vector<Var> pargs = padded.args();
    schedulePadded(padded, k.out, xo, p, pargs);
    k.pipeline = Pipeline(k.out);
}

// Dense and batch_matmul: Y[b][i][j] = sum_r A[b][i][r] * B[b][r][j] (dense: one matrix, B the
// weights). Output tiles of tileH rows x tileW columns; the reduction split by tileR.
void buildDense(HalideKernel::Impl& k, const ScheduleParams& p) {
    const TuningTask& t = k.task;
    const bool batched = t.kind == TaskKind::BatchMatMul;
    const int M = i32(t.m), N = i32(t.n), K = i32(t.k), B = i32(t.matmulBatch());
    // A is [b][m][k] (k contiguous), B is [b][k][n] (n contiguous): Halide dims innermost first.
    ImageParam& a = batched ? k.batchA : k.denseA;
    ImageParam& bm = batched ? k.batchB : k.denseB;
    a.dim(0).set_bounds(0, K).set_stride(1);
    a.dim(1).set_bounds(0, M).set_stride(K);
    bm.dim(0).set_bounds(0, N).set_stride(1);
    bm.dim(1).set_bounds(0, K).set_stride(N);
    if (batched) {
        a.dim(2).set_bounds(0, B).set_stride(M * K);
        bm.dim(2).set_bounds(0, B).set_stride(K * N);
    }

    Var j("j"), i("i"), b("b");
    RDom r(0, K, "r");
    Func prod("prod");
    if (batched) {
        prod(j, i, b) = 0.0f;
        prod(j, i, b) += a(r, i, b) * bm(j, r, b);
        k.out(j, i, b) = prod(j, i, b);
    } else {
        prod(j, i) = 0.0f;
        prod(j, i) += a(r, i) * bm(j, r);
        k.out(j, i) = prod(j, i);
    }
    auto ob = k.out.output_buffer();
    ob.dim(0).set_bounds(0, N).set_stride(1);
    ob.dim(1).set_bounds(0, M).set_stride(N);
    if (batched) ob.dim(2).set_bounds(0, B).set_stride(M * N);

    Var jo("jo"), ji("ji"), io("io"), ii("ii"), tile("tile"), tileB("tile_b");
    k.out.split(j, jo, ji, i32(p.tileW)).split(i, io, ii, i32(p.tileH)).reorder(ji, ii, jo, io);
    if (p.vec > 1) k.out.vectorize(ji, p.vec, TailStrategy::GuardWithIf);
    Var computeAt = jo;
    if (p.parallel) {
        // Every tile of every matrix is one parallel task.
        k.out.fuse(jo, io, tile);
        computeAt = tile;
        if (batched) {
            k.out.fuse(tile, b, tileB);
            computeAt = tileB;
        }
        k.out.parallel(computeAt);
    }

    // The accumulator lives per tile.
    prod.compute_at(k.out, computeAt);
    // GuardWithIf, not RoundUp: rounding j up would read B past its last column.
    if (p.vec > 1) prod.vectorize(j, p.vec, TailStrategy::GuardWithIf);
    Stage u = prod.update();
    Var jv("jv");
    RVar ro("ro"), ri("ri");
    u.split(r.x, ro, ri, i32(p.tileR));
    std::vector<VarOrRVar> order;
    if (p.vec > 1) {
        u.split(j, j, jv, p.vec, TailStrategy::GuardWithIf);
        order.push_back(jv);
    }
    for (VarOrRVar v : {VarOrRVar(i), VarOrRVar(ri), VarOrRVar(j), VarOrRVar(ro)}) order.push_back(v);
    if (batched) order.push_back(b);
    u.reorder(order);
    if (p.vec > 1) u.vectorize(jv);
    if (p.unrollC) u.unroll(i);
    k.pipeline = Pipeline(k.out);
}

}  // namespace

namespace {

// The JIT target for a packed task: its lanes decide the ISA, so that the AVX2 variant (8 lanes)
// is compiled and run as AVX2 even on an AVX-512 machine.
Target targetFor(const TuningTask& task) {
    Target t = get_jit_target_from_environment();
    if (!task.isPacked()) return t;
    const bool hostHas512 = t.has_feature(Target::AVX512) || t.has_feature(Target::AVX512_Skylake);
    if (task.lanes == 16 && !hostHas512) throw std::runtime_error("the 16-lane packed template needs AVX-512");
    if (task.lanes == 8) {
        for (auto f : {Target::AVX512, Target::AVX512_KNL, Target::AVX512_Skylake, Target::AVX512_Cannonlake,
                       Target::AVX512_SapphireRapids})
            t = t.without_feature(f);
    }
    return t;
}

std::vector<int> extentsOf(std::initializer_list<int64_t> e) {
    std::vector<int> v;
    for (int64_t x : e) v.push_back(i32(x));
    return v;
}

}  // namespace

HalideKernel::HalideKernel(const TuningTask& task, ConfigIndex config, KernelOptions options)
    : impl_(std::make_unique<Impl>()) {
    impl_->task = task;
    try {
        const KnobSpace space = templateSpace(task);
        if (task.isPacked()) {
            impl_->packed = true;
            if (task.isTiled()) {
                const TiledParams q = decodeTiled(task, space, config);
                impl_->pp = q.packed;
                defineTiledConv(task, q, impl_->pk, options.dropLastBlock);
            } else {
                impl_->pp = decodePacked(task, space, config);
                definePackedConv(task, impl_->pp, impl_->pk, options.dropLastBlock);
            }
            impl_->pipeline = Pipeline(impl_->pk.out);
        } else {
            const ScheduleParams p = decodeSchedule(task, space, config);
            if (task.is3d())
                buildConv3d(*impl_, p);
            else if (task.isConv())
                buildConv(*impl_, p);
            else
                buildDense(*impl_, p);
        }
        impl_->pipeline.compile_jit(targetFor(task));
    } catch (const Halide::Error& e) {
        throw std::runtime_error(std::string("Halide compile failed: ") + e.what());
    }
}

HalideKernel::~HalideKernel() = default;

void HalideKernel::bind(const float* input, const float* weights) {
    Impl& k = *impl_;
    const TuningTask& t = k.task;
    if (!k.packed) {
        k.input = input;
        k.weights = weights;
        k.output.assign(static_cast<size_t>(t.outputElements()), 0.0f);
        return;
    }
    const PackedShape s = packedShape(t, k.pp);
    k.packedInput = packInput(t, k.pp, input);
    k.packedWeights = packWeights(t, k.pp, weights);
    k.packedOutput.assign(static_cast<size_t>(s.outputSize), 0.0f);
    k.inB = Buffer<float>(k.packedInput.data(), extentsOf({k.pp.icBn, s.inW, s.inH, s.icBlocks, t.batch}));
    if (t.kind == TaskKind::DepthwiseConv2d) {
        k.wB = Buffer<float>(k.packedWeights.data(), extentsOf({k.pp.icBn, t.kernelW, t.kernelH, s.icBlocks}));
        k.pk.dwWeights.set(k.wB);
    } else {
        k.wB = Buffer<float>(k.packedWeights.data(),
                             extentsOf({k.pp.ocBn, k.pp.icBn, t.kernelW, t.kernelH, s.icBlocks, s.ocBlocks}));
        k.pk.weights.set(k.wB);
    }
    k.pk.input.set(k.inB);
    k.outB = Buffer<float>(k.packedOutput.data(), extentsOf({k.pp.ocBn, t.outW(), t.outH(), s.ocBlocks, t.batch}));
}

void HalideKernel::run() {
    Impl& k = *impl_;
    const TuningTask& t = k.task;
    try {
        if (k.packed) {
            k.pipeline.realize(k.outB);
        } else if (t.is3d()) {
            Buffer<float> in(const_cast<float*>(k.input), {i32(t.inW), i32(t.inH), i32(t.inD), i32(t.inC), i32(t.batch)});
            Buffer<float> w(const_cast<float*>(k.weights),
                            {i32(t.kernelW), i32(t.kernelH), i32(t.kernelD), i32(t.inC / t.groups), i32(t.outC)});
            Buffer<float> o(k.output.data(), {i32(t.outW()), i32(t.outH()), i32(t.outD()), i32(t.outC), i32(t.batch)});
            k.input3d.set(in);
            k.weights3d.set(w);
            k.pipeline.realize(o);
        } else if (t.isConv()) {
            Buffer<float> in(const_cast<float*>(k.input), i32(t.inW), i32(t.inH), i32(t.inC), i32(t.batch));
            Buffer<float> w(const_cast<float*>(k.weights), i32(t.kernelW), i32(t.kernelH), i32(t.inC / t.groups),
                            i32(t.outC));
            Buffer<float> o(k.output.data(), i32(t.outW()), i32(t.outH()), i32(t.outC), i32(t.batch));
            k.inputParam.set(in);
            k.weightsParam.set(w);
            k.pipeline.realize(o);
        } else if (t.kind == TaskKind::BatchMatMul) {
            Buffer<float> a(const_cast<float*>(k.input), i32(t.k), i32(t.m), i32(t.batch));
            Buffer<float> b(const_cast<float*>(k.weights), i32(t.n), i32(t.k), i32(t.batch));
            Buffer<float> o(k.output.data(), i32(t.n), i32(t.m), i32(t.batch));
            k.batchA.set(a);
            k.batchB.set(b);
            k.pipeline.realize(o);
        } else {
            Buffer<float> a(const_cast<float*>(k.input), i32(t.k), i32(t.m));
            Buffer<float> b(const_cast<float*>(k.weights), i32(t.n), i32(t.k));
            Buffer<float> o(k.output.data(), i32(t.n), i32(t.m));
            k.denseA.set(a);
            k.denseB.set(b);
            k.pipeline.realize(o);
        }
    } catch (const Halide::Error& e) {
        throw std::runtime_error(std::string("Halide runtime error: ") + e.what());
    }
}

void HalideKernel::readOutput(float* output) const {
    const Impl& k = *impl_;
    if (k.packed)
        unpackOutput(k.task, k.pp, k.packedOutput.data(), output);
    else
        std::copy(k.output.begin(), k.output.end(), output);
}

void HalideKernel::run(const float* input, const float* weights, float* output) {
    bind(input, weights);
    run();
    readOutput(output);
}

}  // namespace graphopt::tuning
