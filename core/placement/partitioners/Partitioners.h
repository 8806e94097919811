// The partitioners: placement engines that build one placement from the graph's structure and
// the devices' memory, the strongest published baselines for splitting a model over devices.
// Each file says what its algorithm does and where it departs from its paper:
//   dp-contiguous   DpContiguous.cpp    the max-load-optimal contiguous split (NeurIPS 2020)
//   pipedream       PipeDreamPlanner.cpp PipeDream's planner over one layer order (SOSP 2019)
//   m-topo, m-etf   BaechiPlacers.cpp   Baechi's memory-constrained placers (SoCC 2020)
//   greedy-latency  GreedyLatency.cpp   the NeurIPS paper's latency baseline (fill in order)
// They share PartitionModel.h (units, device classes, block loads) and ChainDp.h (the DP).
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "placement/search/SearchContext.h"
#include "run/ParamSpec.h"

namespace graphopt {

SearchOutcome dpContiguousEngine(const SearchContext& ctx);
// dp-contiguous's defaults, for the engine and its description alike. max_steps is 9-18 s of the
// exact program on the 2-core Zen 5 VM the project is built on (DpContiguous.cpp says why a count
// of steps); time_limit_s only catches a machine many times slower.
inline constexpr int64_t kDpContiguousMaxIdeals = 100'000;
inline constexpr int64_t kDpContiguousMaxSteps = 2'500'000'000;
inline constexpr double kDpContiguousTimeLimitS = 600;
SearchOutcome pipeDreamEngine(const SearchContext& ctx);
SearchOutcome mTopoEngine(const SearchContext& ctx);
SearchOutcome mEtfEngine(const SearchContext& ctx);
SearchOutcome greedyLatencyEngine(const SearchContext& ctx);

// Their descriptions (name, summary, parameters), for the registry.
std::vector<EngineDescription> partitionerDescriptions();

// The memory headroom parameter the partitioners share.
ParamSpec memoryHeadroomParam();

// What every partitioner ends with: the keys of `placement` with `order` as priorities (empty:
// the nodes' topological order), decoded once by the simulator and reported as the run's one step.
SearchOutcome finishPartition(const SearchContext& ctx, const std::vector<int>& placement, nlohmann::json info,
                              const std::vector<int>& order = {});

}  // namespace graphopt
