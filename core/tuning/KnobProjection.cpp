#include "tuning/KnobProjection.h"

#include <cmath>
#include <numeric>

#include "run/Rng.h"

namespace graphopt::tuning {

namespace {

using Matrix = std::vector<std::vector<double>>;

std::vector<double> multiply(const Matrix& m, const std::vector<double>& v) {
    std::vector<double> out(v.size(), 0.0);
    for (size_t i = 0; i < m.size(); ++i)
        for (size_t j = 0; j < v.size(); ++j) out[i] += m[i][j] * v[j];
    return out;
}

double norm(const std::vector<double>& v) { return std::sqrt(std::inner_product(v.begin(), v.end(), v.begin(), 0.0)); }

// The dominant eigenvector of a symmetric matrix and its eigenvalue, by power iteration from a
// fixed start (deterministic).
std::pair<std::vector<double>, double> dominant(const Matrix& m) {
    const size_t n = m.size();
    std::vector<double> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = 1.0 + 0.1 * double(i);  // not orthogonal to any axis by accident
    double lambda = 0;
    for (int it = 0; it < 500; ++it) {
        std::vector<double> w = multiply(m, v);
        const double len = norm(w);
        if (len < 1e-15) return {std::vector<double>(n, 0.0), 0.0};
        for (auto& x : w) x /= len;
        double diff = 0;
        for (size_t i = 0; i < n; ++i) diff += std::abs(w[i] - v[i]);
        v = std::move(w);
        lambda = len;
        if (diff < 1e-12) break;
    }
    return {v, lambda};
}

}  // namespace

KnobProjection KnobProjection::fit(const KnobSpace& space, uint64_t seed, int samples) {
    KnobProjection p;
    p.space_ = &space;
    const size_t d = space.knobCount();
    p.mean_.assign(d, 0.0);
    for (auto& axis : p.axes_) axis.assign(d, 0.0);
    if (d == 0 || space.size() == 0) return p;
    Rng rng(seed);
    std::vector<std::vector<double>> xs;
    xs.reserve(size_t(samples));
    for (int i = 0; i < samples; ++i) xs.push_back(p.normalized(space.random(rng)));
    for (const auto& x : xs)
        for (size_t j = 0; j < d; ++j) p.mean_[j] += x[j] / double(xs.size());
    Matrix cov(d, std::vector<double>(d, 0.0));
    double total = 0;
    for (const auto& x : xs)
        for (size_t i = 0; i < d; ++i)
            for (size_t j = 0; j < d; ++j) cov[i][j] += (x[i] - p.mean_[i]) * (x[j] - p.mean_[j]) / double(xs.size());
    for (size_t i = 0; i < d; ++i) total += cov[i][i];
    for (int c = 0; c < 2; ++c) {
        auto [axis, lambda] = dominant(cov);
        p.axes_[size_t(c)] = axis;
        p.explained_[size_t(c)] = total > 0 ? lambda / total : 0;
        for (size_t i = 0; i < d; ++i)
            for (size_t j = 0; j < d; ++j) cov[i][j] -= lambda * axis[i] * axis[j];  // deflate
    }
    return p;
}

std::vector<double> KnobProjection::normalized(ConfigIndex c) const {
    const KnobIndices idx = space_->decode(c);
    std::vector<double> x(idx.size());
    for (size_t k = 0; k < idx.size(); ++k) {
        const size_t values = space_->knob(k).size();
        x[k] = values > 1 ? double(idx[k]) / double(values - 1) : 0.0;
    }
    return x;
}

std::array<double, 2> KnobProjection::project(ConfigIndex c) const {
    const std::vector<double> x = normalized(c);
    std::array<double, 2> out{0, 0};
    for (size_t c2 = 0; c2 < 2; ++c2)
        for (size_t j = 0; j < x.size(); ++j) out[c2] += (x[j] - mean_[j]) * axes_[c2][j];
    return out;
}

}  // namespace graphopt::tuning
