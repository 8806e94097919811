// REGAL's policy: features, network outputs, Beta samples, the REINFORCE step, save/load and the
// determinism of training (tiny graphs, tiny budgets: the whole suite takes seconds).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <tuple>

#include "TestGraphs.h"
#include "graph/SyntheticGenerator.h"
#include "placement/PlacementEngines.h"
#include "placement/regal/RegalEngine.h"
#include "placement/regal/RegalImitation.h"
#include "placement/regal/RegalTraining.h"

namespace fs = std::filesystem;
using namespace graphopt;
using namespace graphopt::regal;

namespace {

// a -> b -> d, a -> c -> d; a reads the graph input and a weight, d is the graph output.
Graph diamond() {
    test::GraphBuilder b;
    const int x = b.input("x", 1000);
    const int w = b.weight("w", 4000);
    const int a = b.op("a", {x, w}, 2000, 1e-4);
    const int bb = b.op("b", {a}, 3000, 2e-4);
    const int c = b.op("c", {a}, 500, 1e-4);
    b.op("d", {bb, c}, 100, 1e-4, 0, true);
    Graph g = b.done();
    g.mutableNodes()[0].op = "Conv";
    g.mutableNodes()[3].op = "Add";
    return g;
}

PolicyGraph prepared(Graph g, const DeviceModel& dev, PlacementObjective obj = PlacementObjective::Runtime) {
    return preparePolicyGraph("g", std::move(g), dev, obj);
}

float feature(const PolicyFeatures& f, int node, int k) { return f.numeric[size_t(node) * kNumericFeatures + k]; }

std::string tempPath(const std::string& name) {
    return (fs::temp_directory_path() / ("regal-test-" + std::to_string(::getpid()) + "-" + name)).string();
}

}  // namespace

TEST(RegalFeatures, DescribeNodesEdgesAndDevices) {
    const DeviceModel dev = test::testDevices(2, 10e-6, 12e9);
    const PolicyGraph pg = prepared(diamond(), dev);
    const PolicyFeatures& f = pg.features;
    ASSERT_EQ(f.n, 4);
    EXPECT_EQ(f.d, 2);
    EXPECT_EQ(f.numeric.size(), size_t(4) * kNumericFeatures);
    EXPECT_EQ(f.edgeSrc.size(), 4u);
    EXPECT_EQ(f.op[0], opIndex("Conv"));
    EXPECT_EQ(f.op[3], opIndex("Add"));
    EXPECT_EQ(f.op[1], 0);  // "Op" is not in the vocabulary: other
    // Depth: a 0, b and c 1/2, d 1; height mirrors it.
    EXPECT_FLOAT_EQ(feature(f, 0, 8), 0.f);
    EXPECT_FLOAT_EQ(feature(f, 1, 8), 0.5f);
    EXPECT_FLOAT_EQ(feature(f, 3, 8), 1.f);
    EXPECT_FLOAT_EQ(feature(f, 0, 9), 1.f);
    // Input / output flags, weights.
    EXPECT_EQ(feature(f, 0, 11), 1.f);
    EXPECT_EQ(feature(f, 3, 11), 0.f);
    EXPECT_EQ(feature(f, 3, 12), 1.f);
    EXPECT_EQ(feature(f, 1, 12), 0.f);
    EXPECT_EQ(feature(f, 0, 13), 1.f);
    EXPECT_EQ(feature(f, 1, 13), 0.f);
    // In/out degree grow with the count; bigger outputs give bigger byte features.
    EXPECT_GT(feature(f, 0, 7), feature(f, 1, 7));
    EXPECT_GT(feature(f, 3, 6), feature(f, 1, 6));
    EXPECT_GT(feature(f, 1, 0), feature(f, 2, 0));
    // All of a's weights come before anything else in topological order.
    EXPECT_FLOAT_EQ(feature(f, 0, 16), 0.5f);
    EXPECT_FLOAT_EQ(feature(f, 3, 16), 1.f);
    // Context: the same on every node, and it sees the device count.
    for (int k = kNodeNumericFeatures; k < kNumericFeatures; ++k) EXPECT_EQ(feature(f, 0, k), feature(f, 3, k));
    const PolicyGraph four = prepared(diamond(), test::testDevices(4, 10e-6, 12e9));
    EXPECT_NE(feature(four.features, 0, kNodeNumericFeatures), feature(f, 0, kNodeNumericFeatures));
    for (float x : f.numeric) EXPECT_TRUE(std::isfinite(x));
}

