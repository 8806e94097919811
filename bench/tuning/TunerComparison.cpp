// tuner_comparison [--models resnet18,mobilenet_v2] [--only MODEL:i,j,...]... [--template tiled|packed|nchw]
//                  [--tuners random,autotvm,autotvm-as,release] [--seeds 1,2,3] [--budget N] [--measure-batch B]
//                  [--min-time S] [--tuner-params JSON] [--params TUNER=JSON]... [--variant NAME=TUNER:JSON]...
//                  [--csv FILE] [--cache FILE] [--remeasured FILE]
// tuner_comparison --report CSV... [--tuners ...] [--remeasured FILE]
// tuner_comparison --remeasure SHARE [--rounds R] [--anchors A] --cache FILE --remeasured FILE [--models ...] [--only ...]
//
// ReLeASE's comparison (papers/ReLeASE.md, "What the product reports") on this machine, with real
// Halide measurements: every tuner tunes every chosen task (default: every conv, pointwise and
// depthwise task of each model) with the same budget, once per seed, in the order task > seed >
// tuner. The report (tuning/TunerRace.h) takes as each task's target the best kernel any tuner
// found over all seeds, and gives per tuner the time and measurements to 97 % and 99 % of it (a
// run that never gets there counts at twice its clock, and says so), the speed-up against autotvm
// per task and seed, the best found at a fixed time, and the share of its clock the tuner spent
// on its own search. Every tuner runs with its own defaults (AutoTVM's: plan size 64, 5 % random,
// the first 64 measurements random) unless --tuner-params (all model-based tuners) or
// --params TUNER=JSON (one tuner) says otherwise. --variant NAME=TUNER:JSON adds a run of TUNER with
// those parameters on top, reported as NAME (an ablation: release-deep=release:{"stop_fraction":1}). --report prints the report from CSVs of earlier
// invocations (a comparison spread over sessions) without measuring.
//
// Measurements are shared: each distinct configuration of a task is compiled, checked and timed
// once (and kept in --cache, a JSON-lines file, so a rerun, an interrupted run or a later session
// that extends the comparison measures nothing twice; entries made on another CPU are not used:
// the key is run/CpuIdentity.h's label, model name, family, model and vector unit, since a VM's
// model name alone ("AMD EPYC") named hosts with AVX2 and with AVX-512); every tuner that
// proposes it gets that result and is charged the measurement's real cost (the wall seconds that
// compile + check + timing took when it was made). A run's clock is therefore its own search time
// (proposeBatch and observe, measured as they run) plus the real cost of every measurement it
// asked for, as if it had run alone; and two tuners that measure the same configuration see the
// same figure, so who gets to the target is not decided by timing noise between two measurements
// of one kernel.
//
// Re-measured tops (--remeasure SHARE): after a race, every cached configuration of each chosen
// task within SHARE of the task's best is measured R more times (default 5), a round at a time in
// a shuffled order, into --remeasured (JSON lines), with A anchors (default 16: configurations
// drawn at random from the task's other measured ones, which say how much faster or slower the
// machine runs now than during the race). A task's best is the maximum of thousands of single
// timings, so it is partly one lucky timing; with --remeasured, the reports are printed twice: as
// measured, and with every re-measured configuration counted at its median (in the race's units:
// divided by the anchors' drift).
//
// The CSV has one row per measurement: model, task, template, tuner, seed, measurement, clock_s,
// gflops, best_gflops, own_s, config (plot it with plot_tuner_comparison). Figures depend on the machine's
// load: the load average is printed at the start, after each task and at the end.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <tuple>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "graph/Loaders.h"
#include "run/CpuIdentity.h"
#include "run/TextList.h"
#include "tuning/HalideMeasurer.h"
#include "tuning/LearnedTuners.h"
#include "tuning/PeakFlops.h"
#include "tuning/TemplateSpace.h"
#include "tuning/Tuner.h"
#include "tuning/TunerRace.h"

