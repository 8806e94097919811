// Step mode (teaching): a placement run with RunReporter::step pauses after each BRKGA generation,
// reports where each individual came from, and finds exactly what it finds without pausing.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "TestGraphs.h"
#include "placement/PlacementRun.h"
#include "run/StepGate.h"

namespace graphopt {
namespace {

RunSpec brkgaSpec(int64_t budget) {
    RunSpec s;
    s.engine = "brkga";
    s.objective = "runtime";
    s.devices = "2xgpu-pcie";
    s.budget = budget;
    s.seed = 7;
    s.threads = 2;
    s.params = {{"population", 20}, {"elite_fraction", 0.2}, {"mutant_fraction", 0.15}};
    return s;
}

TEST(StepMode, EveryGenerationIsOneStepWithItsOriginsAndTheBestSoFar) {
    Graph g = test::randomGraph(3, {10, 8});
    const RunSpec spec = brkgaSpec(20 + 4 * 16);  // generation 0 and four whole generations
    std::vector<ProgressEvent> events;
    std::vector<PlacementResult> steps;
    RunReporter reporter;
    reporter.progress = [&](const ProgressEvent& e) { events.push_back(e); };
    reporter.step = [&](const RunOutcome& best) {
        // Each step comes right after its generation's progress event.
        ASSERT_EQ(events.size(), steps.size() + 1);
        steps.push_back(*dynamic_cast<const PlacementResult*>(&best));
    };
    PlacementRun run(g, spec);
    const PlacementResult r = run.run(reporter);
    ASSERT_EQ(steps.size(), 5u);
    ASSERT_EQ(events.size(), 5u);
    for (size_t s = 0; s < steps.size(); ++s) {
        const std::string origins = events[s].values.at("population_origins");
        ASSERT_EQ(origins.size(), 20u) << s;
        EXPECT_EQ(events[s].values.at("population_costs").size(), 20u);
        if (s == 0) {
            EXPECT_EQ(std::count(origins.begin(), origins.end(), 'i'), 20);
        } else {
            EXPECT_EQ(std::count(origins.begin(), origins.end(), 'e'), 4) << s;       // 0.2 x 20
            EXPECT_EQ(std::count(origins.begin(), origins.end(), 'm'), 3) << s;       // 0.15 x 20
            EXPECT_EQ(std::count(origins.begin(), origins.end(), 'o'), 13) << s;
        }
        // The step's placement is the best so far, decoded in full.
        EXPECT_DOUBLE_EQ(steps[s].cost, events[s].bestCost) << s;
        EXPECT_EQ(steps[s].evaluations, events[s].evaluations);
        EXPECT_EQ(steps[s].engineInfo.at("step"), int64_t(s));
        EXPECT_EQ(steps[s].placement.size(), g.nodeCount());
        EXPECT_EQ(steps[s].schedule.ops.size(), g.nodeCount());
        if (s > 0) EXPECT_LE(steps[s].cost, steps[s - 1].cost);
    }
    EXPECT_EQ(steps.back().cost, r.cost);
    EXPECT_EQ(steps.back().placement, r.placement);

    // Without a step hook: the same search, no origins in the events.
    events.clear();
    const PlacementResult plain = PlacementRun(g, spec).run([&](const ProgressEvent& e) { events.push_back(e); });
    EXPECT_EQ(plain.cost, r.cost);
    EXPECT_EQ(plain.placement, r.placement);
    EXPECT_EQ(plain.order, r.order);
    for (const auto& e : events) EXPECT_FALSE(e.values.contains("population_origins"));
}

TEST(StepMode, TheGateLetsExactlyOneGenerationThroughPerStepAndCancelEndsAWaitingRun) {
    Graph g = test::randomGraph(4, {12, 9});
    PlacementRun run(g, brkgaSpec(1'000'000));
    StepGate gate;
    CancellationToken cancel;
    std::atomic<int> stepped{0};
    RunReporter reporter;
    reporter.step = [&](const RunOutcome&) {
        ++stepped;
        gate.wait(&cancel);
    };
    PlacementResult result;
    std::thread t([&] { result = run.run(reporter, &cancel); });
    auto waitFor = [&](int n) {
        for (int i = 0; i < 2000 && !(stepped == n && gate.waiting()); ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
    };
    waitFor(1);
    EXPECT_EQ(stepped, 1);  // generation 0, then it waits
    EXPECT_TRUE(gate.waiting());
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(stepped, 1);  // and keeps waiting
    gate.step();
    waitFor(2);
    EXPECT_EQ(stepped, 2);
    gate.step();
    gate.step();  // two clicks before it gets there: two generations
    waitFor(4);
    EXPECT_EQ(stepped, 4);
    EXPECT_EQ(gate.passed(), 3);
    cancel.cancel();  // while it waits
    t.join();
    EXPECT_TRUE(result.cancelled);
    EXPECT_EQ(result.evaluations, 20 + 3 * 16);
}

TEST(StepGate, ReleaseLetsTheRunGoOnWithoutWaiting) {
    StepGate gate;
    gate.release();
    EXPECT_TRUE(gate.wait());
    EXPECT_TRUE(gate.wait());
    EXPECT_EQ(gate.passed(), 2);
    CancellationToken cancel;
    cancel.cancel();
    StepGate closed;
    EXPECT_FALSE(closed.wait(&cancel));  // cancelled: returns at once instead of blocking
}

}  // namespace
}  // namespace graphopt
