// tuning_bench [--models resnet18,mobilenet_v2] [--trials N] [--tuner NAME] [--tuner-params JSON]
//              [--seed S] [--template tiled|packed|nchw] [--threads 1,2] [--min-time S] [--compare-time S]
//              [--tasks i,j,..] [--csv FILE]
//
// Tuned kernels against libtorch, fairly. For each conv task of each model (default ResNet-18 and
// MobileNet-v2) and each dense task: tune with --tuner (default release) for N Halide measurements
// (default 40) on all cores, then time the best kernel and libtorch's conv2d / mm in one worker
// process, interleaved, same data, same warm-up, at each thread count of --threads (a worker per
// count: Halide's pool size is fixed per process). Prints per task tuned and libtorch GFLOP/s,
// tuned / libtorch speed, share of the measured FMA peak; per model the geometric mean of the
// per-task speedups and the end-to-end estimate (below). Figures depend on the machine and its
// load: the CPU, the load average and libtorch's BLAS are printed first.
//
// End-to-end estimate (packed layouts: the tiled and the packed template): activations stay in NCHW[L]c between layers, L the
// machine's vector lanes; a layer whose tuned kernel wants another input block (ic_bn != L) pays
// a transform of its input, one whose output block differs (oc_bn != L) a transform of its output
// back, the model's image is transformed from NCHW to the first conv's block, and the last conv's
// output back to NCHW. Transforms are timed here (plain C++, one thread). Padding: a kernel that
// reads a pre-padded input (pad_at 0) assumes the layer before wrote its output with a zero halo,
// which a compiler arranges at no cost; the copy is not charged. libtorch's total is its own
// layer times (NCHW, no transforms). Both totals weight each task by its uses.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <ctime>

#include "graph/Graph.h"
#include "graph/Loaders.h"
#include "run/CpuIdentity.h"
#include "run/TextList.h"
#include "tuning/HalideMeasurer.h"
#include "tuning/LearnedTuners.h"
#include "tuning/PeakFlops.h"
#include "tuning/TemplateSpace.h"
#include "tuning/TuningRun.h"
#include "tuning/halide/PackedLayout.h"

using namespace graphopt;
using namespace graphopt::tuning;
using graphopt::Rng;

namespace {

using Clock = std::chrono::steady_clock;

std::string loadAverage() {
    std::ifstream f("/proc/loadavg");
    std::string a, b, c;
    f >> a >> b >> c;
    return a + " " + b + " " + c;
}

std::string utcNow() {
    const std::time_t now = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&now));
    return buf;
}

// Text for inside a quoted CSV field: quotes doubled.
std::string csvQuoted(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out;
}

