// What both graphopt programs do with a command line (FrontMain.cpp, main.cpp): the usage
// listing, `help COMMAND` and `COMMAND --help`, --version, --bash-completion and --man-page, and
// running one command with its errors turned into one line on stderr and an exit status
// (Commands.h).
#pragma once

#include <string>
#include <vector>

#include "Commands.h"

namespace graphopt::cli {

// Runs argv[1..] with the commands in `all`, as `graphopt` does.
int dispatch(const std::vector<Command>& all, int argc, char** argv, const std::string& version);

// Whether ARGS asks for help (--help or -h anywhere).
bool wantsHelp(const ArgList& args);

}  // namespace graphopt::cli
