// The store's record of a graph: a content hash that identifies the same graph whatever the file
// is called or wherever it was loaded from, so runs on one model can be compared.
#pragma once

#include <string>

#include "graph/Graph.h"
#include "store/StoreRecords.h"

namespace graphopt {

// 32 hex digits hashing the node names, ops, FLOPs, compute costs, temporaries and the tensors
// (names, kinds, bytes, producers, consumers) in id order: the things every engine reads.
std::string graphContentHash(const Graph& graph);

// A GraphRecord (id 0) for the store: name (graph name, else the file's stem), source path,
// node and edge counts, content hash.
GraphRecord describeGraph(const Graph& graph, const std::string& sourcePath);

}  // namespace graphopt
