#include "graph/Loaders.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "graph/GraphError.h"
#include "graph/LoaderText.h"
#include "graph/OpCosts.h"
#include "graph/WorkloadFormats.h"

namespace graphopt {

namespace fs = std::filesystem;

void throwLoadError(const std::string& path, const std::string& reason) {
    // Names in a damaged file can hold control bytes or broken UTF-8: keep the message one
    // printable line.
    throw GraphError(path + ": " + printableText(reason));
}

namespace {
void checkRegularFile(const std::string& path) {
    std::error_code ec;
    auto status = fs::status(path, ec);
    if (ec || !fs::exists(status)) throwLoadError(path, "no such file");
    if (fs::is_directory(status)) throwLoadError(path, "is a directory, not a model file");
    if (!fs::is_regular_file(status)) throwLoadError(path, "is not a regular file");
}
}  // namespace

std::string readFileForLoader(const std::string& path, size_t maxBytes) {
    checkRegularFile(path);
    std::error_code ec;
    auto size = fs::file_size(path, ec);
    if (ec) throwLoadError(path, "cannot read its size: " + ec.message());
    if (size > maxBytes)
        throwLoadError(path, "file is too large (" + std::to_string(size) + " bytes; the limit is " +
                                 std::to_string(maxBytes) + ")");
    std::ifstream in(path, std::ios::binary);
    if (!in) throwLoadError(path, "cannot open it for reading");
    std::string data(size, '\0');
    in.read(data.data(), static_cast<std::streamsize>(size));
    if (static_cast<size_t>(in.gcount()) != size) throwLoadError(path, "read fewer bytes than its size");
    return data;
}

nlohmann::json readJsonFileForLoader(const std::string& path, size_t maxBytes) {
    const std::string text = readFileForLoader(path, maxBytes);
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        throw std::invalid_argument(path + ": not JSON (" + std::string(e.what()) + ")");
    }
}

void finalizeLoadedGraph(Graph& g, const std::string& path) {
    g.finalize();
    try {
        g.validate();
    } catch (const GraphError& e) {
        throwLoadError(path, e.what());
    }
    auto unknown = inferCosts(g);
    std::string list;
    for (const auto& op : unknown) list += (list.empty() ? "" : ",") + op;
    if (!list.empty())
        g.metadata["ops_without_flops"] = list;
    else
        g.metadata.erase("ops_without_flops");
}

namespace {

std::string lowerExtension(const std::string& path) {
    std::string ext = fs::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    return ext;
}

std::string formatName(GraphFormat f) {
    switch (f) {
        case GraphFormat::Onnx: return "ONNX";
        case GraphFormat::CostGraphText: return "CostGraphDef text";
        case GraphFormat::Dot: return "DOT";
        case GraphFormat::Json: return "native JSON";
        case GraphFormat::NeuripsWorkload: return "a NeurIPS 2020 workload";
        case GraphFormat::PipeDreamProfile: return "a PipeDream profile";
        case GraphFormat::Auto: break;
    }
    return "of an unknown format";
}

// Guess the format from the first bytes when the extension does not say.
GraphFormat sniffFormat(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string head(4096, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<size_t>(std::max<std::streamsize>(in.gcount(), 0)));
    size_t i = 0;
    while (i < head.size() && std::isspace(static_cast<unsigned char>(head[i]))) ++i;
    std::string rest = head.substr(i);
    if (!rest.empty() && rest[0] == '{') return isNeuripsWorkloadFile(path) ? GraphFormat::NeuripsWorkload : GraphFormat::Json;
    if (isPipeDreamProfileFile(path)) return GraphFormat::PipeDreamProfile;
    auto startsWith = [&](const char* w) { return rest.rfind(w, 0) == 0; };
    if (startsWith("digraph") || startsWith("graph") || startsWith("strict")) return GraphFormat::Dot;
    if (startsWith("node") || startsWith("#")) return GraphFormat::CostGraphText;
    // An ONNX protobuf starts with binary field tags; plain text is taken as CostGraphDef text.
    const bool text = !rest.empty() && std::all_of(rest.begin(), rest.end(), [](unsigned char c) {
        return c >= 0x20 || c == '\n' || c == '\r' || c == '\t';
    });
    return text ? GraphFormat::CostGraphText : GraphFormat::Onnx;
}

}  // namespace

Graph loadGraph(const std::string& path, GraphFormat format) { return loadGraph(path, LoadOptions{}, format); }

Graph loadGraph(const std::string& path, const LoadOptions& options, GraphFormat format) {
    if (format == GraphFormat::Auto) {
        const std::string ext = lowerExtension(path);
        if (ext == ".onnx")
            format = GraphFormat::Onnx;
        else if (ext == ".pbtxt" || ext == ".costgraph")
            format = GraphFormat::CostGraphText;
        else if (ext == ".txt")  // CostGraphDef text, or a PipeDream profile (graph.txt)
            format = isPipeDreamProfileFile(path) ? GraphFormat::PipeDreamProfile : GraphFormat::CostGraphText;
        else if (ext == ".dot" || ext == ".gv")
            format = GraphFormat::Dot;
        else if (ext == ".json")  // native JSON, or a NeurIPS 2020 workload
            format = isNeuripsWorkloadFile(path) ? GraphFormat::NeuripsWorkload : GraphFormat::Json;
        else
            checkRegularFile(path);
    }
    if (format != GraphFormat::Auto) {
        if (format != GraphFormat::Onnx && !options.empty())
            throwLoadError(path, "input shapes and batch size can only be set for ONNX models; this file is " +
                                     formatName(format));
        if (format != GraphFormat::PipeDreamProfile && options.training)
            throwLoadError(path, "training (forward plus backward costs) can only be chosen for PipeDream profiles; "
                                 "this file is " + formatName(format) +
                                 (format == GraphFormat::NeuripsWorkload ? " (a training workload lists its backward nodes)" : ""));
    }
    switch (format) {
        case GraphFormat::Onnx: return loadOnnx(path, options);
        case GraphFormat::CostGraphText: return loadCostGraphText(path);
        case GraphFormat::Dot: return loadDot(path);
        case GraphFormat::Json: return loadJson(path);
        case GraphFormat::NeuripsWorkload: return loadNeuripsWorkload(path);
        case GraphFormat::PipeDreamProfile: return loadPipeDreamProfile(path, options.training);
        case GraphFormat::Auto: break;
    }
    return loadGraph(path, options, sniffFormat(path));
}

}  // namespace graphopt
