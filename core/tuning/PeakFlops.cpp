#include "tuning/PeakFlops.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

#include <immintrin.h>

namespace graphopt::tuning {

namespace {

// 12 independent accumulators, fully unrolled so they stay in registers, hide the FMA latency (4 cycles x 2-3 ports). Returns a value
// derived from the accumulators so the compiler cannot drop the work.
__attribute__((target("avx512f"))) float fmaLoop512(int64_t iters) {
    __m512 acc[12];
    for (int i = 0; i < 12; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i) * 1e-3f);
    const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
    for (int64_t it = 0; it < iters; ++it) {
#pragma GCC unroll 12
        for (int i = 0; i < 12; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
    }
    __m512 s = acc[0];
    for (int i = 1; i < 12; ++i) s = _mm512_add_ps(s, acc[i]);
    return _mm512_reduce_add_ps(s);
}

__attribute__((target("avx2,fma"))) float fmaLoop256(int64_t iters) {
    __m256 acc[12];
    for (int i = 0; i < 12; ++i) acc[i] = _mm256_set1_ps(static_cast<float>(i) * 1e-3f);
    const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
    for (int64_t it = 0; it < iters; ++it) {
#pragma GCC unroll 12
        for (int i = 0; i < 12; ++i) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
    }
    float out[8];
    __m256 s = acc[0];
    for (int i = 1; i < 12; ++i) s = _mm256_add_ps(s, acc[i]);
    _mm256_storeu_ps(out, s);
    return out[0] + out[7];
}

float fmaLoopScalar(int64_t iters) {
    float acc[12];
    for (int i = 0; i < 12; ++i) acc[i] = static_cast<float>(i) * 1e-3f;
    for (int64_t it = 0; it < iters; ++it) {
#pragma GCC unroll 12
        for (int i = 0; i < 12; ++i) acc[i] = acc[i] * 0.999999f + 1e-7f;
    }
    float s = 0;
    for (float v : acc) s += v;
    return s;
}

volatile float g_sink;

struct Kernel {
    float (*fn)(int64_t);
    int lanes;
    const char* isa;
};

Kernel pickKernel() {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return {fmaLoop512, 16, "avx512"};
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return {fmaLoop256, 8, "avx2+fma"};
    return {fmaLoopScalar, 1, "scalar"};
}

// GFLOP/s of `threads` threads each running `iters` iterations.
double runOnce(const Kernel& k, int threads, int64_t iters) {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) pool.emplace_back([&] { g_sink = k.fn(iters); });
    for (auto& th : pool) th.join();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return static_cast<double>(threads) * static_cast<double>(iters) * 12.0 * k.lanes * 2.0 / s * 1e-9;
}

double best(const Kernel& k, int threads, double seconds, int runs) {
    // Calibrate the iteration count on one short run, then keep the best of `runs`.
    int64_t iters = 1 << 16;
    double rate = runOnce(k, 1, iters);
    iters = std::max<int64_t>(iters, static_cast<int64_t>(seconds * rate * 1e9 / (12.0 * k.lanes * 2.0)));
    double b = 0;
    for (int r = 0; r < runs; ++r) b = std::max(b, runOnce(k, threads, iters));
    return b;
}

// Busy CPU seconds of the whole machine (the "cpu" line of /proc/stat: all but idle and iowait),
// or -1 when it cannot be read.
double machineBusyS() {
    std::ifstream f("/proc/stat");
    std::string line, label;
    if (!std::getline(f, line)) return -1;
    std::istringstream is(line);
    is >> label;
    if (label != "cpu") return -1;
    double v[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (double& x : v)
        if (!(is >> x)) return -1;
    const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
    if (ticks <= 0) return -1;
    // user nice system idle iowait irq softirq steal
    return (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / ticks;
}

double selfCpuS() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

}  // namespace

PeakFlops measurePeakFlops(double seconds, int runs) {
    const Kernel k = pickKernel();
    PeakFlops p;
    p.isa = k.isa;
    p.threads = std::max(1u, std::thread::hardware_concurrency());
    p.runs = std::max(1, runs);
    const double busy0 = machineBusyS(), self0 = selfCpuS();
    const auto t0 = std::chrono::steady_clock::now();
    p.gflops1 = best(k, 1, seconds, p.runs);
    p.gflopsAll = p.threads > 1 ? best(k, p.threads, seconds, p.runs) : p.gflops1;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double busy1 = machineBusyS(), self1 = selfCpuS();
    if (busy0 >= 0 && busy1 >= 0 && wall > 0) {
        p.otherBusyCores = std::max(0.0, ((busy1 - busy0) - (self1 - self0)) / wall);
        p.loaded = p.otherBusyCores >= 0.25;
    }
    return p;
}

PeakFlops remeasuredIfBeaten(const PeakFlops& peak, double gflops, int threads) {
    if (gflops <= peak.at(threads)) return peak;
    PeakFlops again = measurePeakFlops(0.05, std::max(peak.runs, 9));
    again.gflops1 = std::max(again.gflops1, peak.gflops1);
    again.gflopsAll = std::max(again.gflopsAll, peak.gflopsAll);
    again.loaded = again.loaded || peak.loaded;
    again.otherBusyCores = std::max(again.otherBusyCores, peak.otherBusyCores);
    again.remeasured = true;
    return again;
}

nlohmann::json PeakFlops::toJson() const {
    return {{"gflops_1_thread", gflops1},
            {"gflops_all_threads", gflopsAll},
            {"threads", threads},
            {"isa", isa},
            {"runs", runs},
            {"other_busy_cores", otherBusyCores >= 0 ? nlohmann::json(otherBusyCores) : nlohmann::json(nullptr)},
            {"loaded", loaded},
            {"remeasured", remeasured}};
}

}  // namespace graphopt::tuning
