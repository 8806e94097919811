// libtorch's own kernels on a tuning task's shapes: the bar the tuned Halide kernels are measured
// against (`graphopt tune --all`, tuning_bench). A plain interface: only LibtorchReference.cpp, in
// graphopt_nn, includes LibTorch.
#pragma once

#include <memory>
#include <string>
#include <vector>

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

// libtorch's kernel for a task on given data (layouts of Task.h), for the output check and the
// interleaved timing of the measure worker: the tensors are made once, run() is one call.
class LibtorchKernel {
public:
    LibtorchKernel(const TuningTask& task, const float* input, const float* weights);
    ~LibtorchKernel();
    void run();                          // torch::conv2d (no bias) / torch::mm
    void readOutput(float* out) const;   // the last run's output, layout of Task.h
    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

// libtorch's output on the data (the reference every measured kernel is compared with).
std::vector<float> libtorchOutput(const TuningTask& task, const std::vector<float>& input,
                                  const std::vector<float>& weights);

// Intra-op threads of libtorch in this process.
void setLibtorchThreads(int threads);

// The BLAS library libtorch's mm runs on: after one small torch::mm, the shared objects mapped
// into this process whose name holds "blas" (resolved through the alternatives symlinks), e.g.
// ".../openblas-pthread/libblas.so.3". Empty when none is mapped (a static or MKL build).
std::string libtorchBlasLibrary();

}  // namespace graphopt::tuning
