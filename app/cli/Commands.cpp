#include "Commands.h"

#include <algorithm>

namespace graphopt::cli {

std::vector<Command> commands() {
    std::vector<Command> all = lightCommands();
    // The commands that need LibTorch, listed after `tasks` as `graphopt help` always has.
    const auto runs = std::find_if(all.begin(), all.end(), [](const Command& c) { return c.spec.name == "runs"; });
    all.insert(runs, {
                         {tuneCommand(), cmdTune},
                         {trainPolicyCommand(), cmdTrainPolicy},
                         {evalPolicyCommand(), cmdEvalPolicy},
                         {profileCommand(), cmdProfile},
                         {executeCommand(), cmdExecute},
                         {calibrateCommand(), cmdCalibrate},
                     });
    all.push_back({enginesCommand(), cmdEngines});
    return all;
}

}  // namespace graphopt::cli
