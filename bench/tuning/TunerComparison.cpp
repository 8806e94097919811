// tuner_comparison [--model FILE] [--tasks 1,3,6,9] [--tuners random,autotvm,autotvm-as,release]
//                  [--seeds 1,2,3] [--budget N] [--batch B] [--min-time S]
//                  [--tuner-params JSON] [--csv FILE] [--markdown]
//
// ReLeASE's comparison (papers/ReLeASE.md, "What the product reports") on this machine: every
// tuner tunes every chosen conv task of the model (ResNet-18 by default) with the same number of
// real Halide measurements, once per seed, in the order seed > task > tuner so that a run cut
// short still has whole seeds. The CSV has one row per measurement (best GFLOP/s so far against
// the measurement count and the run's wall-clock seconds, model time included) for plotting.
// At the end it prints, per tuner and task:
//   - the final best kernel (mean and range over seeds), wall time, and the time the tuner itself
//     spent (cost-model fits + exploration);
//   - measurements and wall seconds to reach 95 % of the best kernel any tuner found;
//   - for each seed, the time autotvm took to find its final best and the time release and
//     autotvm-as needed to reach it (the paper's "optimization time" comparison);
//   - the best tuned kernel against libtorch's conv2d (1 and all threads) per layer.
// The tuner parameters (--tuner-params, default {"plan_size": 32, "initial_random": 32}) go to the
// model-based tuners (autotvm, autotvm-as, release) alike; random and ga get none.
// Figures depend on the machine's load: the load average is printed at the start and the end.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "graph/Loaders.h"
#include "tuning/HalideMeasurer.h"
#include "tuning/LearnedTuners.h"
#include "tuning/LibtorchReference.h"
#include "tuning/PeakFlops.h"
#include "tuning/TemplateSpace.h"
#include "tuning/TuningRun.h"

using namespace graphopt;
using namespace graphopt::tuning;
using graphopt::Rng;

namespace {

std::string loadAverage() {
    std::ifstream in("/proc/loadavg");
    std::string a, b, c;
    in >> a >> b >> c;
    return a + " " + b + " " + c;
}

std::vector<std::string> splitList(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    for (std::string t; std::getline(ss, t, ',');)
        if (!t.empty()) out.push_back(t);
    return out;
}

struct Record {
    std::string tuner;
    size_t task = 0;
    uint64_t seed = 0;
    std::vector<double> best;     // best GFLOP/s after each measurement
    std::vector<double> elapsed;  // run's wall seconds when each measurement was recorded
    double wallS = 0;
    double modelS = 0;  // cost-model fits + exploration, from the progress events
    int failures = 0;
    double finalBest() const { return best.empty() ? 0 : best.back(); }
    // First measurement whose best reaches `target`: (measurements, seconds).
    std::optional<std::pair<int, double>> reach(double target) const {
        for (size_t i = 0; i < best.size(); ++i)
            if (best[i] >= target && best[i] > 0) return std::make_pair(static_cast<int>(i) + 1, elapsed[i]);
        return std::nullopt;
    }
};

double planSeconds(const nlohmann::json& plan) {
    return plan.value("fit_s", 0.0) + plan.value("explore_s", 0.0);
}

struct Spread {
    std::vector<double> v;
    void add(double x) { v.push_back(x); }
    std::string text(int precision) const {
        if (v.empty()) return "-";
        double sum = 0;
        for (double x : v) sum += x;
        const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
        std::ostringstream os;
        os << std::fixed << std::setprecision(precision) << sum / static_cast<double>(v.size());
        if (v.size() > 1) os << " (" << *lo << "-" << *hi << ")";
        return os.str();
    }
};

}  // namespace

