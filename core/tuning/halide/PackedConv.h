// The packed conv template in Halide: NCHW[x]c activations, OIHW[i]o weights (layouts in
// PackedLayout.h), vectors over the output-channel block, and a register tile of reg_n output
// columns x oc_bn / lanes channel vectors that stays in registers over the whole input-channel x
// kernel-window reduction. Each reduction step loads oc_bn / lanes weight vectors, broadcasts
// reg_n input scalars and issues reg_n x oc_bn / lanes FMAs, the scheme of oneDNN's direct conv
// and TVM's conv2d_avx_common. Depthwise: the input is loaded as channel vectors instead.
#pragma once

#include <Halide.h>

#include "tuning/Task.h"
#include "tuning/TemplateSpace.h"

namespace graphopt::tuning {

struct PackedConvPipeline {
    Halide::ImageParam input{Halide::Float(32), 5, "input_packed"};   // (ic, x, y, ic block, n)
    Halide::ImageParam weights{Halide::Float(32), 6, "weights_packed"};  // (oc, ic, kx, ky, ic block, oc block)
    Halide::ImageParam dwWeights{Halide::Float(32), 4, "dw_weights_packed"};  // (c, kx, ky, c block)
    Halide::Func out{"out_packed"};  // (oc, x, y, oc block, n)
};

// The algorithm of the packed layouts, unscheduled: `src` the (maybe padded) input, `conv` the
// accumulators (pure 0, then the update over r), k.out = conv. Shared by the packed and the tiled
// template (TiledConv.h), which schedule it differently. r: conv2d (channel in the input block,
// kernel column, kernel row, input block); depthwise (kernel column, kernel row).
struct PackedConvAlgorithm {
    Halide::Func src{"src"}, conv{"conv"};
    Halide::RDom r;
    Halide::Var c{"c"}, x{"x"}, y{"y"}, cb{"cb"}, n{"n"};
};
void definePackedConvAlgorithm(const TuningTask& task, const PackedParams& p, PackedConvPipeline& k,
                               bool dropLastBlock, PackedConvAlgorithm& a);

// Defines the algorithm and applies the configuration's schedule. dropLastBlock (tests only)
// leaves the last input-channel block out of the reduction (the last kernel column when there is
// one block): a deliberately wrong kernel that the output check must catch.
void definePackedConv(const TuningTask& task, const PackedParams& p, PackedConvPipeline& k, bool dropLastBlock);

}  // namespace graphopt::tuning
