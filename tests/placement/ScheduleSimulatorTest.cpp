// Hand-checked decodings: every expected number is worked out in the comments.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "TestGraphs.h"
#include "placement/model/ScheduleSimulator.h"
#include "placement/search/SearchContext.h"

namespace graphopt {
namespace {

using test::GraphBuilder;

ScheduleSimulator makeSim(const Graph& g, const DeviceModel& m, PlacementObjective obj = PlacementObjective::Runtime,
                          bool weights = true) {
    ScheduleOptions o;
    o.objective = obj;
    o.countWeights = weights;
    return ScheduleSimulator(std::make_shared<const ScheduleProblem>(g, m, o));
}

int64_t curveMax(const std::vector<MemoryPoint>& c) {
    int64_t m = 0;
    for (auto& p : c) m = std::max(m, p.bytes);
    return m;
}

// x(10 B) -> A(1 s, 100 B) -> B(2 s, 200 B, temp 1000 B) -> C(3 s, 50 B, graph output); one device.
Graph chain() {
    GraphBuilder b;
    int x = b.input("x", 10);
    int a = b.op("A", {x}, 100, 1.0);
    int bb = b.op("B", {a}, 200, 2.0, 1000);
    b.op("C", {bb}, 50, 3.0, 0, true);
    return b.done();
}

TEST(ScheduleSimulator, ChainOnOneDeviceMakespanAndPeak) {
    Graph g = chain();
    auto sim = makeSim(g, test::testDevices(2, 1.0, 10.0));
    ScheduleDetail d;
    ScheduleCosts c = sim.evaluatePlacement(std::vector<int>{0, 0, 0}, std::vector<int>{0, 1, 2}, &d);
    // A 0-1, B 1-3, C 3-6.
    EXPECT_DOUBLE_EQ(c.makespan, 6.0);
    EXPECT_DOUBLE_EQ(c.cost, 6.0);
    // t0: x 10, A starts +100 = 110; t1: x freed = 100, B starts +200 +1000 temp = 1300 (peak);
    // t3: temp and A's output freed = 200, C starts +50 = 250; t6: B's output freed = 50.
    EXPECT_EQ(c.peakBytes, 1300);
    EXPECT_EQ(d.devicePeakBytes[0], 1300);
    EXPECT_EQ(d.devicePeakBytes[1], 0);
    EXPECT_EQ(d.memory[0].back().bytes, 50);
    EXPECT_DOUBLE_EQ(d.memory[0].back().time, 6.0);
    EXPECT_EQ(curveMax(d.memory[0]), 1300);
    EXPECT_TRUE(d.transfers.empty());
    EXPECT_DOUBLE_EQ(d.ops[1].start, 1.0);
    EXPECT_DOUBLE_EQ(d.ops[1].end, 3.0);
    EXPECT_EQ(d.order, (std::vector<int>{0, 1, 2}));
}

// x(10) -> A(1 s, 20 B); B(A) 4 s, 40 B; C(A) 4 s, 30 B; D(B, C) 1 s, 5 B graph output.
// Links: 1 s latency, 10 B/s.
Graph forkJoin(bool withWeight) {
    GraphBuilder b;
    int x = b.input("x", 10);
    int w = withWeight ? b.weight("w", 1000) : -1;
    int a = b.op("A", withWeight ? std::vector<int>{x, w} : std::vector<int>{x}, 20, 1.0);
    int bb = b.op("B", {a}, 40, 4.0);
    int c = b.op("C", withWeight ? std::vector<int>{a, w} : std::vector<int>{a}, 30, 4.0);
    b.op("D", {bb, c}, 5, 1.0, 0, true);
    return b.done();
}

TEST(ScheduleSimulator, ForkJoinWithTransfers) {
    Graph g = forkJoin(false);
    auto sim = makeSim(g, test::testDevices(2, 1.0, 10.0));
    ScheduleDetail d;
    // A, B, D on dev0; C on dev1.
    ScheduleCosts c = sim.evaluatePlacement(std::vector<int>{0, 0, 1, 0}, std::vector<int>{0, 1, 2, 3}, &d);
    // A 0-1; A's output to dev1: 1 + 20/10 = 3 s, 1-4; B 1-5 on dev0; C 4-8 on dev1;
    // C's output to dev0: 1 + 30/10 = 4 s, 8-12; D 12-13.
    EXPECT_DOUBLE_EQ(c.makespan, 13.0);
    ASSERT_EQ(d.transfers.size(), 2u);
    EXPECT_DOUBLE_EQ(d.transfers[0].start, 1.0);
    EXPECT_DOUBLE_EQ(d.transfers[0].end, 4.0);
    EXPECT_EQ(d.transfers[0].bytes, 20);
    EXPECT_DOUBLE_EQ(d.transfers[1].start, 8.0);
    EXPECT_DOUBLE_EQ(d.transfers[1].end, 12.0);
    EXPECT_DOUBLE_EQ(d.ops[2].start, 4.0);
    EXPECT_DOUBLE_EQ(d.ops[3].start, 12.0);
    // dev0: t0 x 10 + A 20 = 30; t1 x freed 20, B +40 = 60; t5 B ends: A's output (last use by B,
    // its transfer ended at 4) freed = 40; t8 C's copy arrives +30 = 70 (from its transfer start);
    // t12 D +5 = 75 (peak); t13 B and the copy of C freed = 5.
    // dev1: t1 copy of A +20; t4 C +30 = 50 (peak); t8 copy of A freed = 30; t12 C's output freed
    // after its transfer = 0.
    EXPECT_EQ(d.devicePeakBytes[0], 75);
    EXPECT_EQ(d.devicePeakBytes[1], 50);
    EXPECT_EQ(c.peakBytes, 75);
    EXPECT_EQ(d.memory[0].back().bytes, 5);
    EXPECT_EQ(d.memory[1].back().bytes, 0);

    // All on one device, order A B C D: 1 + 4 + 4 + 1 = 10 s, no transfers.
    // Memory: t0 30; t1 20 + 40 = 60; t5 C +30 = 90 (peak; A's output still needed by C);
    // t9 A's output freed, D +5 = 75; t10 = 5.
    ScheduleCosts one = sim.evaluatePlacement(std::vector<int>{0, 0, 0, 0}, std::vector<int>{0, 1, 2, 3}, &d);
    EXPECT_DOUBLE_EQ(one.makespan, 10.0);
    EXPECT_EQ(one.peakBytes, 90);
    EXPECT_TRUE(d.transfers.empty());
}

TEST(ScheduleSimulator, FastLinkMakesSplittingPay) {
    Graph g = forkJoin(false);
    // Latency 0.1 s, 1000 B/s: A's output 0.12 s, C's 0.13 s. A 0-1, B 1-5 | C 1.12-5.12,
    // back at 5.25, D 5.25-6.25.
    auto sim = makeSim(g, test::testDevices(2, 0.1, 1000.0));
    ScheduleCosts c = sim.evaluatePlacement(std::vector<int>{0, 0, 1, 0}, std::vector<int>{0, 1, 2, 3});
    EXPECT_NEAR(c.makespan, 6.25, 1e-12);
}

TEST(ScheduleSimulator, WeightsResidentOnEveryConsumingDevice) {
    Graph g = forkJoin(true);
    // Same schedule as ForkJoinWithTransfers; the 1000 B weight is read by A (dev0) and C (dev1),
    // so it sits on both devices for the whole run.
    auto sim = makeSim(g, test::testDevices(2, 1.0, 10.0));
    ScheduleDetail d;
    ScheduleCosts c = sim.evaluatePlacement(std::vector<int>{0, 0, 1, 0}, std::vector<int>{0, 1, 2, 3}, &d);
    EXPECT_EQ(d.devicePeakBytes[0], 1075);
    EXPECT_EQ(d.devicePeakBytes[1], 1050);
    EXPECT_EQ(d.memory[0].front().bytes, 1010);  // weight + graph input at time 0
    EXPECT_EQ(d.memory[0].back().bytes, 1005);
    EXPECT_EQ(d.memory[1].back().bytes, 1000);
    EXPECT_EQ(c.peakBytes, 1075);

    auto noWeights = makeSim(g, test::testDevices(2, 1.0, 10.0), PlacementObjective::Memory, false);
    ScheduleCosts m = noWeights.evaluatePlacement(std::vector<int>{0, 0, 1, 0}, std::vector<int>{0, 1, 2, 3});
    EXPECT_EQ(m.peakBytes, 75);
    EXPECT_DOUBLE_EQ(m.cost, 75.0);  // memory objective: cost = peak bytes
}

TEST(ScheduleSimulator, LinkIsFifoOneTransferAtATime) {
    GraphBuilder b;
    int x = b.input("x", 1);
    int p1 = b.op("P1", {x}, 50, 1.0);
    int p2 = b.op("P2", {x}, 10, 1.0);
    b.op("C1", {p1}, 1, 1.0, 0, true);
    b.op("C2", {p2}, 1, 1.0, 0, true);
    Graph g = b.done();
    auto sim = makeSim(g, test::testDevices(2, 1.0, 10.0));
    ScheduleDetail d;
    // P1 0-1, P2 1-2 on dev0. P1's 50 B: 1 + 5 = 6 s, 1-7. P2's 10 B is queued at 2 behind it:
    // 7-9. C1 7-8 and C2 9-10 on dev1.
    ScheduleCosts c = sim.evaluatePlacement(std::vector<int>{0, 0, 1, 1}, std::vector<int>{0, 1, 2, 3}, &d);
    EXPECT_DOUBLE_EQ(c.makespan, 10.0);
    ASSERT_EQ(d.transfers.size(), 2u);
    EXPECT_DOUBLE_EQ(d.transfers[1].start, 7.0);
    EXPECT_DOUBLE_EQ(d.transfers[1].end, 9.0);
    EXPECT_DOUBLE_EQ(d.ops[3].start, 9.0);
}

TEST(ScheduleSimulator, PriorityKeyOrdersReadyOpsAndTiesGoToLowerId) {
    GraphBuilder b;
    int x = b.input("x", 1);
    for (int i = 0; i < 3; ++i) b.op("n" + std::to_string(i), {x}, 1, 1.0, 0, true);
    Graph g = b.done();
    auto sim = makeSim(g, test::testDevices(2, 1.0, 10.0));
    ScheduleDetail d;
    // Keys per node: dev0, dev1, priority. All on dev0 (0.9 > 0.1).
    std::vector<double> keys = {0.9, 0.1, 0.2, 0.9, 0.1, 0.9, 0.9, 0.1, 0.5};
    sim.simulate(keys, &d);
    EXPECT_EQ(d.order, (std::vector<int>{1, 2, 0}));
    keys = {0.9, 0.1, 0.5, 0.9, 0.1, 0.5, 0.9, 0.1, 0.5};
    sim.simulate(keys, &d);
    EXPECT_EQ(d.order, (std::vector<int>{0, 1, 2}));
    // Equal affinities go to the lower device; a larger second key moves the node.
    keys = {0.5, 0.5, 0.5, 0.2, 0.7, 0.5, 0.3, 0.3, 0.5};
    sim.simulate(keys, &d);
    EXPECT_EQ(d.ops[0].device, 0);
    EXPECT_EQ(d.ops[1].device, 1);
    EXPECT_EQ(d.ops[2].device, 0);
    EXPECT_DOUBLE_EQ(d.makespan, 2.0);  // n0, n2 on dev0; n1 in parallel on dev1
}

TEST(ScheduleSimulator, GraphInputLiveOnEachConsumingDeviceFromTimeZero) {
    GraphBuilder b;
    int x = b.input("x", 10);
    b.op("A", {x}, 1, 2.0, 0, true);
    b.op("B", {x}, 1, 3.0, 0, true);
    Graph g = b.done();
    auto sim = makeSim(g, test::testDevices(2, 1.0, 10.0));
    ScheduleDetail d;
    sim.evaluatePlacement(std::vector<int>{0, 1}, std::vector<int>{0, 1}, &d);
    EXPECT_EQ(d.memory[0].front().bytes, 10);
    EXPECT_EQ(d.memory[1].front().bytes, 10);
    EXPECT_EQ(d.devicePeakBytes[0], 11);
    EXPECT_EQ(d.memory[0].back().bytes, 1);  // x freed at 2 when A ends; A's output stays
    EXPECT_DOUBLE_EQ(d.makespan, 3.0);
    EXPECT_TRUE(d.transfers.empty());  // graph inputs are not transferred
}

TEST(ScheduleSimulator, ControlEdgeOrdersWithoutMovingData) {
    GraphBuilder b;
    int x = b.input("x", 1);
    b.op("A", {x}, 1000, 2.0, 0, true);
    b.op("B", {x}, 1, 1.0, 0, true);
    b.control(0, 1);
    Graph g = b.done();
    auto sim = makeSim(g, test::testDevices(2, 1.0, 10.0));
    ScheduleDetail d;
    // B waits for A although on another device; nothing is sent. A 0-2, B 2-3.
    sim.evaluatePlacement(std::vector<int>{0, 1}, std::vector<int>{1, 0}, &d);
    EXPECT_DOUBLE_EQ(d.ops[1].start, 2.0);
    EXPECT_DOUBLE_EQ(d.makespan, 3.0);
    EXPECT_TRUE(d.transfers.empty());
}

// evaluate()'s runtime-only decoder lets an idle device start its next release early when no
// transfer can arrive before it ("lookahead"); a control edge releases without a transfer, so it
// must not be overtaken. Latency 1 s, 10 B/s.
TEST(ScheduleSimulator, ControlEdgeReleaseIsNotOvertakenByLookahead) {
    GraphBuilder b;
    int x = b.input("x", 1);
    int p = b.op("P", {x}, 10, 4.0);
    b.op("A", {x}, 1, 1.5, 0, true);
    b.op("B", {p}, 1, 1.0, 0, true);
    b.op("C", {x}, 1, 1.0, 0, true);
    b.control(1, 3);
    Graph g = b.done();
    auto sim = makeSim(g, test::testDevices(2, 1.0, 10.0));
    // dev0: P 0-4, A 4-5.5. P's 10 B reach dev1 at 4 + 1 + 1 = 6. A's end releases C at 5.5:
    // C 5.5-6.5 on dev1, then B 6.5-7.5. (Starting B at 6, as if nothing could reach dev1 before
    // A's end + 1 s of latency, would give C 7-8.)
    const std::vector<double> keys = {0.9, 0.1, 0.9, 0.9, 0.1, 0.5, 0.1, 0.9, 0.9, 0.1, 0.9, 0.5};
    ScheduleDetail d;
    EXPECT_DOUBLE_EQ(sim.simulate(keys, &d).makespan, 7.5);
    EXPECT_DOUBLE_EQ(d.ops[3].start, 5.5);
    const ScheduleCosts fast = sim.evaluate(keys);
    EXPECT_FALSE(fast.memoryTracked);  // the runtime-only decoder ran
    EXPECT_DOUBLE_EQ(fast.makespan, 7.5);
}

TEST(ScheduleSimulator, OverCapacityIsInfeasibleAndPenaltyGrowsWithExcess) {
    Graph g = chain();  // peak 1300 B, makespan 6 s on one device
    auto small = makeSim(g, test::testDevices(2, 1.0, 10.0, 100));
    auto larger = makeSim(g, test::testDevices(2, 1.0, 10.0, 1000));
    auto enough = makeSim(g, test::testDevices(2, 1.0, 10.0, 1300));
    std::vector<int> place{0, 0, 0}, order{0, 1, 2};
    ScheduleCosts a = small.evaluatePlacement(place, order), b = larger.evaluatePlacement(place, order),
                  c = enough.evaluatePlacement(place, order);
    EXPECT_FALSE(a.feasible);
    EXPECT_FALSE(b.feasible);
    EXPECT_TRUE(c.feasible);
    // r = excess / capacity: 12 and 0.3; cost = B * (2 + 10 r) + 6, where B bounds every feasible
    // solution's cost, so an infeasible one always ranks behind them.
    const double B = small.problem().feasibleCostBound;
    EXPECT_EQ(B, larger.problem().feasibleCostBound);
    EXPECT_GE(B, 6.0);
    EXPECT_DOUBLE_EQ(a.cost, B * (2 + 10 * 12.0) + 6.0);
    EXPECT_DOUBLE_EQ(b.cost, B * (2 + 10 * 0.3) + 6.0);
    EXPECT_DOUBLE_EQ(c.cost, 6.0);
    EXPECT_GT(b.cost, 2 * B);
    EXPECT_GT(a.cost, b.cost);
    EXPECT_GT(b.cost, c.cost);
}

TEST(ScheduleSimulator, EvaluateMatchesSimulateAndReusesBuffers) {
    Graph g = test::randomGraph(7, {40});
    auto sim = makeSim(g, DeviceModel::preset("4xgpu-nvlink"));
    Rng rng(3);
    std::vector<double> keys(sim.keyCount());
    for (int trial = 0; trial < 20; ++trial) {
        for (auto& k : keys) k = rng.uniform();
        ScheduleCosts a = sim.evaluate(keys);
        ScheduleDetail d;
        ScheduleCosts b = sim.simulate(keys, &d);
        ScheduleCosts c = sim.evaluate(keys);
        EXPECT_EQ(a.cost, b.cost);
        EXPECT_EQ(a.cost, c.cost);
        EXPECT_EQ(d.makespan, a.makespan);
        // Runtime on 4 x 16 GiB: nothing can overflow, so evaluate() skips the memory accounting.
        EXPECT_FALSE(a.memoryTracked);
        EXPECT_TRUE(b.memoryTracked);
    }
    EXPECT_THROW(sim.evaluate(std::vector<double>(3, 0.5)), std::invalid_argument);

    // Memory objective, or devices that could overflow: evaluate() tracks memory.
    auto mem = makeSim(g, DeviceModel::preset("4xgpu-nvlink"), PlacementObjective::Memory);
    auto tight = makeSim(g, test::testDevices(2, 1e-5, 1e9, 1000));
    for (ScheduleSimulator* s : {&mem, &tight}) {
        std::vector<double> k(s->keyCount());
        for (auto& x : k) x = rng.uniform();
        ScheduleCosts a = s->evaluate(k);
        ScheduleDetail d;
        ScheduleCosts b = s->simulate(k, &d);
        EXPECT_TRUE(a.memoryTracked);
        EXPECT_EQ(a.peakBytes, b.peakBytes);
        EXPECT_EQ(a.cost, b.cost);
    }
    EXPECT_FALSE(tight.problem().runtimeCannotOverflow);
}

TEST(ScheduleSimulator, KeysFromPlacementOrderReproduceTheOrderOnOneDevice) {
    Graph g = test::randomGraph(11, {30});
    auto sim = makeSim(g, test::testDevices(2, 1.0, 10.0));
    // Any topological order runs exactly as given when everything is on one device.
    std::vector<int> topo = g.topologicalOrder();
    ScheduleDetail d;
    sim.simulate(keysFromPlacementOrder(2, std::vector<int>(g.nodeCount(), 1), topo), &d);
    EXPECT_EQ(d.order, topo);
    for (auto& op : d.ops) EXPECT_EQ(op.device, 1);
}

// Issue 20: priorities used to be stored as floats, so two keys closer than about 6e-8 tied and
// the lower node id went first whatever the keys said. A and B are ready at once on device 0
// (1 s each); C reads B on device 1 after a 1 s transfer. B first: C runs 2-3 s; A first: 3-4 s.
TEST(ScheduleSimulator, PrioritiesCloserThanAFloatAreOrdered) {
    GraphBuilder b;
    const int x = b.input("x", 8);
    b.op("A", {x}, 8, 1.0, 0, true);
    const int bo = b.op("B", {x}, 0, 1.0);
    b.op("C", {bo}, 8, 1.0, 0, true);
    const Graph g = b.done();
    for (PlacementObjective objective : {PlacementObjective::Runtime, PlacementObjective::Memory})
        for (double high : {0.5 + 1e-9, std::nextafter(0.5, 1.0)}) {
            SCOPED_TRACE(high);
            auto sim = makeSim(g, test::testDevices(2, 1.0, 1e9), objective);
            // Keys per node: affinity dev0, affinity dev1, priority. B is a hair above A.
            const std::vector<double> keys = {1, 0, 0.5, 1, 0, high, 0, 1, 0.5};
            EXPECT_DOUBLE_EQ(sim.evaluate(keys).makespan, 3.0);
            ScheduleDetail d;
            EXPECT_DOUBLE_EQ(sim.simulate(keys, &d).makespan, 3.0);
            EXPECT_EQ(d.order, (std::vector<int>{1, 0, 2}));
            // And the other way round: A a hair above B runs first.
            const std::vector<double> swapped = {1, 0, high, 1, 0, 0.5, 0, 1, 0.5};
            EXPECT_DOUBLE_EQ(sim.evaluate(swapped).makespan, 4.0);
        }
}

// Issue 20: a graph built in code (never validated) whose bytes add up past int64_t is refused
// with the tensor's name instead of overflowing the simulator's memory sums.
TEST(ScheduleSimulator, RefusesGraphsWhoseBytesCannotBeSummed) {
    GraphBuilder b;
    const int x = b.input("x", 8);
    const int a = b.op("A", {x}, int64_t(1) << 61, 1.0);
    b.op("huge", {a}, int64_t(1) << 61, 1.0, 0, true);  // with x and A: 2^62 + 8 bytes
    b.g.finalize();
    try {
        ScheduleProblem p(b.g, test::testDevices(2, 1.0, 1e9), ScheduleOptions{});
        FAIL() << "accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("'huge:0'"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace graphopt
