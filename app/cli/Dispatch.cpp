#include "Dispatch.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <iostream>

#include "Docs.h"
#include "store/StoreError.h"

namespace graphopt::cli {

namespace {

void printUsage(std::ostream& os, const std::vector<Command>& all) {
    os << "usage: graphopt COMMAND [OPTIONS]     (graphopt help COMMAND, or graphopt COMMAND --help, for one;\n"
          "                                       graphopt --version; graphopt --bash-completion and\n"
          "                                       graphopt --man-page print the completion script and the man page)\n\n"
          "commands:\n";
    size_t width = 0;
    for (const auto& c : all) width = std::max(width, c.spec.name.size());
    for (const auto& c : all) os << "  " << c.spec.name << std::string(width + 2 - c.spec.name.size(), ' ') << c.spec.summary << "\n";
    os << "\nErrors print one line on stderr. Exit status: 0 done, 1 a run failed, 2 usage error or unreadable input,\n"
          "130 interrupted (Ctrl-C: the run is stored as cancelled with its best so far).\n";
}

// `graphopt help runs list`, `graphopt runs list --help`: the subcommand's own help.
int printHelp(const Command& c, const ArgList& args) {
    if (c.spec.name == "runs" && !args.empty())
        for (const auto& sub : runsSubcommands())
            if (sub.name == "runs " + args[0]) {
                sub.printHelp(std::cout);
                return 0;
            }
    c.spec.printHelp(std::cout);
    return 0;
}

}  // namespace

bool wantsHelp(const ArgList& args) {
    for (const auto& a : args)
        if (a == "--help" || a == "-h") return true;
    return false;
}

int dispatch(const std::vector<Command>& all, int argc, char** argv, const std::string& version) {
    if (argc == 2 && (!std::strcmp(argv[1], "--version") || !std::strcmp(argv[1], "version"))) {
        std::cout << "graphopt " << version << "\n";
        return 0;
    }
    if (argc == 2 && !std::strcmp(argv[1], "--bash-completion")) {
        writeBashCompletion(std::cout, all);
        return 0;
    }
    if (argc == 2 && !std::strcmp(argv[1], "--man-page")) {
        writeManPage(std::cout, all, version);
        return 0;
    }
    if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
        printUsage(argc < 2 ? std::cerr : std::cout, all);
        return argc < 2 ? kExitUsage : 0;
    }
    std::string name = argv[1];
    ArgList rest(argv + 2, argv + argc);
    bool help = false;
    if (name == "help") {
        if (rest.empty()) {
            printUsage(std::cout, all);
            return 0;
        }
        name = rest.front();
        rest.erase(rest.begin());
        help = true;
    }
    for (const auto& c : all) {
        if (name != c.spec.name) continue;
        if (help || wantsHelp(rest)) return printHelp(c, rest);
        try {
            return c.run(rest);
        } catch (const RunFailure& e) {
            std::cerr << "graphopt " << name << ": " << e.what() << "\n";
            return kExitRunFailed;
        } catch (const graphopt::StoreWriteError& e) {
            // The run database ran out of room (or had an I/O error) while a run was recorded.
            std::cerr << "graphopt " << name << ": " << e.what() << "\n";
            return kExitRunFailed;
        } catch (const std::exception& e) {
            // Usage errors and input that cannot be used (a truncated model, a corrupt database, a
            // bad parameter) are refused before a run starts.
            std::cerr << "graphopt " << name << ": " << e.what() << "\n";
            return kExitUsage;
        }
    }
    std::cerr << "graphopt: unknown command '" << name << "' (try graphopt --help)\n";
    return kExitUsage;
}

}  // namespace graphopt::cli
