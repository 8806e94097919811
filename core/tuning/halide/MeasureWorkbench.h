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
// Replies: {"ok": true, ...} or {"ok": false, "error": "..."}. A measure reply carries
// latency_s (median of the timed runs), repeats, compile_s, checked, max_abs_error, tolerance.
//
// Timing: one untimed run (warm-up; its output is the one checked against the reference), then
// runs timed one by one until their sum reaches min_time_s or max_repeats runs were made (at least
// one). The median is robust against the odd preempted run on a shared machine.
//
// Test hooks ("hook": "abort" | "hang"), honoured only when the workbench was created with
// allowTestHooks (the worker's --test-hooks flag), make the worker abort or sleep forever so that
// tests can check the measurer survives crashing and hanging kernels.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "tuning/Reference.h"

namespace graphopt::tuning {

class MeasureWorkbench {
public:
    explicit MeasureWorkbench(bool allowTestHooks = false) : allowTestHooks_(allowTestHooks) {}
    nlohmann::json handle(const nlohmann::json& request);

private:
    const TaskData& dataFor(const TuningTask& task);
    nlohmann::json measure(const nlohmann::json& request);

    bool allowTestHooks_;
    bool warmedUp_ = false;
    std::string cachedKey_;  // one task's data kept: tuning goes task by task
    TaskData cached_;
};

}  // namespace graphopt::tuning