using namespace graphopt;
using namespace graphopt::tuning;

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::string loadAverage() {
    std::ifstream in("/proc/loadavg");
    std::string a, b, c;
    in >> a >> b >> c;
    return a + " " + b + " " + c;
}

// Every distinct configuration measured once; results and their real cost kept in memory and in
// a JSON-lines file.
class MeasurementCache {
public:
    struct Entry {
        MeasureResult result;
        double costS = 0;
    };
    MeasurementCache(const std::string& path, std::string cpu) : cpu_(std::move(cpu)) {
        if (path.empty()) return;
        if (std::ifstream in(path); in) {
            std::string line;
            while (std::getline(in, line)) {
                if (line.empty()) continue;
                try {
                    const auto j = nlohmann::json::parse(line);
                    if (j.value("cpu", cpu_) != cpu_) {
                        ++otherCpu_;
                        continue;
                    }
                    entries_[j.at("task").get<std::string>()][j.at("config").get<ConfigIndex>()] =
                        Entry{MeasureResult::fromJson(j.at("result")), j.at("cost_s").get<double>()};
                    ++loaded_;
                } catch (const std::exception&) {
                    // a line cut short by an interrupted run: that configuration is measured again
                }
            }
        }
        log_.open(path, std::ios::app);
        if (!log_) throw std::runtime_error("cannot write the measurement cache " + path);
    }
    // The results of `configs` (in order): cached ones as they were, the others measured now, one
    // at a time, each timed as a whole.
    std::vector<Entry> measure(Measurer& measurer, const TuningTask& task, const std::vector<ConfigIndex>& configs) {
        auto& byConfig = entries_[task.key()];
        std::vector<Entry> out;
        for (ConfigIndex c : configs) {
            auto it = byConfig.find(c);
            if (it == byConfig.end()) {
                const auto t0 = Clock::now();
                std::vector<MeasureResult> r = measurer.measure(task, {c});
                Entry e{r.at(0), since(t0)};
                ++fresh_;
                if (log_.is_open()) {
                    log_ << nlohmann::json{{"task", task.key()}, {"config", c}, {"cpu", cpu_}, {"cost_s", e.costS},
                                           {"result", e.result.toJson()}}
                                .dump()
                         << "\n"
                         << std::flush;
                }
                it = byConfig.emplace(c, std::move(e)).first;
            }
            out.push_back(it->second);
        }
        return out;
    }
    // The cached results of one task (key: TuningTask::key()), or null.
    const std::unordered_map<ConfigIndex, Entry>* of(const std::string& taskKey) const {
        const auto it = entries_.find(taskKey);
        return it == entries_.end() ? nullptr : &it->second;
    }
    int64_t fresh() const { return fresh_; }
    int64_t loaded() const { return loaded_; }
    int64_t otherCpu() const { return otherCpu_; }

private:
    std::string cpu_;
    std::unordered_map<std::string, std::unordered_map<ConfigIndex, Entry>> entries_;
    std::ofstream log_;
    int64_t fresh_ = 0, loaded_ = 0, otherCpu_ = 0;
};

struct TaskRef {
    std::string model;  // short name (file stem)
    size_t index = 0;   // in `graphopt tasks MODEL`
    TuningTask task;
    std::string label() const { return model + ":" + std::to_string(index); }
};

// One run, with what the bench prints beside the race's figures.
struct Record : RaceRun {
    int failures = 0;
    int plans = 0;
    double kSum = 0, visitedSum = 0;  // over its adaptive-sampling plans
    int sampledPlans = 0;
};

void notePlan(Record& rec, const nlohmann::json& plan) {
    ++rec.plans;
    if (plan.contains("k")) {
        ++rec.sampledPlans;
        rec.kSum += plan["k"].get<double>();
        rec.visitedSum += plan.value("visited", 0.0);
    }
}

