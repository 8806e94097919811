// Reading and writing graphs. Every loader returns a finalized, validated Graph with costs
// inferred, or throws GraphError whose message starts with the file's path:
//   "models/x.onnx: truncated or not an ONNX model (protobuf parse failed)".
// Nothing half-built escapes.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "graph/Graph.h"

namespace graphopt {

enum class GraphFormat { Auto, Onnx, CostGraphText, Dot, Json, NeuripsWorkload, PipeDreamProfile };

// Picks the loader from the extension (.onnx, .pbtxt/.txt, .dot/.gv, .json), and from the
// content when the extension says nothing. Two extensions are shared, so the content decides
// there too: a .json file whose top-level object has "maxSizePerFPGA" and "nodes" (and no
// "format") is a NeurIPS 2020 workload, a .txt file whose first line has " -- " and
// "forward_compute_time=" is a PipeDream profile.
Graph loadGraph(const std::string& path, GraphFormat format = GraphFormat::Auto);

// How to fix the sizes of a model's inputs (ONNX only; other formats carry no input shapes).
// A graph input with a symbolic or missing dimension gets: its whole shape from `inputShapes`
// when named there; otherwise `batch` for a dimension whose name contains "batch" when batch > 0;
// otherwise 1. Shapes are then re-inferred and shape computations folded (graph/OnnxFolding.h).
// `training` (PipeDream profiles only): a node costs its forward plus backward time and keeps its
// activation stashed for the backward pass (docs/formats.md, "PipeDream profiles").
struct LoadOptions {
    std::map<std::string, std::vector<int64_t>> inputShapes;
    int64_t batch = 0;
    bool training = false;
    bool empty() const { return inputShapes.empty() && batch <= 0; }  // the ONNX options
};
Graph loadGraph(const std::string& path, const LoadOptions& options, GraphFormat format = GraphFormat::Auto);

Graph loadOnnx(const std::string& path, const LoadOptions& options = {});
// The value of a constant tensor of a model: its element type, shape and elements (as doubles,
// row-major).
struct ConstantValue {
    DType dtype = DType::Float32;
    std::vector<int64_t> shape;
    std::vector<double> values;
};
using ConstantValues = std::map<std::string, ConstantValue>;
// loadOnnx, and with `values` given, the values of the model's constants by tensor name: every
// initializer whose data is in the file and every Constant node, after shape folding (so the
// folded shape computations' results are there too). Executing a model needs them (Clip's bounds,
// Pad's pads, a model's weights when it has them); describing its work does not.
Graph loadOnnx(const std::string& path, const LoadOptions& options, ConstantValues* values);
Graph loadCostGraphText(const std::string& path);  // TensorFlow CostGraphDef, protobuf text format
Graph loadDot(const std::string& path);            // Graphviz DOT, via cgraph
Graph loadJson(const std::string& path);           // native JSON (docs/formats.md)
// The public partitioning workloads (docs/formats.md, "Partitioning workloads"): a NeurIPS 2020
// device placement problem (JSON; brings its devices in metadata["device_setup"]) and a PipeDream
// per-layer profile (graph.txt; brings no devices).
Graph loadNeuripsWorkload(const std::string& path);
Graph loadPipeDreamProfile(const std::string& path, bool training = false);
void saveJson(const Graph& g, const std::string& path);

// Reads a whole file, refusing directories, unreadable files and files over `maxBytes`.
std::string readFileForLoader(const std::string& path, size_t maxBytes = size_t(1) << 31);
// readFileForLoader, parsed as JSON; std::invalid_argument "PATH: not JSON (...)" when it is not.
nlohmann::json readJsonFileForLoader(const std::string& path, size_t maxBytes = size_t(1) << 28);

// The error every loader throws: "PATH: REASON".
[[noreturn]] void throwLoadError(const std::string& path, const std::string& reason);

// The common end of every loader: finalize(), validate() and inferCosts(); a validation error is
// rethrown prefixed with the path. Records the op types without a FLOP formula in
// g.metadata["ops_without_flops"] (comma-separated).
void finalizeLoadedGraph(Graph& g, const std::string& path);

}  // namespace graphopt
