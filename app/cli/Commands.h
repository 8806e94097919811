// One function per `graphopt` subcommand. Each takes the arguments after the subcommand's name
// and returns the exit status. Errors are thrown (UsageError, GraphError, std::exception) and
// turned into one line on stderr and exit status 2 by main().
#pragma once

#include <string>
#include <vector>

namespace graphopt::cli {

using ArgList = std::vector<std::string>;

int cmdInfo(const ArgList& args);
int cmdGenerate(const ArgList& args);
int cmdLayout(const ArgList& args);
int cmdRuns(const ArgList& args);
int cmdPlace(const ArgList& args);
int cmdTasks(const ArgList& args);
int cmdTune(const ArgList& args);
int cmdTrainPolicy(const ArgList& args);
int cmdEvalPolicy(const ArgList& args);

}  // namespace graphopt::cli
