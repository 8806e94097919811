// graphopt: the command-line twin of GraphOpt Studio.
#include <cstring>
#include <exception>
#include <iostream>

#include "Args.h"
#include "Commands.h"
#include "tuning/LearnedTuners.h"
#include "placement/RegalEngine.h"

namespace {

using namespace graphopt::cli;

struct Command {
    const char* name;
    int (*run)(const ArgList&);
    const char* usage;
};

// Add a subcommand here and declare it in Commands.h.
const Command kCommands[] = {
    {"info", cmdInfo, "info FILE [--json]                       nodes, edges, FLOPs, bytes, op histogram"},
    {"generate", cmdGenerate,
     "generate --family chain|branchy|layered|series-parallel --nodes N --seed S --out FILE"},
    {"layout", cmdLayout, "layout MODEL [--horizontal] [--quality auto|full|fast|fastest] [--json]   Graphviz dot layout"},
    {"runs", cmdRuns,
     "runs list [--graph G] [--engine E] [--kind K] [--status S] [--limit N] [--json]   recorded runs\n"
     "  runs show ID [--json] | runs compare ID ID [ID...] [--points N] [--json]\n"
     "  runs export ID --csv|--json [--out FILE] | runs delete ID\n"
     "       (every runs command takes --db PATH; default $XDG_DATA_HOME/graphopt-studio/runs.db)"},
    {"place", cmdPlace,
     "place MODEL [--objective runtime|memory] [--devices 2xgpu-pcie|4xgpu-nvlink|cpu+gpu|FILE]\n"
     "       [--engine brkga|regal|random|local|list|dfs|postorder|xla-best|heft|single|exhaustive] [--policy FILE]\n"
     "       [--budget EVALS] [--seed S] [--threads T] [--json] [--schedule] [--no-weights]\n"
     "       [--no-store] [--db PATH]"},
    {"tasks", cmdTasks, "tasks MODEL [--json]                      tuning tasks: conv2d/dense shapes, FLOPs, uses"},
    {"tune", cmdTune,
     "tune MODEL --task K|--all [--tuner random|grid|ga|autotvm|autotvm-as|release] [--measurer halide|sim] [--trials N]\n"
     "       [--seed S] [--tuner-params JSON] [--batch B] [--min-time S] [--timeout S] [--worker PATH] [--peak] [--json]\n"
     "       (autotvm params: plan_size epsilon initial_random replan_every_batch rounds chains steps early_stop temperature;\n"
     "        autotvm-as also first_k knee_ratio; release: plan_size epsilon initial_random rounds first_k\n"
     "        knee_ratio and the PPO agent's episodes steps stop_fraction epochs minibatch update_samples lr\n"
     "        gamma lambda clip entropy value_coef hidden restart_fraction candidates)"},
    {"train-policy", cmdTrainPolicy,
     "train-policy --objective runtime|memory --out FILE [--devices PRESET] [--epochs N] [--seed S]\n"
     "       [--resume CHECKPOINT] [--budget EVALS] [--samples K] [--threads T] [--models DIR|none] [--no-store] [--db PATH]\n"
     "       (REGAL's policy: REINFORCE on synthetic graphs and the train split; see README)"},
    {"eval-policy", cmdEvalPolicy,
     "eval-policy --objective runtime|memory --test DIR_OR_FILES [--devices PRESET] [--budget EVALS] [--seeds N]\n"
     "       [--policy FILE] [--baselines heft,single,...] [--tuned-params JSON | --tune-grid] [--json]"},
};

void printUsage(std::ostream& os) {
    os << "usage: graphopt COMMAND [OPTIONS]\n\ncommands:\n";
    for (const auto& c : kCommands) os << "  " << c.usage << "\n";
    os << "\nErrors print one line on stderr and exit with status 2.\n";
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
        printUsage(argc < 2 ? std::cerr : std::cout);
        return argc < 2 ? 2 : 0;
    }
    const std::string name = argv[1];
    ArgList rest(argv + 2, argv + argc);
    graphopt::tuning::registerLearnedTuners();  // release (graphopt_nn)
    graphopt::registerRegalEngine();
    for (const auto& c : kCommands) {
        if (name != c.name) continue;
        try {
            return c.run(rest);
        } catch (const UsageError& e) {
            std::cerr << "graphopt " << name << ": " << e.what() << "\n";
            return 2;
        } catch (const std::exception& e) {
            std::cerr << "graphopt " << name << ": " << e.what() << "\n";
            return 2;
        }
    }
    std::cerr << "graphopt: unknown command '" << name << "' (try graphopt --help)\n";
    return 2;
}
