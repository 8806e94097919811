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
#include <string>
#include <vector>

#include "nn/Distributed.h"
#include "placement/regal/RegalEngine.h"
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
