#include "tuning/LibtorchReference.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <stdexcept>
#include <vector>

namespace graphopt::tuning {

LibtorchTiming timeLibtorch(const TuningTask& t, int threads, double minTimeS) {
    if (t.isConv() && (t.padTop != t.padBottom || t.padLeft != t.padRight))
        throw std::invalid_argument("asymmetric padding has no torch::conv2d equivalent");
    const int previousThreads = torch::get_num_threads();
    torch::set_num_threads(std::max(1, threads));
    torch::NoGradGuard noGrad;
    // Data from a local generator, so timing never disturbs the global one the networks use.
    auto gen = at::detail::createCPUGenerator(1);
    std::function<torch::Tensor()> run;
    torch::Tensor x, w;
    if (t.isConv()) {
        x = at::randn({t.batch, t.inC, t.inH, t.inW}, gen);
        w = at::randn({t.outC, t.inC / t.groups, t.kernelH, t.kernelW}, gen);
        run = [&] {
            return torch::conv2d(x, w, {}, {t.strideH, t.strideW}, {t.padTop, t.padLeft}, {t.dilationH, t.dilationW},
                                 t.groups);
        };
    } else {
        x = at::randn({t.m, t.k}, gen);
        w = at::randn({t.k, t.n}, gen);
        run = [&] { return torch::mm(x, w); };
    }
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
    torch::set_num_threads(previousThreads);
    std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
    LibtorchTiming out;
    out.medianS = samples[samples.size() / 2];
    out.gflops = t.flops() / out.medianS / 1e9;
    out.repeats = static_cast<int>(samples.size());
    return out;
}

}  // namespace graphopt::tuning
