// The model's operators through libtorch (TorchProgram): the tiny reference model, exported with
// its weights, computes PyTorch's own output; an op the executor lacks is reported and stood in
// for; profiling times every node.
#include <gtest/gtest.h>

#include <cmath>

#include "execution/ProfileRun.h"
#include "execution/TorchProgram.h"
#include "graph/Loaders.h"
#include "TestModels.h"

using namespace graphopt;
using namespace graphopt::exec;

namespace {

double maxAbsDiff(const std::vector<float>& a, const std::vector<float>& b) {
    if (a.size() != b.size()) return INFINITY;
    double m = 0;
    for (size_t i = 0; i < a.size(); ++i) m = std::max(m, double(std::fabs(a[i] - b[i])));
    return m;
}

TEST(TorchProgram, ComputesPyTorchsOutputForTheReferenceModel) {
    ConstantValues constants;
    const Graph g = loadOnnx(test_support::kTinyModel, {}, &constants);
    const auto ref = test_support::tinyReference();
    EXPECT_GE(constants.size(), 10u) << "the weights, Clip's bounds and Pad's pads are read from the file";
    setTorchThreads(1);
    TorchProgram p(g, constants, 1);
    for (size_t v = 0; v < g.nodeCount(); ++v) EXPECT_EQ(p.whyNotRun(int(v)), "") << g.nodes()[v].name;
    p.setValues(g.findTensor(ref.inputName), ref.input);
    p.recompute();
    const auto out = p.values(g.findTensor(ref.outputName));
    ASSERT_EQ(out.size(), ref.output.size());
    EXPECT_LT(maxAbsDiff(out, ref.output), 1e-4);
}

TEST(TorchProgram, StandsInForAnOpItCannotRunAndSaysWhy) {
    // A graph of the JSON kind with an op the executor does not know in the middle.
    Graph g;
    g.name = "stand-in";
    auto tensor = [&](const std::string& name, TensorKind kind) {
        Tensor t;
        t.name = name;
        t.kind = kind;
        t.shape = {1, 4, 8, 8};
        t.shapeKnown = true;
        t.bytes = 4 * 256;
        return g.addTensor(t);
    };
    const int x = tensor("x", TensorKind::GraphInput);
    const int a = tensor("a", TensorKind::Activation), b = tensor("b", TensorKind::Activation),
              c = tensor("c", TensorKind::Activation);
    g.addNode(Node{"relu", "Relu", {}, {x}, {a}});
    g.addNode(Node{"odd", "FancyNorm", {}, {a}, {b}});
    g.addNode(Node{"sig", "Sigmoid", {}, {b}, {c}});
    g.mutableTensors()[size_t(c)].isGraphOutput = true;
    finalizeLoadedGraph(g, "stand-in.json");
    TorchProgram p(g, {}, 3);
    EXPECT_EQ(p.whyNotRun(0), "");
    EXPECT_NE(p.whyNotRun(1).find("op 'FancyNorm' is not implemented"), std::string::npos) << p.whyNotRun(1);
    EXPECT_EQ(p.whyNotRun(2), "") << "the node after it runs on stand-in values of the model's shape";
    EXPECT_EQ(p.values(c).size(), 256u);
    EXPECT_EQ(p.nodesRun(), 2);
    EXPECT_TRUE(p.timeNode(1, 0, 3).empty());
    EXPECT_EQ(p.timeNode(0, 1, 3).size(), 3u);
}

TEST(TorchProgram, ReportsAnOutputWhoseShapeDiffersFromTheModels) {
    Graph g;
    g.name = "bad-shape";
    Tensor in;
    in.name = "x";
    in.kind = TensorKind::GraphInput;
    in.shape = {2, 3};
    in.shapeKnown = true;
    const int x = g.addTensor(in);
    Tensor out = in;
    out.name = "y";
    out.kind = TensorKind::Activation;
    out.shape = {3, 2};  // a Relu cannot change the shape
    out.isGraphOutput = true;
    const int y = g.addTensor(out);
    g.addNode(Node{"relu", "Relu", {}, {x}, {y}});
    finalizeLoadedGraph(g, "bad.json");
    TorchProgram p(g, {}, 1);
    EXPECT_NE(p.whyNotRun(0).find("has shape [2,3], the model says [3,2]"), std::string::npos) << p.whyNotRun(0);
}

TEST(ProfileRun, TimesEveryNodeInsideForwardPasses) {
    ConstantValues constants;
    const Graph g = loadOnnx(test_support::kTinyModel, {}, &constants);
    RunSpec spec;
    spec.threads = 1;
    spec.params["repeats"] = 3;
    ProfileRun run(g, constants, spec, test_support::kTinyModel);
    int events = 0;
    RunReporter reporter;
    reporter.progress = [&](const ProgressEvent&) { ++events; };
    const ProfileResult r = run.run(reporter);
    EXPECT_EQ(r.status(), RunStatus::Finished);
    EXPECT_EQ(events, 2 + 3) << "one event per forward pass, warm-up included";
    EXPECT_EQ(r.costs.costs.size(), g.nodeCount());
    EXPECT_TRUE(r.costs.notProfiled.empty());
    EXPECT_EQ(r.costs.method, "forward-passes");
    for (const auto& [name, c] : r.costs.costs) {
        EXPECT_GT(c.medianS, 0) << name;
        EXPECT_LE(c.minS, c.medianS);
        EXPECT_GE(c.maxS, c.medianS);
        EXPECT_EQ(c.repeats, 3);
    }
    const RunResult stored = r.toRunResult();
    EXPECT_DOUBLE_EQ(*stored.cost, r.costs.totalS());
    EXPECT_EQ(stored.costs["op_costs"]["format"], "graphopt-op-costs");

    spec.params["isolated"] = true;
    spec.params["tuned_costs"] = {{g.nodes()[0].name, {{"seconds", 0.5}, {"run", 12}}}};
    ProfileRun isolated(g, constants, spec, test_support::kTinyModel);
    const ProfileResult ri = isolated.run();
    EXPECT_EQ(ri.costs.method, "isolated");
    EXPECT_DOUBLE_EQ(ri.costs.costs.at(g.nodes()[0].name).medianS, 0.5);
    EXPECT_EQ(ri.costs.costs.at(g.nodes()[0].name).source.rfind("tuned run 12", 0), 0u);
    EXPECT_GE(ri.costs.costs.at(g.nodes()[1].name).repeats, 3);

    CancellationToken cancel;
    cancel.cancel();
    ProfileRun cancelled(g, constants, spec, test_support::kTinyModel);
    EXPECT_EQ(cancelled.run({}, &cancel).status(), RunStatus::Cancelled);
}

}  // namespace
