// The measuring side of HalideMeasurer, run inside the worker process (app/measure-worker): it
// answers one JSON request with one JSON reply. Kept in a library so tests can also call it
// in-process.
//
// Requests (one JSON object per line):
//   {"op": "ping"}
//   {"op": "prepare", "task": {...}}            make the task's data and reference output (and,
//                                               first time, warm up Halide's JIT runtime)
//   {"op": "measure", "task": {...}, "config": N, "min_time_s": 0.05, "max_repeats": 1000,
//    "check": true, "hook": ""}
//   {"op": "compare", "task": {...}, "config": N, "min_time_s": 0.2}
//                                               the tuned kernel and libtorch's, timed interleaved
//   {"op": "info"}                              threads, BLAS library libtorch uses, lanes
// Replies: {"ok": true, ...} or {"ok": false, "error": "..."}. A measure reply carries
// latency_s (median of the timed runs), repeats, compile_s, checked, max_abs_error, tolerance,
// reference ("libtorch" or "plain C++"). A compare reply: threads, tuned_s, libtorch_s (medians),
// tuned_gflops, libtorch_gflops, pairs (the smaller sample count), rounds, max_abs_error.
//
// Reference output: libtorch's conv2d / mm on the task's random data (uniform in [-1, 1),
// seeded by the task's key), or the plain C++ reference for shapes torch cannot express
// (asymmetric padding). Every checked output must be within Reference.h's tolerance, scaled to
// the reduction length; a wrong kernel is a failed measurement whose error says where.
//
// Threads: Halide's thread pool takes HL_NUM_THREADS at the first run, so a worker process runs
// at one thread count (HalideMeasurerOptions::threads sets it); libtorch is set to the same count.
//
// Timing: one untimed run (warm-up; its output is the one checked against the reference), then
// runs timed one by one until their sum reaches min_time_s or max_repeats runs were made (at least
// one). The median is robust against the odd preempted run on a shared machine. Packed kernels
// are timed from their packed input and weights (packing is done once, untimed).
// compare: both kernels get the same data, 3 untimed runs each, then rounds: each side in turn
// rests 100 ms (so the other's spinning threads sleep), runs once untimed, then timed back to back
// for a quarter of min_time_s; at least 3 rounds, until each side has min_time_s; medians.
//
// Test hooks ("hook": "abort" | "hang" | "drop_block"), honoured only when the workbench was created with
// allowTestHooks (the worker's --test-hooks flag), make the worker abort or sleep forever so that
// tests can check the measurer survives crashing and hanging kernels; "drop_block" measures a
// packed kernel that leaves an input-channel block out (the check must fail it).
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "tuning/Reference.h"

namespace graphopt::tuning {

class MeasureWorkbench {
public:
    // Sets libtorch's threads to this worker's (HL_NUM_THREADS, else all cores).
    explicit MeasureWorkbench(bool allowTestHooks = false);
    nlohmann::json handle(const nlohmann::json& request);

private:
    const TaskData& dataFor(const TuningTask& task);
    nlohmann::json measure(const nlohmann::json& request);
    nlohmann::json compare(const nlohmann::json& request);

    bool allowTestHooks_;
    bool warmedUp_ = false;
    std::string cachedKey_;  // one task's data kept: tuning goes task by task
    TaskData cached_;
    std::string referenceName_;  // of the cached task's reference output
};

}  // namespace graphopt::tuning
