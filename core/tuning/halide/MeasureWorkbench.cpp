#include "tuning/halide/MeasureWorkbench.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "tuning/halide/HalideKernel.h"

namespace graphopt::tuning {

namespace {
using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }
}  // namespace

const TaskData& MeasureWorkbench::dataFor(const TuningTask& task) {
    const std::string key = task.key();
    if (key != cachedKey_) {
        cachedKey_.clear();
        cached_ = makeTaskData(task);
        cachedKey_ = key;
    }
    return cached_;
}

nlohmann::json MeasureWorkbench::handle(const nlohmann::json& request) {
    try {
        const std::string op = request.value("op", "");
        if (op == "ping") return {{"ok", true}};
        if (op == "prepare") {
            const auto t0 = Clock::now();
            if (!warmedUp_) {
                // The first JIT compilation in a process also builds Halide's runtime (about a
                // second): do it here, under the prepare deadline, not a measurement's.
                HalideKernel warm(makeDense(1, 1, 1), 0);
                warmedUp_ = true;
            }
            dataFor(TuningTask::fromJson(request.at("task")));
            return {{"ok", true}, {"prepare_s", secondsSince(t0)}};
        }
        if (op == "measure") return measure(request);
        return {{"ok", false}, {"error", "unknown request '" + op + "'"}};
    } catch (const std::exception& e) {
        return {{"ok", false}, {"error", e.what()}};
    }
}

nlohmann::json MeasureWorkbench::measure(const nlohmann::json& request) {
    const TuningTask task = TuningTask::fromJson(request.at("task"));
    const ConfigIndex config = request.at("config").get<ConfigIndex>();
    const double minTime = request.value("min_time_s", 0.05);
    const int maxRepeats = std::max(1, request.value("max_repeats", 1000));
    const bool check = request.value("check", true);
    const std::string hook = request.value("hook", "");
    if (!hook.empty()) {
        if (!allowTestHooks_) return {{"ok", false}, {"error", "test hooks are disabled in this worker"}};
        if (hook == "abort") std::abort();
        if (hook == "hang")
            for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
    }
    const TaskData& data = dataFor(task);

    const auto c0 = Clock::now();
    HalideKernel kernel(task, config);
    const double compileS = secondsSince(c0);

    std::vector<float> output(data.reference.size(), 0.0f);
    kernel.run(data.input.data(), data.weights.data(), output.data());
    nlohmann::json reply = {{"ok", true}, {"compile_s", compileS}, {"checked", check}};
    if (check) {
        const CheckResult cr = checkOutput(task, data.reference, output.data());
        reply["max_abs_error"] = cr.maxAbsError;
        reply["tolerance"] = cr.tolerance;
        if (!cr.ok) return {{"ok", false}, {"error", cr.message}, {"compile_s", compileS}};
    }

    std::vector<double> times;
    double total = 0;
    do {
        const auto t0 = Clock::now();
        kernel.run(data.input.data(), data.weights.data(), output.data());
        const double dt = secondsSince(t0);
        times.push_back(dt);
        total += dt;
    } while (total < minTime && static_cast<int>(times.size()) < maxRepeats);
    std::sort(times.begin(), times.end());
    const size_t n = times.size();
    const double median = n % 2 ? times[n / 2] : 0.5 * (times[n / 2 - 1] + times[n / 2]);
    reply["latency_s"] = median;
    reply["repeats"] = n;
    reply["gflops"] = task.flops() / median * 1e-9;
    return reply;
}

}  // namespace graphopt::tuning
