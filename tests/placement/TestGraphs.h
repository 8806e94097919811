// Small graphs built by hand for the placement tests, and a seeded random DAG maker (independent
// of the product's SyntheticGenerator, so the simulator is checked on graphs it did not shape).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/Graph.h"
#include "placement/model/DeviceModel.h"
#include "run/Rng.h"

namespace graphopt::test {

class GraphBuilder {
public:
    int input(const std::string& name, int64_t bytes) { return tensor(name, bytes, TensorKind::GraphInput); }
    int weight(const std::string& name, int64_t bytes) { return tensor(name, bytes, TensorKind::Weight); }
    // Adds node `name` reading `inputs` (tensor ids), writing one output of `outBytes`; returns the
    // output tensor id. Node ids are given in call order starting at 0.
    int op(const std::string& name, std::vector<int> inputs, int64_t outBytes, double costS, int64_t temp = 0,
           bool graphOutput = false) {
        int out = tensor(name + ":0", outBytes, TensorKind::Activation);
        g.mutableTensors()[out].isGraphOutput = graphOutput;
        Node n;
        n.name = name;
        n.op = "Op";
        n.inputs = std::move(inputs);
        n.outputs = {out};
        n.computeCostS = costS;
        n.tempBytes = temp;
        g.addNode(std::move(n));
        return out;
    }
    // Gives node `node` one more output of `bytes`; returns its tensor id.
    int extraOutput(int node, int64_t bytes) {
        auto& n = g.mutableNodes()[node];
        int out = tensor(n.name + ":" + std::to_string(n.outputs.size()), bytes, TensorKind::Activation);
        n.outputs.push_back(out);
        return out;
    }
    void control(int from, int to) { g.mutableNodes()[to].controlInputs.push_back(from); }
    Graph done() {
        g.finalize();
        g.validate();
        return g;
    }
    Graph g;

private:
    int tensor(const std::string& name, int64_t bytes, TensorKind kind) {
        Tensor t;
        t.name = name;
        t.kind = kind;
        t.bytes = bytes;
        return g.addTensor(t);
    }
};

// d identical devices (given costs run as given), every link: latency + bytes / bandwidth.
inline DeviceModel testDevices(int d, double latencyS, double bandwidth, int64_t memory = int64_t(1) << 40) {
    std::vector<DeviceSpec> devs;
    for (int k = 0; k < d; ++k) devs.push_back({"dev" + std::to_string(k), 1e12, 0.0, memory, 1e12, 1.0});
    return DeviceModel("test", devs, LinkSpec{latencyS, bandwidth});
}

struct RandomGraphOptions {
    int nodes = 12;
    double extraEdgeProb = 0.25;  // besides one edge from an earlier node
    bool controlEdges = true;
    bool weights = true;
    bool zeroCosts = false;       // allow ops that take no time
    bool extraOutputs = false;    // some nodes get a second output, which later nodes may read
};

// A connected-ish random DAG: node i reads one earlier node's output, maybe more, maybe a graph
// input or a weight; random sizes, costs and temporaries; sinks are graph outputs, plus a few more.
inline Graph randomGraph(uint64_t seed, RandomGraphOptions o = {}) {
    Rng rng(seed);
    GraphBuilder b;
    std::vector<int> outs, extra;  // first outputs per node; second outputs
    int in0 = b.input("x", 1 + rng.index(5000));
    int in1 = b.input("y", 1 + rng.index(5000));
    int w0 = b.weight("w0", 1 + rng.index(20000));
    int w1 = b.weight("w1", 1 + rng.index(20000));
    for (int i = 0; i < o.nodes; ++i) {
        std::vector<int> ins;
        if (i == 0 || rng.uniform() < 0.15) ins.push_back(rng.uniform() < 0.5 ? in0 : in1);
        if (i > 0) ins.push_back(outs[rng.index(i)]);
        for (int j = 0; j < i; ++j)
            if (rng.uniform() < o.extraEdgeProb / (1 + i / 8.0)) ins.push_back(outs[j]);
        if (o.weights && rng.uniform() < 0.4) ins.push_back(rng.uniform() < 0.5 ? w0 : w1);
        double cost = (o.zeroCosts && rng.uniform() < 0.2) ? 0.0 : 1e-4 * (1 + rng.index(100));
        if (o.extraOutputs && !extra.empty() && rng.uniform() < 0.5) ins.push_back(extra[rng.index(int(extra.size()))]);
        outs.push_back(b.op("n" + std::to_string(i), ins, 1 + rng.index(100000), cost,
                            rng.uniform() < 0.3 ? rng.index(50000) : 0, rng.uniform() < 0.1));
        if (o.extraOutputs && rng.uniform() < 0.25) extra.push_back(b.extraOutput(i, 1 + rng.index(100000)));
    }
    if (o.controlEdges)
        for (int i = 2; i < o.nodes; ++i)
            if (rng.uniform() < 0.1) b.control(rng.index(i), i);
    Graph g = b.done();
    for (int v = 0; v < int(g.nodeCount()); ++v)
        if (g.successors(v).empty()) g.mutableTensors()[g.nodes()[v].outputs[0]].isGraphOutput = true;
    return g;
}

}  // namespace graphopt::test
