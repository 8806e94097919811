// The tuning code's own seeded generator and uniform helpers.
//
// std::*_distribution differs between standard libraries, so a run replayed with the same seed on
// another toolchain would diverge; these helpers are written out so results depend on the seed
// alone. The generator is the project's shared xoshiro256** (run/Xoshiro.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "run/Xoshiro.h"

namespace graphopt::tuning {

class Rng {
public:
    explicit Rng(uint64_t seed = 1);
    uint64_t next();
    // Uniform integer in [0, n); n > 0. Rejection sampling, so no modulo bias.
    uint64_t below(uint64_t n);
    // Uniform integer in [lo, hi] (inclusive).
    int64_t between(int64_t lo, int64_t hi);
    // Uniform double in [0, 1) with 53 random bits.
    double uniform01();
    // True with probability p.
    bool chance(double p) { return uniform01() < p; }
    // Index drawn with probability proportional to weights (all >= 0); uniform when they sum to 0.
    size_t weighted(const std::vector<double>& weights);

private:
    Xoshiro256 bits_;
};

// A stateless 64-bit mix of several values (for noise that must not depend on call order).
uint64_t hashMix(uint64_t a, uint64_t b = 0, uint64_t c = 0);

}  // namespace graphopt::tuning
