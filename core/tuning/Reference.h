// Plain C++ reference kernels and the test data every measurement of a task uses.
//
// The reference accumulates in double; the tuned float32 kernels sum in other orders, so they
// differ by rounding that grows with the reduction length L (multiply-adds per output). Inputs
// are uniform in [-1, 1), so an output is a sum of L terms of magnitude <= 1. A kernel passes when
// every output o and reference r satisfy
//     |o - r| <= 1e-5 * L + 1e-4 * |r|
// i.e. 1e-5 per accumulated term: on ResNet-18's deepest 3x3 layer (L = 4608) the worst error
// seen was 2.2e-4 against a bound of 0.049 (over 200x margin for other summation orders), yet
// the bound is far below the error of a dropped or repeated term (|a*w| is 0.25 on average).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tuning/Task.h"

namespace graphopt::tuning {

struct TaskData {
    // Conv: input NCHW and weights [outC][inC/groups][kh][kw]. Dense: input = A [m][k],
    // weights = B [k][n]. Layouts as in Task.h.
    std::vector<float> input, weights;
    std::vector<float> reference;  // output of referenceKernel(), same layout as the kernel's
};

// Deterministic inputs (seeded by the task's key) and their reference output.
TaskData makeTaskData(const TuningTask& task);
std::vector<float> referenceKernel(const TuningTask& task, const std::vector<float>& input,
                                   const std::vector<float>& weights);

struct CheckResult {
    bool ok = true;
    double maxAbsError = 0;
    double tolerance = 0;   // the bound at the worst element
    int64_t worstIndex = -1;
    std::string message;    // empty when ok
};
CheckResult checkOutput(const TuningTask& task, const std::vector<float>& reference, const float* output);

}  // namespace graphopt::tuning
