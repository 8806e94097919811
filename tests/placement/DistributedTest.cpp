// nn/Distributed.h in one process: two ranks on two threads over loopback (a port the kernel hands
// out). The collectives carry exact bytes and sums, the launch settings are checked, and trainers
// whose weights differ stop after the epoch with an error naming the ranks.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <future>
#include <optional>
#include <string>
#include <vector>

#include "nn/Distributed.h"
#include "placement/PlacementEngines.h"
#include "placement/regal/RegalEngine.h"
#include "placement/regal/RegalImitation.h"
#include "placement/regal/RegalTraining.h"

using namespace graphopt;
using namespace graphopt::regal;

namespace {

int freePort() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    socklen_t len = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    ::close(fd);
    return ntohs(a.sin_port);
}

DistributedConfig rankConfig(int rank, int port) {
    DistributedConfig c;
    c.worldSize = 2;
    c.rank = rank;
    c.masterAddr = "127.0.0.1";
    c.masterPort = port;
    c.timeoutS = 60;
    return c;
}

// Runs body(comm) as ranks 0 and 1 on two threads; their results in rank order.
template <typename T>
std::vector<T> onTwoRanks(const std::function<T(Communicator&)>& body) {
    const int port = freePort();
    auto rank = [&](int r) {
        auto comm = nn::connectRanks(rankConfig(r, port));
        return body(*comm);
    };
    auto a = std::async(std::launch::async, rank, 0);
    auto b = std::async(std::launch::async, rank, 1);
    return {a.get(), b.get()};
}

// The synthetic training graphs of 12 and 20 nodes on 2xgpu-pcie (each call: graphs of their own).
std::vector<PolicyGraph> smallTrainingGraphs(PlacementObjective objective) {
    TrainingSetOptions set;
    set.sizes = {12, 20};
    set.graphSeeds = 1;
    return buildTrainingSet(set, DeviceModel::preset("2xgpu-pcie"), objective);
}

}  // namespace

TEST(Distributed, CollectivesCarryExactBytesAndSums) {
    const auto results = onTwoRanks<std::vector<std::string>>([](Communicator& c) {
        std::vector<std::string> out;
        std::string mine(size_t(c.rank() * 3), char('a' + c.rank()));  // rank 0 sends nothing
        appendDoubles(mine, {0.1 + c.rank(), -1e-300});
        for (const std::string& s : c.allGather(mine)) out.push_back(s);
        std::string b = c.rank() == 1 ? std::string("from one\0with a zero", 19) : std::string();
        c.broadcast(b, 1);
        out.push_back(b);
        std::vector<double> v = {1.5 * (c.rank() + 1), 0.25};
        c.allReduceSum(v);
        out.push_back(std::to_string(v[0]) + " " + std::to_string(v[1]));
        c.barrier();
        return out;
    });
    ASSERT_EQ(results.size(), 2u);
    EXPECT_EQ(results[0], results[1]);
    const auto& r = results[0];
    ASSERT_EQ(r.size(), 4u);
    size_t at = 0;
    EXPECT_EQ(readDoubles(r[0], at, 2), (std::vector<double>{0.1, -1e-300}));
    EXPECT_EQ(r[1].substr(0, 3), "bbb");
    at = 3;
    EXPECT_EQ(readDoubles(r[1], at, 2), (std::vector<double>{1.1, -1e-300}));
    EXPECT_EQ(r[2], std::string("from one\0with a zero", 19));
    EXPECT_EQ(r[3], std::to_string(4.5) + " " + std::to_string(0.5));
}

