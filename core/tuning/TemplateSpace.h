// The knob space of each task kind's kernel template, and a configuration decoded into the
// schedule parameters the Halide templates (core/tuning/halide) and the simulated measurer read.
//
// Every split knob factors an exact loop extent, so tiles always divide their loop; the enumerated
// knobs are choices any tiling accepts. Hence every point of the space is a valid kernel.
//
//   conv2d (NCHW, any groups)       depthwise_conv2d            dense (Y = A B)
//   tile_co  out channels, inner<=32   tile_c   channels, <=32     tile_n  columns, any
//   tile_oh  output rows               tile_oh                     tile_m  rows, inner<=16
//   tile_ow  output columns, <=64      tile_ow  <=64               tile_k  reduction
//   tile_ci  reduction channels        vec      1,4,8,16 lanes     vec
//   vec      1,4,8,16 lanes            unroll_k kernel window      unroll_m rows of the tile
//   unroll_co, unroll_kw  0/1          parallel 0/1                parallel 0/1
//   order    0: the tile's loops inside the reduction loops (each weight sweeps the tile); with
//               unroll_co and at most 24 vector accumulators the tile is unrolled whole, so
//               its accumulators stay in registers (register blocking),
//            1: the reduction loops inside the tile's rows and columns
//   parallel 0/1: outer tile loops run on all cores
//   pad_at   0 inline, 1 per tile, 2 whole padded input first (where the zero-padded input is made)
//
// The packed template (task.convTemplate == Packed; L = task.lanes, 8 or 16):
//   conv2d                                         depthwise_conv2d (multiplier 1)
//   ic_bn     input-channel block: 8..64 (<= the      c_bn      channel block: L, 2L
//             channels rounded up to 8); the first    reg_n     output columns per register tile
//             conv (< 8 channels) is not blocked:     unroll_kw 0/1
//             one block of all its channels           pad_at    0/1 (as conv)
//   oc_bn     output-channel block: L, 2L, 4L         parallel  0 rows, 1 blocks x rows
//   reg_n     output columns per register tile, 1-16 (<= output width): the tile keeps
//             reg_n x oc_bn/L vector accumulators in registers over the whole reduction
//   unroll_kw 0/1 unroll the kernel width (absent for 1x1)
//   order     reduction loops, outer to inner: 0 [ic blocks, kh, kw, ic], 1 [ic blocks, kh, ic, kw],
//             2 [kh, kw, ic blocks, ic]
//   pad_at    0 the input arrives padded (padded while it was packed, or written with a halo by
//             the layer before), 1 the kernel makes a padded copy first (timed); absent when the
//             conv has no padding
//   parallel  0 rows, 1 output-channel blocks x rows (fused), 2 output-channel blocks
// Channel counts that the blocks do not divide are zero-padded in the packed layouts (as oneDNN's
// blocked formats); output widths that reg_n does not divide use shifted last tiles.
//
// The tiled template (task.convTemplate == Tiled, conv2d): the packed layouts, multi-level tiles.
//   tile_oc    ceil(out channels / L) vectors = [cb_o, cb_i, oc_v], oc_v <= 4: oc_bn = oc_v L;
//              cb_o blocks in the outer tile loop, cb_i per cache tile
//   tile_ic    ceil(in channels / 8) = [ic_o, ic_i, u], u <= 8: ic_bn = 8u; the reduction over
//              ic_o x ic_i blocks is split in two (absent for the first conv, < 8 channels)
//   tile_oh    output rows = [y_o, y_m, y_r], y_r <= 4: y_o in the outer tile loop, y_m per cache
//              tile, y_r rows per register tile
//   reg_n      output columns per register tile, as packed: the register tile keeps
//              y_r x reg_n x oc_v vector accumulators
//   unroll_kw, order, pad_at   as packed (order orders [ic_i blocks, kh, kw, ic])
//   unroll_ic  1, 2, 4: unroll of the channels-in-a-block reduction loop (absent with tile_ic)
//   outer_order 0 cb_o outside y_o, 1 y_o outside cb_o; inner_order the same for cb_i and y_m
//   parallel   0 the outermost tile loop on all cores, 1 both outer tile loops fused
//   accum      0 accumulators per register tile (the whole reduction inside it), 1 per cache tile:
//              the ic_o loop runs outside the cache tile's loops, partial sums stay in the tile
// Every split is exact, every enumerated choice fits any split: all points are valid kernels.
#pragma once

#include "tuning/KnobSpace.h"
#include "tuning/Task.h"

