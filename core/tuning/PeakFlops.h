// The machine's peak floating-point rate, measured: independent chains of fused multiply-adds in
// the widest vectors the CPU has (AVX-512, else AVX2+FMA, else scalar), on one thread and on all
// hardware threads at once. Tuned kernels are reported against it.
#pragma once

#include <string>

namespace graphopt::tuning {

struct PeakFlops {
    double gflops1 = 0;    // one thread
    double gflopsAll = 0;  // all hardware threads
    int threads = 1;
    std::string isa;       // "avx512", "avx2+fma" or "scalar"
};

// Runs about `seconds` per measurement (best of 3).
PeakFlops measurePeakFlops(double seconds = 0.2);

}  // namespace graphopt::tuning
