// Graph drawing coordinates computed by Graphviz `dot` (gvc). Pure data out: node boxes and
// edge splines in points (1/72 inch), y growing downwards, origin at the top-left of the drawing.
//
// Layout time grows with edge density far more than with node count (DESIGN.md: DenseNet-121
// takes ~90 s with default settings). `LayoutOptions::quality` picks Graphviz's limits: Auto uses
// the full-quality settings for small graphs and the fast ones (nslimit, mclimit, searchsize,
// no remincross; straight edges for very large graphs) above a size threshold.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "graph/Graph.h"

namespace graphopt {

struct LayoutPoint {
    double x = 0, y = 0;
};

struct LayoutOptions {
    enum class Direction { TopToBottom, LeftToRight };
    enum class Quality { Auto, Full, Fast, Fastest };
    Direction direction = Direction::TopToBottom;
    Quality quality = Quality::Auto;
};

struct NodeBox {
    double x = 0, y = 0;           // centre
    double width = 0, height = 0;  // points
};

struct EdgeRoute {
    int src = -1, dst = -1;             // node ids
    std::vector<LayoutPoint> points;    // cubic Bezier control points: p0, (c1, c2, p)...; or a polyline
    bool bezier = true;                 // false: points form a polyline (straight-edge layouts)
    bool hasArrow = false;
    LayoutPoint arrowTip;               // where the arrowhead points to, when hasArrow
    bool stub = false;                  // drawn as a short stub into dst, not routed from src (LayeredLayout.h)
};

struct GraphLayout {
    double width = 0, height = 0;
    std::vector<NodeBox> nodes;  // indexed by node id
    std::vector<EdgeRoute> edges;
    std::string settings;        // the Graphviz settings used, for display
    nlohmann::json toJson() const;
    static GraphLayout fromJson(const nlohmann::json& j);  // throws std::runtime_error on bad input
};

// A node's box, points (width, height): wide enough for its op and up to 28 characters of its name.
std::pair<double, double> nodeBoxSize(const Node& n);

// The effective quality for a graph of this size when options say Auto.
LayoutOptions::Quality effectiveQuality(const Graph& g, LayoutOptions::Quality requested);

// Lays out the node graph (one edge per producer/consumer pair, control edges included).
// Holds graphvizMutex() for the whole call: Graphviz is not thread-safe. Throws
// std::runtime_error if Graphviz fails.
GraphLayout layoutGraph(const Graph& g, const LayoutOptions& options);

}  // namespace graphopt
