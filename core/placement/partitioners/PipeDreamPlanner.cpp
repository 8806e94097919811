// Engine "pipedream": PipeDream's planner (Narayanan et al., "PipeDream: Generalized Pipeline
// Parallelism for DNN Training", SOSP 2019), straight pipelines only (no stage replication). The
// layers (units, PartitionModel.h) are taken in one topological order, and the dynamic program
//
//   A(j, m) = min over i < j of max(A(i, m - 1), f * C(i), T(i+1 .. j))
//
// splits that order into at most as many stages as there are devices, minimizing the slowest
// stage. T is a stage's compute on its device (forward plus backward for a training graph), C(i)
// the transfer time of every tensor that crosses the cut after layer i, and f = 2 for training
// (activations forward, gradients back) or 1 for inference. Communication is a pipeline stage of
// its own, overlapped with compute, as PipeDream counts it; it does not add to a device's load as
// in the max-load (dp-contiguous). A stage must fit its device's memory (its layers' resident
// bytes and weights, as PipeDream's stage memory for one micro-batch in flight).
//
// Departures: PipeDream assumes identical workers; here a stage's device class is part of the
// program (ChainDp.h), so a CPU beside accelerators is one more kind of stage. Its profiles are a
// chain of layers; a DAG is taken in the units' topological order (lowest node first), where a
// tensor that skips over a stage crosses every cut on its way, once per cut.
#include "placement/partitioners/ChainDp.h"
#include "placement/partitioners/Partitioners.h"

namespace graphopt {

SearchOutcome pipeDreamEngine(const SearchContext& ctx) {
    const ScheduleProblem& p = *ctx.problem;
    const Graph& g = ctx.graph;
    double factor = ctx.params.value("comm_factor", 0.0);
    bool training = false;
    for (const auto& n : g.nodes()) training = training || n.isBackward;
    if (auto it = g.metadata.find("pipedream.mode"); it != g.metadata.end()) training = training || it->second == "training";
    if (factor == 0) factor = training ? 2.0 : 1.0;
    const double headroom = ctx.params.value("memory_headroom", 0.0);

    const PartitionUnits units = buildPartitionUnits(p, g);
    const IdealLattice lattice = prefixLattice(units, units.order);
    // C(J) for every prefix J, on every class.
    BlockLoads prefix(p, units, deviceClasses(p), headroom);
    const int C = prefix.classCount();
    std::vector<double> cut(size_t(lattice.size()) * C, 0.0);
    for (int j = 1; j < lattice.size(); ++j) {
        prefix.add(units.order[j - 1]);
        for (int c = 0; c < C; ++c) cut[size_t(j) * C + c] = prefix.outgoingS(c);
    }
    const BlockCost stage = [&](const BlockLoads& l, int J, double* out) {
        for (int c = 0; c < C; ++c)
            out[c] = l.allowed(c) && l.fits(c) ? std::max(l.computeS(c), factor * cut[size_t(J) * C + c])
                                               : BlockLoads::kInfeasible;
    };
    const std::function<bool()> cancelled = [&] { return ctx.cancelled(); };
    BlockLoads loads(p, units, deviceClasses(p), headroom);
    ChainSplit split = chainDp(lattice, loads, stage, 0, std::chrono::steady_clock::time_point::max(), cancelled);
    nlohmann::json info = {{"units", units.count}, {"comm_factor", factor}, {"training", training}};
    if (split.complete && split.value == BlockLoads::kInfeasible) {
        info["fits"] = false;
        info["note"] = "no split of the layer order fits the devices' memory: this one ignores memory";
        BlockLoads anyMemory(p, units, deviceClasses(p), 0.0, /*ignoreMemory=*/true);
        split = chainDp(lattice, anyMemory, stage, 0, std::chrono::steady_clock::time_point::max(), cancelled);
    }
    if (split.value != BlockLoads::kInfeasible) info["pipedream_slowest_stage_s"] = split.value;
    info["stages"] = split.blocks;
    std::vector<int> unitDevice = split.unitDevice;
    if (unitDevice.empty()) unitDevice.assign(units.count, 0);
    return finishPartition(ctx, placementFromUnits(units, unitDevice, p.n), std::move(info));
}

}  // namespace graphopt
