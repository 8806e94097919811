#include "nn/TorchRuntime.h"

#include <dlfcn.h>

#include <algorithm>

#include <torch/torch.h>
#include <torch/version.h>

namespace graphopt::nn {

void setTorchThreads(int threads) {
    torch::set_num_threads(std::max(1, threads));
}

bool setBlasThreads(int threads) {
    // Looked up at run time: the program does not link OpenBLAS itself (the BLAS alternative does).
    using SetThreads = void (*)(int);
    static const auto set = reinterpret_cast<SetThreads>(::dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
    if (!set) return false;
    set(std::max(1, threads));
    return true;
}

std::string torchVersion() {
    return TORCH_VERSION;
}

}  // namespace graphopt::nn
