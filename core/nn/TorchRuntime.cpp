#include "nn/TorchRuntime.h"

#include <algorithm>

#include <torch/torch.h>
#include <torch/version.h>

namespace graphopt::nn {

void setTorchThreads(int threads) {
    torch::set_num_threads(std::max(1, threads));
}

std::string torchVersion() {
    return TORCH_VERSION;
}

}  // namespace graphopt::nn
