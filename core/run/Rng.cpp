#include "run/Rng.h"

#include <cmath>

namespace graphopt {

Rng::Rng(uint64_t seed) : bits_(seed) {}

Rng Rng::stream(uint64_t seed, uint64_t a, uint64_t b) {
    uint64_t x = seed;
    uint64_t h = splitmix64(x);
    x = h ^ (a * 0xD1B54A32D192ED03ull);
    h = splitmix64(x);
    x = h ^ (b * 0x8CB92BA72F3D8DD7ull);
    return Rng(splitmix64(x));
}

uint64_t Rng::next() { return bits_.next(); }

double Rng::uniform() { return bits_.uniform(); }

uint64_t Rng::below(uint64_t n) {
    if (n <= 1) return 0;
    // Accept only draws below the largest multiple of n that fits in 64 bits.
    const uint64_t limit = UINT64_MAX - (UINT64_MAX % n);
    uint64_t v;
    do v = next();
    while (v >= limit);
    return v % n;
}

int64_t Rng::between(int64_t lo, int64_t hi) {
    if (hi <= lo) return lo;
    return lo + static_cast<int64_t>(below(static_cast<uint64_t>(hi - lo) + 1));
}

int Rng::index(int size) { return int((unsigned __int128)(next() >> 32) * uint64_t(size) >> 32); }

size_t Rng::weighted(const std::vector<double>& weights) {
    double total = 0;
    for (double w : weights) total += w > 0 ? w : 0;
    if (weights.empty()) return 0;
    if (!(total > 0)) return static_cast<size_t>(below(weights.size()));
    double r = uniform() * total;
    for (size_t i = 0; i < weights.size(); ++i) {
        const double w = weights[i] > 0 ? weights[i] : 0;
        if (r < w) return i;
        r -= w;
    }
    return weights.size() - 1;
}

double Rng::normal() {
    if (hasSpare_) {
        hasSpare_ = false;
        return spareNormal_;
    }
    double u1;
    do u1 = uniform();
    while (u1 <= 0);
    const double u2 = uniform();
    const double r = std::sqrt(-2.0 * std::log(u1));
    const double a = 6.283185307179586476925 * u2;
    spareNormal_ = r * std::sin(a);
    hasSpare_ = true;
    return r * std::cos(a);
}

double Rng::gamma(double shape) {
    if (shape < 1) {
        // Boost a shape < 1 to shape + 1 and scale by U^(1/shape) (Marsaglia-Tsang, section 6).
        double u;
        do u = uniform();
        while (u <= 0);
        return gamma(shape + 1) * std::pow(u, 1.0 / shape);
    }
    const double dd = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * dd);
    for (;;) {
        double x, v;
        do {
            x = normal();
            v = 1.0 + c * x;
        } while (v <= 0);
        v = v * v * v;
        const double u = uniform();
        const double x2 = x * x;
        if (u < 1.0 - 0.0331 * x2 * x2) return dd * v;
        if (u > 0 && std::log(u) < 0.5 * x2 + dd * (1.0 - v + std::log(v))) return dd * v;
    }
}

double Rng::beta(double a, double b) {
    const double x = gamma(a), y = gamma(b);
    const double s = x + y;
    if (s <= 0) return 0.5;  // both underflowed (tiny shapes): no preference
    return x / s;
}

uint64_t hashMix(uint64_t a, uint64_t b, uint64_t c) {
    uint64_t x = a * 0x9E3779B97F4A7C15ull;
    uint64_t h = splitmix64(x);
    x = h ^ b;
    h = splitmix64(x);
    x = h ^ c;
    return splitmix64(x);
}

}  // namespace graphopt
