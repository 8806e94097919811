// What a loaded graph does not know: tensors without a shape and operations without a FLOP
// formula. Their bytes and FLOPs count as 0, so totals are too low; graphopt info and the GUI's
// model summary say how many instead of a silent zero.
#pragma once

#include <string>
#include <vector>

#include "graph/Graph.h"

namespace graphopt {

struct GraphCompleteness {
    int tensors = 0;                       // activations and graph inputs (weights always have shapes)
    int tensorsWithoutShape = 0;
    int nodesWithoutFlops = 0;             // nodes whose op has no FLOP formula
    std::vector<std::string> opsWithoutFlops;  // those op types
    // DOT, CostGraphDef text and the partitioning workloads (NeurIPS 2020, PipeDream: given times
    // and sizes) carry no shapes at all: their unknown shapes are the format's, not a loader's gap,
    // and are not worth a warning.
    bool formatHasShapes = true;
    // One line for users when something is unknown in a format that has shapes, else empty.
    std::string warning() const;
};

GraphCompleteness graphCompleteness(const Graph& g);

}  // namespace graphopt