namespace graphopt::tuning {

KnobSpace templateSpace(const TuningTask& task);

// The configuration's schedule, in loop terms. For dense: tileW = columns (n) per tile, tileH =
// rows (m) per tile, tileR = reduction (k) per step, unrollC unrolls the tile's rows.
struct ScheduleParams {
    int64_t tileC = 1;  // output channels per tile (conv, depthwise)
    int64_t tileD = 1;  // output frames per tile (conv3d)
    int64_t tileH = 1;  // output rows per tile
    int64_t tileW = 1;  // output columns per tile (the vectorized dimension)
    int64_t tileR = 1;  // reduction channels (conv) / k (dense) per inner reduction step
    int vec = 1;        // vector lanes
    bool unrollC = false;
    bool unrollK = false;  // conv: unroll the kernel width; depthwise: the whole window
    int order = 0;
    bool parallel = false;
    int padAt = 0;
    nlohmann::json toJson() const;
};

// For a packed task, an approximation in the NCHW template's terms (tile_c = oc_bn, tile_w =
// reg_n, tile_r = ic_bn, vec = lanes), so that the simulated measurer still gives a figure.
ScheduleParams decodeSchedule(const TuningTask& task, const KnobSpace& space, ConfigIndex config);

// A configuration of the packed template.
struct PackedParams {
    int lanes = 16;
    int icBn = 16;  // input-channel block (depthwise: the channel block)
    int ocBn = 16;  // output-channel block (depthwise: = icBn)
    int regN = 1;   // output columns per register tile
    bool unrollKw = false;
    int order = 0;
    int padAt = 0;     // 0 input arrives padded, 1 the kernel pads
    int parallel = 0;  // 0 rows, 1 oc blocks x rows, 2 oc blocks
    nlohmann::json toJson() const;
};
// For a tiled task, the layout part of its configuration (blocks, register tile, order, pad_at).
PackedParams decodePacked(const TuningTask& task, const KnobSpace& space, ConfigIndex config);

// A configuration of the tiled template.
struct TiledParams {
    PackedParams packed;  // lanes, ic_bn, oc_bn, reg_n, unroll_kw, order, pad_at (parallel unused)
    int cbOuter = 1, cbInner = 1;      // output-channel blocks: outer tile loop x per cache tile
    int yOuter = 1, yMid = 1, yReg = 1;  // output rows: outer x per cache tile x per register tile
    int icOuter = 1, icInner = 1;      // input-channel blocks: outer x inner reduction loop
    int unrollIc = 1;
    int outerOrder = 0, innerOrder = 0;
    int parallel = 0;  // 0 outermost tile loop, 1 both outer tile loops fused
    int accum = 0;     // 0 register tile, 1 cache tile
    nlohmann::json toJson() const;
};
TiledParams decodeTiled(const TuningTask& task, const KnobSpace& space, ConfigIndex config);
// Whether the tiled template unrolls the rows of its register tile (y_r) along with its columns
// and channel vectors: only while the whole tile holds at most kMaxUnrolledAccumulators vectors,
// the packed template's largest tile (4 channel vectors x 16 columns), so every packed kernel keeps
// its schedule. A taller tile keeps its rows as a loop. Unrolled, such a tile is 2-16x any
// register file, and compiling it took past the measurer's 20 s limit: on a Zen 3 host (AVX2), 4
// rows x 12 columns x 4 vectors compiled in 23.5 s (a kernel of 30 GFLOP/s), 6.1 s with the other
// accumulator placement. Unrolling changes no arithmetic, so a kernel's results do not depend on
// this rule; its speed and compile time do.
constexpr int kMaxUnrolledAccumulators = 64;
bool tiledUnrollsRows(const TuningTask& task, const TiledParams& q);
// The tiled configuration that builds the same kernel as a packed one (same loop nest, same
// reduction order: bit-identical results), for the task with the packed template. Returns false
// when a block of the packed configuration does not divide the channel counts (it pads them),
// which the tiled splits cannot express.
bool tiledFromPacked(const TuningTask& packedTask, ConfigIndex packedConfig, ConfigIndex* tiledConfig);

// Numeric features of a configuration for learned cost models: each knob's normalized index, then
// the loop-nest features of its schedule (LoopNest.h: per loop, extent and annotation; per buffer,
// touched bytes, stride and reuse). The length depends only on the task's knob count; names in
// scheduleFeatureNames().
std::vector<double> scheduleFeatures(const TuningTask& task, const KnobSpace& space, ConfigIndex config);
std::vector<std::string> scheduleFeatureNames(const TuningTask& task, const KnobSpace& space);

}  // namespace graphopt::tuning
