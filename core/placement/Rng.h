// The placement engines' random numbers: the shared xoshiro256** generator (run/Xoshiro.h) with
// uniform, normal, Gamma (Marsaglia-Tsang) and Beta samplers written here. std::*_distribution is
// avoided on purpose: its algorithms differ between standard libraries, and a run must give the
// same answer for a seed everywhere.
#pragma once

#include <cstdint>

#include "run/Xoshiro.h"

namespace graphopt {

class Rng {
public:
    explicit Rng(uint64_t seed = 1);
    // A stream for (seed, a, b), independent of any other draws: BRKGA gives every individual of
    // every generation its own stream so results do not depend on the thread count.
    static Rng stream(uint64_t seed, uint64_t a, uint64_t b);

    uint64_t next();
    double uniform();                // [0, 1), 53 random bits
    int below(int bound);            // [0, bound), bound > 0 (Lemire's multiply-shift)
    double normal();                 // standard normal (Box-Muller, both values used)
    double gamma(double shape);      // shape > 0, scale 1
    double beta(double a, double b); // a, b > 0

private:
    Xoshiro256 bits_;
    double spareNormal_ = 0;
    bool hasSpare_ = false;
};

}  // namespace graphopt
