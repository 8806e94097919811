// Best-so-far curves of several runs on one shared x axis (evaluations or measurements), the way
// a comparison chart overlays them: at each x, a run's best cost over its events with at most x
// evaluations; empty before its first event and after its last (it did not get that far).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "run/Run.h"

namespace graphopt {

class RunStore;

struct AlignedCurves {
    std::vector<int64_t> runIds;
    std::vector<int64_t> evaluations;                        // the shared x axis, increasing
    std::vector<std::vector<std::optional<double>>> best;    // best[run][x index]

    nlohmann::json toJson() const;  // {"evaluations": [...], "runs": [{"id": 1, "best": [...]}]}
};

// x = every evaluation count any run reported; with maxPoints > 0 and more x than that, an even
// grid of maxPoints values from the smallest to the largest instead.
AlignedCurves alignBestSoFar(const std::vector<std::pair<int64_t, std::vector<ProgressEvent>>>& runs,
                             size_t maxPoints = 0);
AlignedCurves alignBestSoFar(RunStore& store, const std::vector<int64_t>& runIds, size_t maxPoints = 0);

}  // namespace graphopt
