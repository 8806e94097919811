// The tiled conv template in Halide: the packed layouts and algorithm (PackedConv.h) under a
// multi-level tiling in the manner of Ansor's CPU sketch (spatial loops split into an outer tile
// level, a cache tile and a register tile; the reduction split around the cache tile).
//
// Output loops, outer to inner:
//   n, {cb_o, y_o} (outer_order; the outermost or both fused in parallel),
//   {cb_i, y_m} (inner_order): the cache tile, xo (register tiles along the row),
//   y_r, reg_n columns, oc_bn / L channel vectors, L lanes: the register tile (unrolled, vectors).
// accum 0: the accumulators are computed per register tile with the whole reduction inside it,
//          [ic_o, ic_i, kh, kw, ic] in the configured order, as the packed template does.
// accum 1: per cache tile: for each of the ic_o reduction chunks the cache tile is swept with
//          [ic_i, kh, kw, ic] inside each register tile; partial sums stay in the tile's buffer,
//          and the chunk's weights and input rows stay in cache over the sweep.
#pragma once

#include "tuning/halide/PackedConv.h"

namespace graphopt::tuning {

void defineTiledConv(const TuningTask& task, const TiledParams& q, PackedConvPipeline& k, bool dropLastBlock);

}  // namespace graphopt::tuning