int main(int argc, char** argv) {
    std::string model = std::string(GRAPHOPT_SOURCE_DIR) + "/resources/models/resnet18.onnx";
    std::vector<std::string> tunerList = {"random", "autotvm", "autotvm-as", "release"};
    std::vector<size_t> taskList = {1, 3, 6, 9};
    std::vector<uint64_t> seeds = {1, 2, 3};
    int64_t budget = 96;
    int batch = 8;
    double minTime = 0.05;
    nlohmann::json modelParams = {{"plan_size", 32}, {"initial_random", 32}};
    std::string csvPath = "tuner_comparison.csv";
    for (int i = 1; i < argc; ++i) {
        auto value = [&](const char* flag) -> std::optional<std::string> {
            if (std::strcmp(argv[i], flag) || i + 1 >= argc) return std::nullopt;
            return std::string(argv[++i]);
        };
        std::optional<std::string> v;
        if ((v = value("--model"))) model = *v;
        else if ((v = value("--tasks"))) {
            taskList.clear();
            for (const auto& t : splitList(*v)) taskList.push_back(std::stoul(t));
        } else if ((v = value("--tuners"))) tunerList = splitList(*v);
        else if ((v = value("--seeds"))) {
            seeds.clear();
            for (const auto& s : splitList(*v)) seeds.push_back(std::stoull(s));
        } else if ((v = value("--budget"))) budget = std::stoll(*v);
        else if ((v = value("--batch"))) batch = std::stoi(*v);
        else if ((v = value("--min-time"))) minTime = std::stod(*v);
        else if ((v = value("--tuner-params"))) modelParams = nlohmann::json::parse(*v);
        else if ((v = value("--csv"))) csvPath = *v;
        else {
            std::cerr << "usage: tuner_comparison [--model FILE] [--tasks i,j,..] [--tuners a,b,..] [--seeds 1,2,3]"
                         " [--budget N] [--batch B] [--min-time S] [--tuner-params JSON] [--csv FILE]\n";
            return 2;
        }
    }
    try {
        registerLearnedTuners();
        const auto start = std::chrono::steady_clock::now();
        std::cout << "load average at start: " << loadAverage() << "\n";
        const PeakFlops peak = measurePeakFlops();
        std::cout << "machine peak (" << peak.isa << " FMA): " << std::fixed << std::setprecision(1) << peak.gflops1
                  << " GFLOP/s on 1 thread, " << peak.gflopsAll << " on " << peak.threads << " threads\n";
        const auto tasks = extractTasks(loadGraph(model));
        for (size_t t : taskList)
            if (t >= tasks.size() || !tasks[t].isConv())
                throw std::invalid_argument("task " + std::to_string(t) + " is not a conv task of the model");

        // libtorch first, before the measure worker starts (its OpenMP threads collapse when
        // another process competes for a core).
        std::map<size_t, std::pair<LibtorchTiming, LibtorchTiming>> torch;  // 1 thread, all threads
        for (size_t t : taskList)
            torch[t] = {timeLibtorch(tasks[t], 1, 0.2), timeLibtorch(tasks[t], peak.threads, 0.2)};

        HalideMeasurerOptions mo;
#ifdef GRAPHOPT_MEASURE_WORKER
        mo.workerPath = GRAPHOPT_MEASURE_WORKER;
#endif
        mo.minTimeS = minTime;
        HalideMeasurer measurer(mo);
        std::ofstream csv(csvPath);
        csv << "tuner,task,seed,measurement,elapsed_s,gflops,best_gflops\n";
        std::cout << "budget " << budget << " measurements per run, batch " << batch << ", min time " << std::defaultfloat
                  << minTime << " s, model-based tuner params " << modelParams.dump() << "\n";
        std::cout << "CSV (one row per measurement): " << csvPath << "\n\n";

        std::vector<Record> records;
        for (uint64_t seed : seeds)
            for (size_t t : taskList)
                for (const auto& tuner : tunerList) {
                    const bool modelBased = tuner != "random" && tuner != "ga" && tuner != "grid";
                    TuningRunOptions ro;
                    ro.budget = budget;
                    ro.batchSize = batch;
                    ro.seed = seed;
                    Record rec;
                    rec.tuner = tuner;
                    rec.task = t;
                    rec.seed = seed;
                    TuningRun run(tasks[t], measurer,
                                  makeTuner(tuner, tasks[t], seed, modelBased ? modelParams : nlohmann::json::object()),
                                  ro);
                    const TuningResult r = run.run([&](const ProgressEvent& e) {
                        if (!e.values.contains("tuner")) return;
                        const auto& info = e.values["tuner"];
                        if (info.contains("exploration")) rec.modelS += planSeconds(info["exploration"]);
                        if (info.contains("earlier_explorations"))
                            for (const auto& p : info["earlier_explorations"]) rec.modelS += planSeconds(p);
                    });
                    if (r.status() == RunStatus::Failed) throw std::runtime_error(tuner + ": " + r.error());
                    double best = 0;
                    for (size_t i = 0; i < r.measurements.size(); ++i) {
                        const auto& m = r.measurements[i];
                        if (m.ok) best = std::max(best, m.gflops);
                        rec.best.push_back(best);
                        rec.elapsed.push_back(m.elapsedS);
                        csv << tuner << ',' << t << ',' << seed << ',' << i + 1 << ',' << m.elapsedS << ','
                            << (m.ok ? m.gflops : 0.0) << ',' << best << "\n";
                    }
                    csv.flush();
                    rec.wallS = r.elapsedS;
                    rec.failures = r.failures();
                    std::cout << std::fixed << "seed " << seed << " task " << t << " " << std::left << std::setw(11)
                              << tuner << std::right << std::setprecision(1) << std::setw(8) << rec.finalBest()
                              << " GFLOP/s  wall " << std::setw(6) << rec.wallS << " s  tuner " << std::setprecision(2)
                              << std::setw(6) << rec.modelS << " s  failed " << rec.failures << "  (load "
                              << loadAverage() << ")\n"
                              << std::flush;
                    records.push_back(std::move(rec));
                }

        auto find = [&](const std::string& tuner, size_t task, uint64_t seed) -> const Record* {
            for (const auto& r : records)
                if (r.tuner == tuner && r.task == task && r.seed == seed) return &r;
            return nullptr;
        };
        std::map<size_t, double> bestAny;
        for (const auto& r : records) bestAny[r.task] = std::max(bestAny[r.task], r.finalBest());

        std::cout << "\n#### Final best GFLOP/s, mean (min-max) over seeds; wall s; tuner's own s (fits + exploration)\n\n";
        std::cout << "| tuner | task | best GFLOP/s | wall s | tuner s |\n|---|---|---|---|---|\n";
        for (const auto& tuner : tunerList)
            for (size_t t : taskList) {
                Spread best, wall, own;
                for (uint64_t s : seeds)
                    if (const Record* r = find(tuner, t, s)) {
                        best.add(r->finalBest());
                        wall.add(r->wallS);
                        own.add(r->modelS);
                    }
                std::cout << "| " << tuner << " | " << t << " | " << best.text(1) << " | " << wall.text(0) << " | "
                          << own.text(1) << " |\n";
            }

        std::cout << "\n#### To 95 % of the best kernel any tuner found: measurements and wall s, mean (min-max) over "
                     "the seeds that got there\n\n";
        std::cout << "| tuner | task | target GFLOP/s | reached | measurements | wall s |\n|---|---|---|---|---|---|\n";
        for (const auto& tuner : tunerList)
            for (size_t t : taskList) {
                Spread n, sec;
                int reached = 0, runs = 0;
                for (uint64_t s : seeds)
                    if (const Record* r = find(tuner, t, s)) {
                        ++runs;
                        if (auto hit = r->reach(0.95 * bestAny[t])) {
                            ++reached;
                            n.add(hit->first);
                            sec.add(hit->second);
                        }
                    }
                std::cout << "| " << tuner << " | " << t << " | " << std::setprecision(1) << 0.95 * bestAny[t] << " | "
                          << reached << "/" << runs << " | " << n.text(0) << " | " << sec.text(0) << " |\n";
            }

        if (std::count(tunerList.begin(), tunerList.end(), "autotvm")) {
            std::cout << "\n#### Time to reach autotvm's final best (same task and seed): autotvm's time to find it, "
                         "the others' time to match it, and autotvm's time / theirs\n\n";
            std::cout << "| task | seed | autotvm best | autotvm s |";
            for (const auto& tuner : tunerList)
                if (tuner != "autotvm") std::cout << " " << tuner << " s | speedup |";
            std::cout << "\n|---|---|---|---|";
            for (const auto& tuner : tunerList)
                if (tuner != "autotvm") std::cout << "---|---|";
            std::cout << "\n";
            std::map<std::string, double> sumTheirs, sumAutotvm;
            std::map<std::string, int> matched, pairs;
            for (size_t t : taskList)
                for (uint64_t s : seeds) {
                    const Record* a = find("autotvm", t, s);
                    if (!a || a->finalBest() <= 0) continue;
                    const auto own = a->reach(a->finalBest());
                    std::cout << "| " << t << " | " << s << " | " << std::setprecision(1) << a->finalBest() << " | "
                              << std::setprecision(0) << own->second << " |";
                    for (const auto& tuner : tunerList) {
                        if (tuner == "autotvm") continue;
                        const Record* o = find(tuner, t, s);
                        const auto hit = o ? o->reach(a->finalBest()) : std::nullopt;
                        ++pairs[tuner];
                        if (hit) {
                            ++matched[tuner];
                            sumTheirs[tuner] += hit->second;
                            sumAutotvm[tuner] += own->second;
                            std::cout << " " << std::setprecision(0) << hit->second << " | " << std::setprecision(2)
                                      << own->second / std::max(hit->second, 1e-9) << "x |";
                        } else {
                            std::cout << " not reached | - |";
                        }
                    }
                    std::cout << "\n";
                }
            std::cout << "\n";
            for (const auto& tuner : tunerList) {
                if (tuner == "autotvm") continue;
                std::cout << tuner << ": matched autotvm's final best in " << matched[tuner] << " of " << pairs[tuner]
                          << " runs";
                if (matched[tuner])
                    std::cout << "; over those, autotvm took " << std::setprecision(0) << sumAutotvm[tuner] << " s, "
                              << tuner << " " << sumTheirs[tuner] << " s (" << std::setprecision(2)
                              << sumAutotvm[tuner] / std::max(sumTheirs[tuner], 1e-9) << "x less time)";
                std::cout << "\n";
            }
        }

        std::cout << "\n#### Tuned (best over every tuner and seed) against libtorch's conv2d\n\n";
        std::cout << "| task | conv | uses | tuned GFLOP/s | tuned ms | libtorch 1 thr GFLOP/s | libtorch " << peak.threads
                  << " thr GFLOP/s | libtorch best ms | tuned / libtorch time |\n|---|---|---|---|---|---|---|---|---|\n";
        double tunedTotal = 0, torchTotal = 0;
        for (size_t t : taskList) {
            const auto& [one, all] = torch[t];
            const double torchBest = std::min(one.medianS, all.medianS);
            const double tunedS = bestAny[t] > 0 ? tasks[t].flops() / (bestAny[t] * 1e9) : 0;
            tunedTotal += tunedS * tasks[t].weight;
            torchTotal += torchBest * tasks[t].weight;
            std::cout << "| " << t << " | " << tasks[t].describe() << " | " << tasks[t].weight << " | "
                      << std::setprecision(1) << bestAny[t] << " | " << std::setprecision(3) << tunedS * 1e3 << " | "
                      << std::setprecision(1) << one.gflops << " | " << all.gflops << " | " << std::setprecision(3)
                      << torchBest * 1e3 << " | " << std::setprecision(2) << tunedS / torchBest << " |\n";
        }
        std::cout << "\nthese layers x uses: tuned " << std::setprecision(3) << tunedTotal * 1e3 << " ms, libtorch "
                  << torchTotal * 1e3 << " ms (tuned / libtorch " << std::setprecision(2) << tunedTotal / torchTotal
                  << ")\n";
        std::cout << "total wall " << std::setprecision(0)
                  << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()
                  << " s; load average at the end: " << loadAverage() << "\n";
    } catch (const std::exception& e) {
        std::cerr << "tuner_comparison: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