// `label` names the run in the CSV and the report: the tuner's name, or a --variant's.
Record runOne(const std::string& label, const std::string& tunerName, const TaskRef& ref, uint64_t seed,
              const nlohmann::json& params, int64_t budget, int batch, Measurer& measurer, MeasurementCache& cache,
              std::ostream& csv) {
    Record rec;
    rec.tuner = label;
    rec.task = ref.label();
    rec.seed = seed;
    auto tuner = makeTuner(tunerName, ref.task, seed, params);
    double clock = 0, best = 0;
    int64_t measured = 0;
    while (measured < budget) {
        const auto t0 = Clock::now();
        const std::vector<ConfigIndex> configs =
            tuner->proposeBatch(static_cast<int>(std::min<int64_t>(batch, budget - measured)));
        double own = since(t0);
        if (configs.empty()) break;
        const nlohmann::json info = tuner->lastBatchInfo();
        if (info.is_object()) {
            if (info.contains("exploration")) notePlan(rec, info["exploration"]);
            for (const auto& p : info.value("earlier_explorations", nlohmann::json::array())) notePlan(rec, p);
        }
        clock += own;
        const auto entries = cache.measure(measurer, ref.task, configs);
        std::vector<MeasureResult> results;
        for (const auto& e : entries) {
            clock += e.costS;
            ++measured;
            if (e.result.ok)
                best = std::max(best, e.result.gflops);
            else
                ++rec.failures;
            rec.best.push_back(best);
            rec.clock.push_back(clock);
            rec.configs.push_back(static_cast<int64_t>(e.result.config));
            rec.gflops.push_back(e.result.ok ? e.result.gflops : 0.0);
            csv << ref.model << ',' << ref.index << ',' << ref.task.templateName() << ',' << label << ',' << seed << ',' << measured << ',' << clock
                << ',' << rec.gflops.back() << ',' << best << ',' << rec.ownS + own << ',' << e.result.config << "\n";
            results.push_back(e.result);
        }
        const auto t1 = Clock::now();
        tuner->observe(results);
        own += since(t1);
        clock += since(t1);
        rec.ownS += own;
    }
    csv.flush();
    return rec;
}

std::string fmt(double v, int precision) {
    if (std::isnan(v)) return "-";
    std::ostringstream os;
    os << std::fixed << std::setprecision(precision) << v;
    return os.str();
}

