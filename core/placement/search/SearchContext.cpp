#include "placement/search/SearchContext.h"

#include <stdexcept>

namespace graphopt {

double SearchContext::elapsedS() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

void SearchContext::report(int64_t step, int64_t evaluations, double bestCost, nlohmann::json values) const {
    if (!progress) return;
    ProgressEvent e;
    e.step = step;
    e.evaluations = evaluations;
    e.bestCost = bestCost;
    e.elapsedS = elapsedS();
    e.values = std::move(values);
    progress(e);
}

std::vector<double> keysFromPlacementOrder(int devices, const std::vector<int>& placement,
                                           const std::vector<int>& order) {
    const size_t n = placement.size();
    if (order.size() != n) throw std::invalid_argument("keysFromPlacementOrder: order must list every node");
    std::vector<double> keys(n * (devices + 1), 0.0);
    for (size_t v = 0; v < n; ++v) keys[v * (devices + 1) + placement[v]] = 1.0;
    for (size_t r = 0; r < n; ++r) keys[size_t(order[r]) * (devices + 1) + devices] = 1.0 - double(r) / double(n);
    return keys;
}

}  // namespace graphopt
