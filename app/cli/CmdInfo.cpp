// graphopt info FILE [--json]
#include <algorithm>
#include <iomanip>
#include <sstream>
#include <iostream>
#include <map>

#include <nlohmann/json.hpp>

#include "Args.h"
#include "Commands.h"
#include "ModelOptions.h"
#include "TextFormat.h"
#include "graph/GraphCompleteness.h"
#include "graph/Loaders.h"

namespace graphopt::cli {

namespace {
// 6.739 G, 11.69 M, 272: how many parameters, in the units people quote them in.
std::string countText(double n) {
    std::ostringstream s;
    s << std::setprecision(4);
    if (n >= 1e9) s << n / 1e9 << " G";
    else if (n >= 1e6) s << n / 1e6 << " M";
    else s << static_cast<int64_t>(n);
    return s.str();
}
}  // namespace

CommandSpec infoCommand() {
    CommandSpec spec{"info",
                     "FILE",
                     "Nodes, edges, FLOPs (a multiply-add counts 2), bytes and the op histogram of a model",
                     {{"json", "", "", "print JSON instead of text"}},
                     {"graphopt info resources/models/resnet18.onnx --json",
                      "graphopt info resources/models/transformer_encoder.onnx --input-shape input=64x8x256"}};
    for (auto& o : modelShapeOptions()) spec.options.push_back(o);
    return spec;
}

int cmdInfo(const ArgList& argv) {
    const CommandSpec spec = infoCommand();
    Args args(argv, spec);
    const std::string path = args.onePositional("FILE");
    const Graph g = loadGraph(path, loadOptionsFrom(args));

    std::map<std::string, int> ops;
    for (const auto& n : g.nodes()) ops[n.op]++;
    int64_t inputs = 0, outputs = 0, weights = 0;
    // Parameters: elements of floating-point weight tensors, as a framework counts them. Integer
    // constants (reshape targets, split sizes, indices) and scalars (the scale, epsilon or -inf
    // constants an exporter writes per layer) are not parameters.
    double parameters = 0;
    for (const auto& t : g.tensors()) {
        inputs += t.kind == TensorKind::GraphInput;
        weights += t.kind == TensorKind::Weight;
        outputs += t.isGraphOutput;
        const bool floating = t.dtype == DType::Float32 || t.dtype == DType::Float16 || t.dtype == DType::BFloat16 ||
                              t.dtype == DType::Float64;
        if (t.kind == TensorKind::Weight && floating && t.shapeKnown && !t.shape.empty()) {
            double n = 1;
            for (int64_t d : t.shape) n *= static_cast<double>(d);
            parameters += n;
        }
    }
    auto external = g.metadata.find("onnx.external_weights");
    const GraphCompleteness known = graphCompleteness(g);

    if (args.has("json")) {
        nlohmann::json j;
        j["file"] = path;
        j["name"] = g.name;
        j["nodes"] = g.nodeCount();
        j["edges"] = g.edges().size();
        j["flops"] = g.totalFlops();
        j["flops_convention"] = "a multiply-add counts as 2 FLOPs";
        j["activation_bytes"] = g.activationBytes();
        j["weight_bytes"] = g.weightBytes();
        j["parameters"] = static_cast<int64_t>(parameters);
        if (external != g.metadata.end()) j["external_weight_tensors"] = std::stoll(external->second);
        j["input_bytes"] = g.inputBytes();
        j["graph_inputs"] = inputs;
        j["graph_outputs"] = outputs;
        j["weight_tensors"] = weights;
        j["ops"] = ops;
        j["ops_without_flops"] = known.opsWithoutFlops;
        j["nodes_without_flops"] = known.nodesWithoutFlops;
        j["tensors_without_shape"] = known.tensorsWithoutShape;
        j["tensors"] = known.tensors;
        if (const std::string w = known.warning(); !w.empty()) j["warning"] = w;
        if (auto it = g.metadata.find("onnx.input_dims"); it != g.metadata.end()) j["input_dims_set"] = it->second;
        if (auto it = g.metadata.find("onnx.folded_nodes"); it != g.metadata.end())
            j["folded_nodes"] = std::stoll(it->second);
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    std::cout << path << " (" << g.name << ")\n"
              << "  nodes             " << g.nodeCount() << "\n"
              << "  edges             " << g.edges().size() << "\n"
              << "  FLOPs             " << std::setprecision(4)
              << (g.totalFlops() >= 1e12 ? g.totalFlops() / 1e12 : g.totalFlops() / 1e9)
              << (g.totalFlops() >= 1e12 ? " T" : " G") << " (multiply-add = 2)\n"
              << "  activation bytes  " << humanBytes(static_cast<double>(g.activationBytes())) << "\n"
              << "  weight bytes      " << humanBytes(static_cast<double>(g.weightBytes())) << " in " << weights
              << " tensors\n"
              << "  parameters        " << countText(parameters) << " (floating-point weight elements)\n";
    if (external != g.metadata.end())
        std::cout << "  external data     " << external->second
                  << " weight tensors stored outside the file (not read: sizes come from their types and dims)\n";
    std::cout << "  inputs / outputs  " << inputs << " / " << outputs << "\n"
              << "  op types:\n";
    std::vector<std::pair<std::string, int>> sorted(ops.begin(), ops.end());
    std::stable_sort(sorted.begin(), sorted.end(), [](auto& a, auto& b) { return a.second > b.second; });
    for (const auto& [op, count] : sorted) std::cout << "    " << std::left << std::setw(24) << op << count << "\n";
    std::cout << "  without shape     " << known.tensorsWithoutShape << " of " << known.tensors << " tensors"
              << (known.formatHasShapes ? "" : " (the format carries no shapes)") << "\n";
    if (auto it = g.metadata.find("onnx.input_dims"); it != g.metadata.end())
        std::cout << "  input dims set    " << it->second << " (symbolic in the file; 1 unless given)\n";
    if (auto it = g.metadata.find("onnx.folded_nodes"); it != g.metadata.end())
        std::cout << "  shapes folded     " << it->second << " shape-computing nodes evaluated at load\n";
    if (!known.opsWithoutFlops.empty()) {
        std::cout << "  no FLOP formula   " << known.nodesWithoutFlops << " operations:";
        for (const auto& op : known.opsWithoutFlops) std::cout << " " << op;
        std::cout << " (counted as 0)\n";
    }
    if (const std::string w = known.warning(); !w.empty()) std::cerr << path << ": " << w << "\n";
    return 0;
}

}  // namespace graphopt::cli
