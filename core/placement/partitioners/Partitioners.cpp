#include "placement/partitioners/Partitioners.h"

#include "placement/model/ScheduleSimulator.h"

namespace graphopt {

ParamSpec memoryHeadroomParam() {
    return ParamSpec::number("memory_headroom", 0.0, 0.0, 0.95,
                             "share of every device's memory the partitioner leaves free for what its static "
                             "estimate (resident bytes, weights, one op's working set) leaves out: activations "
                             "in flight, micro-batches");
}

std::vector<EngineDescription> partitionerDescriptions() {
    const ParamSpec headroom = memoryHeadroomParam();
    const ParamSpec keepOutputs = ParamSpec::boolean(
        "keep_outputs", true,
        "count every op's outputs as held to the end, as Baechi does for training (false: resident bytes and "
        "weights only)");
    return {
        {"dp-contiguous",
         "Max-load-optimal contiguous split over the devices: the dynamic program over the graph's ideals "
         "(Tarnawski et al., NeurIPS 2020)",
         {ParamSpec::integer("max_ideals", kDpContiguousMaxIdeals, 1, 100'000'000,
                             "stop enumerating ideals beyond this many and split one topological order instead"),
          ParamSpec::integer("max_steps", kDpContiguousMaxSteps, 1, 1'000'000'000'000'000,
                             "stop the exact program after this much work (its updates, counted the same on "
                             "every machine: 130-280 million a second on a 2-core Zen 5) and split one "
                             "topological order instead"),
          ParamSpec::number("time_limit_s", kDpContiguousTimeLimitS, 0.01, 86400,
                            "a safety net behind max_steps: stop the exact program after this long and split one "
                            "topological order instead (whether it stops then depends on the machine and its load)"),
          headroom}},
        {"pipedream",
         "PipeDream's planner: the slowest stage of a straight pipeline over one layer order, minimized by dynamic "
         "programming (Narayanan et al., SOSP 2019)",
         {ParamSpec::number("comm_factor", 0, 0, 100,
                            "a stage boundary costs this many times its activations' transfer time (0: 2 for a "
                            "training graph, activations forward and gradients back, as PipeDream counts; 1 for "
                            "inference)"),
          headroom}},
        {"m-topo",
         "Baechi's m-TOPO: topological fill, each device up to total memory / devices plus the largest op "
         "(Jeon et al., SoCC 2020)",
         {keepOutputs}},
        {"m-etf",
         "Baechi's m-ETF: earliest-task-first list scheduling that places an op only where its memory fits "
         "(Jeon et al., SoCC 2020)",
         {keepOutputs}},
        {"greedy-latency",
         "The NeurIPS 2020 latency baseline: fill the accelerators in topological order with inseparable blocks "
         "while they fit, the rest on the CPU",
         {headroom}},
    };
}

SearchOutcome finishPartition(const SearchContext& ctx, const std::vector<int>& placement, nlohmann::json info,
                              const std::vector<int>& order) {
    SearchOutcome out;
    out.keys = keysFromPlacementOrder(ctx.deviceCount(), placement, order.empty() ? ctx.graph.topologicalOrder() : order);
    auto sim = ctx.makeSimulator();
    const ScheduleCosts c = sim->evaluate(out.keys);
    out.evaluations = 1;
    out.cancelled = ctx.cancelled();
    out.info = std::move(info);
    // What the partitioner's own memory estimate said, beside what the simulator found: the run's
    // verdict (PlacementResult::feasible) is the simulator's.
    if (out.info.contains("fits")) out.info["estimate_fits"] = out.info["fits"];
    out.info["fits"] = c.feasible;
    ctx.report(1, 1, c.cost);
    return out;
}

}  // namespace graphopt
