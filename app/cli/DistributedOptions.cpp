#include "DistributedOptions.h"

#include "nn/Distributed.h"

namespace graphopt::cli {

std::vector<OptionSpec> distributedOptions() {
    return {{"world-size", "N", "", "ranks working together", {}, "$WORLD_SIZE, else 1"},
            {"rank", "R", "", "this process's rank, 0..N-1 (rank 0 hosts the rendezvous and writes the results)", {}, "$RANK"},
            {"master", "HOST:PORT", "", "where rank 0 listens for the others", {}, "$MASTER_ADDR:$MASTER_PORT"},
            {"dist-timeout", "S", "120", "seconds to wait for the other ranks, at the start and at every exchange"}};
}

DistributedConfig distributedConfigFrom(const Args& args) {
    try {
        std::optional<int> world, rank;
        std::optional<std::string> master;
        if (args.has("world-size")) world = int(args.getInt("world-size", 1, 4096));
        if (args.has("rank")) rank = int(args.getInt("rank", 0, 4095));
        if (args.has("master")) master = args.require("master");
        return resolveDistributedConfig(world, rank, master, args.getDouble("dist-timeout", 0.1, 86400));
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
}

std::unique_ptr<Communicator> joinRanks(const Args& args) {
    const DistributedConfig config = distributedConfigFrom(args);
    try {
        return nn::connectRanks(config);
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
}

}  // namespace graphopt::cli