// --remeasure: every configuration of the task's cached results within `share` of its best,
// measured `rounds` more times, a round at a time in an order shuffled per round (so a slow
// spell of the machine falls on all of them alike); each timing appended to `out` as one JSON
// line. Rounds already in the file (an interrupted re-measurement) are not measured again.
void remeasureTask(const TaskRef& ref, const MeasurementCache& cache, double share, int rounds, int anchors, Measurer& measurer,
                   const std::string& cpu, const std::string& outPath, std::ostream& report) {
    const auto* entries = cache.of(ref.task.key());
    if (!entries) {
        report << ref.label() << ": nothing in the cache, left out\n";
        return;
    }
    double best = 0;
    for (const auto& [c, e] : *entries)
        if (e.result.ok) best = std::max(best, e.result.gflops);
    std::vector<ConfigIndex> candidates;
    for (const auto& [c, e] : *entries)
        if (e.result.ok && e.result.gflops >= share * best) candidates.push_back(c);
    std::sort(candidates.begin(), candidates.end());
    // Anchors: `anchors` configurations drawn (seeded) from the rest of the task's measured ones.
    std::vector<ConfigIndex> rest;
    for (const auto& [c, e] : *entries)
        if (e.result.ok && e.result.gflops < share * best) rest.push_back(c);
    std::sort(rest.begin(), rest.end());
    std::mt19937_64 rng(0x5eed + ref.index);
    std::shuffle(rest.begin(), rest.end(), rng);
    rest.resize(std::min<size_t>(rest.size(), static_cast<size_t>(anchors)));
    const std::set<ConfigIndex> anchorSet(rest.begin(), rest.end());
    std::vector<ConfigIndex> all = candidates;
    all.insert(all.end(), rest.begin(), rest.end());
    std::map<ConfigIndex, std::vector<double>> done;  // rounds already in the file
    if (std::ifstream in(outPath); in) {
        std::string line;
        while (std::getline(in, line)) {
            try {
                const auto j = nlohmann::json::parse(line);
                if (j.at("task") == ref.label() && j.value("cpu", cpu) == cpu)
                    done[j.at("config").get<ConfigIndex>()].push_back(j.at("gflops").get<double>());
            } catch (const std::exception&) {
                // a line cut short: that timing is made again
            }
        }
    }
    std::ofstream out(outPath, std::ios::app);
    if (!out) throw std::runtime_error("cannot write " + outPath);
    report << ref.label() << ": " << candidates.size() << " of " << entries->size()
           << " cached configurations within " << fmt(100 * share, 0) << " % of the best (" << fmt(best, 1)
           << " GFLOP/s) and " << rest.size() << " anchors, " << rounds << " rounds\n"
           << std::flush;
    int64_t timed = 0;
    for (int round = 0; round < rounds; ++round) {
        std::vector<ConfigIndex> order = all;
        std::shuffle(order.begin(), order.end(), rng);
        for (ConfigIndex c : order) {
            if (static_cast<int>(done[c].size()) > round) continue;
            const MeasureResult r = measurer.measure(ref.task, {c}).at(0);
            const double g = r.ok ? r.gflops : 0.0;
            done[c].push_back(g);
            ++timed;
            nlohmann::json line = {{"task", ref.label()}, {"task_key", ref.task.key()}, {"config", c}, {"cpu", cpu},
                                   {"round", round}, {"gflops", g}};
            if (anchorSet.count(c)) {
                line["anchor"] = true;
                line["single"] = entries->at(c).result.gflops;
            }
            out << line.dump() << "\n" << std::flush;
        }
    }
    // The top by median, beside the single measurement the race saw.
    std::vector<std::tuple<double, ConfigIndex, double, double, double>> ranked;  // median, config, single, min, max
    std::vector<double> drift, anchorRatio;
    for (ConfigIndex c : rest) {
        std::vector<double> v = done[c];
        std::sort(v.begin(), v.end());
        if (!v.empty()) anchorRatio.push_back(v[v.size() / 2] / entries->at(c).result.gflops);
    }
    std::sort(anchorRatio.begin(), anchorRatio.end());
    for (ConfigIndex c : candidates) {
        std::vector<double> v = done[c];
        std::sort(v.begin(), v.end());
        if (v.empty()) continue;
        const double med = v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
        const double single = entries->at(c).result.gflops;
        ranked.emplace_back(med, c, single, v.front(), v.back());
        if (med > 0) drift.push_back(single / med - 1);
    }
    std::sort(ranked.rbegin(), ranked.rend());
    std::sort(drift.begin(), drift.end());
    report << "  " << timed << " timings made now; the race's single measurement against the median of the re-measurements: "
           << (drift.empty() ? std::string("-") : fmt(100 * drift[drift.size() / 2], 1)) << " % median, "
           << (drift.empty() ? std::string("-") : fmt(100 * drift.front(), 1) + " to " + fmt(100 * drift.back(), 1))
           << " % range; the anchors now run at "
           << (anchorRatio.empty() ? std::string("-") : fmt(100 * anchorRatio[anchorRatio.size() / 2], 1))
           << " % of their race figure (median; the candidates are divided by it in the report)\n";
    for (size_t i = 0; i < std::min<size_t>(5, ranked.size()); ++i) {
        const auto& [med, c, single, lo, hi] = ranked[i];
        report << "  #" << i + 1 << " config " << c << ": median " << fmt(med, 1) << " GFLOP/s (" << fmt(lo, 1) << "-"
               << fmt(hi, 1) << "), in the race " << fmt(single, 1) << "\n";
    }
}

