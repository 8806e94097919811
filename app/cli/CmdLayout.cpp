// graphopt layout MODEL [--engine dot|layered] [--horizontal] [--quality auto|full|fast|fastest] [--json]
// The GUI runs the dot layout in a child process so that a long Graphviz layout can be cancelled
// by killing it; on the command line it reports how long the layout took. `--engine layered` is
// the fast layered layout the GUI shows first (LayeredLayout.h).
#include <chrono>
#include <iostream>

#include "Args.h"
#include "Commands.h"
#include "graph/GraphLayout.h"
#include "graph/LayeredLayout.h"
#include "graph/Loaders.h"

namespace graphopt::cli {

CommandSpec layoutCommand() {
    return {"layout",
            "MODEL",
            "Lays a model's graph out with Graphviz dot (the GUI runs this in a child process) or the fast layered layout",
            {{"engine", "E", "dot", "dot: Graphviz; layered: the fast layout the GUI shows first", {"dot", "layered"}},
             {"horizontal", "", "", "left to right instead of top to bottom"},
             {"quality", "Q", "auto", "Graphviz effort; auto picks by graph size", {"auto", "full", "fast", "fastest"}},
             {"json", "", "", "print the layout as JSON"}},
            {"graphopt layout resources/models/googlenet.onnx --quality fast",
             "graphopt layout resources/models/llama_7b.onnx --engine layered"}};
}

int cmdLayout(const ArgList& argv) {
    const CommandSpec spec = layoutCommand();
    Args args(argv, spec);
    const std::string path = args.onePositional("MODEL");
    LayoutOptions opt;
    opt.direction = args.has("horizontal") ? LayoutOptions::Direction::LeftToRight : LayoutOptions::Direction::TopToBottom;
    const std::string q = args.getChoice("quality");
    opt.quality = q == "full" ? LayoutOptions::Quality::Full
                : q == "fast" ? LayoutOptions::Quality::Fast
                : q == "fastest" ? LayoutOptions::Quality::Fastest
                                  : LayoutOptions::Quality::Auto;
    const bool layered = args.getChoice("engine") == "layered";
    const Graph g = loadGraph(path);
    const auto t0 = std::chrono::steady_clock::now();
    const GraphLayout layout = layered ? layoutGraphFast(g, opt) : layoutGraph(g, opt);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (args.has("json")) {
        auto j = layout.toJson();
        j["seconds"] = seconds;
        std::cout << j.dump() << "\n";
    } else {
        std::cout << path << ": " << g.nodeCount() << " nodes, " << layout.edges.size() << " edges laid out in "
                  << seconds << " s (" << layout.settings << "), drawing " << layout.width << " x " << layout.height
                  << " pt\n";
    }
    return 0;
}

}  // namespace graphopt::cli
