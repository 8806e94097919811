// A model's operators run for real with libtorch on this CPU: what `graphopt profile` times and
// `graphopt execute` runs on the placed devices. A plain interface: only TorchProgram.cpp, in
// graphopt_nn, includes LibTorch.
//
// Each node of an ONNX graph becomes a libtorch call with the node's attributes (strides, pads,
// groups, axes, ...). Values come from the model where it has them (ConstantValues: initializers
// and Constant nodes, so Clip's bounds and Pad's pads are the model's, and a model exported with
// its weights computes its real output) and are random otherwise (weights exported without
// values, the graph inputs: normal(0, 1) from the seed; integer tensors without values: zeros).
//
// A node that cannot run says why (whyNotRun): an op we do not implement, an input that could not
// be computed, libtorch refusing the call, or an output whose shape differs from the model's. Its
// outputs are then random tensors of the model's shapes, so the nodes after it still run.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "graph/Graph.h"
#include "graph/Loaders.h"

namespace graphopt::exec {

class TorchProgram {
public:
    // Builds the calls and computes every tensor once, in topological order, on this thread with
    // libtorch's current intra-op thread count. The graph must outlive the program.
    TorchProgram(const Graph& g, const ConstantValues& constants, uint64_t seed);
    ~TorchProgram();
    TorchProgram(const TorchProgram&) = delete;
    TorchProgram& operator=(const TorchProgram&) = delete;

    const Graph& graph() const;
    // "" when the node ran; else why it did not (see above).
    const std::string& whyNotRun(int node) const;
    int nodesRun() const;

    // Seconds of each of `repeats` calls of one node on its computed inputs, after `warmup` calls
    // (nothing for a node that does not run).
    std::vector<double> timeNode(int node, int warmup, int repeats);

    // Seconds of every node in each of `passes` forward passes over the whole graph in topological
    // order, after `warmup` passes: per node, one sample per pass (none for a node that does not
    // run). Each op meets the caches as a real run leaves them (its weights cold, its input just
    // written), which timing one op over and over hides.
    std::vector<std::vector<double>> timeForwardPasses(int warmup, int passes);

    // A tensor's values as floats, row-major (empty for a tensor never computed).
    std::vector<float> values(int tensor) const;
    // Replaces a graph input's values (e.g. a reference input); throws std::invalid_argument when
    // the count differs from the tensor's element count. Call recompute() after.
    void setValues(int tensor, const std::vector<float>& values);
    // Computes every tensor again from the inputs and weights.
    void recompute();

    struct Impl;
    Impl& impl() { return *impl_; }  // for the executor (PlacementExecutor.h), in the same file

private:
    std::unique_ptr<Impl> impl_;
};

// libtorch's intra-op threads for the calling thread (and the default for new ones), and BLAS's.
void setTorchThreads(int threads);
int torchThreads();

}  // namespace graphopt::exec
