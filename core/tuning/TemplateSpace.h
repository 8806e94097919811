// The knob space of each task kind's kernel template, and a configuration decoded into the
// schedule parameters the Halide templates (core/tuning/halide) and the simulated measurer read.
//
// Every split knob factors an exact loop extent, so tiles always divide their loop; the enumerated
// knobs are choices any tiling accepts. Hence every point of the space is a valid kernel.
//
//   conv2d (NCHW, any groups)       depthwise_conv2d            dense (Y = A B)
//   tile_co  out channels, inner<=32   tile_c   channels, <=32     tile_n  columns, inner<=64
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
#pragma once

#include "tuning/KnobSpace.h"
#include "tuning/Task.h"

namespace graphopt::tuning {

KnobSpace templateSpace(const TuningTask& task);

// The configuration's schedule, in loop terms. For dense: tileW = columns (n) per tile, tileH =
// rows (m) per tile, tileR = reduction (k) per step, unrollC unrolls the tile's rows.
struct ScheduleParams {
    int64_t tileC = 1;  // output channels per tile (conv, depthwise)
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

ScheduleParams decodeSchedule(const TuningTask& task, const KnobSpace& space, ConfigIndex config);

// Numeric features of a configuration for learned cost models: each knob's normalized index,
// then derived loop features (log2 of the tile sizes, vector lanes, unroll flags, reduction
// order, parallel, padding choice, log2 of the tile's working set in bytes, log2 of the vector
// accumulators per tile, the fraction of vector lanes doing useful work, log2 of the unrolled
// statement count, log2 of the number of output tiles). The length depends only
// on the task kind; names in scheduleFeatureNames().
std::vector<double> scheduleFeatures(const TuningTask& task, const KnobSpace& space, ConfigIndex config);
std::vector<std::string> scheduleFeatureNames(const TuningTask& task, const KnobSpace& space);

}  // namespace graphopt::tuning
