#include "Commands.h"

namespace graphopt::cli {

std::vector<Command> commands() {
    return {
        {infoCommand(), cmdInfo},
        {generateCommand(), cmdGenerate},
        {layoutCommand(), cmdLayout},
        {convertCommand(), cmdConvert},
        {placeCommand(), cmdPlace},
        {tasksCommand(), cmdTasks},
        {tuneCommand(), cmdTune},
        {trainPolicyCommand(), cmdTrainPolicy},
        {evalPolicyCommand(), cmdEvalPolicy},
        {profileCommand(), cmdProfile},
        {executeCommand(), cmdExecute},
        {calibrateCommand(), cmdCalibrate},
        {runsCommand(), cmdRuns},
        {enginesCommand(), cmdEngines},
    };
}

}  // namespace graphopt::cli
