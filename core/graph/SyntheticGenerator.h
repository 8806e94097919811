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

// Chain: ResNet-like residual blocks. Branchy: Inception-like blocks of 2-4 branches. Layered:
// random layered DAGs. SeriesParallel: recursive series/parallel compositions.
// Wide: blocks of 6-12 parallel conv branches joined by a Concat (wide parallel work to spread).
// Skip: U-Net-like stages whose encoder outputs are added back at the mirrored decoder step (long
// skip connections that keep activations alive). Attention: self-attention blocks over the
// spatial positions (Q, K, V projections, an HW x HW score matrix, Softmax, a residual MLP).
enum class GraphFamily { Chain, Branchy, Layered, SeriesParallel, Wide, Skip, Attention };

const char* graphFamilyName(GraphFamily f);  // "chain", "branchy", "layered", "series-parallel", "wide", "skip", "attention"
GraphFamily graphFamilyFromName(const std::string& name);    // throws std::invalid_argument
// The four families REGAL's policies are trained on (and the defaults of training sets).
std::vector<GraphFamily> allGraphFamilies();
// Families no shipped policy was trained on: the held-out shapes of the evaluation.
std::vector<GraphFamily> heldOutGraphFamilies();
// Every family the generator knows.
std::vector<GraphFamily> everyGraphFamily();

struct GeneratorOptions {
    GraphFamily family = GraphFamily::Chain;
    int nodes = 100;       // 10 .. 10,000 (the result has exactly this many nodes)
    uint64_t seed = 1;
};

// Deterministic for the options: same options, same graph (names, shapes, costs). The result is
// finalized, validated, acyclic, and has costs inferred.
Graph generateGraph(const GeneratorOptions& options);

}  // namespace graphopt
