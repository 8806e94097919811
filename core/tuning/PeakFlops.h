// The machine's peak floating-point rate, measured: independent chains of fused multiply-adds in
// the widest vectors the CPU has (AVX-512, else AVX2+FMA, else scalar), on one thread and on all
// hardware threads at once. Tuned kernels are reported against it.
//
// A peak is only as good as the machine was quiet while it was measured: a busy machine once drew
// it at 90 GFLOP/s beside libtorch's 174 on the same task. So it is the best of many short runs
// per thread count (one quiet moment suffices), the CPU time other processes used meanwhile is
// read from /proc/stat and reported, and a peak that a measured kernel beats is measured again
// (remeasuredIfBeaten).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace graphopt::tuning {

struct PeakFlops {
    double gflops1 = 0;    // one thread
    double gflopsAll = 0;  // all hardware threads
    int threads = 1;
    std::string isa;       // "avx512", "avx2+fma" or "scalar"
    int runs = 0;          // short runs per thread count behind each best
    // Cores' worth of CPU time that other processes used during the measurement (from /proc/stat
    // less this process's own); -1 when it could not be read.
    double otherBusyCores = -1;
    bool loaded = false;     // otherBusyCores >= 0.25: the peak may be low
    bool remeasured = false;  // measured again because a kernel beat it
    double at(int threadCount) const { return threadCount <= 1 ? gflops1 : gflopsAll; }
    nlohmann::json toJson() const;
};

// `runs` runs of about `seconds` each per thread count, the best kept.
PeakFlops measurePeakFlops(double seconds = 0.05, int runs = 9);

// When a kernel measured `gflops` on `threads` threads, above the peak at that thread count, the
// peak is measured again and each thread count keeps the higher of the two (remeasured set);
// otherwise `peak` is returned unchanged.
PeakFlops remeasuredIfBeaten(const PeakFlops& peak, double gflops, int threads);

}  // namespace graphopt::tuning