TEST(RegalNet, OutputShapesAndProbabilities) {
    const DeviceModel dev = test::testDevices(2, 10e-6, 12e9);
    const PolicyGraph pg = prepared(generateGraph({GraphFamily::Branchy, 40, 3}), dev);
    auto model = makePolicyModel(PolicyConfig{}, 7);
    const PolicyOutput out = model->predict(pg.features);
    const size_t B = betaChoices().size(), C = crossoverChoices().size();
    EXPECT_EQ(out.n, 40);
    EXPECT_EQ(out.keysPerNode, 3);
    ASSERT_EQ(out.betaProbs.size(), size_t(40) * 3 * B);
    ASSERT_EQ(out.crossProbs.size(), size_t(40) * C);
    for (size_t k = 0; k < size_t(40) * 3; ++k) {
        double s = 0;
        for (size_t b = 0; b < B; ++b) s += out.betaProbs[k * B + b];
        EXPECT_NEAR(s, 1.0, 1e-5);
    }
    // Untrained, the policy leans to plain BRKGA: Beta(1,1) and rho 0.7 are the likeliest.
    const PolicyAction greedy = greedyAction(out);
    for (int b : greedy.beta) EXPECT_EQ(b, 0);
    for (int c : greedy.cross) EXPECT_EQ(c, defaultCrossoverChoice());
    // A 4-device graph does not fit a 2-device policy: a clear error, not a crash.
    const PolicyGraph four = prepared(generateGraph({GraphFamily::Chain, 20, 1}), test::testDevices(4, 1e-6, 1e9));
    EXPECT_THROW(model->predict(four.features), std::invalid_argument);
}

// Issue 31: the workloads bring 4 to 22 devices, so a policy must serve device setups of any
// size. The per-device head scores every (node, device) pair with weights shared by all devices.
TEST(RegalNet, PerDeviceHeadsServeAnyDeviceCountWithSharedWeights) {
    PolicyConfig cfg;
    cfg.hidden = 8;
    cfg.rounds = 1;
    cfg.heads = PolicyHeads::PerDevice;
    auto model = makePolicyModel(cfg, 5);
    const Graph g = generateGraph({GraphFamily::Branchy, 30, 2});
    const size_t B = betaChoices().size();
    std::vector<PolicyGraph> graphs;
    for (int d : {1, 2, 5, 22}) graphs.push_back(prepared(g, test::testDevices(d, 10e-6, 12e9)));
    std::vector<PolicyOutput> before;
    for (const PolicyGraph& pg : graphs) {
        const PolicyOutput out = model->predict(pg.features);
        EXPECT_EQ(out.keysPerNode, pg.features.d + 1);
        ASSERT_EQ(out.betaProbs.size(), size_t(30) * (pg.features.d + 1) * B);
        // Untrained, it leans to plain BRKGA like the fixed heads.
        const PolicyAction greedy = greedyAction(out);
        for (int b : greedy.beta) EXPECT_EQ(b, 0);
        before.push_back(out);
    }
    // The devices are told apart (their place in the list): the same node's keys differ.
    const PolicyOutput& five = before[2];
    EXPECT_NE(five.betaProbs[0 * B + 1], five.betaProbs[4 * B + 1]);
    // Rewarding an action on the 2-device graph moves the 22-device graph's output too: one set of
    // weights for every device count.
    Rng rng(3);
    const PolicyAction a = sampleAction(before[1], rng);
    TrainHyper h;
    h.learningRate = 1e-2;
    model->reinforce({{&graphs[1].features, a, +1.0}}, h);
    EXPECT_GT(actionLogProb(model->predict(graphs[1].features), a), actionLogProb(before[1], a));
    EXPECT_NE(model->predict(graphs[3].features).betaProbs, before[3].betaProbs);
    // Its file says so and reads back as per-device; a fixed policy's file has no "heads" at all,
    // as before this change.
    EXPECT_EQ(cfg.toJson().at("heads"), "per-device");
    EXPECT_EQ(PolicyConfig::fromJson(cfg.toJson()).heads, PolicyHeads::PerDevice);
    EXPECT_TRUE(cfg.servesDevices(22));
    EXPECT_FALSE(PolicyConfig::fromJson(PolicyConfig{}.toJson()).toJson().contains("heads"));
    EXPECT_FALSE(PolicyConfig{}.servesDevices(3));
    nlohmann::json bad = cfg.toJson();
    bad["device_features"] = kDeviceFeatures + 1;
    EXPECT_THROW(PolicyConfig::fromJson(bad), std::invalid_argument);
    bad = cfg.toJson();
    bad["heads"] = "sideways";
    EXPECT_THROW(PolicyConfig::fromJson(bad), std::invalid_argument);
}