// Median time of one activation layout transform (c x h x w, block `from` -> `to`).
double timeTransform(int64_t c, int64_t h, int64_t w, int from, int to) {
    std::vector<float> src(static_cast<size_t>(blockedSize(c, h, w, from)), 1.0f);
    std::vector<float> dst(static_cast<size_t>(blockedSize(c, h, w, to)));
    std::vector<double> times;
    double total = 0;
    while (total < 0.02 || times.size() < 5) {
        const auto t0 = Clock::now();
        repackActivation(c, h, w, from, to, src.data(), dst.data());
        times.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
        total += times.back();
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

struct Row {
    size_t index = 0;
    TuningTask task;
    TuningResult result;
    ConfigIndex best = 0;
    PackedParams packed;
    FairComparison cmp;
    double wallS = 0;
    double transformS = 0;  // layout transforms charged to this task per use (packed only)
};

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> models = {"resnet18", "mobilenet_v2"};
    std::string tuner = "release", csv, templ = "tiled";
    nlohmann::json tunerParams = {{"plan_size", 8}, {"initial_random", 16}};
    int64_t trials = 40;
    uint64_t seed = 1;
    double minTime = 0.05, compareTime = 0.3;
    std::vector<int> threadCounts = {1, 2};
    std::set<size_t> only;
    for (int i = 1; i < argc; ++i) {
        auto value = [&](const char* flag) -> std::string {
            if (std::strcmp(argv[i], flag) || i + 1 >= argc) return {};
            return argv[++i];
        };
        std::string v;
        if (!(v = value("--models")).empty()) models = splitList(v);
        else if (!(v = value("--trials")).empty()) trials = std::stoll(v);
        else if (!(v = value("--seed")).empty()) seed = std::stoull(v);
        else if (!(v = value("--tuner")).empty()) tuner = v;
        else if (!(v = value("--tuner-params")).empty()) tunerParams = nlohmann::json::parse(v);
        else if (!(v = value("--template")).empty()) templ = v;
        else if (!(v = value("--min-time")).empty()) minTime = std::stod(v);
        else if (!(v = value("--compare-time")).empty()) compareTime = std::stod(v);
        else if (!(v = value("--csv")).empty()) csv = v;
        else if (!(v = value("--threads")).empty()) {
            threadCounts.clear();
            for (const auto& t : splitList(v)) threadCounts.push_back(std::stoi(t));
        } else if (!(v = value("--tasks")).empty()) {
            for (const auto& t : splitList(v)) only.insert(std::stoul(t));
        } else {
            std::cerr << "usage: tuning_bench [--models resnet18,mobilenet_v2] [--trials N] [--tuner NAME]"
                         " [--tuner-params JSON] [--seed S] [--template tiled|packed|nchw] [--threads 1,2]"
                         " [--min-time S] [--compare-time S] [--tasks i,j,..] [--csv FILE]\n";
            return 2;
        }
    }
    std::sort(threadCounts.begin(), threadCounts.end());
    const int maxThreads = threadCounts.back();
    try {
        registerLearnedTuners();
        const int lanes = hostVectorLanes();
        const std::string cpu = hostCpu().label();
        std::cout << "CPU: " << (cpu.empty() ? "unknown" : cpu) << " (" << std::thread::hardware_concurrency()
                  << " hardware threads, " << lanes << "-lane vectors for the packed template)\n"
                  << "start " << utcNow() << ", load average " << loadAverage() << "\n";
        // Best of short runs per thread count; measured again whenever a tuned kernel beats it, and
        // at the end: on a shared machine the figures differ with the load (the shares of peak use
        // the start's, raised by any re-measurement).
        PeakFlops peak = measurePeakFlops();
        std::cout << "FMA peak (" << peak.isa << " microbenchmark, best of " << peak.runs << " runs): " << std::fixed
                  << std::setprecision(1) << peak.gflops1 << " GFLOP/s on 1 thread, " << peak.gflopsAll << " on "
                  << peak.threads << " threads; other processes used " << std::setprecision(2) << peak.otherBusyCores
                  << " cores meanwhile" << (peak.loaded ? " (LOADED: the peak may be low)" : "") << "\n";
        auto peakAt = [&](int threads) { return peak.at(threads); };

        HalideMeasurerOptions o;
#ifdef GRAPHOPT_MEASURE_WORKER
        o.workerPath = GRAPHOPT_MEASURE_WORKER;
#endif
        o.minTimeS = minTime;
        o.threads = maxThreads;  // tune on all the threads compared
        HalideMeasurer measurer(o);
        const nlohmann::json info = measurer.workerInfo();
        std::cout << "libtorch BLAS: " << info.value("blas", std::string("?")) << " (OPENBLAS_CORETYPE "
                  << info.value("openblas_coretype", std::string("unset")) << ")\n"
                  << "tuner " << tuner << " " << tunerParams.dump() << ", " << trials
                  << " measurements per task on " << maxThreads << " threads, seed " << seed << ", template " << templ
                  << "; comparisons interleaved, median over >= " << std::defaultfloat << compareTime
                  << " s per side\n";

        std::ofstream out;
        if (!csv.empty()) {
            out.open(csv);
            out << "model,task,description,template,uses,config,trials,failures,wall_s";
            for (int th : threadCounts)
                out << ",tuned_gflops_" << th << "t,libtorch_gflops_" << th << "t,speedup_" << th << "t,peak_share_" << th
                    << "t";
            out << ",transform_s\n";
        }
        for (const std::string& model : models) {
            const std::string path = std::string(GRAPHOPT_SOURCE_DIR) + "/resources/models/" + model + ".onnx";
            const Graph g = loadGraph(path);
            const auto tasks = extractTasks(g);
            std::cout << "\n## " << model << " (" << tasks.size() << " tasks)\n";
            std::cout << std::left << std::setw(3) << "#" << std::setw(56) << "task" << std::setw(5) << "uses"
                      << std::setw(22) << "best config" << std::right;
            for (int th : threadCounts)
                std::cout << std::setw(9) << ("tuned" + std::to_string(th)) << std::setw(9)
                          << ("torch" + std::to_string(th)) << std::setw(7) << "x" << std::setw(7) << "%peak";
            std::cout << std::setw(7) << "fail" << std::setw(7) << "wall\n";

            std::vector<Row> rows;
            for (size_t i = 0; i < tasks.size(); ++i) {
                if (!only.empty() && !only.count(i)) continue;
                Row row;
                row.index = i;
                row.task = withTemplate(tasks[i], templ, lanes);
                const auto t0 = Clock::now();
                TuningRunOptions ro;
                ro.budget = trials;
                ro.seed = seed;
                TuningRun run(row.task, measurer, makeTuner(tuner, row.task, seed, tunerParams), ro);
                row.result = run.run();
                if (!row.result.hasBest()) {
                    std::cout << std::left << std::setw(3) << i << row.task.describe() << ": no kernel ran ("
                              << (row.result.measurements.empty() ? row.result.error()
                                                                   : row.result.measurements.back().error)
                              << ")\n";
                    continue;
                }
                row.best = row.result.measurements[row.result.best].config;
                const KnobSpace space = templateSpace(row.task);
                if (row.task.isPacked()) row.packed = decodePacked(row.task, space, row.best);
                row.cmp = compareFairly(row.task, row.best, threadCounts, o, compareTime);
                row.wallS = std::chrono::duration<double>(Clock::now() - t0).count();

                std::string cfg;
                if (row.task.isTiled()) {
                    const TiledParams q = decodeTiled(row.task, space, row.best);
                    cfg = std::to_string(q.packed.icBn) + "/" + std::to_string(q.packed.ocBn) + " n" +
                          std::to_string(q.packed.regN) + " h" + std::to_string(q.yReg) + " o" +
                          std::to_string(q.packed.order) + " a" + std::to_string(q.accum) + " ic" +
                          std::to_string(q.icOuter) + "x" + std::to_string(q.icInner);
                } else if (row.task.isPacked())
                    cfg = std::to_string(row.packed.icBn) + "/" + std::to_string(row.packed.ocBn) + " n" +
                          std::to_string(row.packed.regN) + " o" + std::to_string(row.packed.order) + " p" +
                          std::to_string(row.packed.padAt) + " par" + std::to_string(row.packed.parallel);
                else
                    cfg = "#" + std::to_string(row.best);
                std::cout << std::left << std::setw(3) << i << std::setw(56) << row.task.describe() << std::setw(5)
                          << row.task.weight << std::setw(22) << cfg << std::right << std::fixed;
                for (int th : threadCounts) {
                    const LibtorchComparison* c = row.cmp.atThreads(th);
                    if (!c) {
                        std::cout << std::setw(32) << "(comparison failed)";
                        continue;
                    }
                    if (c->tunedGflops > peakAt(th)) {
                        peak = remeasuredIfBeaten(peak, c->tunedGflops, th);
                        std::cerr << "(a kernel beat the peak on " << th << " thread(s); measured again: "
                                  << peakAt(th) << " GFLOP/s)\n";
                    }
                    std::cout << std::setprecision(1) << std::setw(9) << c->tunedGflops << std::setw(9)
                              << c->libtorchGflops << std::setprecision(2) << std::setw(6) << c->speedup() << "x"
                              << std::setprecision(0) << std::setw(6) << 100 * c->tunedGflops / peakAt(th) << "%";
                }
                std::cout << std::setw(7) << row.result.failures() << std::setprecision(0) << std::setw(6)
                          << row.wallS << "s\n"
                          << std::flush;
                for (const auto& c : row.cmp.byThreads)
                    if (!c.ok) std::cout << "   comparison failed: " << c.error << "\n";
                rows.push_back(row);
            }

            // Transforms between layouts (packed layouts only): see the top of this file.
            if (templ != "nchw") {
                std::string firstConv, lastConv;
                for (const Node& n : g.nodes())
                    if (n.op == "Conv") {
                        if (firstConv.empty()) firstConv = n.name;
                        lastConv = n.name;
                    }
                for (Row& r : rows) {
                    const TuningTask& t = r.task;
                    if (!t.isPacked()) continue;
                    const bool isFirst = std::find(t.nodes.begin(), t.nodes.end(), firstConv) != t.nodes.end();
                    const bool isLast = std::find(t.nodes.begin(), t.nodes.end(), lastConv) != t.nodes.end();
                    double perUse = 0;
                    if (isFirst)  // the image, from NCHW to the first conv's block
                        perUse += timeTransform(t.inC, t.inH, t.inW, 0, r.packed.icBn);
                    else if (r.packed.icBn != lanes)
                        perUse += timeTransform(t.inC, t.inH, t.inW, lanes, r.packed.icBn);
                    if (r.packed.ocBn != lanes) perUse += timeTransform(t.outC, t.outH(), t.outW(), r.packed.ocBn, lanes);
                    r.transformS = perUse;
                    // The last conv's output back to NCHW (counted once, not per use).
                    if (isLast) r.transformS += timeTransform(t.outC, t.outH(), t.outW(), lanes, 0) / t.weight;
                }
            }

            std::cout << "\n" << model << " summary (uses-weighted totals; speedup = libtorch time / tuned time)\n";
            for (int th : threadCounts) {
                double tuned = 0, torch = 0, transforms = 0, logSum = 0, convLogSum = 0;
                int n = 0, convs = 0, convWins = 0;
                double worst = 1e9, best = 0;
                for (const Row& r : rows) {
                    const LibtorchComparison* c = r.cmp.atThreads(th);
                    if (!c) continue;
                    tuned += c->tunedS * r.task.weight;
                    torch += c->libtorchS * r.task.weight;
                    transforms += r.transformS * r.task.weight;
                    logSum += std::log(c->speedup());
                    ++n;
                    if (r.task.isConv()) {
                        convLogSum += std::log(c->speedup());
                        ++convs;
                        convWins += c->speedup() >= 1.0;
                        worst = std::min(worst, c->speedup());
                        best = std::max(best, c->speedup());
                    }
                }
                if (n == 0) continue;
                std::cout << std::fixed << std::setprecision(2) << "  " << th << " thread(s): ";
                if (convs > 0)
                    std::cout << "convs tuned >= libtorch on " << convWins << " of " << convs << " (speedup " << worst
                              << "-" << best << "x), geomean speedup convs " << std::exp(convLogSum / convs) << "x, ";
                std::cout << "all tasks " << std::exp(logSum / n) << "x\n"
                          << std::setprecision(3) << "    end to end: tuned " << tuned * 1e3 << " ms + transforms "
                          << transforms * 1e3 << " ms = " << (tuned + transforms) * 1e3 << " ms; libtorch "
                          << torch * 1e3 << " ms; speedup " << std::setprecision(2) << torch / (tuned + transforms)
                          << "x (without transforms " << torch / tuned << "x)\n";
            }
            if (out)
                for (const Row& r : rows) {
                    out << model << ',' << r.index << ",\"" << r.task.describe() << "\"," << r.task.templateName() << ','
                        << r.task.weight << ",\""
                        << csvQuoted(r.task.isPacked() ? r.packed.toJson().dump() : std::to_string(r.best)) << "\"," << trials << ','
                        << r.result.failures() << ',' << r.wallS;
                    for (int th : threadCounts) {
                        const LibtorchComparison* c = r.cmp.atThreads(th);
                        if (c)
                            out << ',' << c->tunedGflops << ',' << c->libtorchGflops << ',' << c->speedup() << ','
                                << c->tunedGflops / peakAt(th);
                        else
                            out << ",,,,";
                    }
                    out << ',' << r.transformS << "\n";
                }
        }
        const PeakFlops endPeak = measurePeakFlops();
        std::cout << "\nend " << utcNow() << ", load average " << loadAverage() << "; FMA peak now "
                  << std::setprecision(1) << endPeak.gflops1 << " GFLOP/s on 1 thread, " << endPeak.gflopsAll << " on "
                  << endPeak.threads << " (the shares of peak above use the start's)\n";
    } catch (const std::exception& e) {
        std::cerr << "tuning_bench: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
