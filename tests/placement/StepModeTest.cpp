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
    Graph g = test::randomGraph(3, {30});
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
    Graph g = test::randomGraph(4, {40});
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

namespace graphopt {
namespace {

// Heuristic seeds (issue 19): BRKGA and REGAL may start from the solutions of heft, xla-best and
// single; the search then never ends worse than the best of them, and their evaluations count.
TEST(HeuristicSeeds, TheSearchEndsNoWorseThanTheBestHeuristicAndCountsItsEvaluations) {
    for (const char* objective : {"runtime", "memory"})
        for (uint64_t graphSeed : {11u, 12u, 13u}) {
            Graph g = test::randomGraph(graphSeed, {40, 0.2});
            RunSpec base;
            base.objective = objective;
            base.devices = "4xgpu-nvlink";
            base.seed = 2;
            base.threads = 1;
            double bestHeuristic = 1e300;
            int64_t heuristicEvals = 0;
            for (const char* h : {"heft", "xla-best", "single"}) {
                RunSpec s = base;
                s.engine = h;
                const PlacementResult r = PlacementRun(g, s).run();
                bestHeuristic = std::min(bestHeuristic, r.cost);
                heuristicEvals += r.evaluations;
            }
            RunSpec s = base;
            s.engine = "brkga";
            s.budget = 60;  // a tiny budget: too small to find that on its own
            s.params = {{"seed_heuristics", true}, {"population", 20}};
            std::vector<ProgressEvent> events;
            RunReporter reporter;
            reporter.progress = [&](const ProgressEvent& e) { events.push_back(e); };
            reporter.step = [](const RunOutcome&) {};  // for the origins
            const PlacementResult seeded = PlacementRun(g, s).run(reporter);
            EXPECT_LE(seeded.cost, bestHeuristic) << objective << " graph " << graphSeed;
            EXPECT_EQ(seeded.evaluations, 60) << objective;  // the heuristics' share included
            EXPECT_EQ(seeded.engineInfo.at("seeded_with").size(), 3u);
            ASSERT_FALSE(events.empty());
            const std::string origins = events.front().values.at("population_origins");
            EXPECT_EQ(std::count(origins.begin(), origins.end(), 's'), 3);
            EXPECT_EQ(events.front().evaluations, 20 + heuristicEvals);
        }
}

TEST(HeuristicSeeds, OffByDefaultSoStoredRunsKeepTheirMeaning) {
    Graph g = test::randomGraph(5, {30});
    RunSpec s;
    s.engine = "brkga";
    s.devices = "2xgpu-pcie";
    s.budget = 200;
    s.seed = 3;
    const PlacementResult plain = PlacementRun(g, s).run();
    EXPECT_TRUE(plain.engineInfo.at("seeded_with").empty());
    s.params = {{"seed_heuristics", false}};
    EXPECT_EQ(PlacementRun(g, s).run().cost, plain.cost);
}

}  // namespace
}  // namespace graphopt
