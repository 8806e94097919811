// The searches over the chromosome that are engines of their own (the registry in
// placement/PlacementEngines.h names them); BRKGA's engine is built there on BrkgaSearch.h.
#pragma once

#include "placement/search/SearchContext.h"

namespace graphopt {

SearchOutcome randomSearchEngine(const SearchContext& ctx);  // RandomSearch.cpp
SearchOutcome localSearchEngine(const SearchContext& ctx);   // LocalSearch.cpp
SearchOutcome exhaustiveEngine(const SearchContext& ctx);    // ExhaustiveSearch.cpp

}  // namespace graphopt
