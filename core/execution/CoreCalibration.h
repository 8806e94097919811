// The `cpu-cores` device setup of this machine (`graphopt calibrate`): N devices of one core each,
// kind "cpu", with the link between two cores measured once.
//
// The link is what a copy between two workers costs (PlacementExecutor.h: the receiving core
// copies the tensor the other produced): its latency is the time from a flag set on one core to a
// copy of a few bytes finished on the other, whose thread was asleep on a condition variable as a
// waiting worker is (half the median round trip of 400 hand-offs), its bandwidth the rate
// of copying a buffer another core just wrote, large enough (32 MiB) to leave the caches.
#pragma once

#include <cstdint>

#include "placement/model/DeviceModel.h"

namespace graphopt::exec {

struct CoreLinkMeasurement {
    double latencyS = 0;
    double bandwidth = 0;        // bytes/s, core to core
    double localBandwidth = 0;   // bytes/s, a copy within one core (the roofline's memory bandwidth)
};

// Between cores `a` and `b` (pinned threads); on a one-core machine both run on that core.
CoreLinkMeasurement measureCoreLink(int a, int b);

// The setup: `cores` devices core0..coreN-1 (kind "cpu", pays_transfers), each with the given
// sustained FLOP rate of one core, per-op overhead, memory `memoryBytesPerCore`, and the link.
DeviceModel cpuCoresModel(int cores, double flopsPerCore, double overheadS, int64_t memoryBytesPerCore,
                          const CoreLinkMeasurement& link);

}  // namespace graphopt::exec