TEST(Distributed, LaunchSettingsAreChecked) {
    ::unsetenv("WORLD_SIZE");
    ::unsetenv("RANK");
    ::unsetenv("MASTER_ADDR");
    ::unsetenv("MASTER_PORT");
    EXPECT_FALSE(resolveDistributedConfig({}, {}, {}, {}).distributed());  // nothing set: one process
    const DistributedConfig c = resolveDistributedConfig(3, 2, std::string("[::1]:29511"), 5.0);
    EXPECT_EQ(c.worldSize, 3);
    EXPECT_EQ(c.rank, 2);
    EXPECT_EQ(c.masterAddr, "::1");
    EXPECT_EQ(c.masterPort, 29511);
    EXPECT_EQ(c.timeoutS, 5.0);
    ::setenv("WORLD_SIZE", "2", 1);
    ::setenv("RANK", "1", 1);
    ::setenv("MASTER_ADDR", "localhost", 1);
    ::setenv("MASTER_PORT", "29512", 1);
    const DistributedConfig e = resolveDistributedConfig({}, {}, {}, {});
    EXPECT_EQ(e.describe(), "rank 1 of 2 (master localhost:29512)");
    EXPECT_EQ(resolveDistributedConfig({}, 0, {}, {}).rank, 0);  // a flag wins over the variable
    ::setenv("MASTER_PORT", "http", 1);
    EXPECT_THROW(resolveDistributedConfig({}, {}, {}, {}), std::invalid_argument);
    ::unsetenv("MASTER_PORT");
    EXPECT_THROW(resolveDistributedConfig({}, {}, {}, {}), std::invalid_argument);  // no port for 2 ranks
    ::unsetenv("WORLD_SIZE");
    ::unsetenv("RANK");
    ::unsetenv("MASTER_ADDR");
    EXPECT_THROW(resolveDistributedConfig(2, 2, std::string("h:1"), {}), std::invalid_argument);
    EXPECT_THROW(resolveDistributedConfig(2, {}, std::string("h:1"), {}), std::invalid_argument);
    EXPECT_THROW(resolveDistributedConfig(2, 1, std::string("h"), {}), std::invalid_argument);
    EXPECT_THROW(resolveDistributedConfig(2, 1, std::string("h:70000"), {}), std::invalid_argument);
}

TEST(Distributed, TrainersWhoseWeightsDifferStopNamingTheRanks) {
    const auto messages = onTwoRanks<std::string>([](Communicator& c) {
        const DeviceModel dev = DeviceModel::preset("2xgpu-pcie");
        TrainingSetOptions set;
        set.sizes = {12};
        set.graphSeeds = 1;
        set.validationNodes = 12;
        TrainOptions o;
        o.seed = 42;
        o.budget = 30;
        o.samples = 2;
        o.batchGraphs = 2;
        o.threads = 1;
        PolicyConfig cfg;
        cfg.hidden = 8;
        cfg.rounds = 1;
        // Rank 1's network starts from another seed: the ranks agree on everything they exchange
        // but not on the weights.
        auto model = makePolicyModel(cfg, o.seed + uint64_t(c.rank()));
        PolicyTrainer t(*model, o, buildTrainingSet(set, dev, PlacementObjective::Runtime),
                        buildValidationSet(set, dev, PlacementObjective::Runtime), &c);
        try {
            t.runEpoch();
        } catch (const DistributedError& e) {
            return std::string(e.what()) + " @" + std::to_string(e.rank());
        }
        return std::string("no error");
    });
    for (const std::string& m : messages) {
        EXPECT_NE(m.find("weights differ after epoch 1"), std::string::npos) << m;
        EXPECT_NE(m.find("rank 0 has checksum"), std::string::npos) << m;
        EXPECT_NE(m.find("rank 1 has"), std::string::npos) << m;
        EXPECT_NE(m.find("@1"), std::string::npos) << m;
    }
}

// The elite runs of imitation are shared out among the ranks (they used to run on every rank):
// both ranks end with the targets of one process, graph by graph, whichever rank ran them.
TEST(Distributed, EliteRunsAreSharedOutAndGiveOneProcesssTargets) {
    const std::vector<PolicyGraph> graphs = smallTrainingGraphs(PlacementObjective::Runtime);
    ASSERT_GE(graphs.size(), 5u);  // more than one round of 2 graphs per rank
    ImitationOptions o;
    o.budget = 60;
    o.seeds = 2;
    o.threads = 1;
    LocalCommunicator one;
    std::vector<size_t> rounds;
    const std::vector<PolicyAction> alone =
        eliteTargets(graphs, o, one, nullptr, [&](size_t done) { rounds.push_back(done); }, 2);
    ASSERT_EQ(alone.size(), graphs.size());
    EXPECT_EQ(rounds.front(), 2u);
    EXPECT_EQ(rounds.back(), graphs.size());
    for (size_t i = 0; i < graphs.size(); ++i) {
        const PolicyAction own = eliteTargetAction(graphs[i], eliteChromosomes(graphs[i], o));
        EXPECT_EQ(alone[i].beta, own.beta) << graphs[i].name;
        EXPECT_EQ(alone[i].cross, own.cross) << graphs[i].name;
    }
    const auto shared = onTwoRanks<std::vector<PolicyAction>>(
        [&](Communicator& c) { return eliteTargets(graphs, o, c, nullptr, {}, 2); });
    for (const std::vector<PolicyAction>& targets : shared) {
        ASSERT_EQ(targets.size(), graphs.size());
        for (size_t i = 0; i < graphs.size(); ++i) {
            EXPECT_EQ(targets[i].beta, alone[i].beta) << graphs[i].name;
            EXPECT_EQ(targets[i].cross, alone[i].cross) << graphs[i].name;
        }
    }
}

