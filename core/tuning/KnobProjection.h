// A 2-D picture of a knob space, for the tuning view's cluster scatter: configurations as their
// normalized knob vectors (each knob's value index / (values - 1), in [0, 1]) projected on the
// space's first two principal components.
//
// The components are fitted once per task on a seeded uniform sample of the whole space, not on
// what a run happens to visit, so every batch of a run, and every run of the task, is drawn in
// the same coordinates: points do not jump when a new batch arrives.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "tuning/KnobSpace.h"

namespace graphopt::tuning {

class KnobProjection {
public:
    KnobProjection() = default;
    // Principal components of `samples` uniform configurations drawn with `seed` (power iteration
    // on their covariance, deflated for the second component).
    static KnobProjection fit(const KnobSpace& space, uint64_t seed = 1, int samples = 2048);

    std::vector<double> normalized(ConfigIndex c) const;  // the knob vector in [0, 1]^knobs
    std::array<double, 2> project(ConfigIndex c) const;
    // Share of the sample's variance along each component (0..1).
    const std::array<double, 2>& explained() const { return explained_; }
    bool valid() const { return space_ != nullptr; }

private:
    const KnobSpace* space_ = nullptr;  // set by fit(); the space must outlive the projection
    std::vector<double> mean_;
    std::array<std::vector<double>, 2> axes_;
    std::array<double, 2> explained_{0, 0};
};

}  // namespace graphopt::tuning
