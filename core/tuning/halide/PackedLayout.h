// The blocked layouts of the packed conv template, and the plain C++ packing between them and the
// task layouts of Task.h (NCHW activations, OIHW weights). Packing happens once, outside the timed
// kernel: in a compiled network the weights are packed offline, and activations stay in NCHW[x]c
// from layer to layer (the end-to-end estimate in bench/tuning counts the transforms where the block
// size changes).
//
// Layouts, row-major (outer first); blocks that the channel count does not fill are zero:
//   input    [n][C/ic_bn][H'][W'][ic_bn]    NCHW[x]c; H' = H + pads, W' = W + pads when the input
//                                           arrives padded (pad_at 0), else H, W
//   weights  [K/oc_bn][C/ic_bn][kh][kw][ic_bn][oc_bn]   OIHW[i]o
//            depthwise: [C/c_bn][kh][kw][c_bn]
//   output   [n][K/oc_bn][OH][OW][oc_bn]    NCHW[x]c, unpadded
#pragma once

#include <cstdint>
#include <vector>

#include "tuning/Task.h"
#include "tuning/TemplateSpace.h"

namespace graphopt::tuning {

struct PackedShape {
    int64_t icBlocks = 1, ocBlocks = 1;  // channel blocks (rounded up)
    int64_t inH = 0, inW = 0;            // spatial size of the packed input (padded or not)
    int64_t inputSize = 0, weightSize = 0, outputSize = 0;  // floats
};

PackedShape packedShape(const TuningTask& task, const PackedParams& p);

// NCHW -> NCHW[ic_bn]c, zero halo of the task's pads when p.padAt == 0.
std::vector<float> packInput(const TuningTask& task, const PackedParams& p, const float* nchw);
// OIHW (depthwise: C x 1 x kh x kw) -> the packed weight layout.
std::vector<float> packWeights(const TuningTask& task, const PackedParams& p, const float* oihw);
// NCHW[oc_bn]c -> NCHW (drops the padding channels of the last block).
void unpackOutput(const TuningTask& task, const PackedParams& p, const float* packed, float* nchw);

// NCHW[from]c -> NCHW[to]c for an activation of c x h x w (batch 1): the layout transform a
// compiler inserts between layers whose blocks differ. from or to == 0 means plain NCHW.
void repackActivation(int64_t c, int64_t h, int64_t w, int from, int to, const float* src, float* dst);
int64_t blockedSize(int64_t c, int64_t h, int64_t w, int block);  // floats of the blocked tensor

}  // namespace graphopt::tuning
