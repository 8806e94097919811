#include "tuning/LibtorchReference.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <stdexcept>
#include <vector>

namespace graphopt::tuning {

LibtorchTiming timeLibtorch(const TuningTask& t, int threads, double minTimeS) {
    if (t.isConv() && (t.padTop != t.padBottom || t.padLeft != t.padRight || t.padFront != t.padBack))
        throw std::invalid_argument("asymmetric padding has no torch::conv2d equivalent");
    const int previousThreads = torch::get_num_threads();
    torch::set_num_threads(std::max(1, threads));
    torch::NoGradGuard noGrad;
    // Data from a local generator, so timing never disturbs the global one the networks use.
    auto gen = at::detail::createCPUGenerator(1);
    std::function<torch::Tensor()> run;
    torch::Tensor x, w;
    if (t.is3d()) {
        x = at::randn({t.batch, t.inC, t.inD, t.inH, t.inW}, gen);
        w = at::randn({t.outC, t.inC / t.groups, t.kernelD, t.kernelH, t.kernelW}, gen);
        run = [&] {
            return torch::conv3d(x, w, {}, {t.strideD, t.strideH, t.strideW}, {t.padFront, t.padTop, t.padLeft},
                                 {t.dilationD, t.dilationH, t.dilationW}, t.groups);
        };
    } else if (t.isConv()) {
        x = at::randn({t.batch, t.inC, t.inH, t.inW}, gen);
        w = at::randn({t.outC, t.inC / t.groups, t.kernelH, t.kernelW}, gen);
        run = [&] {
            return torch::conv2d(x, w, {}, {t.strideH, t.strideW}, {t.padTop, t.padLeft}, {t.dilationH, t.dilationW},
                                 t.groups);
        };
    } else if (t.kind == TaskKind::BatchMatMul) {
        x = at::randn({t.batch, t.m, t.k}, gen);
        w = at::randn({t.batch, t.k, t.n}, gen);
        run = [&] { return torch::bmm(x, w); };
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

struct LibtorchKernel::Impl {
    TuningTask task;
    torch::Tensor x, w, y;
};

LibtorchKernel::LibtorchKernel(const TuningTask& t, const float* input, const float* weights)
    : impl_(std::make_unique<Impl>()) {
    if (t.isConv() && (t.padTop != t.padBottom || t.padLeft != t.padRight || t.padFront != t.padBack))
        throw std::invalid_argument("asymmetric padding has no torch::conv2d equivalent");
    impl_->task = t;
    // Copies: torch owns its tensors, the caller's buffers may go.
    if (t.is3d()) {
        impl_->x = torch::from_blob(const_cast<float*>(input), {t.batch, t.inC, t.inD, t.inH, t.inW}).clone();
        impl_->w = torch::from_blob(const_cast<float*>(weights), {t.outC, t.inC / t.groups, t.kernelD, t.kernelH, t.kernelW})
                       .clone();
    } else if (t.isConv()) {
        impl_->x = torch::from_blob(const_cast<float*>(input), {t.batch, t.inC, t.inH, t.inW}).clone();
        impl_->w = torch::from_blob(const_cast<float*>(weights), {t.outC, t.inC / t.groups, t.kernelH, t.kernelW}).clone();
    } else if (t.kind == TaskKind::BatchMatMul) {
        impl_->x = torch::from_blob(const_cast<float*>(input), {t.batch, t.m, t.k}).clone();
        impl_->w = torch::from_blob(const_cast<float*>(weights), {t.batch, t.k, t.n}).clone();
    } else {
        impl_->x = torch::from_blob(const_cast<float*>(input), {t.m, t.k}).clone();
        impl_->w = torch::from_blob(const_cast<float*>(weights), {t.k, t.n}).clone();
    }
}

LibtorchKernel::~LibtorchKernel() = default;

void LibtorchKernel::run() {
    torch::NoGradGuard noGrad;
    const TuningTask& t = impl_->task;
    // Assigning releases the previous output first, so the allocator can hand the same block back.
    impl_->y = torch::Tensor();
    if (t.is3d())
        impl_->y = torch::conv3d(impl_->x, impl_->w, {}, {t.strideD, t.strideH, t.strideW}, {t.padFront, t.padTop, t.padLeft},
                                 {t.dilationD, t.dilationH, t.dilationW}, t.groups);
    else if (t.isConv())
        impl_->y = torch::conv2d(impl_->x, impl_->w, {}, {t.strideH, t.strideW}, {t.padTop, t.padLeft},
                                 {t.dilationH, t.dilationW}, t.groups);
    else if (t.kind == TaskKind::BatchMatMul)
        impl_->y = torch::bmm(impl_->x, impl_->w);
    else
        impl_->y = torch::mm(impl_->x, impl_->w);
}

void LibtorchKernel::readOutput(float* out) const {
    const torch::Tensor y = impl_->y.contiguous();
    std::memcpy(out, y.data_ptr<float>(), sizeof(float) * static_cast<size_t>(y.numel()));
}

std::vector<float> libtorchOutput(const TuningTask& task, const std::vector<float>& input,
                                  const std::vector<float>& weights) {
    LibtorchKernel k(task, input.data(), weights.data());
    k.run();
    std::vector<float> out(static_cast<size_t>(task.outputElements()));
    k.readOutput(out.data());
    return out;
}

void setLibtorchThreads(int threads) { torch::set_num_threads(std::max(1, threads)); }

std::string libtorchBlasLibrary() {
    {
        torch::NoGradGuard noGrad;
        auto a = torch::ones({64, 64});
        auto b = torch::mm(a, a);  // loads the BLAS if it is loaded lazily
        (void)b;
    }
    std::ifstream maps("/proc/self/maps");
    std::set<std::string> found;
    for (std::string line; std::getline(maps, line);) {
        const auto slash = line.find('/');
        if (slash == std::string::npos) continue;
        const std::string path = line.substr(slash);
        const std::string name = std::filesystem::path(path).filename().string();
        if (name.find("blas") == std::string::npos) continue;
        std::error_code ec;
        const auto real = std::filesystem::canonical(path, ec);
        found.insert(ec ? path : real.string());
    }
    std::string out;
    for (const auto& f : found) out += (out.empty() ? "" : ", ") + f;
    return out;
}

}  // namespace graphopt::tuning
