// graphopt convert MODEL OUT.json: any readable model to the native JSON format. The GUI runs
// this in a child process when it opens a model, so that a reader that crashes or hangs on a
// damaged file (ONNX's protobuf, Graphviz's DOT parser) cannot take the window down; the window
// then reads only the JSON this writes.
#include <filesystem>
#include <iostream>

#include "Args.h"
#include "Commands.h"
#include "ModelOptions.h"
#include "graph/Loaders.h"

namespace graphopt::cli {

CommandSpec convertCommand() {
    return {"convert",
            "MODEL OUT.json",
            "Reads a model in any format and writes it as native JSON (shapes, FLOPs and metadata included)",
            {{"quiet", "", "", "print nothing on success"}, modelShapeOptions()[0], modelShapeOptions()[1], trainingOption()},
            {"graphopt convert resources/models/transformer_encoder.onnx /tmp/transformer.json"}};
}

int cmdConvert(const ArgList& argv) {
    const CommandSpec spec = convertCommand();
    Args args(argv, spec);
    if (args.positional().size() != 2) throw UsageError("convert takes MODEL and OUT.json");
    const std::string in = args.positional()[0], out = args.positional()[1];
    const Graph g = loadGraph(in, loadOptionsFrom(args));
    // Written next to the target and renamed, so a reader never sees half a file.
    const std::string tmp = out + ".partial";
    try {
        saveJson(g, tmp);
        std::filesystem::rename(tmp, out);
    } catch (...) {
        std::error_code ignored;
        std::filesystem::remove(tmp, ignored);
        throw;
    }
    if (!args.has("quiet")) std::cout << in << " -> " << out << " (" << g.nodeCount() << " nodes)\n";
    return 0;
}

}  // namespace graphopt::cli
