// A placement executed for real (executePlacement): over two workers the reference model still
// computes PyTorch's output, the tensors that cross devices are copied, and on one device the
// memory each worker held is the simulator's prediction to the byte.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "execution/PlacementExecutor.h"
#include "execution/TorchProgram.h"
#include "graph/Loaders.h"
#include "placement/PlacementRun.h"
#include "placement/model/ScheduleSimulator.h"
#include "TestModels.h"

using namespace graphopt;
using namespace graphopt::exec;

namespace {

struct Loaded {
    ConstantValues constants;
    Graph g;
    test_support::TinyReference ref = test_support::tinyReference();
    Loaded() : g(loadOnnx(test_support::kTinyModel, {}, &constants)) {}
};

ExecutionPlan alternating(const Graph& g, int devices) {
    ExecutionPlan plan;
    plan.devices = devices;
    plan.priority = g.topologicalOrder();
    plan.deviceOf.assign(g.nodeCount(), 0);
    for (size_t i = 0; i < plan.priority.size(); ++i) plan.deviceOf[size_t(plan.priority[i])] = int(i % size_t(devices));
    plan.cores.assign(size_t(devices), -1);  // not pinned: the test machine may have one core
    return plan;
}

TEST(PlacementExecutor, TwoWorkersComputePyTorchsOutput) {
    Loaded m;
    TorchProgram p(m.g, m.constants, 1);
    p.setValues(m.g.findTensor(m.ref.inputName), m.ref.input);
    p.recompute();
    const ExecutionPlan plan = alternating(m.g, 2);
    const auto runs = executePlacement(p, plan, 2, 1);
    ASSERT_EQ(runs.size(), 2u);
    for (const auto& r : runs) {
        const auto& out = r.outputs.at(m.g.findTensor(m.ref.outputName));
        ASSERT_EQ(out.size(), m.ref.output.size());
        for (size_t i = 0; i < out.size(); ++i) EXPECT_NEAR(out[i], m.ref.output[i], 1e-4);
        EXPECT_GT(r.makespanS, 0);
        int ops = 0;
        for (const auto& d : r.devices) {
            ops += d.ops;
            EXPECT_GT(d.copies, 0) << "every other node is on the other device";
            EXPECT_GT(d.copyBytes, 0);
            EXPECT_GT(d.peakBytes, 0);
            EXPECT_GT(d.busyS, 0);
        }
        EXPECT_EQ(ops, int(m.g.nodeCount()));
        // Every node started after the nodes it reads from ended.
        for (size_t v = 0; v < m.g.nodeCount(); ++v)
            for (int u : m.g.predecessors(int(v))) EXPECT_GE(r.startS[v], r.endS[size_t(u)]) << m.g.nodes()[v].name;
    }
}

TEST(PlacementExecutor, OnOneDeviceHoldsTheMemoryTheSimulatorPredicts) {
    Loaded m;
    TorchProgram p(m.g, m.constants, 1);
    for (bool weights : {true, false}) {
        ExecutionPlan plan = alternating(m.g, 1);
        plan.countWeights = weights;
        const auto r = executePlacement(p, plan, 1, 0).at(0);
        RunSpec spec;
        spec.objective = "runtime";
        spec.params["count_weights"] = weights;
        ScheduleSimulator sim(compilePlacementProblem(m.g, DeviceModel::preset("cpu-cores"), spec));
        ScheduleDetail detail;
        std::vector<int> onZero(m.g.nodeCount(), 0);
        sim.evaluatePlacement(onZero, plan.priority, &detail);
        EXPECT_EQ(r.devices[0].peakBytes, detail.devicePeakBytes.at(0)) << (weights ? "weights counted" : "weights not counted");
        EXPECT_EQ(r.devices[0].copies, 0);
    }
}

TEST(PlacementExecutor, RefusesAPlanThatDoesNotFitTheGraph) {
    Loaded m;
    TorchProgram p(m.g, m.constants, 1);
    ExecutionPlan plan = alternating(m.g, 2);
    plan.deviceOf[0] = 5;
    EXPECT_THROW(executePlacement(p, plan), std::invalid_argument);
    plan = alternating(m.g, 2);
    plan.priority.pop_back();
    EXPECT_THROW(executePlacement(p, plan), std::invalid_argument);
    plan = alternating(m.g, 2);
    plan.priority[0] = plan.priority[1];
    EXPECT_THROW(executePlacement(p, plan), std::invalid_argument);
}

}  // namespace
