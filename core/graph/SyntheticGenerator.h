// Seeded generator of computation-graph-like DAGs, for training and testing the placement
// engines. Tensor sizes and compute costs follow CNN-like distributions (activations of
// 16 KiB-16 MiB, FLOPs proportional to the tensors touched), so the graphs stress devices,
// links and memory the way real models do.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/Graph.h"

namespace graphopt {

enum class GraphFamily { Chain, Branchy, Layered, SeriesParallel };

const char* graphFamilyName(GraphFamily f);                 // "chain", "branchy", "layered", "series-parallel"
GraphFamily graphFamilyFromName(const std::string& name);    // throws std::invalid_argument
std::vector<GraphFamily> allGraphFamilies();

struct GeneratorOptions {
    GraphFamily family = GraphFamily::Chain;
    int nodes = 100;       // 10 .. 10,000 (the result has exactly this many nodes)
    uint64_t seed = 1;
};

// Deterministic for the options: same options, same graph (names, shapes, costs). The result is
// finalized, validated, acyclic, and has costs inferred.
Graph generateGraph(const GeneratorOptions& options);

}  // namespace graphopt
