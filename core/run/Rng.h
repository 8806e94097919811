// The project's one random number generator: the shared xoshiro256** (run/Xoshiro.h) with the
// samplers every engine uses (placement, tuning, training, the synthetic graphs of the tests).
//
// std::*_distribution is avoided on purpose: its algorithms differ between standard libraries, and
// a run must give the same answer for a seed everywhere. Each sampler is written out here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "run/Xoshiro.h"

namespace graphopt {

class Rng {
public:
    explicit Rng(uint64_t seed = 1);
    // A stream for (seed, a, b), independent of any other draws: BRKGA gives every individual of
    // every generation its own stream so results do not depend on the thread count.
    static Rng stream(uint64_t seed, uint64_t a, uint64_t b);

    uint64_t next();
    double uniform();  // [0, 1), 53 random bits
    // Uniform integer in [0, n); 0 when n <= 1. Exact (rejection sampling, no modulo bias) for any
    // 64-bit n: knob spaces have billions of configurations.
    uint64_t below(uint64_t n);
    // Uniform integer in [lo, hi] (inclusive); lo when hi <= lo.
    int64_t between(int64_t lo, int64_t hi);
    // An index into a container of `size` elements (size > 0), one multiply and shift of 32 random
    // bits (Lemire), no loop: for the hot loops of BRKGA and local search. Its bias, below
    // size / 2^32, is irrelevant for population-sized containers; use below() for large ranges.
    int index(int size);
    bool chance(double p) { return uniform() < p; }  // true with probability p
    // Index drawn with probability proportional to weights (negative ones count as 0); uniform
    // when they sum to 0.
    size_t weighted(const std::vector<double>& weights);
    double normal();                  // standard normal (Box-Muller, both values used)
    double gamma(double shape);       // shape > 0, scale 1 (Marsaglia-Tsang)
    double beta(double a, double b);  // a, b > 0

private:
    Xoshiro256 bits_;
    double spareNormal_ = 0;
    bool hasSpare_ = false;
};

// A stateless 64-bit mix of several values (for noise that must not depend on call order).
uint64_t hashMix(uint64_t a, uint64_t b = 0, uint64_t c = 0);

}  // namespace graphopt
