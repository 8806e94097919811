// A fast layered ("Sugiyama") layout of our own, for the first picture of a graph while Graphviz
// `dot` works, and for graphs too big for dot to finish in reasonable time (GraphView shows it at
// once; dot's layout replaces it when ready, unless the user keeps the fast one).
//
// The phases, each linear or near-linear in nodes plus edge spans:
//   1. cycles broken by reversing DFS back edges (a graph of folded scopes can have cycles; a
//      model's node graph has none, so every edge of it points downward);
//   2. layering by longest path from the sources, with sources pulled down next to their first
//      consumer (constants and weight copies would otherwise crowd the top row);
//   3. a dummy node per rank an edge crosses, so long edges bend around boxes;
//   4. ordering inside each rank by barycenter sweeps (down, then up), keeping the order with the
//      fewest crossings (counted exactly, O(E log V) per pair of ranks);
//   5. x positions by alternating sweeps that pull each box towards the mean of its neighbours,
//      projected back to non-overlapping positions in rank order (isotonic regression, exact
//      least squares under the separation constraints);
//   6. ranks stacked by their tallest box; edges as polylines through their dummies.
// Not network simplex: the layering is not the one that minimises total edge length, and the
// positions are not dot's; the picture is for reading structure, and comes in milliseconds.
#pragma once

#include <functional>
#include <utility>
#include <vector>

#include "graph/GraphLayout.h"

namespace graphopt {

// An abstract DAG to lay out: node box sizes in points and directed edges (src, dst). Parallel
// edges and self loops are allowed (self loops are not drawn).
struct LayeredInput {
    std::vector<std::pair<double, double>> sizes;  // (width, height) per node, points
    std::vector<std::pair<int, int>> edges;
};

struct LayeredOptions {
    LayoutOptions::Direction direction = LayoutOptions::Direction::TopToBottom;
    int orderingSweeps = 8;     // barycenter passes (one down, one up = 2)
    int positionSweeps = 8;     // x-position passes
    double nodeSep = 18;        // points between boxes in a rank (dot: nodesep 0.25 in)
    double rankSep = 29;        // points between ranks (dot: ranksep 0.4 in)
    // An edge from a node feeding at least this many others, spanning at least `stubSpan` ranks,
    // is drawn as a short stub into its consumer instead of a route (0: never). A shared value read
    // by every layer (a decoder's rotary tables, an attention mask) would otherwise hang a curtain
    // of parallel lines down the whole drawing; its tooltip still names the producer.
    int stubFanOut = 8;
    int stubSpan = 4;
    // At most this many bends; past it the longest edges become stubs too, so time and memory stay
    // bounded whatever the graph (the bundled models need at most a few thousand).
    long maxBends = 200000;
};

// The layout, or an empty one (no nodes) if `cancelled` returned true between phases. Edge routes
// are polylines (bezier = false) from the source box's bottom to the destination box's top, in
// the input's edge order with self loops left out; a stubbed edge (EdgeRoute::stub) is a short
// segment ending at its destination's top.
GraphLayout layeredLayout(const LayeredInput& input, const LayeredOptions& options = {},
                          const std::function<bool()>& cancelled = {});

// Which input edges the layout draws as stubs (EdgeRoute::stub); dot gets the same edges left out.
std::vector<char> stubbedEdges(const LayeredInput& input, const LayeredOptions& options = {});

// The graph's node graph (one edge per producer/consumer pair, in node order) with dot's box sizes.
LayeredInput nodeGraphInput(const Graph& g);

// The graph's node graph laid out (nodeGraphInput).
GraphLayout layoutGraphFast(const Graph& g, const LayoutOptions& options = {},
                            const std::function<bool()>& cancelled = {});

}  // namespace graphopt
