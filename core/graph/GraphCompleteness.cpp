#include "graph/GraphCompleteness.h"

#include <set>
#include <sstream>

namespace graphopt {

GraphCompleteness graphCompleteness(const Graph& g) {
    GraphCompleteness c;
    for (const auto& t : g.tensors()) {
        if (t.kind == TensorKind::Weight) continue;
        ++c.tensors;
        c.tensorsWithoutShape += !t.shapeKnown;
    }
    std::set<std::string> unknown;
    if (auto it = g.metadata.find("ops_without_flops"); it != g.metadata.end()) {
        std::stringstream ss(it->second);
        for (std::string op; std::getline(ss, op, ',');)
            if (!op.empty() && unknown.insert(op).second) c.opsWithoutFlops.push_back(op);
    }
    for (const auto& n : g.nodes()) c.nodesWithoutFlops += unknown.count(n.op) != 0;
    if (auto it = g.metadata.find("source_format"); it != g.metadata.end())
        // The partitioning workloads give times and sizes, not shapes: nothing is missing there.
        c.formatHasShapes = it->second != "dot" && it->second != "costgraph-text" && it->second != "neurips2020" &&
                            it->second != "pipedream-profile";
    return c;
}

std::string GraphCompleteness::warning() const {
    if (!formatHasShapes || (tensorsWithoutShape == 0 && nodesWithoutFlops == 0)) return {};
    std::ostringstream os;
    os << "warning: ";
    if (tensorsWithoutShape) os << tensorsWithoutShape << " of " << tensors << " tensors have no shape";
    if (tensorsWithoutShape && nodesWithoutFlops) os << " and ";
    if (nodesWithoutFlops) os << nodesWithoutFlops << " operations have no FLOP formula";
    os << ": their bytes and FLOPs count as 0, so the totals are too low";
    return os.str();
}

}  // namespace graphopt
