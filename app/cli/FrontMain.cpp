// graphopt: the program users and the GUI run. It runs the commands whose code never reaches
// LibTorch itself (lightCommands(): info, generate, layout, convert, tasks, runs, and place with
// the engines of graphopt_core) and hands every other command line, with the same arguments and
// in the same process (exec), to graphopt-nn: the whole program (main.cpp), which links LibTorch.
//
// Why two programs: the dynamic linker loads every library a program links before main(), and
// libtorch_cpu's start-up (relocating its symbols, registering its operators) takes 0.75 s on
// the 2-core Zen 5 VM when it is idle, 1.3 s when it is busy, against 0.03 s for all of
// `graphopt info` on ResNet-18 without it. The GUI starts `graphopt info` and `graphopt layout` for every
// model it opens, and the test suite starts graphopt some 340 times.
//
// Help of any kind, the usage listing, --version, --bash-completion and --man-page also go to
// graphopt-nn: they list every command, engine and tuner.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "Args.h"
#include "Commands.h"
#include "Dispatch.h"
#include "run/ResourceLocator.h"

namespace {

using namespace graphopt::cli;
using graphopt::findHelperProgram;
using graphopt::helperProgramCandidates;

constexpr const char* kWholeProgram = "graphopt-nn";

// $GRAPHOPT_NN_PROGRAM, else where the project's helper programs are (findHelperProgram: beside
// this program in the build tree, ../libexec/graphopt-studio installed).
std::string findWholeProgram() {
    if (const char* env = std::getenv("GRAPHOPT_NN_PROGRAM"); env && *env) return env;
    return findHelperProgram(kWholeProgram);
}

// Where findWholeProgram looked, for the message when it found nothing.
std::string placesLooked() {
    std::string looked;
    for (const auto& p : helperProgramCandidates(kWholeProgram)) looked += (looked.empty() ? "" : ", ") + p;
    return looked.empty() ? "nowhere (/proc/self/exe is unreadable)" : looked;
}

// Whether this program runs the command line itself: a light command, no help asked, and for
// `place` an engine this program has. Everything else (an unknown command too) goes to
// graphopt-nn, which answers it as it always has, errors included.
bool runsHere(const std::vector<Command>& light, int argc, char** argv) {
    if (argc < 2) return false;
    const std::string name = argv[1];
    const ArgList rest(argv + 2, argv + argc);
    if (wantsHelp(rest)) return false;
    for (const auto& c : light) {
        if (c.spec.name != name) continue;
        if (name == "place") {
            // --engine's choices are the registry's engines, which here lack REGAL's (registered
            // only by graphopt-nn); a command line this program cannot read goes on too, so its
            // error reads the same as from graphopt-nn.
            try {
                Args(rest, c.spec).getChoice("engine");
            } catch (const std::exception&) {
                return false;
            }
        }
        return true;
    }
    return false;
}

}  // namespace

int main(int argc, char** argv) {
    const std::vector<Command> light = lightCommands();
    if (runsHere(light, argc, argv)) return dispatch(light, argc, argv, GRAPHOPT_VERSION);

    const std::string whole = findWholeProgram();
    if (whole.empty()) {
        std::cerr << "graphopt: cannot find " << kWholeProgram
                  << ", the program that runs this command (it uses LibTorch); looked for " << placesLooked()
                  << " (GRAPHOPT_NN_PROGRAM names another)\n";
        return kExitUsage;
    }
    ::execv(whole.c_str(), argv);
    std::cerr << "graphopt: cannot run " << whole << " (" << kWholeProgram
              << ", the program that runs this command: it uses LibTorch): " << std::strerror(errno) << "\n";
    return kExitUsage;
}
