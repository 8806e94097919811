// A tuning task's kernel for one configuration of its template, JIT-compiled by Halide for the
// host CPU. The header is Halide-free (pimpl) so that only graphopt_halide's own sources and the
// measure worker pay for Halide's headers.
#pragma once

#include <memory>

#include "tuning/KnobSpace.h"
#include "tuning/Task.h"

namespace graphopt::tuning {

class HalideKernel {
public:
    // Builds the template's algorithm, applies the configuration's schedule and JIT-compiles it.
    // Throws std::runtime_error carrying Halide's message when compilation fails.
    HalideKernel(const TuningTask& task, ConfigIndex config);
    ~HalideKernel();
    HalideKernel(const HalideKernel&) = delete;
    HalideKernel& operator=(const HalideKernel&) = delete;

    // Runs the kernel on buffers in the layouts of Task.h. Throws std::runtime_error on a
    // Halide runtime error.
    void run(const float* input, const float* weights, float* output);

    struct Impl;  // Halide objects; defined in HalideKernel.cpp

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace graphopt::tuning