// A rank that is cancelled stops every rank after the round, with the targets of the rounds before.
TEST(Distributed, ACancelledRankStopsTheEliteRunsOfEveryRank) {
    const std::vector<PolicyGraph> graphs = smallTrainingGraphs(PlacementObjective::Runtime);
    ImitationOptions o;
    o.budget = 60;
    o.seeds = 1;
    o.threads = 1;
    const auto sizes = onTwoRanks<size_t>([&](Communicator& c) {
        CancellationToken token;
        size_t rounds = 0;
        // Rank 1 is cancelled during the second round (after the first one's exchange).
        return eliteTargets(graphs, o, c, &token, [&](size_t) {
                   if (++rounds == 1 && c.rank() == 1) token.cancel();
               }, 1).size();
    });
    EXPECT_EQ(sizes, (std::vector<size_t>{2, 2}));
}

// Seeded training over ranks: every deterministic seed engine runs once per graph on one rank and
// every rank keeps its solution; a BRKGA run afterwards runs none of them again.
TEST(Distributed, SeedSolutionsAreComputedOnceAndKeptOnEveryRank) {
    const nlohmann::json params = brkgaSeedParams(true, {"dp-contiguous"});
    struct RankView {
        int64_t computed = 0, computedAfter = 0;
        std::vector<std::vector<double>> keys;  // per graph and engine
        std::vector<int64_t> evaluations;
    };
    const auto views = onTwoRanks<RankView>([&](Communicator& c) {
        const std::vector<PolicyGraph> graphs = smallTrainingGraphs(PlacementObjective::Throughput);
        RankView v;
        EXPECT_TRUE(shareSeedSolutions(graphs, params, 100, 1, c));
        for (const PolicyGraph& g : graphs) {
            v.computed += g.seedSolutions->computed();
            for (const std::string& name : seedEngineNames(params)) {
                const std::optional<SearchOutcome> out = g.seedSolutions->kept(name);
                EXPECT_TRUE(out.has_value()) << g.name << " " << name;
                v.keys.push_back(out ? out->keys : std::vector<double>{});
                v.evaluations.push_back(out ? out->evaluations : -1);
            }
            runBrkga(g, {}, 100, 1, 1, params);
            v.computedAfter += g.seedSolutions->computed();
        }
        return v;
    });
    const std::vector<PolicyGraph> alone = smallTrainingGraphs(PlacementObjective::Throughput);
    const std::vector<std::string> names = seedEngineNames(params);
    ASSERT_EQ(names.size(), 4u);  // heft, xla-best, single, dp-contiguous
    EXPECT_EQ(views[0].computed + views[1].computed, int64_t(alone.size() * names.size()));
    EXPECT_GT(views[0].computed, 0);
    EXPECT_GT(views[1].computed, 0);
    for (const RankView& v : views) {
        EXPECT_EQ(v.computedAfter, v.computed);
        size_t k = 0;
        for (const PolicyGraph& g : alone) {
            const SearchContext ctx = contextFor(g, 100, 1, 1, nlohmann::json::object());
            for (const std::string& name : names) {
                const SearchOutcome own = findPlacementEngine(name)(ctx);
                EXPECT_EQ(v.keys[k], own.keys) << g.name << " " << name;
                EXPECT_EQ(v.evaluations[k], own.evaluations) << g.name << " " << name;
                ++k;
            }
        }
    }
}
