#include "tuning/TunerRace.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include <nlohmann/json.hpp>

namespace graphopt::tuning {

std::optional<std::pair<int, double>> RaceRun::reach(double target) const {
    for (size_t i = 0; i < best.size(); ++i)
        if (best[i] > 0 && best[i] >= target) return std::make_pair(static_cast<int>(i) + 1, clock[i]);
    return std::nullopt;
}

double RaceRun::bestAt(double seconds) const {
    double b = 0;
    for (size_t i = 0; i < best.size() && clock[i] <= seconds; ++i) b = best[i];
    return b;
}

RaceReach reachShare(const RaceRun& run, double target, double share) {
    RaceReach r;
    // A relative tolerance, so that "99 % of the target" is not decided by the last bit of a double.
    if (const auto hit = run.reach(target * share * (1 - 1e-12))) {
        r.reached = true;
        r.measurements = hit->first;
        r.seconds = hit->second;
    } else {
        r.measurements = 2 * static_cast<int>(run.best.size());
        r.seconds = 2 * run.wallS();
    }
    return r;
}

std::map<std::string, double> raceTargets(const std::vector<RaceRun>& runs) {
    std::map<std::string, double> t;
    for (const auto& r : runs) t[r.task] = std::max(t[r.task], r.finalBest());
    return t;
}

namespace {

double geomean(const std::vector<double>& v) {
    if (v.empty()) return std::nan("");
    double s = 0;
    for (double x : v) s += std::log(std::max(x, 1e-12));
    return std::exp(s / static_cast<double>(v.size()));
}

double mean(const std::vector<double>& v) {
    if (v.empty()) return std::nan("");
    double s = 0;
    for (double x : v) s += x;
    return s / static_cast<double>(v.size());
}

std::string fmt(double v, int precision) {
    if (std::isnan(v)) return "-";
    std::ostringstream os;
    os << std::fixed << std::setprecision(precision) << v;
    return os.str();
}

std::string pct(double level) { return fmt(100 * level, 0) + " %"; }

const RaceRun* findRun(const std::vector<RaceRun>& runs, const std::string& tuner, const std::string& task,
                       uint64_t seed) {
    for (const auto& r : runs)
        if (r.tuner == tuner && r.task == task && r.seed == seed) return &r;
    return nullptr;
}

// Tasks in first-seen order.
std::vector<std::string> taskOrder(const std::vector<RaceRun>& runs) {
    std::vector<std::string> order;
    std::set<std::string> seen;
    for (const auto& r : runs)
        if (seen.insert(r.task).second) order.push_back(r.task);
    return order;
}

std::map<std::string, double> fixedTimes(const std::vector<RaceRun>& runs) {
    std::map<std::string, double> t;
    for (const auto& r : runs) {
        auto it = t.find(r.task);
        if (it == t.end())
            t[r.task] = r.wallS();
        else
            it->second = std::min(it->second, r.wallS());
    }
    return t;
}

}  // namespace

double RaceTunerSummary::shareAtLeast(double level, double factor) const {
    const auto it = speedups.find(level);
    if (it == speedups.end() || it->second.empty()) return std::nan("");
    int n = 0;
    for (double s : it->second) n += s >= factor * (1 - 1e-9);
    return static_cast<double>(n) / static_cast<double>(it->second.size());
}

std::vector<RaceTunerSummary> summarizeRace(const std::vector<RaceRun>& runs, const std::vector<std::string>& tuners,
                                            const RaceOptions& options) {
    const auto targets = raceTargets(runs);
    const auto fixed = fixedTimes(runs);
    std::vector<RaceTunerSummary> out;
    for (const auto& tuner : tuners) {
        RaceTunerSummary s;
        s.tuner = tuner;
        std::map<double, std::vector<double>> secs, meas;
        std::vector<double> atFixed, finals;
        for (const auto& r : runs) {
            if (r.tuner != tuner) continue;
            const double target = targets.at(r.task);
            if (target <= 0) continue;
            ++s.runs;
            s.ownS += r.ownS;
            s.wallS += r.wallS();
            atFixed.push_back(r.bestAt(fixed.at(r.task)) / target);
            finals.push_back(r.finalBest() / target);
            const RaceRun* base = tuner == options.baseline ? nullptr : findRun(runs, options.baseline, r.task, r.seed);
            for (double level : options.levels) {
                const RaceReach mine = reachShare(r, target, level);
                s.reached[level] += mine.reached;
                secs[level].push_back(mine.seconds);
                meas[level].push_back(mine.measurements);
                if (base) {
                    const RaceReach theirs = reachShare(*base, target, level);
                    s.speedups[level].push_back(theirs.seconds / std::max(mine.seconds, 1e-9));
                }
            }
        }
        if (!s.runs) continue;
        for (double level : options.levels) {
            s.reached.emplace(level, 0);
            s.geomeanSeconds[level] = geomean(secs[level]);
            s.geomeanMeasurements[level] = geomean(meas[level]);
        }
        s.meanShareAtFixedTime = mean(atFixed);
        s.meanFinalShare = mean(finals);
        out.push_back(std::move(s));
    }
    return out;
}

std::string raceReport(const std::vector<RaceRun>& runs, const std::vector<std::string>& tuners,
                       const RaceOptions& options) {
    std::ostringstream os;
    const auto targets = raceTargets(runs);
    const auto fixed = fixedTimes(runs);
    const auto tasks = taskOrder(runs);
    const double top = options.levels.empty() ? 0.99 : options.levels.back();

    os << "#### Per task: the target (best kernel any run found) and each tuner's way to " << pct(top)
       << " of it\n\nA cell: runs that got there / runs, mean seconds and measurements to get there (a run that did "
          "not is counted at twice its clock and measurements; `*` marks a mean with such runs). Fixed time: the "
          "shortest whole clock of any run of the task.\n\n| task | target GFLOP/s | found by | fixed time s |";
    for (const auto& t : tuners) os << " " << t << " |";
    os << "\n|---|---|---|---|";
    for (size_t i = 0; i < tuners.size(); ++i) os << "---|";
    os << "\n";
    for (const auto& task : tasks) {
        const double target = targets.at(task);
        std::string foundBy;
        for (const auto& r : runs)
            if (r.task == task && r.finalBest() >= target && target > 0) {
                foundBy += (foundBy.empty() ? "" : ", ") + r.tuner + "/" + std::to_string(r.seed);
            }
        os << "| " << task << " | " << fmt(target, 1) << " | " << foundBy << " | " << fmt(fixed.at(task), 0) << " |";
        for (const auto& t : tuners) {
            std::vector<double> secs, meas;
            int reached = 0, n = 0;
            for (const auto& r : runs) {
                if (r.task != task || r.tuner != t || target <= 0) continue;
                const RaceReach x = reachShare(r, target, top);
                ++n;
                reached += x.reached;
                secs.push_back(x.seconds);
                meas.push_back(x.measurements);
            }
            if (!n) {
                os << " - |";
                continue;
            }
            os << " " << reached << "/" << n << ", " << fmt(mean(secs), 0) << " s, " << fmt(mean(meas), 0)
               << (reached < n ? "*" : "") << " |";
        }
        os << "\n";
    }

    const auto summaries = summarizeRace(runs, tuners, options);
    os << "\n#### Per tuner, over every task and seed\n\nTimes and measurements: geometric means over runs, the "
          "runs that did not get there counted at twice their clock and measurements. Speed-up: "
       << options.baseline << "'s time to the level / the tuner's, same task and seed.\n\n| tuner | runs |";
    for (double l : options.levels) os << " reached " << pct(l) << " | s to " << pct(l) << " | n to " << pct(l) << " |";
    os << " speed-up at " << pct(top) << ": geomean | >= 1x | >= 2x | >= 4x | best at the fixed time | final best | "
          "own search time |\n|---|---|";
    for (size_t i = 0; i < options.levels.size(); ++i) os << "---|---|---|";
    os << "---|---|---|---|---|---|---|\n";
    for (const auto& s : summaries) {
        os << "| " << s.tuner << " | " << s.runs << " |";
        for (double l : options.levels)
            os << " " << s.reached.at(l) << " (" << fmt(100.0 * s.reached.at(l) / s.runs, 0) << " %) | "
               << fmt(s.geomeanSeconds.at(l), 0) << " | " << fmt(s.geomeanMeasurements.at(l), 0) << " |";
        const auto sp = s.speedups.find(top);
        if (sp == s.speedups.end() || sp->second.empty())
            os << " - | - | - | - |";
        else
            os << " " << fmt(geomean(sp->second), 2) << "x | " << fmt(100 * s.shareAtLeast(top, 1), 0) << " % | "
               << fmt(100 * s.shareAtLeast(top, 2), 0) << " % | " << fmt(100 * s.shareAtLeast(top, 4), 0) << " % |";
        os << " " << fmt(100 * s.meanShareAtFixedTime, 1) << " % | " << fmt(100 * s.meanFinalShare, 1) << " % | "
           << fmt(100 * s.ownS / std::max(s.wallS, 1e-9), 1) << " % of " << fmt(s.wallS, 0) << " s |\n";
    }

    // The targets, stated against these figures.
    auto summaryOf = [&](const std::string& t) -> const RaceTunerSummary* {
        for (const auto& s : summaries)
            if (s.tuner == t) return &s;
        return nullptr;
    };
    os << "\n#### Targets (time to " << pct(top) << " of the best found)\n\n";
    auto factorTarget = [&](const std::string& t, double factor) {
        const RaceTunerSummary* s = summaryOf(t);
        if (!s || !s->speedups.count(top)) return;
        const double share = s->shareAtLeast(top, factor);
        os << "- " << t << " >= " << fmt(factor, 0) << "x faster than " << options.baseline << " in >= 75 % of runs: "
           << (share >= 0.75 ? "met" : "missed") << " (" << fmt(100 * share, 0) << " % of " << s->speedups.at(top).size()
           << " runs; geomean " << fmt(geomean(s->speedups.at(top)), 2) << "x)\n";
    };
    factorTarget("release", 4);
    factorTarget("autotvm-as", 2);
    if (const RaceTunerSummary* rnd = summaryOf("random")) {
        std::vector<std::string> ahead;
        for (const auto& s : summaries)
            if (s.tuner != "random" && s.geomeanSeconds.at(top) >= rnd->geomeanSeconds.at(top)) ahead.push_back(s.tuner);
        os << "- random behind every other tuner (geomean seconds to " << pct(top) << "): "
           << (ahead.empty() ? "met" : "missed, random at or ahead of") ;
        for (const auto& a : ahead) os << " " << a;
        os << " (random " << fmt(rnd->geomeanSeconds.at(top), 0) << " s";
        for (const auto& s : summaries)
            if (s.tuner != "random") os << ", " << s.tuner << " " << fmt(s.geomeanSeconds.at(top), 0) << " s";
        os << ")\n";
    }
    return os.str();
}

void readRaceCsv(std::istream& in, const std::string& source, std::vector<RaceRun>& runs) {
    auto split = [](const std::string& line) {
        std::vector<std::string> out;
        std::stringstream ss(line);
        for (std::string c; std::getline(ss, c, ',');) out.push_back(c);
        return out;
    };
    std::string line;
    if (!std::getline(in, line)) throw std::runtime_error(source + ": empty, no header");
    const auto header = split(line);
    auto col = [&](const std::string& name, bool required) -> int {
        const auto it = std::find(header.begin(), header.end(), name);
        if (it == header.end()) {
            if (required) throw std::runtime_error(source + ": no column '" + name + "' in the header");
            return -1;
        }
        return static_cast<int>(it - header.begin());
    };
    const int iModel = col("model", true), iTask = col("task", true), iTuner = col("tuner", true),
              iSeed = col("seed", true), iN = col("measurement", true), iClock = col("clock_s", true),
              iBest = col("best_gflops", true), iOwn = col("own_s", false), iGflops = col("gflops", false),
              iConfig = col("config", false);
    std::map<std::tuple<std::string, std::string, uint64_t>, RaceRun> read;
    std::vector<std::tuple<std::string, std::string, uint64_t>> order;
    for (int lineNo = 2; std::getline(in, line); ++lineNo) {
        if (line.empty()) continue;
        const auto c = split(line);
        try {
            if (c.size() < header.size()) throw std::invalid_argument("too few columns");
            const std::string task = c.at(iModel) + ":" + c.at(iTask);
            const uint64_t seed = std::stoull(c.at(iSeed));
            const auto key = std::make_tuple(task, c.at(iTuner), seed);
            auto [it, fresh] = read.try_emplace(key);
            RaceRun& r = it->second;
            if (fresh) {
                r.tuner = c.at(iTuner);
                r.task = task;
                r.seed = seed;
                order.push_back(key);
            }
            const long n = std::stol(c.at(iN));
            if (n != static_cast<long>(r.best.size()) + 1)
                throw std::invalid_argument("measurement " + std::to_string(n) + " follows " +
                                            std::to_string(r.best.size()) + " (rows out of order, or a run twice)");
            r.best.push_back(std::stod(c.at(iBest)));
            r.clock.push_back(std::stod(c.at(iClock)));
            if (iOwn >= 0) r.ownS = std::stod(c.at(iOwn));
            if (iConfig >= 0 && iGflops >= 0) {
                r.configs.push_back(std::stoll(c.at(iConfig)));
                r.gflops.push_back(std::stod(c.at(iGflops)));
            }
        } catch (const std::exception& e) {
            throw std::runtime_error(source + ":" + std::to_string(lineNo) + ": " + e.what());
        }
    }
    for (const auto& key : order) {
        RaceRun& r = read.at(key);
        auto existing = std::find_if(runs.begin(), runs.end(), [&](const RaceRun& x) {
            return x.task == r.task && x.tuner == r.tuner && x.seed == r.seed;
        });
        if (existing == runs.end())
            runs.push_back(std::move(r));
        else if (r.best.size() > existing->best.size())
            *existing = std::move(r);
    }
}

size_t applyRemeasured(std::vector<RaceRun>& runs, const RemeasuredKernels& kernels) {
    size_t replaced = 0;
    for (RaceRun& r : runs) {
        const auto task = kernels.find(r.task);
        if (task == kernels.end() || r.configs.size() != r.best.size() || r.gflops.size() != r.best.size()) continue;
        const auto& k = task->second.kernels;
        double best = 0;
        for (size_t i = 0; i < r.best.size(); ++i) {
            double g = r.gflops[i];
            if (const auto it = k.find(r.configs[i]); it != k.end()) {
                g = it->second;
                ++replaced;
            }
            best = std::max(best, g);
            r.best[i] = best;
        }
    }
    return replaced;
}

namespace {

double median(std::vector<double> v) {
    if (v.empty()) return std::nan("");
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

RemeasuredKernels readRemeasured(std::istream& in, const std::string& source) {
    struct Timings {
        std::vector<double> gflops;
        bool anchor = false;
        double single = 0;
    };
    std::map<std::string, std::map<int64_t, Timings>> all;
    std::string line;
    for (int lineNo = 1; std::getline(in, line); ++lineNo) {
        if (line.empty()) continue;
        try {
            const auto j = nlohmann::json::parse(line);
            const double g = j.at("gflops").get<double>();
            if (!(g >= 0) || !std::isfinite(g)) throw std::invalid_argument("gflops is not a figure >= 0");
            Timings& t = all[j.at("task").get<std::string>()][j.at("config").get<int64_t>()];
            t.gflops.push_back(g);
            if (j.value("anchor", false)) {
                t.anchor = true;
                t.single = j.at("single").get<double>();
                if (!(t.single > 0)) throw std::invalid_argument("an anchor's single figure must be > 0");
            }
        } catch (const std::exception& e) {
            throw std::runtime_error(source + ":" + std::to_string(lineNo) + ": " + e.what());
        }
    }
    RemeasuredKernels out;
    for (const auto& [task, configs] : all) {
        RemeasuredTask& t = out[task];
        std::vector<double> ratios;
        for (const auto& [config, timings] : configs)
            if (timings.anchor) ratios.push_back(median(timings.gflops) / timings.single);
        t.anchors = static_cast<int>(ratios.size());
        if (!ratios.empty() && median(ratios) > 0) t.drift = median(ratios);
        for (const auto& [config, timings] : configs)
            if (!timings.anchor) t.kernels[config] = median(timings.gflops) / t.drift;
    }
    return out;
}

}  // namespace graphopt::tuning
