// A tuning task's kernel for one configuration of its template, JIT-compiled by Halide for the
// host CPU. The header is Halide-free (pimpl) so that only graphopt_halide's own sources and the
// measure worker pay for Halide's headers.
#pragma once

#include <memory>

#include "tuning/KnobSpace.h"
#include "tuning/Task.h"

namespace graphopt::tuning {

struct KernelOptions {
    // Tests only: a deliberately wrong packed kernel (the last input-channel block left out of
    // the reduction), which the output check must reject.
    bool dropLastBlock = false;
};

class HalideKernel {
public:
    // Builds the template's algorithm, applies the configuration's schedule and JIT-compiles it
    // (packed tasks: for task.lanes, so 8 lanes compile for AVX2 even on an AVX-512 host).
    // Throws std::runtime_error carrying Halide's message when compilation fails.
    HalideKernel(const TuningTask& task, ConfigIndex config, KernelOptions options = {});
    ~HalideKernel();
    HalideKernel(const HalideKernel&) = delete;
    HalideKernel& operator=(const HalideKernel&) = delete;

    // Gives the kernel its input and weights in the layouts of Task.h. The packed template packs
    // them here, once (its timed runs then start from NCHW[x]c input and packed weights, as in a
    // compiled network); the NCHW template keeps the pointers, which must outlive the runs.
    void bind(const float* input, const float* weights);
    // One run on the bound data into the kernel's own (preallocated) output. Throws
    // std::runtime_error on a Halide runtime error.
    void run();
    // The last run's output in the layout of Task.h (the packed template unpacks it).
    void readOutput(float* output) const;
    // bind + run + readOutput.
    void run(const float* input, const float* weights, float* output);

    struct Impl;  // Halide objects; defined in HalideKernel.cpp

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace graphopt::tuning
