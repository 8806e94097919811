#include "placement/model/ScheduleDetail.h"

namespace graphopt {

void ScheduleDetail::clear(int nodes, int devices) {
    ops.assign(nodes, ScheduledOp{});
    order.clear();
    transfers.clear();
    memory.assign(devices, {});
    devicePeakBytes.assign(devices, 0);
    makespan = 0;
    microBatches = 1;
}

nlohmann::json ScheduleDetail::toJson() const {
    nlohmann::json jops = nlohmann::json::array(), jtr = nlohmann::json::array(), jmem = nlohmann::json::array();
    // micro_batch only with a pipeline, so that the JSON of a plain schedule is what it was.
    for (const auto& o : ops) {
        nlohmann::json jo = {{"node", o.node}, {"device", o.device}, {"start", o.start}, {"end", o.end}};
        if (microBatches > 1) jo["micro_batch"] = o.microBatch;
        jops.push_back(std::move(jo));
    }
    for (const auto& t : transfers) {
        nlohmann::json jt = {{"tensor", t.tensor}, {"from", t.from}, {"to", t.to}, {"start", t.start}, {"end", t.end},
                             {"bytes", t.bytes}};
        if (microBatches > 1) jt["micro_batch"] = t.microBatch;
        jtr.push_back(std::move(jt));
    }
    for (const auto& curve : memory) {
        nlohmann::json c = nlohmann::json::array();
        for (const auto& p : curve) c.push_back({p.time, p.bytes});
        jmem.push_back(std::move(c));
    }
    nlohmann::json j = {{"ops", jops},    {"order", order},
                        {"transfers", jtr}, {"memory", jmem},
                        {"device_peak_bytes", devicePeakBytes}, {"makespan", makespan}};
    if (microBatches > 1) j["micro_batches"] = microBatches;
    return j;
}

}  // namespace graphopt
