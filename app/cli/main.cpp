// graphopt-nn: the whole command-line twin of GraphOpt Studio, every command, with the engines and
// tuners that need LibTorch (REGAL, ReLeASE). Users run `graphopt` (FrontMain.cpp), which hands
// it the commands it does not run itself. Each subcommand describes itself (Commands.h);
// `graphopt help COMMAND` and `graphopt COMMAND --help` print that description.
#include "Commands.h"
#include "Dispatch.h"
#include "placement/regal/RegalEngine.h"
#include "tuning/LearnedTuners.h"

int main(int argc, char** argv) {
    // Engines and tuners from graphopt_nn register here, and only here, so every command and its
    // help sees them.
    graphopt::tuning::registerLearnedTuners();  // release
    graphopt::registerRegalEngine();            // regal
    return graphopt::cli::dispatch(graphopt::cli::commands(), argc, argv, GRAPHOPT_VERSION);
}
