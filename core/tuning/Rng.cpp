#include "tuning/Rng.h"

namespace graphopt::tuning {

Rng::Rng(uint64_t seed) : bits_(seed) {}

uint64_t Rng::next() { return bits_.next(); }

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

double Rng::uniform01() { return bits_.uniform(); }

size_t Rng::weighted(const std::vector<double>& weights) {
    double total = 0;
    for (double w : weights) total += w > 0 ? w : 0;
    if (weights.empty()) return 0;
    if (!(total > 0)) return static_cast<size_t>(below(weights.size()));
    double r = uniform01() * total;
    for (size_t i = 0; i < weights.size(); ++i) {
        const double w = weights[i] > 0 ? weights[i] : 0;
        if (r < w) return i;
        r -= w;
    }
    return weights.size() - 1;
}

uint64_t hashMix(uint64_t a, uint64_t b, uint64_t c) {
    uint64_t x = a * 0x9E3779B97F4A7C15ull;
    uint64_t h = splitmix64(x);
    x = h ^ b;
    h = splitmix64(x);
    x = h ^ c;
    return splitmix64(x);
}

}  // namespace graphopt::tuning
