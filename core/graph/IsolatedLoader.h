// Reading a model file in a child process, for commands that read many in one run (eval-policy,
// train-policy's train split). libonnx is not ours and not instrumented: fuzzing has twice seen its
// shape inference crash after tens of thousands of models read in one process (fuzz/README.md,
// "The SEGV after many inputs"). Read in a child, such a crash, or a reader that hangs, costs that
// one file (a GraphError naming it and why), not the whole run, and no libonnx state outlives it.
#pragma once

#include <string>

#include "graph/Graph.h"
#include "graph/Loaders.h"

namespace graphopt {

// Whether a file goes through libonnx (by loadGraph's choice of reader: an .onnx file, or a file
// whose extension names no other format): only those are read in a child.
bool readsWithLibonnx(const std::string& path);

// loadGraph(path, options), in a forked child that hands the graph back as native JSON (a
// lossless round trip: the same graph, field for field), for a file readsWithLibonnx() accepts;
// any other file is read in this process. Throws GraphError "PATH: reason": the reader's own
// error, "the ONNX reader crashed (signal N)" or "the ONNX reader did not finish within S s" (the
// child is killed).
Graph loadGraphIsolated(const std::string& path, const LoadOptions& options, int timeoutS = 300);

}  // namespace graphopt
