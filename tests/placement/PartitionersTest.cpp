// The partitioners (core/placement/partitioners/): dp-contiguous against a brute force over every
// contiguous split, hand-worked cases for m-etf, pipedream and the hand-made workload, the
// ideals' explosion, and every partitioner's placement checked against memory, colocation and
// device support whenever it says it fits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "TestGraphs.h"
#include "graph/Loaders.h"
#include "placement/PlacementEngines.h"
#include "placement/PlacementRun.h"
#include "placement/model/ScheduleSimulator.h"
#include "placement/partitioners/PartitionModel.h"
#include "placement/partitioners/Partitioners.h"

namespace graphopt {
namespace {

const std::string kWorkload = std::string(GRAPHOPT_SOURCE_DIR) + "/tests/data/workloads/two_accelerators.json";

std::vector<int> placementOf(const std::vector<double>& keys, int n, int d) {
    std::vector<int> out(n);
    for (int v = 0; v < n; ++v) {
        const double* k = keys.data() + size_t(v) * (d + 1);
        out[v] = int(std::max_element(k, k + d) - k);
    }
    return out;
}

SearchOutcome runEngine(const std::string& engine, const Graph& g, const DeviceModel& m, PlacementObjective objective,
                        nlohmann::json params = nlohmann::json::object()) {
    ScheduleOptions o;
    o.objective = objective;
    SearchContext ctx{g, m, std::make_shared<ScheduleProblem>(g, m, o)};
    ctx.budget = 100;
    ctx.params = std::move(params);
    return findPlacementEngine(engine)(ctx);
}

// `chains` independent chains of three ops (100 bytes each) from one input, joined at the end:
// 4^chains ideals. Chain c's ops cost costOf(c) seconds each.
Graph parallelChains(int chains, const std::function<double(int)>& costOf) {
    test::GraphBuilder b;
    int x = b.input("x", 10);
    std::vector<int> ends;
    for (int c = 0; c < chains; ++c) {
        int t = x;
        for (int i = 0; i < 3; ++i) t = b.op("c" + std::to_string(c) + "_" + std::to_string(i), {t}, 100, costOf(c));
        ends.push_back(t);
    }
    b.op("join", ends, 10, 1e-3, 0, true);
    return b.done();
}

// The static memory of a block as PartitionModel.h defines it, written out again: the weights its
// nodes read (once), their resident bytes and the largest working set of one node.
int64_t blockBytes(const ScheduleProblem& p, const std::vector<int>& placement, int device) {
    int64_t bytes = 0, working = 0;
    for (int v = 0; v < p.n; ++v) {
        if (placement[v] != device) continue;
        bytes += p.residentBytes[v];
        int64_t w = p.tempBytes[v] + p.outBytes[v];
        for (int j = p.inStart[v]; j < p.inStart[v + 1]; ++j) w += p.tensorBytes[p.inTensors[j]];
        working = std::max(working, w);
    }
    for (size_t w = 0; w < p.weightBytes.size(); ++w)
        for (int j = p.weightStart[w]; j < p.weightStart[w + 1]; ++j)
            if (placement[p.weightNodes[j]] == device) {
                bytes += p.weightBytes[w];
                break;
            }
    return bytes + working;
}

// Whether the devices' blocks can be ordered with every edge going forward (a contiguous split):
// the graph of blocks has no cycle.
bool contiguous(const Graph& g, const std::vector<int>& placement, int d) {
    std::vector<uint32_t> to(d, 0);
    for (int v = 0; v < int(g.nodeCount()); ++v)
        for (int u : g.predecessors(v))
            if (placement[u] != placement[v]) to[placement[u]] |= 1u << placement[v];
    // Remove blocks with no incoming edge until none is left (Kahn on d nodes).
    uint32_t left = (1u << d) - 1;
    for (bool progress = true; progress && left;) {
        progress = false;
        for (int a = 0; a < d; ++a) {
            if (!((left >> a) & 1)) continue;
            bool incoming = false;
            for (int b = 0; b < d; ++b)
                if (b != a && ((left >> b) & 1) && ((to[b] >> a) & 1)) incoming = true;
            if (!incoming) left &= ~(1u << a), progress = true;
        }
    }
    return left == 0;
}

// Three device setups: identical devices with a memory limit, an accelerator beside a slower CPU
// that pays no transfers, two accelerators and a CPU.
DeviceModel setupFor(int which, int64_t memory) {
    const LinkSpec link{2e-4, 5e8};
    DeviceSpec acc{"acc", 1e12, 0.0, memory, 1e12, 1.0, "gpu", true};
    DeviceSpec cpu{"cpu", 1e12, 0.0, int64_t(1) << 40, 1e12, 0.3, "cpu", false};
    std::vector<DeviceSpec> devs;
    switch (which) {
        case 0: devs = {acc, acc}; break;
        case 1: devs = {acc, acc, acc}; break;
        case 2: devs = {acc, cpu}; break;
        default: devs = {acc, acc, cpu}; break;
    }
    for (size_t k = 0; k < devs.size(); ++k) devs[k].name += std::to_string(k);
    return DeviceModel("setup" + std::to_string(which), devs, link);
}

TEST(DpContiguous, EqualsTheBruteForceOverContiguousSplits) {
    int compared = 0, memoryBound = 0;
    for (uint64_t seed = 1; seed <= 80; ++seed) {
        Rng rng(seed * 7919);
        const int which = int(seed % 4);
        const int d = which == 0 || which == 2 ? 2 : 3;
        const int nodes = 4 + int(rng.index(d == 2 ? 9 : 7));  // 4-12 nodes on two devices, 4-10 on three
        Graph g = test::randomGraph(seed, {nodes});
        // A memory limit between half and 1.2 times the graph's bytes: it binds on most graphs.
        ScheduleProblem probe(g, setupFor(which, int64_t(1) << 40), ScheduleOptions{});
        std::vector<int> all(probe.n, 0);
        const int64_t total = blockBytes(probe, all, 0);
        const int64_t memory = total / 2 + int64_t(rng.index(uint64_t(total) * 7 / 10));
        const DeviceModel m = setupFor(which, memory);
        ScheduleOptions o;
        o.objective = PlacementObjective::Throughput;
        auto p = std::make_shared<ScheduleProblem>(g, m, o);
        ScheduleSimulator sim(p);

        double best = std::numeric_limits<double>::infinity();
        std::vector<int> placement(p->n, 0);
        for (;;) {
            bool fits = true;
            for (int k = 0; k < d && fits; ++k) fits = blockBytes(*p, placement, k) <= p->capacity[k];
            if (fits && contiguous(g, placement, d)) best = std::min(best, sim.maxLoad(placement));
            int i = 0;
            while (i < p->n && ++placement[i] == d) placement[i++] = 0;
            if (i == p->n) break;
        }
        const SearchOutcome dp = runEngine("dp-contiguous", g, m, PlacementObjective::Throughput);
        ASSERT_TRUE(dp.info.value("exact", false)) << seed;
        if (!std::isfinite(best)) {
            EXPECT_FALSE(dp.info.value("fits", true)) << "seed " << seed << ": no contiguous split fits";
            continue;
        }
        const std::vector<int> got = placementOf(dp.keys, p->n, d);
        EXPECT_TRUE(contiguous(g, got, d)) << seed;
        const double load = sim.maxLoad(got);
        EXPECT_NEAR(load, best, 1e-12 * best) << "seed " << seed << ", " << nodes << " nodes, setup " << which;
        EXPECT_NEAR(dp.info.at("max_load_s").get<double>(), load, 1e-12 * load) << seed;
        ++compared;
        if (memory < total) ++memoryBound;
    }
    EXPECT_GE(compared, 50);
    EXPECT_GE(memoryBound, 25);
}

// The hand-made workload (devices acc0, acc1 of 1000 bytes, cpu0): a backward node feeds a forward
// one, so every node counts as forward; embed and node13 share a colour class, so attn, on a path
// between them, joins them: unit A = {embed, attn, node13} (1000 bytes: fits one accelerator),
// lookup (CPU only), head. A on an accelerator costs 2 + 4 + 1 = 7 ms and pays embed's transfer
// to the CPU (1.5) and node13's to head (0.5): 9 ms, the bottleneck of every split (head with A
// would make the split not contiguous and costs more anyway).
TEST(DpContiguous, FindsTheHandSplitOfTheWorkload) {
    Graph g = loadGraph(kWorkload);
    DeviceModel m = *DeviceModel::fromGraph(g);
    const SearchOutcome dp = runEngine("dp-contiguous", g, m, PlacementObjective::Throughput);
    EXPECT_DOUBLE_EQ(dp.info.at("max_load_s").get<double>(), 0.009);
    EXPECT_EQ(dp.info.at("units").get<int>(), 3);
    const std::vector<int> got = placementOf(dp.keys, int(g.nodeCount()), 3);
    EXPECT_EQ(got[0], got[1]);  // embed, attn
    EXPECT_EQ(got[0], got[3]);  // node13
    EXPECT_EQ(got[2], 2);       // lookup on the CPU
    EXPECT_NE(got[4], got[0]);
}

// 12 independent chains of three ops: 4^12 ideals. With max_ideals 1000 the program says so and
// splits one topological order instead.
TEST(DpContiguous, SaysSoWhenTheIdealsExplode) {
    const Graph g = parallelChains(12, [](int) { return 1e-3; });
    const SearchOutcome dp = runEngine("dp-contiguous", g, test::testDevices(4, 1e-5, 1e9),
                                       PlacementObjective::Throughput, {{"max_ideals", 1000}});
    EXPECT_FALSE(dp.info.at("exact").get<bool>());
    EXPECT_NE(dp.info.at("note").get<std::string>().find("more than 1000 ideals"), std::string::npos);
    EXPECT_TRUE(std::isfinite(dp.info.at("max_load_s").get<double>()));
}

// 6 independent chains of three ops: 4^6 = 4096 ideals, enumerated in full, and a program whose
// work (its steps) is counted, not timed: bounded below what it needs, it stops at the same
// point on every run (the same steps, the same split), says so, and splits one topological order;
// with the bound above what it needs it is exact and the bound changes nothing.
TEST(DpContiguous, StopsAtAStepCountNotAClock) {
    const Graph g = parallelChains(6, [](int c) { return (c + 1) * 1e-3; });
    const DeviceModel m = test::testDevices(3, 1e-5, 1e9);
    const SearchOutcome exact = runEngine("dp-contiguous", g, m, PlacementObjective::Throughput);
    ASSERT_TRUE(exact.info.at("exact").get<bool>());
    const int64_t needed = exact.info.at("steps").get<int64_t>();
    ASSERT_GT(needed, 100'000);

    const nlohmann::json bounded = {{"max_steps", needed / 4}};
    const SearchOutcome first = runEngine("dp-contiguous", g, m, PlacementObjective::Throughput, bounded);
    const SearchOutcome second = runEngine("dp-contiguous", g, m, PlacementObjective::Throughput, bounded);
    EXPECT_FALSE(first.info.at("exact").get<bool>());
    EXPECT_NE(first.info.at("note").get<std::string>().find("needs more than " + std::to_string(needed / 4) + " steps"),
              std::string::npos)
        << first.info.dump();
    EXPECT_EQ(first.info.at("steps"), second.info.at("steps"));
    EXPECT_GT(first.info.at("steps").get<int64_t>(), needed / 4);
    EXPECT_LT(first.info.at("steps").get<int64_t>(), needed);
    EXPECT_EQ(first.keys, second.keys);
    // One topological order's best split is no better than the best contiguous split.
    EXPECT_GE(first.info.at("max_load_s").get<double>(), exact.info.at("max_load_s").get<double>());

    const SearchOutcome roomy =
        runEngine("dp-contiguous", g, m, PlacementObjective::Throughput, {{"max_steps", needed + 1}});
    EXPECT_TRUE(roomy.info.at("exact").get<bool>());
    EXPECT_EQ(roomy.info.at("steps"), exact.info.at("steps"));
    EXPECT_EQ(roomy.keys, exact.keys);
}

// A chain of four layers of 4, 1, 1, 4 s, each handing on 1e9 bytes at 2e9 B/s (0.5 s) over two
// devices. PipeDream's stages: {1, 2} and {3, 4}, each 5 s; the boundary (2 x 0.5 s for a
// training graph, 0.5 s for inference) is its own stage.
TEST(PipeDream, SplitsAChainAtItsSlowestStage) {
    test::GraphBuilder b;
    int t = b.input("x", 1);
    const double costs[] = {4, 1, 1, 4};
    for (int i = 0; i < 4; ++i) t = b.op("l" + std::to_string(i), {t}, 1'000'000'000, costs[i], 0, i == 3);
    Graph g = b.done();
    const DeviceModel m = test::testDevices(2, 0, 2e9);
    const SearchOutcome r = runEngine("pipedream", g, m, PlacementObjective::Throughput);
    EXPECT_DOUBLE_EQ(r.info.at("pipedream_slowest_stage_s").get<double>(), 5.0);
    EXPECT_EQ(r.info.at("comm_factor").get<double>(), 1.0);
    EXPECT_EQ(placementOf(r.keys, 4, 2), (std::vector<int>{0, 0, 1, 1}));
    // A boundary that costs more than a stage: with comm_factor 24 every cut costs 12 s, so one
    // stage of 10 s beats any split.
    const SearchOutcome one = runEngine("pipedream", g, m, PlacementObjective::Throughput, {{"comm_factor", 24}});
    EXPECT_DOUBLE_EQ(one.info.at("pipedream_slowest_stage_s").get<double>(), 10.0);
    EXPECT_EQ(one.info.at("stages").get<int>(), 1);
}

// a (2 s) feeds b (3 s) and c (1 s), both feed d (1 s); two devices, 1 s per transfer. ETF by
// hand: a on dev0 [0, 2]; b and c could both start at 2 on dev0, b has the larger rank: dev0
// [2, 5]; c on dev1 starts at 3 (a's output arrives) rather than 5: [3, 4]; d on dev0 at
// max(5, 4 + 1) = 5 (dev1: 5 + 1 = 6): [5, 6].
TEST(MEtf, MatchesTheHandSchedule) {
    test::GraphBuilder b;
    int x = b.input("x", 1);
    int a = b.op("a", {x}, 1, 2.0);
    int bb = b.op("b", {a}, 1, 3.0);
    int c = b.op("c", {a}, 1, 1.0);
    b.op("d", {bb, c}, 1, 1.0, 0, true);
    Graph g = b.done();
    const DeviceModel m = test::testDevices(2, 1.0, 1e15);
    const SearchOutcome r = runEngine("m-etf", g, m, PlacementObjective::Runtime);
    EXPECT_EQ(placementOf(r.keys, 4, 2), (std::vector<int>{0, 0, 1, 0}));
    EXPECT_NEAR(r.info.at("etf_estimate_s").get<double>(), 6.0, 1e-9);
    EXPECT_TRUE(r.info.at("fits").get<bool>());
    RunSpec s;
    s.engine = "m-etf";
    s.objective = "runtime";
    const PlacementResult res = PlacementRun(g, s, m).run();
    EXPECT_NEAR(res.runtimeS, 6.0, 1e-9);

    // Four bytes per device, every byte held to the end (Baechi's count: the graph input, each
    // output, each received copy; one byte each): dev0 holds x, a, b (3); c would start later
    // there anyway; d does not fit on dev0 (3 + d + c's copy = 5) but does on dev1 (a's copy, c,
    // b's copy, d = 4), at max(4, 5 + 1) = 6: [6, 7].
    const SearchOutcome t = runEngine("m-etf", g, test::testDevices(2, 1.0, 1e15, 4), PlacementObjective::Runtime);
    EXPECT_EQ(placementOf(t.keys, 4, 2), (std::vector<int>{0, 0, 1, 1}));
    EXPECT_NEAR(t.info.at("etf_estimate_s").get<double>(), 7.0, 1e-9);
    EXPECT_TRUE(t.info.at("estimate_fits").get<bool>());
}

// Every partitioner, and HEFT with memory_aware, on the hand-made workload and on random graphs
// with colocation, device kinds and memory limits: whenever the run says the placement fits, it
// does, colocated nodes share a device and no node runs on a device its kinds exclude.
TEST(Partitioners, RespectMemoryColocationAndDeviceSupportWhenTheySayTheyFit) {
    struct Case {
        std::string engine;
        nlohmann::json params;
    };
    const nlohmann::json none = nlohmann::json::object();
    const std::vector<Case> engines = {{"dp-contiguous", none}, {"pipedream", none},     {"m-topo", none},
                                       {"m-etf", none},         {"greedy-latency", none}, {"heft", {{"memory_aware", true}}}};
    int feasible = 0, runs = 0;
    for (uint64_t seed = 1; seed <= 8; ++seed) {
        Graph g = test::randomGraph(seed, {30});
        auto& nodes = g.mutableNodes();
        for (int v = 0; v < 30; ++v) {
            if (v % 7 == 3) nodes[v].colocationClass = 1;  // a class spread over the graph
            if (v % 11 == 5) nodes[v].allowedKinds = {"cpu"};
        }
        ScheduleProblem probe(g, setupFor(3, int64_t(1) << 40), ScheduleOptions{});
        std::vector<int> all(probe.n, 0);
        const DeviceModel m = setupFor(3, blockBytes(probe, all, 0) * 3 / 4);
        for (const auto& c : engines)
            for (const char* objective : {"runtime", "throughput"}) {
                RunSpec s;
                s.engine = c.engine;
                s.objective = objective;
                s.params = c.params;
                const PlacementResult r = PlacementRun(g, s, m).run();
                ++runs;
                for (int v = 0; v < 30; ++v) {
                    if (v % 11 == 5) EXPECT_EQ(r.placement[v], 2) << c.engine << " " << v;
                    if (v % 7 == 3) EXPECT_EQ(r.placement[v], r.placement[3]) << c.engine << " " << v;
                }
                EXPECT_EQ(r.engineInfo.at("fits").get<bool>(), r.feasible) << c.engine;
                if (!r.feasible) continue;
                ++feasible;
                for (size_t k = 0; k < m.devices.size(); ++k)
                    EXPECT_LE(r.devicePeakBytes[k], m.devices[k].memoryBytes) << c.engine << " seed " << seed;
            }
    }
    EXPECT_GE(feasible, runs / 4);  // memory binds hard here (3/4 of the graph per accelerator)
}

TEST(SeedEngines, SeedBrkgaWithThePartitionersAndRefuseWhatIsNotAnEngine) {
    Graph g = test::randomGraph(3, {20});
    const DeviceModel m = setupFor(1, int64_t(1) << 40);
    RunSpec s;
    s.objective = "throughput";
    s.budget = 200;
    s.engine = "dp-contiguous";
    const double dp = PlacementRun(g, s, m).run().cost;
    s.engine = "brkga";
    s.params = {{"seed_engines", {"dp-contiguous", "m-etf"}}};
    const PlacementResult seeded = PlacementRun(g, s, m).run();
    EXPECT_LE(seeded.cost, dp);
    EXPECT_EQ(seeded.engineInfo.at("seeded_with"), nlohmann::json({"dp-contiguous", "m-etf"}));

    s.params = {{"seed_engines", {"no-such-engine"}}};
    EXPECT_THROW(PlacementRun(g, s, m).run(), std::invalid_argument);
    s.params = {{"seed_engines", {"brkga"}}};
    EXPECT_THROW(PlacementRun(g, s, m).run(), std::invalid_argument);
    EXPECT_THROW(checkParams("brkga", describePlacementEngine("brkga").params, {{"seed_engines", "m-etf"}}),
                 std::invalid_argument);
    EXPECT_NO_THROW(checkParams("brkga", describePlacementEngine("brkga").params, {{"seed_engines", {"m-etf"}}}));
}

}  // namespace
}  // namespace graphopt
