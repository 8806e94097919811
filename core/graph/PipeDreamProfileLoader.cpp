// PipeDream's per-layer profiles (Narayanan et al., SOSP 2019; the profiler's graph.txt,
// docs/formats.md, "Partitioning workloads"): one line per layer
//   nodeN -- DESCRIPTION -- forward_compute_time=F, backward_compute_time=B, activation_size=A, parameter_size=P
// (milliseconds, bytes; A may be a list "[a; b; c]" for a layer with several outputs, summed as
// PipeDream's graph.from_str does; an optional " -- stage_id=S" may follow), then one line per
// edge, a tab and "nodeA -- nodeB". DESCRIPTION is the PyTorch module's text and may hold commas,
// parentheses and even " -- ", so a line is cut at its first " -- " and at its last
// " -- forward_compute_time=".
//
// What a layer becomes is what PipeDream's planner (optimizer_graph_hierarchical.py) counts:
//  - a source layer whose description starts with "Input" is the graph's input: the planner zeroes
//    its costs and always puts it in the first stage, so here it is a GraphInput tensor (present on
//    every device that reads it from the start) of its activation bytes, and its time is dropped;
//  - every other layer is a node with an output tensor of its activation bytes (what moves to the
//    next stage) and a Weight tensor of its parameter bytes;
//  - inference: the node costs its forward time; training: forward plus backward time (the
//    planner's compute time), and the node keeps its activation stashed for its backward pass for
//    the whole run (Node::residentBytes = activation_size): with the weights, a stage holds the sum
//    of its layers' activations and parameters, the planner's stage memory for one micro-batch in
//    flight. (The planner multiplies that by the number of stages after it, which depends on the
//    placement; the schedule simulator's micro-batches play that part.)
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "graph/GraphError.h"
#include "graph/LoaderText.h"
#include "graph/Loaders.h"
#include "graph/WorkloadFormats.h"

