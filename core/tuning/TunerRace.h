// What a tuner comparison (bench/tuning/tuner_comparison) concludes from its runs: the protocol of
// papers/ReLeASE.md made fair to every tuner (issue 32).
//
// A run is one tuner on one task with one seed: its best-so-far after each measurement and its
// clock when that measurement was known. The target of a task is the best kernel ANY run found on
// it (every tuner, every seed), not the baseline's own final best. For each run and level (97 %,
// 99 % of the target) the report gives the seconds and measurements the run needed to get there; a
// run that never gets there is charged twice its whole clock and twice its measurements, and is
// counted and marked as such. Against the baseline (autotvm), per task and seed: the baseline's
// time to the level divided by the tuner's, and the share of runs where that speed-up is at least
// 1x, 2x and 4x (the targets: release >= 4x, autotvm-as >= 2x, in >= 75 % of runs). At a
// fixed time (the shortest whole clock of any run of the task, so every run has a figure there):
// each run's best as a share of the target.
//
// Pure functions over RaceRun; readRaceCsv reads tuner_comparison's CSVs, so a comparison spread
// over sessions (the measurement cache makes extending one cheap) is reported from all of them.
#pragma once

#include <cstdint>
#include <istream>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace graphopt::tuning {

struct RaceRun {
    std::string tuner;
    std::string task;  // "model:index"
    uint64_t seed = 0;
    std::vector<double> best;   // best GFLOP/s after each measurement (0 until one succeeds)
    std::vector<double> clock;  // the run's clock (s) when each measurement was known
    double ownS = 0;            // the tuner's own search time within that clock
    // Per measurement, when known (CSVs before the `config` column have neither): the configuration
    // and what it measured (0 for a failed one). applyRemeasured needs them.
    std::vector<int64_t> configs;
    std::vector<double> gflops;
    double finalBest() const { return best.empty() ? 0 : best.back(); }
    double wallS() const { return clock.empty() ? 0 : clock.back(); }
    // The first measurement whose best-so-far is >= target (> 0): (measurements, seconds).
    std::optional<std::pair<int, double>> reach(double target) const;
    // Best-so-far among the measurements known by `seconds` (0 when none was).
    double bestAt(double seconds) const;
};

struct RaceReach {
    bool reached = false;
    int measurements = 0;  // twice the run's measurements when not reached
    double seconds = 0;    // twice the run's clock when not reached
};

// The run's way to `share` of `target`, censored as above.
RaceReach reachShare(const RaceRun& run, double target, double share);

// The best kernel any run found, per task.
std::map<std::string, double> raceTargets(const std::vector<RaceRun>& runs);

struct RaceTunerSummary {
    std::string tuner;
    int runs = 0;
    std::map<double, int> reached;            // level -> runs that got there
    std::map<double, double> geomeanSeconds;  // level -> geomean over runs (censored included)
    std::map<double, double> geomeanMeasurements;
    // Against the baseline, same task and seed, at each level: baseline seconds / this tuner's.
    std::map<double, std::vector<double>> speedups;
    double meanShareAtFixedTime = 0;  // best at the task's fixed time / target, mean over runs
    double meanFinalShare = 0;        // final best / target, mean over runs
    double ownS = 0, wallS = 0;
    // Share of `speedups[level]` that are >= factor.
    double shareAtLeast(double level, double factor) const;
};

struct RaceOptions {
    std::vector<double> levels = {0.97, 0.99};
    std::string baseline = "autotvm";
};

// Per tuner (in the order given; tuners with no run are left out).
std::vector<RaceTunerSummary> summarizeRace(const std::vector<RaceRun>& runs, const std::vector<std::string>& tuners,
                                            const RaceOptions& options = {});

// The whole report as Markdown: per task, per tuner, the baseline ratios, the targets.
std::string raceReport(const std::vector<RaceRun>& runs, const std::vector<std::string>& tuners,
                       const RaceOptions& options = {});

// Kernels measured again after the race (tuner_comparison --remeasure). A race's best kernels are
// the maxima of thousands of single timings, each a little noisy, so the top of a task is partly
// the luck of one timing (the winner's curse); re-measuring every configuration near the top
// several times, interleaved, says which kernels really are the fastest. The machine may also run
// at another speed by then (a shared VM: 12 % slower two hours later, seen here), so the same
// rounds re-time a few "anchors", configurations drawn at random from the task's measured ones
// (no selection by speed): the median of their re-measured / race ratios is the drift, and the
// candidates' medians are divided by it, which puts them in the race's units.
struct RemeasuredTask {
    std::map<int64_t, double> kernels;  // candidate -> median of its re-measurements / drift
    double drift = 1;                   // re-measured / race over the anchors (1 without anchors)
    int anchors = 0;
};
using RemeasuredKernels = std::map<std::string, RemeasuredTask>;  // task ("model:index") ->

// Recomputes each run's best-so-far with the re-measured figure in place of the run's own single
// measurement wherever there is one (runs without per-measurement configurations are left as
// they are). Returns the number of measurements replaced.
size_t applyRemeasured(std::vector<RaceRun>& runs, const RemeasuredKernels& kernels);

// Re-measurement lines, JSON, one per timing: {"task": "model:index", "config": c, "gflops": g}
// for a candidate, plus "anchor": true and "single": the race's figure for an anchor (a failed
// timing has "gflops" 0). Throws std::runtime_error naming `source` and the line on a malformed
// one.
RemeasuredKernels readRemeasured(std::istream& in, const std::string& source);

// tuner_comparison's CSV (header: model,task,template,tuner,seed,measurement,clock_s,gflops,
// best_gflops[,own_s][,config]; rows in measurement order per run). Appends to `runs`; when a (task,
// tuner, seed) is already there, the longer run is kept (a comparison extended to a larger budget
// replays the same seed). Throws std::runtime_error naming `source` and the line on a malformed row.
void readRaceCsv(std::istream& in, const std::string& source, std::vector<RaceRun>& runs);

}  // namespace graphopt::tuning
