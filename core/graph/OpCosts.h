// FLOP and byte estimates per operator. Convention: a multiply-add counts as two FLOPs.
#pragma once

#include <set>
#include <string>

#include "graph/Graph.h"

namespace graphopt {

// Sets Node::flops for every node from its op type, attributes and tensor shapes. Returns the
// op types it has no formula for (those nodes get 0 FLOPs; their bytes still come from shapes).
std::set<std::string> inferCosts(Graph& g);

}  // namespace graphopt
