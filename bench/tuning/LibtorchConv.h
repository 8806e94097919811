// libtorch's own conv2d on a tuning task's shapes: the bar the tuned Halide kernels are measured
// against. A plain interface so that only LibtorchConv.cpp includes LibTorch's heavy headers.
#pragma once

#include "tuning/Task.h"

namespace graphopt::bench {

struct LibtorchTiming {
    double medianS = 0;  // median latency of one conv2d call
    double gflops = 0;   // task FLOPs / median
    int repeats = 0;
};

// Runs torch::conv2d (no bias, same stride/padding/dilation/groups) with `threads` intra-op
// threads, repeating until `minTimeS` has passed after a warm-up. Conv tasks only.
LibtorchTiming timeLibtorchConv(const tuning::TuningTask& task, int threads, double minTimeS);

}  // namespace graphopt::bench
