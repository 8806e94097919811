// train-policy, eval-policy and tune --distributed over two ranks on loopback, as
// tools/launch-local.sh runs them: the same weights and results as one process, a killed rank that
// stops the other with its name and leaves a loadable checkpoint, every distributed measurement
// stored once, and bad rendezvous settings as one line and exit 2.
// Ports come from the kernel (bind to port 0), so parallel test runs do not collide.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "GraphoptCli.h"

namespace fs = std::filesystem;

namespace {

using graphopt::test_support::runGraphopt;
using Result = graphopt::test_support::CliResult;

int lines(const std::string& s) { return int(std::count(s.begin(), s.end(), '\n')); }

fs::path scratch(const std::string& name) {
    const fs::path d = fs::temp_directory_path() / ("dist-cli-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    return {std::istreambuf_iterator<char>(in), {}};
}

// A port nobody listens on right now (the kernel's choice).
int freePort() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    socklen_t len = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    ::close(fd);
    return ntohs(a.sin_port);
}

// One rank of graphopt running in the background, its output in files.
struct Rank {
    pid_t pid = -1;
    fs::path out, err;
    int status = -1;
    Result wait() {
        int st = 0;
        ::waitpid(pid, &st, 0);
        status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        return {status, slurp(out), slurp(err)};
    }
};

Rank startRank(const fs::path& dir, int rank, int world, int port, const std::string& args) {
    Rank r;
    r.out = dir / ("rank" + std::to_string(rank) + ".out");
    r.err = dir / ("rank" + std::to_string(rank) + ".err");
    const std::string cmd = "MASTER_ADDR=127.0.0.1 MASTER_PORT=" + std::to_string(port) + " WORLD_SIZE=" + std::to_string(world) +
                            " RANK=" + std::to_string(rank) + " exec " + std::string(GRAPHOPT_BINARY_DIR) + "/app/graphopt " +
                            args + " >" + r.out.string() + " 2>" + r.err.string();
    r.pid = ::fork();
    if (r.pid == 0) {
        ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    return r;
}

// Both ranks of a two-rank run.
std::pair<Result, Result> runTwoRanks(const fs::path& dir, const std::string& args) {
    const int port = freePort();
    Rank r0 = startRank(dir, 0, 2, port, args), r1 = startRank(dir, 1, 2, port, args);
    Result a = r0.wait(), b = r1.wait();
    return {a, b};
}

const std::string kTiny = "--objective runtime --seed 3 --budget 40 --sizes 12,20 --graph-seeds 1 --models none --hidden 8 "
                          "--rounds 1 --samples 2 --batch-graphs 4 --threads 1 --no-store --dist-timeout 60";

nlohmann::json parametersOf(const std::string& policyFile) {
    return nlohmann::json::parse(slurp(policyFile)).at("parameters");
}

// Largest difference between two parameter sets of the same network.
double maxDifference(const nlohmann::json& a, const nlohmann::json& b) {
    EXPECT_EQ(a.size(), b.size());
    double worst = 0;
    for (auto it = a.begin(); it != a.end(); ++it) {
        const auto x = it.value().at("data").get<std::vector<double>>();
        const auto y = b.at(it.key()).at("data").get<std::vector<double>>();
        EXPECT_EQ(x.size(), y.size()) << it.key();
        for (size_t i = 0; i < std::min(x.size(), y.size()); ++i) worst = std::max(worst, std::abs(x[i] - y[i]));
    }
    return worst;
}

}  // namespace

TEST(DistributedCli, TwoRanksTrainTheWeightsOfOneProcess) {
    const fs::path dir = scratch("train");
    const std::string one = (dir / "one.json").string(), two = (dir / "two.json").string();
    Result single = runGraphopt("train-policy " + kTiny + " --epochs 2 --out " + one);
    ASSERT_EQ(single.status, 0) << single.err;

    auto [r0, r1] = runTwoRanks(dir, "train-policy " + kTiny + " --epochs 2 --json --out " + two);
    ASSERT_EQ(r0.status, 0) << r0.err;
    ASSERT_EQ(r1.status, 0) << r1.err;
    EXPECT_EQ(nlohmann::json::parse(r0.out)["world_size"], 2) << r0.out;
    EXPECT_EQ(r1.out, "");  // rank 1 writes and prints nothing
    EXPECT_NE(r0.err.find("epoch 2/2"), std::string::npos) << r0.err;
    EXPECT_LE(maxDifference(parametersOf(one), parametersOf(two)), 1e-6);

    // One epoch on two ranks, then the second on one process from its checkpoint: the same again.
    const std::string mixed = (dir / "mixed.json").string();
    auto [m0, m1] = runTwoRanks(dir, "train-policy " + kTiny + " --epochs 1 --out " + mixed);
    ASSERT_EQ(m0.status, 0) << m0.err;
    ASSERT_EQ(m1.status, 0) << m1.err;
    Result resumed = runGraphopt("train-policy " + kTiny + " --epochs 2 --out " + mixed + " --resume " + mixed + ".ckpt");
    ASSERT_EQ(resumed.status, 0) << resumed.err;
    EXPECT_LE(maxDifference(parametersOf(one), parametersOf(mixed)), 1e-6);
    fs::remove_all(dir);
}

TEST(DistributedCli, TwoRanksEvaluateLikeOneProcess) {
    const fs::path dir = scratch("eval");
    const std::string policy = (dir / "p.json").string();
    ASSERT_EQ(runGraphopt("train-policy " + kTiny + " --epochs 1 --out " + policy).status, 0);
    std::string graphs;
    int k = 0;
    for (const char* family : {"layered", "chain", "layered"}) {
        const std::string g = (dir / ("g" + std::to_string(k) + ".json")).string();
        ASSERT_EQ(runGraphopt("generate --family " + std::string(family) + " --nodes " + std::to_string(14 + 6 * k) +
                              " --seed " + std::to_string(k + 1) + " --out " + g)
                      .status,
                  0);
        graphs += (k++ ? "," : "") + g;
    }
    const std::string args = "eval-policy --objective runtime --test " + graphs + " --budget 60 --seeds 2 --threads 1 --policy " +
                             policy + " --baselines single,heft --json";
    Result single = runGraphopt(args);
    ASSERT_EQ(single.status, 0) << single.err;
    auto [r0, r1] = runTwoRanks(dir, args);
    ASSERT_EQ(r0.status, 0) << r0.err;
    ASSERT_EQ(r1.status, 0) << r1.err;
    EXPECT_EQ(r1.out, "");

    nlohmann::json a = nlohmann::json::parse(single.out), b = nlohmann::json::parse(r0.out);
    EXPECT_EQ(a["world_size"], 1);
    EXPECT_EQ(b["world_size"], 2);
    std::set<int> ranks;
    for (auto* j : {&a, &b}) {
        j->erase("world_size");
        j->at("summary").erase("total_s");
        for (auto& g : j->at("graphs")) {
            if (j == &b) ranks.insert(g.at("rank").get<int>());
            for (const char* t : {"rank", "uniform_s", "regal_s", "inference_s"}) g.erase(t);
        }
    }
    EXPECT_EQ(ranks, (std::set<int>{0, 1}));  // both ranks evaluated graphs
    EXPECT_EQ(a, b);
    fs::remove_all(dir);
}

TEST(DistributedCli, AKilledRankStopsTheOtherAndTheCheckpointLoads) {
    const fs::path dir = scratch("kill");
    const std::string policy = (dir / "p.json").string(), ckpt = policy + ".ckpt";
    const int port = freePort();
    const std::string args = "train-policy " + kTiny + " --epochs 1000 --out " + policy;
    Rank r0 = startRank(dir, 0, 2, port, args), r1 = startRank(dir, 1, 2, port, args);
    // Training is under way once rank 0 has written its first checkpoint (bounded polling).
    for (int i = 0; i < 1200 && !fs::exists(ckpt); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    ASSERT_TRUE(fs::exists(ckpt)) << slurp(r0.err);
    ::kill(r1.pid, SIGKILL);
    r1.wait();
    Result survivor = r0.wait();
    EXPECT_EQ(survivor.status, 1) << survivor.err;
    EXPECT_NE(survivor.err.find("rank 1"), std::string::npos) << survivor.err;
    EXPECT_NE(survivor.err.find(ckpt), std::string::npos) << survivor.err;  // says where the last epoch is
    EXPECT_FALSE(fs::exists(policy));                                       // no policy from a broken run

    // The checkpoint is whole: one process goes on from it for one more epoch.
    const int done = nlohmann::json::parse(slurp(ckpt)).at("epochs_done").get<int>();
    ASSERT_GE(done, 1);
    Result resumed = runGraphopt("train-policy " + kTiny + " --epochs " + std::to_string(done + 1) + " --out " + policy +
                                 " --resume " + ckpt);
    EXPECT_EQ(resumed.status, 0) << resumed.err;
    EXPECT_TRUE(fs::exists(policy));
    fs::remove_all(dir);
}

TEST(DistributedCli, BadRendezvousIsOneLineAndExitTwo) {
    const fs::path dir = scratch("bad");
    const std::string train = "train-policy " + kTiny + " --epochs 1 --out " + (dir / "p.json").string();
    // A port someone already listens on.
    const int busy = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    a.sin_port = 0;
    ASSERT_EQ(::bind(busy, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    ASSERT_EQ(::listen(busy, 1), 0);
    socklen_t len = sizeof a;
    ::getsockname(busy, reinterpret_cast<sockaddr*>(&a), &len);
    const std::string busyPort = std::to_string(ntohs(a.sin_port));

    struct Case {
        std::string args, needle;
    } cases[] = {
        {train + " --world-size 2 --rank 1 --master no-such-host.invalid:" + busyPort, "no-such-host.invalid"},
        {train + " --world-size 2 --rank 0 --master 127.0.0.1:" + busyPort, "in use"},
        {train + " --world-size 2 --rank 0 --master 192.0.2.1:" + busyPort, "not an address of this machine"},
        {train + " --world-size 2 --rank 2 --master 127.0.0.1:" + busyPort, "rank 2"},
        {train + " --world-size 2 --rank 1 --master 127.0.0.1", "HOST:PORT"},
        // Nobody at the master's port: the wait is bounded by --dist-timeout.
        {train + " --world-size 2 --rank 1 --master 127.0.0.1:" + std::to_string(freePort()) + " --dist-timeout 1",
         "no rendezvous"},
        {"eval-policy --objective runtime --test " + (dir / "p.json").string() + " --world-size 3 --rank 0 --master 127.0.0.1:" +
             busyPort,
         "p.json"},  // (a missing test file is refused before any rendezvous)
    };
    for (const auto& c : cases) {
        Result r = runGraphopt(c.args);
        EXPECT_EQ(r.status, 2) << c.args << "\n" << r.err;
        EXPECT_EQ(lines(r.err), 1) << c.args << "\n" << r.err;
        EXPECT_NE(r.err.find(c.needle), std::string::npos) << c.args << "\n" << r.err;
    }
    ::close(busy);
    fs::remove_all(dir);
}

TEST(DistributedCli, DistributedTuningStoresEveryMeasurementOnce) {
    const fs::path dir = scratch("tune");
    const std::string db = (dir / "runs.db").string();
    const std::string model = std::string(GRAPHOPT_SOURCE_DIR) + "/resources/models/resnet18.onnx";
    // Batches of 5, 5, 5 and 1: rank 1 measures configurations 1 and 3 of the first three.
    auto [r0, r1] = runTwoRanks(dir, "tune " + model + " --task 4 --tuner random --measurer sim --trials 16 --batch 5 --seed 2 "
                                     "--distributed --json --quiet --dist-timeout 60 --db " + db);
    ASSERT_EQ(r0.status, 0) << r0.err;
    ASSERT_EQ(r1.status, 0) << r1.err;
    EXPECT_EQ(r1.out, "");
    const auto j = nlohmann::json::parse(r0.out);
    EXPECT_EQ(j["world_size"], 2);
    const auto& t = j["tasks"][0];
    ASSERT_EQ(t["measurements"].size(), 16u);
    std::multiset<int64_t> printed;
    for (const auto& m : t["measurements"]) {
        EXPECT_TRUE(m["ok"].get<bool>()) << m.dump();
        printed.insert(m["config"].get<int64_t>());
    }
    Result exported = runGraphopt("runs export " + std::to_string(t["run_id"].get<int64_t>()) + " --json --db " + db);
    ASSERT_EQ(exported.status, 0) << exported.err;
    const auto e = nlohmann::json::parse(exported.out);
    ASSERT_TRUE(e.contains("measurements")) << exported.out.substr(0, 400);
    std::multiset<int64_t> stored;
    for (const auto& m : e["measurements"]) stored.insert(m["config"]["index"].get<int64_t>());
    EXPECT_EQ(stored, printed);  // each once, none lost, none twice

    // The same search measured in one process: the same configurations, in the same order.
    Result single = runGraphopt("tune " + model + " --task 4 --tuner random --measurer sim --trials 16 --batch 5 --seed 2 "
                                "--json --quiet --no-store");
    ASSERT_EQ(single.status, 0) << single.err;
    const auto alone = nlohmann::json::parse(single.out);
    const auto& u = alone["tasks"][0];
    for (size_t i = 0; i < 16; ++i) EXPECT_EQ(u["measurements"][i]["config"], t["measurements"][i]["config"]) << i;
    fs::remove_all(dir);
}
