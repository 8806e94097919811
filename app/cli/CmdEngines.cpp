// graphopt engines [--markdown]: every placement engine and tuner with its parameters, from the
// registries' own descriptions. The README's engine list is this command's --markdown output (a
// test keeps the two equal).
#include <iostream>

#include "Args.h"
#include "Commands.h"
#include "placement/PlacementEngines.h"
#include "tuning/Tuner.h"

namespace graphopt::cli {

namespace {

std::string markdownParams(const std::vector<ParamSpec>& params) {
    if (params.empty()) return "none";
    std::string s;
    for (const auto& p : params) {
        s += (s.empty() ? "" : "<br>") + std::string("`") + p.name + "` (" + p.describeRange() + "): " + p.help;
    }
    return s;
}

void markdownTable(std::ostream& os, const std::vector<EngineDescription>& list) {
    os << "| name | what it does | parameters |\n|---|---|---|\n";
    for (const auto& d : list) os << "| `" << d.name << "` | " << d.summary << " | " << markdownParams(d.params) << " |\n";
}

}  // namespace

CommandSpec enginesCommand() {
    return {"engines",
            "",
            "Lists the placement engines and the tuners with their parameters (what --params and --tuner-params take)",
            {{"markdown", "", "", "print Markdown tables (the README's engine list)"}},
            {"graphopt engines", "graphopt engines --markdown"}};
}

int cmdEngines(const ArgList& argv) {
    const CommandSpec spec = enginesCommand();
    Args args(argv, spec);
    args.noPositional();
    if (args.has("markdown")) {
        std::cout << "Placement engines (`graphopt place --engine NAME --params JSON`; every engine also takes "
                  << markdownParams(placementRunParams()) << "):\n\n";
        markdownTable(std::cout, placementEngineDescriptions());
        std::cout << "\nTuners (`graphopt tune --tuner NAME --tuner-params JSON`):\n\n";
        markdownTable(std::cout, tuning::tunerDescriptions());
        return 0;
    }
    std::cout << "placement engines (graphopt place --engine NAME --params JSON):\n";
    for (const auto& d : placementEngineDescriptions())
        std::cout << "  " << d.name << ": " << d.summary << "\n" << describeParams(d.params, "      ");
    std::cout << "  every engine:\n" << describeParams(placementRunParams(), "      ");
    std::cout << "\ntuners (graphopt tune --tuner NAME --tuner-params JSON):\n";
    for (const auto& d : tuning::tunerDescriptions())
        std::cout << "  " << d.name << ": " << d.summary << "\n" << describeParams(d.params, "      ");
    return 0;
}

}  // namespace graphopt::cli
