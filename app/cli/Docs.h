// The bash completion script and the man page of `graphopt`, generated from the same command
// descriptions (CommandSpec) as --help, so none of the three can drift from what the parser
// accepts. `graphopt --bash-completion` and `graphopt --man-page` print them; the build writes
// both into the package (packaging/CMakeLists.txt).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "Commands.h"

namespace graphopt::cli {

// A bash script defining _graphopt and `complete -F _graphopt graphopt`: subcommands (and
// `runs` subcommands), each command's options, the choices of options that have them, file and
// directory names where an option or argument takes one.
void writeBashCompletion(std::ostream& os, const std::vector<Command>& commands);

// graphopt(1) in man(7) markup: synopsis, every command with its options (defaults, choices),
// examples, exit status, files and environment.
void writeManPage(std::ostream& os, const std::vector<Command>& commands, const std::string& version);

}  // namespace graphopt::cli
