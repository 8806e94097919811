#include "tuning/Reference.h"

#include <cmath>
#include <sstream>

#include "run/Rng.h"

namespace graphopt::tuning {

namespace {

std::vector<float> uniformData(size_t n, Rng& rng) {
    std::vector<float> v(n);
    for (auto& x : v) x = static_cast<float>(rng.uniform() * 2.0 - 1.0);
    return v;
}

uint64_t keySeed(const std::string& key) {
    uint64_t h = 1469598103934665603ull;  // FNV-1a
    for (unsigned char ch : key) h = (h ^ ch) * 1099511628211ull;
    return h;
}

}  // namespace

std::vector<float> referenceKernel(const TuningTask& t, const std::vector<float>& input,
                                   const std::vector<float>& weights) {
    std::vector<float> out(static_cast<size_t>(t.outputElements()));
    if (!t.isConv()) {
        for (int64_t b = 0; b < t.matmulBatch(); ++b) {
            const float* A = input.data() + b * t.m * t.k;
            const float* B = weights.data() + b * t.k * t.n;
            float* Y = out.data() + b * t.m * t.n;
            for (int64_t i = 0; i < t.m; ++i)
                for (int64_t j = 0; j < t.n; ++j) {
                    double s = 0;
                    for (int64_t r = 0; r < t.k; ++r) s += double(A[i * t.k + r]) * double(B[r * t.n + j]);
                    Y[i * t.n + j] = static_cast<float>(s);
                }
        }
        return out;
    }
    if (t.is3d()) {
        const int64_t od = t.outD(), oh = t.outH(), ow = t.outW();
        const int64_t cinG = t.inC / t.groups, coutG = t.outC / t.groups;
        for (int64_t b = 0; b < t.batch; ++b)
            for (int64_t co = 0; co < t.outC; ++co) {
                const int64_t g = co / coutG;
                for (int64_t z = 0; z < od; ++z)
                    for (int64_t y = 0; y < oh; ++y)
                        for (int64_t x = 0; x < ow; ++x) {
                            double s = 0;
                            for (int64_t ci = 0; ci < cinG; ++ci)
                                for (int64_t kz = 0; kz < t.kernelD; ++kz) {
                                    const int64_t iz = z * t.strideD + kz * t.dilationD - t.padFront;
                                    if (iz < 0 || iz >= t.inD) continue;
                                    for (int64_t ky = 0; ky < t.kernelH; ++ky) {
                                        const int64_t iy = y * t.strideH + ky * t.dilationH - t.padTop;
                                        if (iy < 0 || iy >= t.inH) continue;
                                        for (int64_t kx = 0; kx < t.kernelW; ++kx) {
                                            const int64_t ix = x * t.strideW + kx * t.dilationW - t.padLeft;
                                            if (ix < 0 || ix >= t.inW) continue;
                                            const int64_t c = g * cinG + ci;
                                            s += double(input[(((b * t.inC + c) * t.inD + iz) * t.inH + iy) * t.inW + ix]) *
                                                 double(weights[(((co * cinG + ci) * t.kernelD + kz) * t.kernelH + ky) *
                                                                    t.kernelW + kx]);
                                        }
                                    }
                                }
                            out[(((b * t.outC + co) * od + z) * oh + y) * ow + x] = static_cast<float>(s);
                        }
            }
        return out;
    }
    const int64_t oh = t.outH(), ow = t.outW();
    const int64_t cinG = t.inC / t.groups, coutG = t.outC / t.groups;
    for (int64_t b = 0; b < t.batch; ++b)
        for (int64_t co = 0; co < t.outC; ++co) {
            const int64_t g = co / coutG;
            for (int64_t y = 0; y < oh; ++y)
                for (int64_t x = 0; x < ow; ++x) {
                    double s = 0;
                    for (int64_t ci = 0; ci < cinG; ++ci)
                        for (int64_t ky = 0; ky < t.kernelH; ++ky) {
                            const int64_t iy = y * t.strideH + ky * t.dilationH - t.padTop;
                            if (iy < 0 || iy >= t.inH) continue;
                            for (int64_t kx = 0; kx < t.kernelW; ++kx) {
                                const int64_t ix = x * t.strideW + kx * t.dilationW - t.padLeft;
                                if (ix < 0 || ix >= t.inW) continue;
                                const int64_t c = g * cinG + ci;
                                s += double(input[((b * t.inC + c) * t.inH + iy) * t.inW + ix]) *
                                     double(weights[((co * cinG + ci) * t.kernelH + ky) * t.kernelW + kx]);
                            }
                        }
                    out[((b * t.outC + co) * oh + y) * ow + x] = static_cast<float>(s);
                }
        }
    return out;
}

TaskData makeTaskData(const TuningTask& t) {
    Rng rng(keySeed(t.key()));
    TaskData d;
    d.input = uniformData(static_cast<size_t>(t.inputElements()), rng);
    d.weights = uniformData(static_cast<size_t>(t.weightElements()), rng);
    d.reference = referenceKernel(t, d.input, d.weights);
    return d;
}

CheckResult checkOutput(const TuningTask& t, const std::vector<float>& reference, const float* output) {
    CheckResult c;
    const double L = static_cast<double>(t.reductionLength());
    double worstRatio = -1;
    for (size_t i = 0; i < reference.size(); ++i) {
        const double r = reference[i], o = output[i];
        const double err = std::fabs(o - r);
        const double tol = 1e-5 * L + 1e-4 * std::fabs(r);
        if (err > c.maxAbsError || std::isnan(o)) c.maxAbsError = std::isnan(o) ? INFINITY : err;
        const double ratio = std::isnan(o) ? INFINITY : err / tol;
        if (ratio > worstRatio) worstRatio = ratio, c.tolerance = tol, c.worstIndex = static_cast<int64_t>(i);
    }
    if (worstRatio > 1) {
        c.ok = false;
        std::ostringstream os;
        os << "wrong output: element " << c.worstIndex << " is " << output[c.worstIndex] << ", reference "
           << reference[c.worstIndex] << " (tolerance " << c.tolerance << ")";
        c.message = os.str();
    }
    return c;
}

}  // namespace graphopt::tuning
