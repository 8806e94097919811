// The full schedule a decoding produced, for the UI and for checking: per op its device, start and
// end; per transfer its link, start, end and bytes; per device the memory-over-time curve.
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

namespace graphopt {

struct ScheduledOp {
    int node = -1;
    int device = -1;
    double start = 0, end = 0;
    int microBatch = 0;  // which micro-batch this run of the node belongs to (0 without a pipeline)
};

struct ScheduledTransfer {
    int tensor = -1;  // Graph tensor id
    int from = -1, to = -1;
    double start = 0, end = 0;
    int64_t bytes = 0;
    int microBatch = 0;  // the micro-batch whose copy of the tensor moves (0 without a pipeline)
};

struct MemoryPoint {
    double time = 0;
    int64_t bytes = 0;  // live bytes on the device from `time` on (several points may share a time)
};

struct ScheduleDetail {
    // Indexed by node id, then micro-batch: ops[m * nodes + v] is node v's run for micro-batch m
    // (one run per node without a pipeline).
    std::vector<ScheduledOp> ops;
    int microBatches = 1;
    std::vector<int> order;                    // node ids in dispatch order (start time, then device); micro-batch 0's runs
    std::vector<ScheduledTransfer> transfers;  // in the order they were queued
    std::vector<std::vector<MemoryPoint>> memory;  // per device
    std::vector<int64_t> devicePeakBytes;
    double makespan = 0;

    void clear(int nodes, int devices);
    // Node ids and device indexes as numbers; callers add names (PlacementResult does).
    nlohmann::json toJson() const;
};

}  // namespace graphopt
