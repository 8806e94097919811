// graphopt info FILE [--json]
#include <algorithm>
#include <iomanip>
#include <sstream>
#include <iostream>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "Args.h"
#include "Commands.h"
#include "ModelOptions.h"
#include "run/Units.h"
#include "graph/GraphCompleteness.h"
#include "graph/Loaders.h"
#include "placement/model/DeviceModel.h"

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
    spec.options.push_back(trainingOption());
    spec.examples.push_back("graphopt info tests/data/workloads/two_accelerators.json");
    return spec;
}

namespace {

// "6 accelerators of 16.0 GiB (acc0 .. acc5), 1 CPU (cpu0, memory not limited)": the devices a
// workload brings, by kind, in their order.
std::string describeDevices(const DeviceModel& m) {
    std::vector<std::string> kinds;
    for (const auto& d : m.devices)
        if (std::find(kinds.begin(), kinds.end(), d.kind) == kinds.end()) kinds.push_back(d.kind);
    std::string out;
    for (const auto& kind : kinds) {
        std::vector<const DeviceSpec*> of;
        for (const auto& d : m.devices)
            if (d.kind == kind) of.push_back(&d);
        const bool sameMemory = std::all_of(of.begin(), of.end(), [&](auto* d) { return d->memoryBytes == of[0]->memoryBytes; });
        const bool unlimited = of[0]->memoryBytes >= kMaxGraphBytes;
        std::string word = kind == "cpu" ? "CPU" : kind;
        out += (out.empty() ? "" : ", ") + std::to_string(of.size()) + " " + word + (of.size() == 1 ? "" : "s");
        if (sameMemory && !unlimited) out += " of " + humanBytes(double(of[0]->memoryBytes));
        out += " (" + of[0]->name + (of.size() > 2 ? " .. " : of.size() == 2 ? ", " : "") +
               (of.size() > 1 ? of.back()->name : "") + (sameMemory && unlimited ? ", memory not limited" : "") +
               (of[0]->paysTransfers ? "" : ", pays no transfers") + ")";
    }
    return out;
}

}  // namespace

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
    // A workload that brings its machine (a NeurIPS 2020 file): `place` uses it unless --devices.
    const std::optional<DeviceModel> devices = DeviceModel::fromGraph(g);
    const auto warning = g.metadata.find("warning");
    const auto mode = g.metadata.find("pipedream.mode");
    // What the nodes hold on their device for the whole run (a workload's weights and state,
    // stashed activations); validate() bounds the sum.
    int64_t resident = 0;
    for (const auto& n : g.nodes()) resident += n.residentBytes;

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
        if (warning != g.metadata.end()) j["file_warning"] = warning->second;
        if (devices) j["devices"] = devices->toJson();
        j["resident_bytes"] = resident;
        if (mode != g.metadata.end()) j["costs"] = mode->second;
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
    if (resident > 0)
        std::cout << "  resident bytes    " << humanBytes(static_cast<double>(resident)) << " (held by the nodes for the whole run)\n";
    std::cout << "  inputs / outputs  " << inputs << " / " << outputs << "\n";
    if (devices) std::cout << "  devices           " << describeDevices(*devices) << " (from the file)\n";
    if (mode != g.metadata.end())
        std::cout << "  costs             " << mode->second
                  << (mode->second == "training" ? " (forward + backward time, activations stashed)" : " (forward time)")
                  << "\n";
    std::cout << "  op types:\n";
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
    if (warning != g.metadata.end()) std::cerr << path << ": " << warning->second << "\n";
    return 0;
}

}  // namespace graphopt::cli
