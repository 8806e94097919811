// Reads a model file for the window without letting a damaged file take the window down: the
// file is parsed in a child process (`graphopt convert MODEL OUT.json`) and the window reads only
// the native JSON that process writes. A reader that crashes (a bug in ONNX's protobuf code, in
// Graphviz, or ours) or hangs costs that child, not the window: the window shows the error and
// keeps the model it had.
#pragma once

#include <QString>

#include <atomic>
#include <memory>

#include "graph/Graph.h"

namespace graphopt::ui {

struct ModelLoadOptions {
    // The `graphopt` executable; when it is not executable the file is read in this process.
    QString cliPath;
    // The child is stopped after this long (a reader that hangs); the error says so.
    int timeoutMs = 120000;
    // The batch size for an ONNX model's symbolic batch dimension (graphopt convert --batch);
    // 0 = the file's own (1 for a symbolic one). Ignored for the other formats.
    int batch = 0;
};

// Throws std::runtime_error "PATH: reason" when the file cannot be read, the reader crashed or
// did not finish in time. When `cancelled` becomes true the child is killed and an empty graph
// pointer is returned.
std::shared_ptr<const Graph> loadModelIsolated(const QString& path, const ModelLoadOptions& options,
                                               const std::atomic<bool>& cancelled);

}  // namespace graphopt::ui
