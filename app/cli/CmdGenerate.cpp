// graphopt generate --family F --nodes N --seed S --out FILE
#include <iostream>

#include "Args.h"
#include "Commands.h"
#include "graph/Loaders.h"
#include "graph/SyntheticGenerator.h"

namespace graphopt::cli {

CommandSpec generateCommand() {
    std::vector<std::string> families;  // every family the generator knows, in its order
    for (GraphFamily f : everyGraphFamily()) families.push_back(graphFamilyName(f));
    return {"generate",
            "",
            "Writes a synthetic computation graph (native JSON) of one of the generator's families",
            {{"family", "F", "chain", "graph family", families},
             {"nodes", "N", "100", "number of nodes (10..10000)"},
             {"seed", "S", "1", "generator seed"},
             {"out", "FILE", "", "the JSON file to write (required)"}},
            {"graphopt generate --family layered --nodes 1000 --seed 1 --out layered.json"}};
}

int cmdGenerate(const ArgList& argv) {
    const CommandSpec spec = generateCommand();
    Args args(argv, spec);
    args.noPositional();
    GeneratorOptions opt;
    opt.family = graphFamilyFromName(args.getChoice("family"));
    opt.nodes = static_cast<int>(args.getInt("nodes", 10, 10000));
    opt.seed = args.getSeed("seed");
    const std::string out = args.require("out");
    Graph g = generateGraph(opt);
    saveJson(g, out);
    std::cout << "wrote " << out << ": " << g.nodeCount() << " nodes, " << g.edges().size() << " edges, "
              << g.totalFlops() / 1e9 << " GFLOP (" << graphFamilyName(opt.family) << ", seed " << opt.seed
              << ")\n";
    return 0;
}

}  // namespace graphopt::cli
