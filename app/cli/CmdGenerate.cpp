// graphopt generate --family F --nodes N --seed S --out FILE
#include <iostream>

#include "Args.h"
#include "Commands.h"
#include "graph/Loaders.h"
#include "graph/SyntheticGenerator.h"

namespace graphopt::cli {

int cmdGenerate(const ArgList& argv) {
    Args args(argv, {"family", "nodes", "seed", "out"}, {});
    if (!args.positional().empty()) throw UsageError("unexpected argument '" + args.positional()[0] + "'");
    GeneratorOptions opt;
    opt.family = graphFamilyFromName(
        args.getChoice("family", "chain", {"chain", "branchy", "layered", "series-parallel"}));
    opt.nodes = static_cast<int>(args.getInt("nodes", 100, 10, 10000));
    opt.seed = args.getSeed("seed", 1);
    const std::string out = args.require("out");
    Graph g = generateGraph(opt);
    saveJson(g, out);
    std::cout << "wrote " << out << ": " << g.nodeCount() << " nodes, " << g.edges().size() << " edges, "
              << g.totalFlops() / 1e9 << " GFLOP (" << graphFamilyName(opt.family) << ", seed " << opt.seed
              << ")\n";
    return 0;
}

}  // namespace graphopt::cli