// The race's report; with re-measured kernels (--remeasured), a second one where every
// re-measured configuration counts at the median of its re-measurements.
std::string reports(std::vector<RaceRun> runs, const std::vector<std::string>& tuners, const std::string& remeasuredPath) {
    std::string out = raceReport(runs, tuners);
    if (remeasuredPath.empty()) return out;
    std::ifstream in(remeasuredPath);
    if (!in) throw std::runtime_error("cannot read " + remeasuredPath);
    const RemeasuredKernels kernels = readRemeasured(in, remeasuredPath);
    size_t configs = 0;
    std::ostringstream drift;
    for (const auto& [t, k] : kernels) {
        configs += k.kernels.size();
        drift << (drift.tellp() ? ", " : "") << t << " " << fmt(100 * k.drift, 1) << " % (" << k.anchors << " anchors)";
    }
    const size_t replaced = applyRemeasured(runs, kernels);
    std::ostringstream os;
    os << "\n### The same runs with re-measured kernels\n\n"
       << configs << " configurations of " << kernels.size() << " tasks re-measured (" << remeasuredPath
       << "); " << replaced
       << " of the runs' measurements now count at the median of their re-measurements, divided by the drift"
          " (the machine's speed at the re-measurement against the race's, from the anchors: "
       << drift.str() << "). Runs whose CSV has no config column are left as they were.\n\n"
       << raceReport(runs, tuners);
    return out + os.str();
}

