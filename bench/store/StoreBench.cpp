// Event insert throughput of the run store (events per second, the items_per_second column):
//  - one transaction per event (what a naive recorder would do),
//  - batches of 10 / 100 / 1000 events per transaction (what RunRecorder's writer does),
//  - RunRecorder end to end (record() on the engine thread, writes on its writer thread),
//  - RunRecorder::record() alone: the cost the engine thread pays per event,
//  - opening an existing database (the read-only integrity probe grows with the file).
// Each benchmark writes into a fresh database in a temporary folder; figures are wall-clock
// (UseRealTime), since commits wait on I/O rather than the CPU.
#include <filesystem>
#include <string>

#include <benchmark/benchmark.h>
#include <unistd.h>

#include "store/RunRecorder.h"
#include "store/RunStore.h"

using namespace graphopt;

namespace {

class ScratchDatabase {
public:
    ScratchDatabase() {
        std::string tmpl = (std::filesystem::temp_directory_path() / "graphopt-store-bench-XXXXXX").string();
        if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
        dir_ = tmpl;
    }
    ~ScratchDatabase() {
        std::error_code ec;
        std::filesystem::remove_all(dir_, ec);
    }
    std::string path() const { return (dir_ / "runs.db").string(); }

private:
    std::filesystem::path dir_;
};

RunSpec benchSpec() {
    RunSpec s;
    s.engine = "brkga";
    s.kind = "placement";
    s.objective = "runtime";
    s.budget = 1000000;
    return s;
}

// A BRKGA-like event: the population's costs (64 values) ride along, as the GUI charts them.
ProgressEvent benchEvent(int64_t i) {
    ProgressEvent e;
    e.step = i;
    e.evaluations = 64 * (i + 1);
    e.bestCost = 1.0 + 1.0 / double(i + 1);
    e.elapsedS = 0.001 * double(i);
    std::vector<double> pop(64);
    for (size_t k = 0; k < pop.size(); ++k) pop[k] = e.bestCost + 0.01 * double(k);
    e.values = {{"population_costs", pop}};
    return e;
}

void BM_InsertOneTransactionPerEvent(benchmark::State& state) {
    ScratchDatabase scratch;
    RunStore store(scratch.path());
    int64_t run = store.beginRun(benchSpec(), std::nullopt);
    ProgressEvent e = benchEvent(1);
    for (auto _ : state) store.appendEvents(run, {e});
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_InsertOneTransactionPerEvent)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_InsertBatched(benchmark::State& state) {
    ScratchDatabase scratch;
    RunStore store(scratch.path());
    int64_t run = store.beginRun(benchSpec(), std::nullopt);
    std::vector<ProgressEvent> batch(size_t(state.range(0)), benchEvent(1));
    for (auto _ : state) store.appendEvents(run, batch);
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_InsertBatched)->Arg(10)->Arg(100)->Arg(1000)->Unit(benchmark::kMicrosecond)->UseRealTime();

// Record N events and wait until they are all in the database.
void BM_RecorderEndToEnd(benchmark::State& state) {
    ScratchDatabase scratch;
    const int64_t n = state.range(0);
    ProgressEvent e = benchEvent(1);
    for (auto _ : state) {
        RunRecorder rec(scratch.path(), benchSpec(), std::nullopt);
        for (int64_t i = 0; i < n; ++i) rec.record(e);
        rec.finish({});
    }
    state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_RecorderEndToEnd)->Arg(10000)->Unit(benchmark::kMillisecond)->UseRealTime();

// What the engine thread pays: record() only (the writer drains in the background).
void BM_RecorderRecordCall(benchmark::State& state) {
    ScratchDatabase scratch;
    RunRecorder rec(scratch.path(), benchSpec(), std::nullopt);
    ProgressEvent e = benchEvent(1);
    for (auto _ : state) rec.record(e);
    state.SetItemsProcessed(state.iterations());
    rec.finish({});
}
BENCHMARK(BM_RecorderRecordCall)->Unit(benchmark::kMicrosecond)->UseRealTime();

// Opening checks the whole file first (header, read-only PRAGMA quick_check): this is what that
// costs as the database grows (each event here is about 1 KB with its population costs).
void BM_OpenExistingStore(benchmark::State& state) {
    ScratchDatabase scratch;
    {
        RunStore store(scratch.path());
        int64_t run = store.beginRun(benchSpec(), std::nullopt);
        std::vector<ProgressEvent> batch(1000, benchEvent(1));
        for (int64_t n = 0; n < state.range(0); n += 1000) store.appendEvents(run, batch);
        store.endRun(run, RunStatus::Finished);
    }
    for (auto _ : state) RunStore store(scratch.path());
    state.counters["MB"] = double(std::filesystem::file_size(scratch.path())) / 1e6;
}
BENCHMARK(BM_OpenExistingStore)->Arg(1000)->Arg(100000)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
