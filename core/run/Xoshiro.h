// The project's one random bit generator: xoshiro256** seeded through SplitMix64. Engines build
// their samplers on it (placement/Rng, tuning/Rng) instead of std::*_distribution, whose
// algorithms differ between standard libraries: a run must give the same answer for a seed
// everywhere.
#pragma once

#include <cstdint>

namespace graphopt {

// Advances `state` and returns the next SplitMix64 output (also a good 64-bit mixer).
inline uint64_t splitmix64(uint64_t& state) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

class Xoshiro256 {
public:
    explicit Xoshiro256(uint64_t seed = 1) {
        for (auto& s : s_) s = splitmix64(seed);
    }
    uint64_t next() {
        const uint64_t result = rotl(s_[1] * 5, 7) * 9;
        const uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return result;
    }
    // [0, 1) with 53 random bits.
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

private:
    static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    uint64_t s_[4];
};

}  // namespace graphopt
