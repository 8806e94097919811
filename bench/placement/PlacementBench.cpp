// Placement benchmarks: schedule-simulator decodings per second on generated graphs (100, 1,000,
// 10,000 nodes) and on the bundled models, and BRKGA evaluations per second with 1 and 2 threads
// (5,000 evaluations of a 1,000-node graph: the "BRKGA5K" wall time).
//   ./placement_bench                      all
//   ./placement_bench --benchmark_filter=Decode
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>

#include "graph/Loaders.h"
#include "graph/SyntheticGenerator.h"
#include "placement/PlacementRun.h"
#include "run/Rng.h"
#include "placement/model/ScheduleSimulator.h"

using namespace graphopt;

namespace {

// Decodes a fixed set of 64 random chromosomes round-robin, so the branch predictor cannot learn
// one schedule.
void decodeLoop(benchmark::State& state, const Graph& g, PlacementObjective objective) {
    ScheduleOptions o;
    o.objective = objective;
    auto problem = std::make_shared<const ScheduleProblem>(g, DeviceModel::preset("2xgpu-pcie"), o);
    ScheduleSimulator sim(problem);
    Rng rng(1);
    std::vector<std::vector<double>> keys(64, std::vector<double>(sim.keyCount()));
    for (auto& k : keys)
        for (auto& x : k) x = rng.uniform();
    size_t i = 0;
    double sink = 0;
    for (auto _ : state) {
        sink += sim.evaluate(keys[i++ & 63]).cost;
        benchmark::DoNotOptimize(sink);
    }
    state.SetItemsProcessed(state.iterations());
    state.counters["nodes"] = double(g.nodeCount());
    state.counters["edges"] = double(g.edges().size());
    state.counters["us_per_decode"] =
        benchmark::Counter(double(state.iterations()) * 1e-6, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

const Graph& generated(GraphFamily f, int nodes) {
    static std::map<std::pair<int, int>, std::unique_ptr<Graph>> cache;
    auto& slot = cache[{int(f), nodes}];
    if (!slot) slot = std::make_unique<Graph>(generateGraph({f, nodes, 1}));
    return *slot;
}

void BM_DecodeGenerated(benchmark::State& state) {
    const auto family = GraphFamily(state.range(0));
    decodeLoop(state, generated(family, int(state.range(1))), PlacementObjective::Runtime);
    state.SetLabel(graphFamilyName(family));
}
BENCHMARK(BM_DecodeGenerated)
    ->ArgsProduct({{int(GraphFamily::Layered), int(GraphFamily::Branchy), int(GraphFamily::Chain)},
                   {100, 1000, 10000}})
    ->Unit(benchmark::kMicrosecond);

void BM_DecodeGeneratedMemory(benchmark::State& state) {
    decodeLoop(state, generated(GraphFamily::Layered, int(state.range(0))), PlacementObjective::Memory);
}
BENCHMARK(BM_DecodeGeneratedMemory)->Arg(1000)->Unit(benchmark::kMicrosecond);

// 5,000 BRKGA evaluations (p = 100) of a 1,000-node layered graph; items/s = evaluations/s.
void BM_Brkga5k(benchmark::State& state) {
    const Graph& g = generated(GraphFamily::Layered, 1000);
    RunSpec spec;
    spec.engine = "brkga";
    spec.objective = "runtime";
    spec.budget = 5000;
    spec.threads = int(state.range(0));
    int64_t evals = 0;
    for (auto _ : state) {
        PlacementResult r = PlacementRun(g, spec).run();
        evals += r.evaluations;
        benchmark::DoNotOptimize(r.cost);
    }
    state.SetItemsProcessed(evals);
    state.counters["threads"] = double(state.range(0));
}
BENCHMARK(BM_Brkga5k)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

}  // namespace

int main(int argc, char** argv) {
    namespace fs = std::filesystem;
    static std::vector<std::unique_ptr<Graph>> models;
    const fs::path dir = fs::path(GRAPHOPT_SOURCE_DIR) / "resources" / "models";
    if (fs::is_directory(dir)) {
        std::vector<fs::path> files;
        for (const auto& e : fs::directory_iterator(dir))
            if (e.path().extension() == ".onnx") files.push_back(e.path());
        std::sort(files.begin(), files.end());
        for (const auto& f : files) {
            try {
                models.push_back(std::make_unique<Graph>(loadGraph(f.string())));
            } catch (const std::exception& e) {
                fprintf(stderr, "skipping %s: %s\n", f.c_str(), e.what());
                continue;
            }
            const Graph* g = models.back().get();
            benchmark::RegisterBenchmark(("BM_DecodeModel/" + f.stem().string()).c_str(),
                                         [g](benchmark::State& s) { decodeLoop(s, *g, PlacementObjective::Runtime); })
                ->Unit(benchmark::kMicrosecond);
        }
    }
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