namespace graphopt {

namespace {

constexpr std::string_view kSeparator = " -- ";
constexpr std::string_view kStats = " -- forward_compute_time=";

std::string_view trimBlanks(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

struct Layer {
    std::string id;
    std::string description;
    double forwardMs = 0, backwardMs = 0;
    int64_t activationBytes = 0, parameterBytes = 0;
    int64_t stage = -1;
    int line = 0;
};

class Parser {
public:
    explicit Parser(std::string path) : path_(std::move(path)) {}

    [[noreturn]] void fail(int line, const std::string& what) const {
        throwLoadError(path_, "line " + std::to_string(line) + ": " + what);
    }

    // A finite number >= 0.
    double number(std::string_view text, int line, const std::string& what) const {
        text = trimBlanks(text);
        double v = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (text.empty() || ec != std::errc() || end != text.data() + text.size())
            fail(line, what + ": '" + std::string(text) + "' is not a number");
        if (!std::isfinite(v) || v < 0) fail(line, what + ": " + std::string(text) + " is out of range (a number >= 0)");
        return v;
    }
    int64_t bytes(std::string_view text, int line, const std::string& what) const {
        const double v = number(text, line, what);
        if (v > double(kMaxGraphBytes)) fail(line, what + ": " + std::string(trimBlanks(text)) + " bytes is more than 2^62");
        return static_cast<int64_t>(std::llround(v));
    }

    // "forward_compute_time=F, backward_compute_time=B, activation_size=A, parameter_size=P[ -- stage_id=S]"
    void stats(std::string_view text, Layer& layer) const {
        const int line = layer.line;
        if (const size_t stage = text.find(kSeparator); stage != std::string_view::npos) {
            std::string_view rest = trimBlanks(text.substr(stage + kSeparator.size()));
            if (rest.substr(0, 9) != "stage_id=") fail(line, "expected 'stage_id=S' after the layer's figures");
            const double id = number(rest.substr(9), line, "stage_id");
            if (id > 1e9 || id != std::floor(id)) fail(line, "stage_id: '" + std::string(rest.substr(9)) + "' is not a stage");
            layer.stage = static_cast<int64_t>(id);
            text = text.substr(0, stage);
        }
        static const char* const keys[] = {"forward_compute_time", "backward_compute_time", "activation_size",
                                           "parameter_size"};
        size_t pos = 0;
        for (int k = 0; k < 4; ++k) {
            const std::string key = std::string(keys[k]) + "=";
            if (text.substr(pos, key.size()) != key)
                fail(line, "expected '" + key + "' at '" + std::string(text.substr(pos, 40)) + "'");
            pos += key.size();
            size_t end;
            if (k == 2 && pos < text.size() && text[pos] == '[') {
                end = text.find(']', pos);
                if (end == std::string_view::npos) fail(line, "activation_size: a list without its ']'");
                ++end;
            } else {
                end = k == 3 ? text.size() : text.find(", ", pos);
                if (end == std::string_view::npos) fail(line, "expected ', ' after " + std::string(keys[k]));
            }
            const std::string_view value = text.substr(pos, end - pos);
            switch (k) {
                case 0: layer.forwardMs = number(value, line, keys[k]); break;
                case 1: layer.backwardMs = number(value, line, keys[k]); break;
                case 2: layer.activationBytes = activation(value, line); break;
                default: layer.parameterBytes = bytes(value, line, keys[k]); break;
            }
            pos = end;
            if (k < 3) {
                if (text.substr(pos, 2) != ", ") fail(line, "expected ', ' after " + std::string(keys[k]));
                pos += 2;
            }
        }
    }

    // "A" or "[a; b; c]": the sum, as PipeDream's graph.from_str reads it.
    int64_t activation(std::string_view value, int line) const {
        value = trimBlanks(value);
        if (value.empty() || value.front() != '[') return bytes(value, line, "activation_size");
        if (value.back() != ']') fail(line, "activation_size: a list without its ']'");
        value = value.substr(1, value.size() - 2);
        int64_t sum = 0;
        while (true) {
            const size_t semi = value.find(';');
            const int64_t b = bytes(value.substr(0, semi), line, "activation_size");
            if (b > kMaxGraphBytes - sum) fail(line, "activation_size: the list adds up to more than 2^62 bytes");
            sum += b;
            if (semi == std::string_view::npos) break;
            value = value.substr(semi + 1);
        }
        return sum;
    }

private:
    std::string path_;
};

// "Conv2d(64, 128, ...)" -> "Conv2d"; "__getitem__(0)" -> "__getitem__"; "Add" -> "Add".
std::string opOf(const std::string& description) {
    const std::string op(trimBlanks(std::string_view(description).substr(0, description.find_first_of("( "))));
    return op.empty() ? "layer" : op;
}

bool isInputDescription(const std::string& d) {
    if (d.rfind("Input", 0) != 0) return false;
    return std::all_of(d.begin() + 5, d.end(), [](unsigned char c) { return std::isdigit(c); });
}

Graph loadProfileFile(const std::string& path, bool training) {
    const std::string text = readFileForLoader(path, size_t(1) << 30);
    const Parser p(path);
    std::vector<Layer> layers;
    std::map<std::string, int> indexOf;
    std::vector<std::pair<std::string, std::string>> edgeNames;
    std::vector<int> edgeLines;

    size_t start = 0;
    int lineNo = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        const std::string_view raw(text.data() + start, end - start);
        start = end + 1;
        ++lineNo;
        const std::string_view line = trimBlanks(raw);
        if (line.empty()) continue;
        const size_t statsAt = line.rfind(kStats);
        if (statsAt != std::string_view::npos) {
            const size_t first = line.find(kSeparator);
            Layer layer;
            layer.line = lineNo;
            layer.id = std::string(trimBlanks(line.substr(0, first)));
            if (layer.id.empty()) p.fail(lineNo, "a layer without its id before ' -- '");
            // (The id's " -- " and the figures' may share a space: "nodeN -- -- forward...".)
            if (statsAt >= first + kSeparator.size())
                layer.description = std::string(trimBlanks(line.substr(first + kSeparator.size(), statsAt - first - kSeparator.size())));
            p.stats(line.substr(statsAt + kSeparator.size()), layer);
            if (!indexOf.emplace(layer.id, static_cast<int>(layers.size())).second)
                p.fail(lineNo, "layer '" + layer.id + "' is listed twice (first on line " +
                                   std::to_string(layers[indexOf[layer.id]].line) + ")");
            layers.push_back(std::move(layer));
            continue;
        }
        const size_t sep = line.find(kSeparator);
        if (sep == std::string_view::npos || line.find(kSeparator, sep + 1) != std::string_view::npos)
            p.fail(lineNo, "expected 'nodeN -- DESCRIPTION -- forward_compute_time=F, backward_compute_time=B, "
                           "activation_size=A, parameter_size=P' or an edge 'nodeA -- nodeB'");
        const std::string a(trimBlanks(line.substr(0, sep))), b(trimBlanks(line.substr(sep + kSeparator.size())));
        if (a.empty() || b.empty()) p.fail(lineNo, "an edge needs a layer on each side of ' -- '");
        edgeNames.emplace_back(a, b);
        edgeLines.push_back(lineNo);
    }
    if (layers.empty()) throwLoadError(path, "no layers (expected lines 'nodeN -- DESCRIPTION -- forward_compute_time=...')");

    // Edges by index, each once.
    const int n = static_cast<int>(layers.size());
    std::vector<std::vector<int>> consumers(n);
    std::vector<int> inDegree(n, 0);
    std::set<std::pair<int, int>> seen;
    for (size_t e = 0; e < edgeNames.size(); ++e) {
        auto find = [&](const std::string& id) {
            auto it = indexOf.find(id);
            if (it == indexOf.end()) p.fail(edgeLines[e], "the edge names layer '" + id + "', which is not listed");
            return it->second;
        };
        const int a = find(edgeNames[e].first), b = find(edgeNames[e].second);
        if (a == b) p.fail(edgeLines[e], "an edge from layer '" + layers[a].id + "' to itself");
        if (!seen.emplace(a, b).second) continue;
        consumers[a].push_back(b);
        ++inDegree[b];
    }

    Graph g;
    g.name = std::filesystem::path(path).stem().string();
    // Tensor names: a layer's id (an input) or id + ":0" (an output), id + ".parameters"; made
    // unique in the rare file whose ids look like those.
    std::set<std::string> tensorNames;
    auto uniqueTensorName = [&](std::string name) {
        if (tensorNames.count(name))
            for (int k = 2;; ++k)
                if (!tensorNames.count(name + "#" + std::to_string(k))) {
                    name += "#" + std::to_string(k);
                    break;
                }
        tensorNames.insert(name);
        return name;
    };
    std::vector<int> outputOf(n, -1);
    std::vector<bool> isInput(n, false);
    int64_t droppedInputs = 0;
    double droppedMs = 0;
    for (int i = 0; i < n; ++i) {
        const Layer& l = layers[i];
        Tensor t;
        t.name = l.id;
        t.dtype = DType::Unknown;
        t.bytes = l.activationBytes;
        isInput[i] = inDegree[i] == 0 && isInputDescription(l.description);
        if (isInput[i]) {
            t.kind = TensorKind::GraphInput;
            ++droppedInputs;
            droppedMs += l.forwardMs + l.backwardMs;
        } else {
            t.name += ":0";
            t.kind = TensorKind::Activation;
            t.isGraphOutput = consumers[i].empty();
        }
        t.name = uniqueTensorName(t.name);
        outputOf[i] = g.addTensor(std::move(t));
    }
    std::vector<std::vector<int>> inputs(n);
    for (int i = 0; i < n; ++i)
        for (int c : consumers[i]) inputs[c].push_back(outputOf[i]);
    for (int i = 0; i < n; ++i) {
        if (isInput[i]) continue;
        const Layer& l = layers[i];
        Node node;
        node.name = l.id;
        node.op = opOf(l.description);
        node.attrs["description"] = l.description;
        if (l.stage >= 0) node.attrs["pipedream.stage_id"] = l.stage;
        node.inputs = std::move(inputs[i]);
        if (l.parameterBytes > 0) {
            Tensor w;
            w.name = uniqueTensorName(l.id + ".parameters");
            w.kind = TensorKind::Weight;
            w.dtype = DType::Unknown;
            w.bytes = l.parameterBytes;
            node.inputs.push_back(g.addTensor(std::move(w)));
        }
        node.outputs = {outputOf[i]};
        node.computeCostS = (l.forwardMs + (training ? l.backwardMs : 0.0)) / 1000.0;
        if (training) node.residentBytes = l.activationBytes;
        node.attrs["pipedream.forward_ms"] = l.forwardMs;
        node.attrs["pipedream.backward_ms"] = l.backwardMs;
        g.addNode(std::move(node));
    }
    if (g.nodeCount() == 0) throwLoadError(path, "every layer is an input; there is nothing to place");
    g.metadata["source_format"] = "pipedream-profile";
    g.metadata["pipedream.mode"] = training ? "training" : "inference";
    if (droppedInputs > 0 && droppedMs > 0)
        g.metadata["pipedream.input_time_dropped_ms"] = std::to_string(droppedMs);
    finalizeLoadedGraph(g, path);
    return g;
}

}  // namespace

bool isPipeDreamProfileFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string line;
    // The first non-empty line, read up to 64 KiB (a layer's description can be long).
    while (in) {
        line.clear();
        char c;
        while (in.get(c) && c != '\n' && line.size() < (size_t(1) << 16)) line.push_back(c);
        if (!trimBlanks(line).empty()) break;
    }
    return line.find(kSeparator) != std::string::npos && line.find("forward_compute_time=") != std::string::npos;
}

Graph loadPipeDreamProfile(const std::string& path, bool training) {
    return withPrintableErrors(path, [&] { return loadProfileFile(path, training); });
}

}  // namespace graphopt