double mean(const std::vector<double>& v) {
    if (v.empty()) return std::nan("");
    double s = 0;
    for (double x : v) s += x;
    return s / static_cast<double>(v.size());
}


}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> models = {"resnet18", "mobilenet_v2"};
    std::map<std::string, std::set<size_t>> only;
    std::string templ = "tiled";
    std::vector<std::string> tunerList = {"random", "autotvm", "autotvm-as", "release"};
    std::vector<uint64_t> seeds = {1, 2, 3};
    int64_t budget = 256;
    int batch = 8;
    double minTime = 0.05;
    nlohmann::json modelParams = nlohmann::json::object();  // every tuner's own defaults
    std::map<std::string, nlohmann::json> perTuner;         // --params TUNER=JSON, over modelParams
    // --variant NAME=TUNER:JSON: a tuner with other parameters, run and reported as NAME (the
    // ablations of ReLeASE's parts).
    std::map<std::string, std::pair<std::string, nlohmann::json>> variants;
    std::string csvPath = "tuner_comparison.csv", cachePath;
    std::vector<std::string> reportCsvs;
    double remeasureShare = 0;  // --remeasure SHARE: re-measure mode
    int rounds = 5, anchors = 16;
    std::string remeasuredPath;  // --remeasured FILE: written by --remeasure, read by the reports
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--report")) {
            while (i + 1 < argc && std::strncmp(argv[i + 1], "--", 2)) reportCsvs.push_back(argv[++i]);
            if (reportCsvs.empty()) {
                std::cerr << "tuner_comparison: --report wants one or more CSV files\n";
                return 2;
            }
            continue;
        }
        auto value = [&](const char* flag) -> std::optional<std::string> {
            if (std::strcmp(argv[i], flag) || i + 1 >= argc) return std::nullopt;
            return std::string(argv[++i]);
        };
        std::optional<std::string> v;
        try {
            if ((v = value("--models"))) models = splitList(*v);
            else if ((v = value("--only"))) {
                const auto colon = v->find(':');
                if (colon == std::string::npos) throw std::invalid_argument("--only wants MODEL:i,j,...");
                for (const auto& t : splitList(v->substr(colon + 1))) only[v->substr(0, colon)].insert(std::stoul(t));
            } else if ((v = value("--template"))) templ = *v;
            else if ((v = value("--tuners"))) tunerList = splitList(*v);
            else if ((v = value("--seeds"))) {
                seeds.clear();
                for (const auto& s : splitList(*v)) seeds.push_back(std::stoull(s));
            } else if ((v = value("--budget"))) budget = std::stoll(*v);
            else if ((v = value("--measure-batch"))) batch = std::stoi(*v);
            else if ((v = value("--min-time"))) minTime = std::stod(*v);
            else if ((v = value("--tuner-params"))) modelParams = nlohmann::json::parse(*v);
            else if ((v = value("--params"))) {
                const auto eq = v->find('=');
                if (eq == std::string::npos || eq == 0) throw std::invalid_argument("--params wants TUNER=JSON");
                perTuner[v->substr(0, eq)] = nlohmann::json::parse(v->substr(eq + 1));
            } else if ((v = value("--variant"))) {
                const auto eq = v->find('='), colon = v->find(':');
                if (eq == std::string::npos || eq == 0 || colon == std::string::npos || colon < eq + 2)
                    throw std::invalid_argument("--variant wants NAME=TUNER:JSON");
                const std::string name = v->substr(0, eq);
                variants[name] = {v->substr(eq + 1, colon - eq - 1), nlohmann::json::parse(v->substr(colon + 1))};
            } else if ((v = value("--csv"))) csvPath = *v;
            else if ((v = value("--cache"))) cachePath = *v;
            else if ((v = value("--remeasure"))) {
                remeasureShare = std::stod(*v);
                if (!(remeasureShare > 0 && remeasureShare <= 1)) throw std::invalid_argument("--remeasure wants a share in (0, 1]");
            } else if ((v = value("--rounds"))) {
                rounds = std::stoi(*v);
                if (rounds < 1) throw std::invalid_argument("--rounds wants >= 1");
            } else if ((v = value("--anchors"))) {
                anchors = std::stoi(*v);
                if (anchors < 0) throw std::invalid_argument("--anchors wants >= 0");
            } else if ((v = value("--remeasured"))) remeasuredPath = *v;
            else throw std::invalid_argument(std::string("unknown or incomplete option ") + argv[i]);
        } catch (const std::exception& e) {
            std::cerr << "tuner_comparison: " << e.what()
                      << "\nusage: tuner_comparison [--models a,b] [--only MODEL:i,j] [--template tiled|packed|nchw]"
                         " [--tuners a,b] [--seeds 1,2,3] [--budget N] [--measure-batch B] [--min-time S]"
                         " [--tuner-params JSON] [--params TUNER=JSON]... [--variant NAME=TUNER:JSON]... [--csv FILE]"
                         " [--cache FILE] [--remeasured FILE]\n"
                         "       tuner_comparison --report CSV... [--tuners a,b] [--remeasured FILE]\n"
                         "       tuner_comparison --remeasure SHARE [--rounds R] [--anchors A] --cache FILE --remeasured FILE [--models a,b] [--only MODEL:i]\n";
            return 2;
        }
    }
    for (const auto& [name, v] : variants)
        if (std::find(tunerList.begin(), tunerList.end(), name) == tunerList.end()) tunerList.push_back(name);
    if (templ != "tiled" && templ != "packed" && templ != "nchw") {
        std::cerr << "tuner_comparison: --template is tiled, packed or nchw\n";
        return 2;
    }
    if (!reportCsvs.empty()) {
        try {
            std::vector<RaceRun> runs;
            for (const auto& f : reportCsvs) {
                std::ifstream in(f);
                if (!in) throw std::runtime_error("cannot read " + f);
                readRaceCsv(in, f, runs);
            }
            std::cout << runs.size() << " runs from " << reportCsvs.size() << " CSV file(s)\n\n"
                      << reports(runs, tunerList, remeasuredPath);
        } catch (const std::exception& e) {
            std::cerr << "tuner_comparison: " << e.what() << "\n";
            return 1;
        }
        return 0;
    }
    try {
        registerLearnedTuners();
        const auto start = Clock::now();
        std::cout << "load average at start: " << loadAverage() << "\n";
        const PeakFlops peak = measurePeakFlops();
        std::cout << "machine peak (" << peak.isa << " FMA): " << std::fixed << std::setprecision(1) << peak.gflops1
                  << " GFLOP/s on 1 thread, " << peak.gflopsAll << " on " << peak.threads << " threads\n"
                  << std::defaultfloat;

        std::vector<TaskRef> tasks;
        for (const auto& m : models) {
            const std::string file = std::string(GRAPHOPT_SOURCE_DIR) + "/resources/models/" + m + ".onnx";
            const auto all = extractTasks(loadGraph(file));
            for (size_t i = 0; i < all.size(); ++i) {
                if (!all[i].isConv()) continue;
                if (only.count(m) && !only[m].count(i)) continue;
                tasks.push_back({m, i, withTemplate(all[i], templ)});
            }
        }
        if (tasks.empty()) throw std::invalid_argument("no task chosen");

        HalideMeasurerOptions mo;
#ifdef GRAPHOPT_MEASURE_WORKER
        mo.workerPath = GRAPHOPT_MEASURE_WORKER;
#endif
        mo.minTimeS = minTime;
        HalideMeasurer measurer(mo);
        const std::string cpu = hostCpu().label();
        std::cout << "CPU: " << (cpu.empty() ? "unknown" : cpu) << "\n";
        MeasurementCache cache(cachePath, cpu);
        if (cache.loaded() || cache.otherCpu())
            std::cout << "measurement cache " << cachePath << ": " << cache.loaded() << " measurements of this CPU"
                      << (cache.otherCpu() ? ", " + std::to_string(cache.otherCpu()) + " of other CPUs left out" : "")
                      << "\n";
        if (remeasureShare > 0) {
            if (cachePath.empty() || remeasuredPath.empty())
                throw std::invalid_argument("--remeasure needs --cache (what to re-measure) and --remeasured (where to write)");
            for (const TaskRef& ref : tasks)
                remeasureTask(ref, cache, remeasureShare, rounds, anchors, measurer, cpu, remeasuredPath, std::cout);
            std::cout << "total wall " << fmt(since(start), 0) << " s; load average at the end: " << loadAverage() << "\n";
            return 0;
        }
        std::ofstream csv(csvPath);
        csv << "model,task,template,tuner,seed,measurement,clock_s,gflops,best_gflops,own_s,config\n";
        std::cout << tasks.size() << " tasks (" << templ << " template), tuners";
        for (const auto& t : tunerList) std::cout << " " << t;
        std::cout << ", seeds";
        for (auto s : seeds) std::cout << " " << s;
        std::cout << "; budget " << budget << " measurements per run, batch " << batch << ", min time " << minTime
                  << " s; model-based tuner params " << modelParams.dump();
        for (const auto& [t, p] : perTuner) std::cout << ", " << t << " " << p.dump();
        std::cout << "\nCSV (one row per measurement): "
                  << csvPath << "\n\n";

        std::vector<Record> records;
        for (const TaskRef& ref : tasks) {
            const auto taskStart = Clock::now();
            const int64_t before = cache.fresh();
            std::cout << ref.label() << "  " << ref.task.describe() << "  (" << templateSpace(ref.task).size()
                      << " configurations)\n";
            for (uint64_t seed : seeds)
                for (const auto& label : tunerList) {
                    const auto variant = variants.find(label);
                    const std::string tuner = variant == variants.end() ? label : variant->second.first;
                    const bool modelBased = tuner != "random" && tuner != "ga" && tuner != "grid";
                    nlohmann::json params = modelBased ? modelParams : nlohmann::json::object();
                    if (perTuner.count(tuner)) params.update(perTuner.at(tuner));
                    if (variant != variants.end()) params.update(variant->second.second);
                    Record rec = runOne(label, tuner, ref, seed, params, budget, batch, measurer, cache, csv);
                    std::cout << "  seed " << seed << " " << std::left << std::setw(11) << label << std::right
                              << std::fixed << std::setprecision(1) << std::setw(7) << rec.finalBest()
                              << " GFLOP/s  clock " << std::setw(6) << rec.wallS() << " s  own " << std::setprecision(2)
                              << std::setw(5) << rec.ownS << " s  failed " << rec.failures;
                    if (rec.sampledPlans)
                        std::cout << "  plans " << rec.plans << ", mean k " << std::setprecision(1)
                                  << rec.kSum / rec.sampledPlans << " of " << std::setprecision(0)
                                  << rec.visitedSum / rec.sampledPlans << " visited";
                    std::cout << "\n" << std::defaultfloat << std::flush;
                    records.push_back(std::move(rec));
                }
            std::cout << "  " << cache.fresh() - before << " configurations measured for real in " << std::fixed
                      << std::setprecision(0) << since(taskStart) << " s (load " << loadAverage() << ")\n"
                      << std::defaultfloat;
        }

        auto find = [&](const std::string& tuner, const std::string& task, uint64_t seed) -> const Record* {
            for (const auto& r : records)
                if (r.tuner == tuner && r.task == task && r.seed == seed) return &r;
            return nullptr;
        };

        std::cout << "\n" << reports(std::vector<RaceRun>(records.begin(), records.end()), tunerList, remeasuredPath);

        // Did autotvm flatten? Where its last improvement came, and its best at 3/4 of the budget.
        std::vector<double> lastImprovement, atThreeQuarters;
        for (const auto& r : records) {
            if (r.tuner != "autotvm" || r.best.empty() || r.finalBest() <= 0) continue;
            lastImprovement.push_back(r.reach(r.finalBest())->first);
            atThreeQuarters.push_back(r.best[std::min(r.best.size() - 1, r.best.size() * 3 / 4)] / r.finalBest());
        }
        std::sort(lastImprovement.begin(), lastImprovement.end());
        if (!lastImprovement.empty())
            std::cout << "\nautotvm's final best came at measurement " << fmt(lastImprovement.front(), 0) << "-"
                      << fmt(lastImprovement.back(), 0) << " (median " << fmt(lastImprovement[lastImprovement.size() / 2], 0)
                      << ") of " << budget << "; at 3/4 of the budget it had " << fmt(100 * mean(atThreeQuarters), 1)
                      << " % of its final best on average\n";

        std::cout << "\n#### Best kernel per task (GFLOP/s: mean over seeds, max)\n\n| task | conv |";
        for (const auto& t : tunerList) std::cout << " " << t << " |";
        std::cout << "\n|---|---|";
        for (size_t i = 0; i < tunerList.size(); ++i) std::cout << "---|";
        std::cout << "\n";
        for (const TaskRef& ref : tasks) {
            std::cout << "| " << ref.label() << " | " << ref.task.describe() << " |";
            for (const auto& t : tunerList) {
                std::vector<double> b;
                for (uint64_t s : seeds)
                    if (const Record* r = find(t, ref.label(), s)) b.push_back(r->finalBest());
                std::cout << " " << fmt(mean(b), 1) << ", " << fmt(b.empty() ? std::nan("") : *std::max_element(b.begin(), b.end()), 1)
                          << " |";
            }
            std::cout << "\n";
        }
        std::cout << "\n" << cache.fresh() << " configurations measured for real, " << cache.loaded()
                  << " taken from the cache file; total wall " << fmt(since(start), 0)
                  << " s; load average at the end: " << loadAverage() << "\n";
    } catch (const std::exception& e) {
        std::cerr << "tuner_comparison: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
