// tuning_bench [--model FILE] [--trials N] [--seed S] [--tuner NAME] [--min-time S] [--tasks a,b,..]
//              [--csv FILE]
//
// For each distinct conv task of the model (ResNet-18 by default): the best GFLOP/s random search
// (or --tuner) finds with N Halide measurements (default 200), the wall time it took, libtorch's
// own conv2d on the same shapes with the same number of threads, and the machine's FMA peak on 1
// and all threads. Figures depend on the machine and on its load: run it
// on an otherwise idle machine.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "graph/Loaders.h"
#include "tuning/HalideMeasurer.h"
#include "tuning/LibtorchReference.h"
#include "tuning/PeakFlops.h"
#include "tuning/TemplateSpace.h"
#include "tuning/TuningRun.h"

using namespace graphopt;
using namespace graphopt::tuning;
using graphopt::Rng;

int main(int argc, char** argv) {
    std::string model = std::string(GRAPHOPT_SOURCE_DIR) + "/resources/models/resnet18.onnx";
    std::string tuner = "random", csv;
    int64_t trials = 200;
    uint64_t seed = 1;
    double minTime = 0.05;
    std::set<size_t> only;
    for (int i = 1; i < argc; ++i) {
        auto value = [&](const char* flag) -> std::string {
            if (std::strcmp(argv[i], flag) || i + 1 >= argc) return {};
            return argv[++i];
        };
        std::string v;
        if (!(v = value("--model")).empty()) model = v;
        else if (!(v = value("--trials")).empty()) trials = std::stoll(v);
        else if (!(v = value("--seed")).empty()) seed = std::stoull(v);
        else if (!(v = value("--tuner")).empty()) tuner = v;
        else if (!(v = value("--min-time")).empty()) minTime = std::stod(v);
        else if (!(v = value("--csv")).empty()) csv = v;
        else if (!(v = value("--tasks")).empty()) {
            std::stringstream ss(v);
            for (std::string t; std::getline(ss, t, ',');) only.insert(std::stoul(t));
        } else {
            std::cerr << "usage: tuning_bench [--model FILE] [--trials N] [--seed S] [--tuner NAME] [--min-time S]"
                         " [--tasks i,j,..] [--csv FILE]\n";
            return 2;
        }
    }
    try {
        const PeakFlops peak = measurePeakFlops();
        std::cout << "machine peak (" << peak.isa << " FMA microbenchmark): " << std::fixed << std::setprecision(1)
                  << peak.gflops1 << " GFLOP/s on 1 thread, " << peak.gflopsAll << " GFLOP/s on " << peak.threads
                  << " threads\n";
        const auto tasks = extractTasks(loadGraph(model));
        HalideMeasurerOptions o;
#ifdef GRAPHOPT_MEASURE_WORKER
        o.workerPath = GRAPHOPT_MEASURE_WORKER;
#endif
        o.minTimeS = minTime;
        HalideMeasurer measurer(o);
        std::ofstream out;
        if (!csv.empty()) {
            out.open(csv);
            out << "task,description,weight,trials,failures,best_gflops,best_latency_s,libtorch_gflops,"
                   "libtorch_latency_s,peak_all_gflops,wall_s\n";
        }
        std::cout << "tuner " << tuner << ", " << trials << " Halide measurements per task, seed " << seed
                  << ", min time " << std::defaultfloat << minTime << " s per measurement\n";
        std::cout << std::left << std::setw(4) << "#" << std::setw(50) << "conv task" << std::right << std::setw(10)
                  << "GFLOP/s" << std::setw(9) << "% peak" << std::setw(11) << "ms" << std::setw(8) << "failed"
                  << std::setw(9) << "wall s" << std::setw(12) << "torch GF/s" << std::setw(10) << "vs torch" << "\n";
        int wins = 0, compared = 0;
        double totalTorch = 0;
        // libtorch first, for every task, before the Halide worker starts: its OpenMP threads
        // collapse when another process competes for the second core.
        std::map<size_t, LibtorchTiming> torchTimes;
        for (size_t i = 0; i < tasks.size(); ++i)
            if (tasks[i].isConv() && (only.empty() || only.count(i)))
                torchTimes[i] = timeLibtorch(tasks[i], peak.threads, 0.2);
        double totalBest = 0;
        for (size_t i = 0; i < tasks.size(); ++i) {
            const TuningTask& t = tasks[i];
            if (!t.isConv() || (!only.empty() && !only.count(i))) continue;
            TuningRunOptions ro;
            ro.budget = trials;
            ro.seed = seed;
            const auto t0 = std::chrono::steady_clock::now();
            TuningRun run(t, measurer, makeTuner(tuner, t, seed), ro);
            const TuningResult r = run.run();
            const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            totalBest += r.bestLatencyS() * t.weight;
            const LibtorchTiming torchT = torchTimes.at(i);
            totalTorch += torchT.medianS * t.weight;
            ++compared;
            wins += r.hasBest() && r.bestLatencyS() < torchT.medianS;
            std::cout << std::fixed << std::left << std::setw(4) << i << std::setw(50) << t.describe() << std::right
                      << std::setprecision(1) << std::setw(10) << r.bestGflops() << std::setw(8)
                      << 100.0 * r.bestGflops() / peak.gflopsAll << "%" << std::setprecision(3) << std::setw(11)
                      << r.bestLatencyS() * 1e3 << std::setw(8) << r.failures() << std::setprecision(1)
                      << std::setw(9) << wall << std::setw(12) << torchT.gflops << std::setw(9)
                      << (torchT.medianS > 0 && r.hasBest() ? torchT.medianS / r.bestLatencyS() : 0.0) << "x\n"
                      << std::flush;
            if (out)
                out << i << ",\"" << t.describe() << "\"," << t.weight << ',' << r.measurements.size() << ','
                    << r.failures() << ',' << r.bestGflops() << ',' << r.bestLatencyS() << ',' << torchT.gflops << ','
                    << torchT.medianS << ',' << peak.gflopsAll << ',' << wall << "\n";
        }
        std::cout << "sum of best conv latencies x uses: " << std::setprecision(3) << totalBest * 1e3
                  << " ms; libtorch conv2d: " << totalTorch * 1e3 << " ms; tuned kernel faster on " << wins << " of "
                  << compared << " layers\n";
    } catch (const std::exception& e) {
        std::cerr << "tuning_bench: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
