#include "placement/model/ScheduleDetail.h"

namespace graphopt {

void ScheduleDetail::clear(int nodes, int devices) {
    ops.assign(nodes, ScheduledOp{});
    order.clear();
    transfers.clear();
    memory.assign(devices, {});
    devicePeakBytes.assign(devices, 0);
    makespan = 0;
}

nlohmann::json ScheduleDetail::toJson() const {
    nlohmann::json jops = nlohmann::json::array(), jtr = nlohmann::json::array(), jmem = nlohmann::json::array();
    for (const auto& o : ops) jops.push_back({{"node", o.node}, {"device", o.device}, {"start", o.start}, {"end", o.end}});
    for (const auto& t : transfers)
        jtr.push_back({{"tensor", t.tensor}, {"from", t.from}, {"to", t.to}, {"start", t.start}, {"end", t.end},
                       {"bytes", t.bytes}});
    for (const auto& curve : memory) {
        nlohmann::json c = nlohmann::json::array();
        for (const auto& p : curve) c.push_back({p.time, p.bytes});
        jmem.push_back(std::move(c));
    }
    return {{"ops", jops},       {"order", order},           {"transfers", jtr},
            {"memory", jmem},    {"device_peak_bytes", devicePeakBytes}, {"makespan", makespan}};
}

}  // namespace graphopt
