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
// The sequence families have the shapes and widths of the large models (BERT-large to Llama-7B:
// token embeddings, D of 768-4096, sequences of 128-2048, an LM head): Transformer: a stack of
// pre-LN layers (attention, 4D-wide FFN). EncoderDecoder: an encoder stack whose output every
// decoder layer's cross-attention reads (a tensor live through the whole decoder). MixtureOfExperts
// ("moe"): dense and MoE layers in turn, each MoE layer a router and 4 or 8 expert FFNs side by side
// on the tokens routed to them (top-2), joined again.
enum class GraphFamily { Chain, Branchy, Layered, SeriesParallel, Wide, Skip, Attention, Transformer, EncoderDecoder,
                         MixtureOfExperts };

// "chain", "branchy", "layered", "series-parallel", "wide", "skip", "attention", "transformer",
// "encoder-decoder", "moe"
const char* graphFamilyName(GraphFamily f);
GraphFamily graphFamilyFromName(const std::string& name);    // throws std::invalid_argument
// The four families REGAL's policies are trained on (and the defaults of training sets).
std::vector<GraphFamily> allGraphFamilies();
// Families no shipped policy was trained on: the held-out shapes of the evaluation.
std::vector<GraphFamily> heldOutGraphFamilies();
// The families of the large models' shapes (transformer, encoder-decoder, moe): in no default
// training set (the shipped policies were trained without them); data sets name them.
std::vector<GraphFamily> sequenceGraphFamilies();
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
