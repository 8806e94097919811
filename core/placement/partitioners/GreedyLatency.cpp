// Engine "greedy-latency": the latency baseline of Tarnawski et al. (NeurIPS 2020, their greedy
// fill): the units (inseparable blocks: colocated nodes, a layer's forward and backward nodes;
// PartitionModel.h) in topological order fill the first accelerator while they fit its memory,
// then the next, and so on; what is left when the accelerators are full, and every unit no
// accelerator left may run, goes to the CPU (a unit one accelerator may not run skips it without
// closing it). Accelerators are the devices whose kind is not "cpu", in
// the device model's order; the CPU is the first device of kind "cpu". Without a CPU, what does
// not fit stays on the last accelerator and the result says so (info.fits false).
#include "placement/partitioners/PartitionModel.h"
#include "placement/partitioners/Partitioners.h"

namespace graphopt {

SearchOutcome greedyLatencyEngine(const SearchContext& ctx) {
    const ScheduleProblem& p = *ctx.problem;
    const double headroom = ctx.params.value("memory_headroom", 0.0);
    const PartitionUnits units = buildPartitionUnits(p, ctx.graph);
    const auto classes = deviceClasses(p);
    std::vector<int> classOf(p.d, 0);
    for (size_t c = 0; c < classes.size(); ++c)
        for (int k : classes[c].devices) classOf[k] = int(c);
    std::vector<int> accelerators;
    int cpu = -1;
    for (int k = 0; k < p.d; ++k) {
        if (ctx.devices.devices[k].kind != "cpu")
            accelerators.push_back(k);
        else if (cpu < 0)
            cpu = k;
    }
    std::vector<BlockLoads> fill;
    for (int k = 0; k < p.d; ++k) fill.emplace_back(p, units, classes, headroom);

    std::vector<int> unitDevice(units.count, 0);
    size_t current = 0;
    bool fits = true;
    for (int x : units.order) {
        int placed = -1;
        for (size_t i = current; i < accelerators.size() && placed < 0; ++i) {
            const int k = accelerators[i];
            BlockLoads& f = fill[k];
            f.add(x);
            if (f.allowed(classOf[k]) && f.fits(classOf[k])) {
                placed = k;
                current = i;
            } else {
                f.remove();
            }
        }
        if (placed < 0 && cpu >= 0) {
            placed = cpu;
            fill[cpu].add(x);
            if (!fill[cpu].allowed(classOf[cpu]) || !fill[cpu].fits(classOf[cpu])) fits = false;
        }
        if (placed < 0) {
            placed = accelerators.empty() ? 0 : accelerators.back();
            fill[placed].add(x);
            fits = false;
        }
        unitDevice[x] = placed;
    }
    nlohmann::json info = {{"fits", fits}, {"units", units.count}, {"accelerators_used", accelerators.empty() ? 0 : int(current) + 1}};
    return finishPartition(ctx, placementFromUnits(units, unitDevice, p.n), std::move(info));
}

}  // namespace graphopt
