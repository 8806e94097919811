#include "placement/regal/RegalDataset.h"

#include <cmath>
#include <iomanip>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "placement/PlacementEngines.h"
#include "placement/model/ScheduleProblem.h"
#include "placement/model/ScheduleSimulator.h"

namespace graphopt::regal {

nlohmann::json RoomRule::toJson() const {
    return {{"low_budget", lowBudget}, {"high_budget", highBudget}, {"min_gain", minGain}};
}

nlohmann::json RoomVerdict::toJson() const {
    return {{"keep", keep},
            {"reason", reason},
            {"low_cost", lowCost},
            {"high_cost", highCost},
            {"low_feasible", lowFeasible},
            {"high_feasible", highFeasible},
            {"gain", gain}};
}

namespace {

// BRKGA's best at `budget`: its cost and whether it fits.
ScheduleCosts bestAt(const PolicyGraph& g, int64_t budget, uint64_t seed, int threads) {
    const SearchOutcome out = brkgaEngine(contextFor(g, budget, seed, threads, nlohmann::json::object()));
    ScheduleSimulator sim(g.problem);
    return sim.simulate(out.keys, nullptr);
}

std::string percent(double x) {
    std::ostringstream os;
    os << std::fixed << std::setprecision(1) << 100 * x << " %";
    return os.str();
}

}  // namespace

RoomVerdict roomForImprovement(const PolicyGraph& g, const RoomRule& rule, uint64_t seed,
                               int threads) {
    if (rule.lowBudget < 1 || rule.highBudget <= rule.lowBudget || !(rule.minGain >= 0 && rule.minGain < 1))
        throw std::invalid_argument("room rule: need 1 <= low budget < high budget and 0 <= min gain < 1");
    const ScheduleCosts low = bestAt(g, rule.lowBudget, seed, threads);
    const ScheduleCosts high = bestAt(g, rule.highBudget, seed, threads);
    RoomVerdict v;
    v.lowCost = low.cost;
    v.highCost = high.cost;
    v.lowFeasible = low.feasible;
    v.highFeasible = high.feasible;
    if (!high.feasible) {
        v.reason = low.feasible ? "no room: the high limit's best does not fit (the low one's does)"
                                : "no room: neither limit fits the devices";
    } else if (!low.feasible) {
        v.keep = true;
        v.reason = "fits only with the high limit";
    } else {
        v.gain = low.cost > 0 ? (low.cost - high.cost) / low.cost : 0;
        v.keep = v.gain >= rule.minGain;
        v.reason = v.keep ? "high limit " + percent(v.gain) + " better"
                          : "no room: the high limit is only " + percent(v.gain) + " better";
    }
    return v;
}

int64_t singleDevicePeakBytes(const Graph& g, const DeviceModel& devices) {
    if (devices.deviceCount() < 1) throw std::invalid_argument("single-device peak: no devices");
    DeviceModel one = devices;
    for (auto& d : one.devices) d.memoryBytes = int64_t(1) << 60;  // nothing overflows while measuring
    ScheduleOptions so;
    so.objective = PlacementObjective::Memory;
    auto problem = std::make_shared<const ScheduleProblem>(g, one, so);
    ScheduleSimulator sim(problem);
    const std::vector<int> placement(static_cast<size_t>(problem->n), 0);
    const std::vector<int> order = g.topologicalOrder();
    return sim.evaluatePlacement(placement, order).peakBytes;
}

DeviceModel withMemoryShare(DeviceModel devices, int64_t needBytes, double share) {
    if (!(share > 0 && share <= 1)) throw std::invalid_argument("memory share must be in (0, 1]");
    if (needBytes <= 0) throw std::invalid_argument("memory share: the graph's need must be > 0 bytes");
    const auto bytes = static_cast<int64_t>(std::llround(static_cast<double>(needBytes) * share));
    for (auto& d : devices.devices) d.memoryBytes = std::max<int64_t>(1, bytes);
    std::ostringstream name;
    name << devices.name << kMemoryShareSuffix << std::fixed << std::setprecision(0) << 100 * share << " % of the graph's";
    devices.name = name.str();
    return devices;
}

}  // namespace graphopt::regal
