// libtorch's own kernels on a tuning task's shapes: the bar the tuned Halide kernels are measured
// against (`graphopt tune --all`, tuning_bench). A plain interface: only LibtorchReference.cpp, in
// graphopt_nn, includes LibTorch.
#pragma once

#include "tuning/Task.h"

namespace graphopt::tuning {

struct LibtorchTiming {
    double medianS = 0;  // median latency of one call
    double gflops = 0;   // task FLOPs / median
    int repeats = 0;
};

// Conv tasks (depthwise included): torch::conv2d without bias, same stride, padding, dilation
// and groups. Dense tasks: torch::mm of A [m][k] and B [k][n]. Runs with `threads` intra-op threads
// (restored afterwards), three warm-up calls, then timed calls until `minTimeS` has passed and at
// least five were made. Throws std::invalid_argument for shapes torch cannot express
// (asymmetric padding).
LibtorchTiming timeLibtorch(const TuningTask& task, int threads, double minTimeS);

}  // namespace graphopt::tuning
