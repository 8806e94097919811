// Shape folding for ONNX models, the way constant-folding simplifiers do it.
//
// Exporters build reshape targets at run time: Shape -> Gather -> Unsqueeze -> Concat -> Reshape.
// ONNX shape inference cannot see through that chain, so every tensor after the first such
// Reshape has no shape, and neither FLOPs nor bytes can be counted. This pass gives symbolic
// input dimensions a value, runs shape inference, evaluates every small computation whose
// inputs are all known (constants, small initializers, and Shape/Size of tensors whose shape
// inference knows), replaces it by a Constant, and repeats until nothing more is learned.
//
// Only the ONNX loader uses it; it works on ONNX's own protobuf classes.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace graphopt::onnxfold {

struct InputShapeOptions {
    // Whole shapes for named graph inputs (`--input-shape NAME=D1xD2x...`).
    std::map<std::string, std::vector<int64_t>> shapes;
    // The value of every symbolic dimension whose name contains "batch" (any case); 0 = not given.
    int64_t batch = 0;
    // The value of every other symbolic or missing dimension.
    int64_t defaultDim = 1;
};

// Sets every symbolic or missing dimension of the graph's inputs (those without initializers)
// to a concrete value, and replaces the shapes named in `options.shapes`. Returns one entry per
// changed dimension, "input:dim_name=value" (or "input[2]=value" for an unnamed dimension), for
// the graph's metadata. Throws std::invalid_argument when a named input does not exist or a
// given shape's rank differs from the declared one.
std::vector<std::string> setInputShapes(onnx::ModelProto& model, const InputShapeOptions& options);

struct FoldStats {
    int rounds = 0;          // shape-inference passes run
    int foldedNodes = 0;     // nodes replaced by constants or dropped
    std::string inferenceError;  // the last shape-inference failure, if any
};

// Runs shape inference and folding to a fixpoint (at most `maxRounds` passes). Results with
// more than `maxElements` elements are not folded (they stay computations), and neither is a
// node that produces a graph output. Never throws for a well-formed protobuf: what cannot be
// evaluated stays as it was.
FoldStats foldShapeComputations(onnx::ModelProto& model, size_t maxElements = 4096, int maxRounds = 256);

}  // namespace graphopt::onnxfold
