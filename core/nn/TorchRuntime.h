// What every LibTorch user in graphopt_nn shares, without exposing LibTorch headers: the intra-op
// thread count and the library version (for run metadata).
//
// LibTorch's OpenMP pool collapses when its threads compete with the search's worker threads on a
// 2-core machine, so the networks here (small MLPs and GNNs) run on one intra-op thread unless a
// caller asks otherwise.
#pragma once

#include <string>

namespace graphopt::nn {

// Sets LibTorch's intra-op threads (>= 1). Safe to call more than once.
void setTorchThreads(int threads);
// Sets the threads of OpenBLAS, which LibTorch's matrix products call (Debian's libtorch links the
// system BLAS) and which torch's thread setting does not reach; a no-op with another BLAS. OpenBLAS
// starts one thread per core and they spin (sched_yield) after every call: with the networks'
// small matrices they gain nothing and hold a second core through a whole training run. Returns
// whether OpenBLAS took it.
bool setBlasThreads(int threads);
// "1.13.1", from the headers the library was built with.
std::string torchVersion();

}  // namespace graphopt::nn
