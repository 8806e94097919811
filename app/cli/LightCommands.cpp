#include "Commands.h"

namespace graphopt::cli {

std::vector<Command> lightCommands() {
    return {
        {infoCommand(), cmdInfo},   {generateCommand(), cmdGenerate}, {layoutCommand(), cmdLayout},
        {convertCommand(), cmdConvert}, {placeCommand(), cmdPlace},   {tasksCommand(), cmdTasks},
        {runsCommand(), cmdRuns},
    };
}

}  // namespace graphopt::cli
