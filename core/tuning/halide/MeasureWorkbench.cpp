#include "tuning/halide/MeasureWorkbench.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "run/Elapsed.h"
#include "tuning/LibtorchReference.h"
#include "run/Rng.h"
#include "tuning/halide/HalideKernel.h"

namespace graphopt::tuning {

namespace {
using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The threads this worker runs Halide with (HL_NUM_THREADS, else Halide's default: all cores).
int workerThreads() {
    if (const char* e = std::getenv("HL_NUM_THREADS"); e && std::atoi(e) > 0) return std::atoi(e);
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

std::vector<float> uniformData(size_t n, Rng& rng) {
    std::vector<float> v(n);
    for (auto& x : v) x = static_cast<float>(rng.uniform() * 2.0 - 1.0);
    return v;
}

bool torchCanExpress(const TuningTask& t) {
    return !t.isConv() || (t.padTop == t.padBottom && t.padLeft == t.padRight && t.padFront == t.padBack);
}
}  // namespace

MeasureWorkbench::MeasureWorkbench(bool allowTestHooks) : allowTestHooks_(allowTestHooks) {
    setLibtorchThreads(workerThreads());
}

const TaskData& MeasureWorkbench::dataFor(const TuningTask& task) {
    const std::string key = task.key();
    if (key != cachedKey_) {
        cachedKey_.clear();
        if (torchCanExpress(task)) {
            // Random data seeded by the task's key, and libtorch's own output on it.
            uint64_t seed = 1469598103934665603ull;  // FNV-1a of the key
            for (unsigned char ch : key) seed = (seed ^ ch) * 1099511628211ull;
            Rng rng(seed);
            TaskData d;
            d.input = uniformData(static_cast<size_t>(task.inputElements()), rng);
            d.weights = uniformData(static_cast<size_t>(task.weightElements()), rng);
            d.reference = libtorchOutput(task, d.input, d.weights);
            cached_ = std::move(d);
            referenceName_ = "libtorch";
        } else {
            cached_ = makeTaskData(task);
            referenceName_ = "plain C++";
        }
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
        if (op == "compare") return compare(request);
        if (op == "info")
            return {{"ok", true},
                    {"threads", workerThreads()},
                    {"blas", libtorchBlasLibrary()},
                    {"openblas_coretype", std::getenv("OPENBLAS_CORETYPE") ? std::getenv("OPENBLAS_CORETYPE") : ""},
                    {"host_lanes", hostVectorLanes()}};
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
    KernelOptions ko;
    ko.dropLastBlock = hook == "drop_block";
    HalideKernel kernel(task, config, ko);
    const double compileS = secondsSince(c0);

    std::vector<float> output(data.reference.size(), 0.0f);
    kernel.bind(data.input.data(), data.weights.data());
    kernel.run();
    kernel.readOutput(output.data());
    nlohmann::json reply = {{"ok", true}, {"compile_s", compileS}, {"checked", check}, {"reference", referenceName_}};
    if (check) {
        const CheckResult cr = checkOutput(task, data.reference, output.data());
        reply["max_abs_error"] = cr.maxAbsError;
        reply["tolerance"] = cr.tolerance;
        if (!cr.ok)
            return {{"ok", false}, {"error", cr.message + " against " + referenceName_}, {"compile_s", compileS}};
    }

    std::vector<double> times;
    double total = 0;
    do {
        const auto t0 = Clock::now();
        kernel.run();
        const double dt = secondsSince(t0);
        times.push_back(dt);
        total += dt;
    } while (total < minTime && static_cast<int>(times.size()) < maxRepeats);
    const double med = median(times);
    reply["latency_s"] = med;
    reply["repeats"] = times.size();
    reply["gflops"] = task.flops() / med * 1e-9;
    return reply;
}

nlohmann::json MeasureWorkbench::compare(const nlohmann::json& request) {
    const TuningTask task = TuningTask::fromJson(request.at("task"));
    const ConfigIndex config = request.at("config").get<ConfigIndex>();
    const double minTime = request.value("min_time_s", 0.2);
    if (!torchCanExpress(task)) return {{"ok", false}, {"error", "libtorch cannot express this task's padding"}};
    const TaskData& data = dataFor(task);
    HalideKernel kernel(task, config);
    kernel.bind(data.input.data(), data.weights.data());
    LibtorchKernel torchKernel(task, data.input.data(), data.weights.data());
    // The same warm-up for both: caches, thread pools, libtorch's primitive cache.
    for (int i = 0; i < 3; ++i) {
        kernel.run();
        torchKernel.run();
    }
    std::vector<float> output(data.reference.size());
    kernel.readOutput(output.data());
    const CheckResult cr = checkOutput(task, data.reference, output.data());
    if (!cr.ok) return {{"ok", false}, {"error", cr.message + " against " + referenceName_}};
    // Interleaved in rounds, so that a change of load hits both sides alike. Not run by run:
    // libtorch's OpenMP threads spin for milliseconds after each call (libgomp's default wait
    // policy), which took the second core from the tuned kernel run right after it (measured here:
    // the tuned kernel ran no faster on 2 threads than on 1; OpenBLAS's threads spin longer still).
    // So each round pauses 100 ms until the other side's threads have gone to sleep, runs one untimed call, then times calls for a slice of
    // min_time; within a round each side runs back to back, as layers do in a network.
    std::vector<double> tuned, torch;
    double tunedSum = 0, torchSum = 0;
    const double slice = std::max(0.01, minTime / 4);
    auto timeSide = [&](auto&& runOnce, std::vector<double>& samples, double& sum) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        runOnce();
        double spent = 0;
        int n = 0;
        while (spent < slice || n < 2) {
            const auto t0 = Clock::now();
            runOnce();
            const double dt = secondsSince(t0);
            samples.push_back(dt);
            spent += dt;
            ++n;
        }
        sum += spent;
    };
    int rounds = 0;
    while (tunedSum < minTime || torchSum < minTime || rounds < 3) {
        timeSide([&] { kernel.run(); }, tuned, tunedSum);
        timeSide([&] { torchKernel.run(); }, torch, torchSum);
        ++rounds;
    }
    const double tm = median(tuned), lm = median(torch);
    return {{"ok", true},
            {"threads", workerThreads()},
            {"tuned_s", tm},
            {"libtorch_s", lm},
            {"tuned_gflops", task.flops() / tm * 1e-9},
            {"libtorch_gflops", task.flops() / lm * 1e-9},
            {"pairs", std::min(tuned.size(), torch.size())},
            {"rounds", rounds},
            {"max_abs_error", cr.maxAbsError}};
}

}  // namespace graphopt::tuning
