// Seconds since a moment on the steady clock: how long a run, a step or a measurement took.
#pragma once

#include <chrono>

namespace graphopt {

inline double secondsSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace graphopt