TEST(RegalFeatures, DescribeEachDeviceAndEachNodeOnIt) {
    DeviceModel dev = test::testDevices(3, 10e-6, 12e9, int64_t(1) << 20);
    dev.devices[2].speedFactor = 0.1;  // ten times slower
    const PolicyGraph pg = prepared(diamond(), dev);
    const PolicyFeatures& f = pg.features;
    ASSERT_EQ(f.device.size(), size_t(3) * kDeviceFeatures);
    ASSERT_EQ(f.pair.size(), size_t(4) * 3 * kPairFeatures);
    auto e = [&](int k, int i) { return f.device[size_t(k) * kDeviceFeatures + i]; };
    auto q = [&](int v, int k, int i) { return f.pair[(size_t(v) * 3 + k) * kPairFeatures + i]; };
    EXPECT_FLOAT_EQ(e(0, 0), 0.f);           // the fastest device
    EXPECT_NEAR(e(2, 0), 1.f / 3.f, 0.02);   // log10(10) / 3
    EXPECT_FLOAT_EQ(e(0, 3), 0.f);           // place in the list
    EXPECT_FLOAT_EQ(e(1, 3), 0.5f);
    EXPECT_FLOAT_EQ(e(2, 3), 1.f);
    EXPECT_FLOAT_EQ(e(1, 5), 1.f / 3.f);
    EXPECT_GT(e(0, 1), 0.f);                 // 1 MiB holds the diamond's few kB
    for (int v = 0; v < 4; ++v) {
        EXPECT_EQ(q(v, 0, 0), 1.f);          // unconstrained: allowed everywhere
        EXPECT_FLOAT_EQ(q(v, 0, 1), 0.f);
        EXPECT_GT(q(v, 2, 1), 0.f);          // slower there
    }
    for (float x : f.device) EXPECT_TRUE(std::isfinite(x));
    for (float x : f.pair) EXPECT_TRUE(std::isfinite(x));
}

TEST(RegalPolicy, EveryBetaChoiceSamplesInsideTheOpenInterval) {
    EXPECT_EQ(betaChoices()[0].alpha, 1.0);
    EXPECT_EQ(betaChoices()[0].beta, 1.0);
    Rng rng(11);
    for (const auto& c : betaChoices())
        for (int i = 0; i < 20000; ++i) {
            const double x = rng.beta(c.alpha, c.beta);
            ASSERT_GT(x, 0.0) << c.alpha << "," << c.beta;
            ASSERT_LT(x, 1.0) << c.alpha << "," << c.beta;
        }
    // And through BRKGA with a bias from an action: every key of the best chromosome inside.
    const DeviceModel dev = test::testDevices(2, 10e-6, 12e9);
    const PolicyGraph pg = prepared(generateGraph({GraphFamily::Layered, 30, 2}), dev);
    PolicyAction a;
    for (int k = 0; k < 30 * 3; ++k) a.beta.push_back(k % int(betaChoices().size()));
    for (int v = 0; v < 30; ++v) a.cross.push_back(v % int(crossoverChoices().size()));
    const KeyBias bias = biasFromAction(a, 3);
    ASSERT_EQ(bias.betaAlpha.size(), 90u);
    ASSERT_EQ(bias.inheritProb.size(), 90u);
    EXPECT_EQ(bias.inheritProb[3], crossoverChoices()[1]);
    EXPECT_GT(runBrkga(pg, bias, 300, 1, 1), 0.0);
}

