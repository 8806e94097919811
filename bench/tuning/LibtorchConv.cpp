#include "LibtorchConv.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <vector>

namespace graphopt::bench {

LibtorchTiming timeLibtorchConv(const tuning::TuningTask& t, int threads, double minTimeS) {
    if (!t.isConv()) throw std::invalid_argument("libtorch timing is for conv tasks");
    if (t.padTop != t.padBottom || t.padLeft != t.padRight)
        throw std::invalid_argument("asymmetric padding has no torch::conv2d equivalent");
    torch::set_num_threads(threads);
    torch::NoGradGuard noGrad;
    torch::manual_seed(1);
    const auto x = torch::randn({t.batch, t.inC, t.inH, t.inW});
    const auto w = torch::randn({t.outC, t.inC / t.groups, t.kernelH, t.kernelW});
    auto run = [&] {
        return torch::conv2d(x, w, {}, {t.strideH, t.strideW}, {t.padTop, t.padLeft}, {t.dilationH, t.dilationW},
                             t.groups);
    };
    for (int i = 0; i < 3; ++i) run();  // warm-up: allocator, oneDNN primitive cache
    std::vector<double> samples;
    double spent = 0;
    while (spent < minTimeS || samples.size() < 5) {
        const auto t0 = std::chrono::steady_clock::now();
        auto y = run();
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        samples.push_back(s);
        spent += s;
    }
    std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
    LibtorchTiming out;
    out.medianS = samples[samples.size() / 2];
    out.gflops = t.flops() / out.medianS / 1e9;
    out.repeats = static_cast<int>(samples.size());
    return out;
}

}  // namespace graphopt::bench
