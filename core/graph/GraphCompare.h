// Field-by-field equality of two graphs, for tests (JSON round trips, generator determinism).
#pragma once

#include <string>

#include "graph/Graph.h"

namespace graphopt {

// True when every field of every tensor and node, the name and the metadata are equal (doubles
// bit for bit, NaN equal to NaN). Otherwise false, with the first difference in *why when given.
bool graphsEqual(const Graph& a, const Graph& b, std::string* why = nullptr);

}  // namespace graphopt