TEST(RegalNet, ReinforceRaisesTheProbabilityOfARewardedAction) {
    const DeviceModel dev = test::testDevices(2, 10e-6, 12e9);
    const PolicyGraph pg = prepared(diamond(), dev);
    auto model = makePolicyModel(PolicyConfig{}, 3);
    Rng rng(5);
    const PolicyAction a = sampleAction(model->predict(pg.features), rng);
    const PolicyAction other = sampleAction(model->predict(pg.features), rng);
    const double before = actionLogProb(model->predict(pg.features), a);
    TrainHyper h;
    h.entropyCoef = 0;
    h.learningRate = 1e-2;
    model->reinforce({{&pg.features, a, +1.0}}, h);
    const double after = actionLogProb(model->predict(pg.features), a);
    EXPECT_GT(after, before);
    // A penalized action becomes less likely.
    const double otherBefore = actionLogProb(model->predict(pg.features), other);
    model->reinforce({{&pg.features, other, -1.0}}, h);
    EXPECT_LT(actionLogProb(model->predict(pg.features), other), otherBefore);
}

TEST(RegalNet, SaveAndLoadGiveIdenticalOutputs) {
    const DeviceModel dev = test::testDevices(2, 10e-6, 12e9);
    const PolicyGraph pg = prepared(generateGraph({GraphFamily::SeriesParallel, 50, 4}), dev);
    PolicyConfig cfg;
    cfg.hidden = 16;
    cfg.rounds = 2;
    auto model = makePolicyModel(cfg, 9);
    Rng rng(1);
    TrainHyper h;
    model->reinforce({{&pg.features, sampleAction(model->predict(pg.features), rng), 0.7}}, h);  // not the init
    PolicyFile f;
    f.objective = "memory";
    f.devices = "test";
    f.config = cfg;
    f.parameters = model->parameters();
    const std::string path = tempPath("policy.json");
    writePolicyFile(path, f);
    PolicyFile back;
    auto loaded = loadPolicyModel(path, &back);
    EXPECT_EQ(back.objective, "memory");
    EXPECT_EQ(back.config.hidden, 16);
    const PolicyOutput a = model->predict(pg.features), b = loaded->predict(pg.features);
    EXPECT_EQ(a.betaProbs, b.betaProbs);
    EXPECT_EQ(a.crossProbs, b.crossProbs);

    // Corrupt or foreign files are refused with the path and a reason.
    {
        std::ofstream(path, std::ios::trunc) << "{\"format\": \"graphopt-regal-policy\", \"version\": 1, \"objec";
    }
    try {
        loadPolicyModel(path);
        FAIL() << "a truncated policy loaded";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
    nlohmann::json wrong = {{"format", "graphopt-regal-policy"}, {"version", 1}, {"objective", "runtime"},
                            {"devices", "x"}, {"config", cfg.toJson()}, {"parameters", {{"nope", 1}}}};
    { std::ofstream(path, std::ios::trunc) << wrong.dump(); }
    EXPECT_THROW(loadPolicyModel(path), std::invalid_argument);
    fs::remove(path);
    EXPECT_THROW(loadPolicyModel(path), std::invalid_argument);
}

// readPolicyFile checks the parameters against parameterShapes(config) before any network
// exists; the network must have exactly those, or every shipped policy would be refused.
TEST(RegalNet, ParameterShapesAreTheNetworksOwn) {
    for (auto [devices, hidden, rounds, embedding, heads] :
         {std::tuple{2, 32, 3, 8, PolicyHeads::Fixed}, {1, 1, 0, 1, PolicyHeads::Fixed}, {4, 5, 2, 3, PolicyHeads::Fixed},
          {2, 32, 3, 8, PolicyHeads::PerDevice}, {1, 1, 0, 1, PolicyHeads::PerDevice}}) {
        PolicyConfig cfg;
        cfg.devices = devices;
        cfg.hidden = hidden;
        cfg.rounds = rounds;
        cfg.opEmbedding = embedding;
        cfg.heads = heads;
        const nlohmann::json params = makePolicyModel(cfg, 1)->parameters();
        const auto shapes = parameterShapes(cfg);
        ASSERT_EQ(params.size(), shapes.size());
        for (const auto& [name, shape] : shapes) {
            ASSERT_TRUE(params.contains(name)) << name;
            EXPECT_EQ(params[name]["shape"].get<std::vector<int64_t>>(), shape) << name;
        }
    }
}

// Issue 20: hostile headers. A json type error escaped for a format or version of another type,
// a config of 2^32 + 1 rounds wrapped to 1, and a few bytes of config (hidden 4096, 64 rounds)
// made the program allocate 13 GB before it looked at the parameters.
TEST(RegalPolicy, HostileFilesAreRefusedBeforeAnyNetworkIsBuilt) {
    const std::string path = tempPath("hostile.json");
    PolicyConfig cfg;
    cfg.hidden = 4;
    cfg.rounds = 1;
    const nlohmann::json good = {{"format", "graphopt-regal-policy"}, {"version", 1}, {"objective", "runtime"},
                                 {"devices", "x"}, {"config", cfg.toJson()},
                                 {"parameters", makePolicyModel(cfg, 1)->parameters()}};
    auto refused = [&](nlohmann::json j, const std::string& needle) {
        { std::ofstream(path, std::ios::trunc) << j.dump(); }
        try {
            readPolicyFile(path);
            ADD_FAILURE() << "accepted: " << needle;
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        }
    };
    { std::ofstream(path, std::ios::trunc) << good.dump(); }
    EXPECT_EQ(readPolicyFile(path).config.hidden, 4);
    nlohmann::json j = good;
    j["format"] = 5;
    refused(j, "not a policy file");
    j = good;
    j["version"] = "1";
    refused(j, "version");
    j = good;
    j["config"]["rounds"] = (int64_t(1) << 32) + 1;
    refused(j, "config.rounds is out of range");
    j = good;
    j["config"]["hidden"] = 4096;
    j["config"]["rounds"] = 64;
    refused(j, "the config needs");
    j = good;
    j["parameters"]["input.bias"]["data"].push_back(0.5);
    refused(j, "parameter 'input.bias' has 5 values; its shape needs 4");
    j = good;
    j["parameters"]["input.bias"]["shape"] = {5};
    refused(j, "parameter 'input.bias' has the wrong shape");
    fs::remove(path);
}

namespace {
struct TinyRun {
    nlohmann::json checkpoint;
    std::vector<EpochReport> reports;
};
TinyRun tinyTraining(int epochs, const nlohmann::json* resumeFrom = nullptr) {
    const DeviceModel dev = DeviceModel::preset("2xgpu-pcie");
    TrainingSetOptions set;
    set.sizes = {12};
    set.graphSeeds = 1;
    set.validationNodes = 12;
    TrainOptions o;
    o.epochs = epochs;
    o.seed = 42;
    o.budget = 60;
    o.samples = 2;
    o.batchGraphs = 2;
    o.threads = 2;
    PolicyConfig cfg;
    cfg.hidden = 8;
    cfg.rounds = 1;
    auto model = makePolicyModel(cfg, o.seed);
    PolicyTrainer t(*model, o, buildTrainingSet(set, dev, PlacementObjective::Runtime),
                    buildValidationSet(set, dev, PlacementObjective::Runtime));
    if (resumeFrom) t.restore(*resumeFrom);
    TinyRun r;
    while (t.epochsDone() < epochs) r.reports.push_back(t.runEpoch());
    r.checkpoint = t.checkpoint();
    return r;
}
}  // namespace

TEST(RegalTraining, DeterministicForASeedAndResumable) {
    const TinyRun a = tinyTraining(2), b = tinyTraining(2);
    ASSERT_EQ(a.reports.size(), 2u);
    EXPECT_EQ(a.checkpoint["parameters"], b.checkpoint["parameters"]);
    EXPECT_EQ(a.checkpoint["baseline"], b.checkpoint["baseline"]);
    for (size_t i = 0; i < a.reports.size(); ++i) {
        EXPECT_EQ(a.reports[i].meanReward, b.reports[i].meanReward);
        EXPECT_EQ(a.reports[i].validationWinRate, b.reports[i].validationWinRate);
    }
    // The parameters moved, and training from a one-epoch checkpoint ends where two epochs do.
    const TinyRun one = tinyTraining(1);
    EXPECT_NE(one.checkpoint["parameters"], a.checkpoint["parameters"]);
    const nlohmann::json saved = nlohmann::json::parse(one.checkpoint.dump());  // through text, as on disk
    const TinyRun resumed = tinyTraining(2, &saved);
    ASSERT_EQ(resumed.reports.size(), 1u);
    EXPECT_EQ(resumed.reports[0].meanReward, a.reports[1].meanReward);
    EXPECT_EQ(resumed.checkpoint["parameters"], a.checkpoint["parameters"]);
}

// A per-device policy trains on graphs of different device counts in one run (a data set that
// mixes setups), deterministically.
TEST(RegalTraining, PerDevicePolicyTrainsOnMixedDeviceCounts) {
    auto run = [] {
        std::vector<PolicyGraph> train, validation;
        int i = 0;
        for (int d : {2, 3, 4}) {
            const DeviceModel dev = test::testDevices(d, 10e-6, 12e9);
            train.push_back(preparePolicyGraph("t" + std::to_string(i++), generateGraph({GraphFamily::Chain, 12, uint64_t(d)}),
                                               dev, PlacementObjective::Runtime));
            validation.push_back(preparePolicyGraph("v" + std::to_string(d), generateGraph({GraphFamily::Layered, 12, 9}),
                                                    dev, PlacementObjective::Runtime));
        }
        TrainOptions o;
        o.epochs = 1;
        o.seed = 4;
        o.budget = 60;
        o.samples = 2;
        o.batchGraphs = 2;
        o.threads = 1;
        PolicyConfig cfg;
        cfg.hidden = 8;
        cfg.rounds = 1;
        cfg.heads = PolicyHeads::PerDevice;
        auto model = makePolicyModel(cfg, o.seed);
        const nlohmann::json start = model->parameters();
        PolicyTrainer t(*model, o, std::move(train), std::move(validation));
        const EpochReport r = t.runEpoch();
        EXPECT_NE(model->parameters(), start);
        return std::pair{r.meanReward, model->parameters()};
    };
    const auto a = run(), b = run();
    EXPECT_EQ(a.first, b.first);
    EXPECT_EQ(a.second, b.second);
}

TEST(RegalEngine, PlacesThroughTheRegistryWithAGivenPolicy) {
    registerRegalEngine();
    const DeviceModel dev = DeviceModel::preset("2xgpu-pcie");
    const Graph g = generateGraph({GraphFamily::Chain, 30, 1});
    auto model = makePolicyModel(PolicyConfig{}, 1);
    PolicyFile f;
    f.objective = "runtime";
    f.devices = dev.name;
    f.parameters = model->parameters();
    const std::string path = tempPath("engine.json");
    writePolicyFile(path, f);
    auto problem = std::make_shared<ScheduleProblem>(g, dev, ScheduleOptions{});
    SearchContext ctx{g, dev, problem, 200, 1, 1, {{"policy", path}}, {}, nullptr, std::chrono::steady_clock::now(), {}};
    const SearchOutcome out = findPlacementEngine("regal")(ctx);
    EXPECT_EQ(out.evaluations, 200);
    EXPECT_EQ(out.keys.size(), ctx.keyCount());
    EXPECT_EQ(out.info["policy"], path);
    EXPECT_TRUE(out.info.contains("inference_s"));
    fs::remove(path);
    ctx.params["policy"] = path;  // now missing
    EXPECT_THROW(findPlacementEngine("regal")(ctx), std::invalid_argument);
}

// Imitation of elite chromosomes (issue 19): per-node targets, and fitting them.
namespace {
int betaAt(double a, double b) {
    const auto& c = betaChoices();
    for (size_t i = 0; i < c.size(); ++i)
        if (c[i].alpha == a && c[i].beta == b) return int(i);
    return -1;
}
}  // namespace

TEST(RegalImitation, TargetsFollowWhatTheElitesAgreeOn) {
    const DeviceModel dev = test::testDevices(2, 1e-6, 1e9);
    const PolicyGraph pg = prepared(diamond(), dev);
    ASSERT_EQ(pg.features.n, 4);
    // Keys per node: affinity gpu0, affinity gpu1, priority. Node a always on device 1 and first;
    // node b on device 0 in two elites of three; node c split 1/1/0 at random priorities... and d
    // always last.
    const std::vector<std::vector<double>> elites = {
        {0.1, 0.9, 0.99, /*b*/ 0.8, 0.2, 0.5, /*c*/ 0.3, 0.6, 0.6, /*d*/ 0.2, 0.7, 0.01},
        {0.2, 0.8, 0.95, /*b*/ 0.7, 0.1, 0.6, /*c*/ 0.9, 0.1, 0.4, /*d*/ 0.4, 0.5, 0.02},
        {0.3, 0.6, 0.97, /*b*/ 0.1, 0.9, 0.4, /*c*/ 0.2, 0.7, 0.5, /*d*/ 0.3, 0.9, 0.03},
    };
    const PolicyAction t = eliteTargetAction(pg, elites);
    ASSERT_EQ(t.beta.size(), 12u);
    EXPECT_EQ(t.beta[0], betaAt(1, 4));   // a: not device 0
    EXPECT_EQ(t.beta[1], betaAt(10, 1));  // a: device 1, every elite
    EXPECT_EQ(t.beta[2], betaAt(10, 1));  // a: always first
    EXPECT_EQ(crossoverChoices()[size_t(t.cross[0])], 0.9);
    EXPECT_EQ(t.beta[3], betaAt(4, 1));   // b: device 0 in most elites
    EXPECT_EQ(t.beta[4], betaAt(1, 1));
    EXPECT_EQ(crossoverChoices()[size_t(t.cross[1])], 0.7);
    EXPECT_EQ(t.beta[3 * 3 + 0], betaAt(1, 4));   // d: device 1 in every elite
    EXPECT_EQ(t.beta[3 * 3 + 1], betaAt(10, 1));
    EXPECT_EQ(t.beta[3 * 3 + 2], betaAt(1, 10));  // d: always last
    EXPECT_THROW(eliteTargetAction(pg, {{0.5}}), std::invalid_argument);
}

TEST(RegalImitation, FittingRaisesAgreementWithTheTargetsAndIsDeterministic) {
    const DeviceModel dev = test::testDevices(2, 1e-5, 1e9);
    std::vector<PolicyGraph> graphs;
    for (auto fam : {GraphFamily::Branchy, GraphFamily::Layered})
        graphs.push_back(prepared(generateGraph({fam, 30, 2}), dev));
    ImitationOptions o;
    o.epochs = 40;
    o.budget = 300;
    o.seeds = 3;
    o.threads = 1;
    o.learningRate = 1e-2;
    std::vector<PolicyAction> targets;
    for (const auto& g : graphs) targets.push_back(eliteTargetAction(g, eliteChromosomes(g, o)));
    auto run = [&](std::vector<ImitationReport>* reports) {
        auto model = makePolicyModel(PolicyConfig{}, 5);
        double before = 0;
        for (size_t i = 0; i < graphs.size(); ++i) before += actionAgreement(greedyAction(model->predict(graphs[i].features)), targets[i]);
        imitateTargets(*model, graphs, targets, o, [&](const ImitationReport& r) { reports->push_back(r); });
        return std::make_pair(before / double(graphs.size()), model->parameters());
    };
    std::vector<ImitationReport> first, second;
    const auto [before, params] = run(&first);
    ASSERT_EQ(first.size(), 40u);
    EXPECT_LT(first.back().loss, first.front().loss);
    EXPECT_GT(first.back().agreement, before + 0.2) << "before " << before << ", after " << first.back().agreement;
    EXPECT_EQ(run(&second).second, params);  // same seed, same weights
}

// An evaluation seeded by dp-contiguous and measured against it used to run dp-contiguous once
// more per graph for the baseline column (up to 18 s on a wide graph). A deterministic baseline
// now takes the solution the graph keeps; the figures are those of an evaluation that keeps none.
TEST(RegalEvaluation, ADeterministicBaselineReusesTheSolutionThatSeededBrkga) {
    const DeviceModel dev = test::testDevices(3, 10e-6, 12e9);
    const PolicyGraph g = prepared(generateGraph({GraphFamily::Layered, 30, 4}), dev, PlacementObjective::Throughput);
    PolicyGraph unkept = g;
    unkept.seedSolutions = nullptr;
    EvalOptions o;
    o.budget = 300;
    o.seeds = 2;
    o.threads = 1;
    o.seedEngines = {"dp-contiguous"};
    o.baselines = {"dp-contiguous", "m-topo"};
    auto model = makePolicyModel(PolicyConfig{3}, 3);
    const GraphEvaluation kept = evaluatePolicy(*model, g, o);
    const GraphEvaluation own = evaluatePolicy(*model, unkept, o);
    EXPECT_EQ(kept.uniform, own.uniform);
    EXPECT_EQ(kept.regal, own.regal);
    EXPECT_EQ(kept.regalEvaluationsToUniform, own.regalEvaluationsToUniform);
    EXPECT_EQ(kept.baselines, own.baselines);
    ASSERT_EQ(kept.baselines.size(), 2u);
    // dp-contiguous once (the first uniform run's seed), m-topo once (a baseline only); the three
    // later BRKGA runs and the dp-contiguous baseline take the kept solution.
    EXPECT_EQ(g.seedSolutions->computed(), 2);
    EXPECT_EQ(g.seedSolutions->reused(), 4);
}

// A data set's graph brings its preset with less memory, named after it; `place --engine regal`
// on such a graph looked for a policy of that exact name and found none.
TEST(RegalPolicyLookup, ADataSetsSetupIsServedByItsPresetsPolicy) {
    const std::string derived = "4xv100-16gb-nvlink" + std::string(kMemoryShareSuffix) + "59 % of the graph's";
    const std::string found = findDefaultPolicy("throughput", derived);
    EXPECT_EQ(fs::path(found).filename(), "regal-throughput-4xv100-16gb-nvlink.json") << found;
    EXPECT_EQ(fs::path(findDefaultPolicy("runtime", "4xv100-16gb-nvlink")).filename(),
              "regal-runtime-4xv100-16gb-nvlink.json");
    // No memory policy for that preset: the error names every file it looked for.
    try {
        findDefaultPolicy("memory", derived);
        FAIL() << "no memory policy ships for 4xv100-16gb-nvlink";
    } catch (const std::invalid_argument& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("regal-memory-4xv100-16gb-nvlink.json"), std::string::npos) << m;
        EXPECT_NE(m.find("regal-memory-any.json"), std::string::npos) << m;
    }
    // The same words elsewhere in a name are not a data set's suffix.
    EXPECT_THROW(findDefaultPolicy("throughput", std::string(kMemoryShareSuffix) + "x"), std::invalid_argument);
}
