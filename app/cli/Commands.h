// One function per `graphopt` subcommand, and its description (CommandSpec). Each function takes
// the arguments after the subcommand's name and returns the exit status; errors are thrown and
// turned into one line on stderr by main():
//   UsageError, bad input (a file that cannot be read, a bad value)   exit 2
//   RunFailure: a run that started and then failed                   exit 1
//   interrupted by Ctrl-C / SIGTERM (the command returns it)         exit 130
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "CommandSpec.h"

namespace graphopt::cli {

using ArgList = std::vector<std::string>;

constexpr int kExitRunFailed = 1;
constexpr int kExitUsage = 2;
constexpr int kExitInterrupted = 130;

class RunFailure : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Runs a run's body: std::invalid_argument (the input turned out unusable once the run looked at
// it: a missing policy file, a graph too large for the exhaustive search) passes as it is (exit
// 2); any other failure of a started run becomes a RunFailure (exit 1). The recorded run is
// stored as failed either way.
template <typename F>
auto runOrFail(F&& body) -> decltype(body()) {
    try {
        return body();
    } catch (const std::invalid_argument&) {
        throw;
    } catch (const RunFailure&) {
        throw;
    } catch (const std::exception& e) {
        throw RunFailure(e.what());
    }
}

struct Command {
    CommandSpec spec;
    int (*run)(const ArgList& args);
};

// Every subcommand, in the order `graphopt help` lists them. Specs that list engines or tuners
// read the registries: register them first (main does). In graphopt_cli, which links LibTorch.
std::vector<Command> commands();
// The subcommands whose code never reaches LibTorch (graphopt_cli_light): the ones `graphopt`
// runs itself (FrontMain.cpp), `place` only with the engines of graphopt_core.
std::vector<Command> lightCommands();

CommandSpec infoCommand();
CommandSpec generateCommand();
CommandSpec layoutCommand();
CommandSpec convertCommand();
CommandSpec runsCommand();
std::vector<CommandSpec> runsSubcommands();  // "runs list", "runs show", ...
CommandSpec runsSubcommand(const std::string& name);  // "list" -> the spec of "runs list"
CommandSpec placeCommand();
CommandSpec tasksCommand();
CommandSpec tuneCommand();
CommandSpec trainPolicyCommand();
CommandSpec evalPolicyCommand();
CommandSpec enginesCommand();
CommandSpec profileCommand();
CommandSpec executeCommand();
CommandSpec calibrateCommand();

int cmdInfo(const ArgList& args);
int cmdGenerate(const ArgList& args);
int cmdLayout(const ArgList& args);
int cmdConvert(const ArgList& args);
int cmdRuns(const ArgList& args);
int cmdPlace(const ArgList& args);
int cmdTasks(const ArgList& args);
int cmdTune(const ArgList& args);
int cmdTrainPolicy(const ArgList& args);
int cmdEvalPolicy(const ArgList& args);
int cmdEngines(const ArgList& args);
int cmdProfile(const ArgList& args);
int cmdExecute(const ArgList& args);
int cmdCalibrate(const ArgList& args);

}  // namespace graphopt::cli
