// The options of commands that can run over several processes (train-policy, eval-policy):
//   --world-size N, --rank R, --master HOST:PORT   torchrun's WORLD_SIZE, RANK, MASTER_ADDR and
//                                                  MASTER_PORT, which they override
//   --dist-timeout S                               how long to wait for the other ranks
// Neither flags nor variables: one process, as before. tools/launch-local.sh starts N ranks here.
#pragma once

#include <memory>
#include <vector>

#include "Args.h"
#include "run/Communicator.h"

namespace graphopt::cli {

std::vector<OptionSpec> distributedOptions();
// Where this process stands (flags over the environment), without joining: UsageError when bad.
DistributedConfig distributedConfigFrom(const Args& args);
// Joins the ranks (a LocalCommunicator for one process). Bad values, an unresolvable master, a
// port in use or ranks that do not all arrive: UsageError (exit 2), one line.
std::unique_ptr<Communicator> joinRanks(const Args& args);

}  // namespace graphopt::cli
