#include "placement/Rng.h"

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

int Rng::below(int bound) {
    return int((unsigned __int128)(next() >> 32) * uint64_t(bound) >> 32);
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

}  // namespace graphopt
