// Two or more stored runs side by side: the figures of each with the best marked, and, where
// the runs are of the same thing, what differs between their answers: for placement runs of
// one graph the nodes placed on different devices, for tuning runs of one task the knobs of the
// best configurations that differ. `graphopt runs compare` and the GUI's comparison view both
// read it, so they cannot disagree.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/StoreRecords.h"

namespace graphopt {

class RunStore;

struct ComparedFigure {
    std::string name;                           // "best cost", "elapsed s", or a result figure
    std::vector<std::optional<double>> values;  // one per run, in the order asked
    // Which way is better: -1 lower, +1 higher, 0 not a score (counts, budgets, seeds).
    int better = -1;
    // The run with the best value, when there is one to mark: the figure is a score, at least
    // two runs have it and they are not all equal.
    std::optional<size_t> best;
};

struct RunComparison {
    std::vector<RunSummary> runs;
    std::vector<std::optional<RunResult>> results;  // one per run, as stored
    std::vector<ComparedFigure> figures;
    std::vector<std::string> warnings;  // different objectives, different graphs

    // Per run: false when its answer breaks a device's memory limit (a placement stored with
    // "feasible": false). Its cost carries a penalty, not a score: it is marked best in no row
    // and ranks behind every feasible run. Runs without the figure count as feasible.
    std::vector<bool> feasible;
    // Per run: why it is infeasible, from its "over_limit_bytes" ("gpu1 over by 3.2 GiB"); ""
    // for a feasible run or when the store does not say.
    std::vector<std::string> overLimit;
    // Run indexes, best first: the feasible runs by best cost, then the infeasible ones by best
    // cost; runs without a cost last in their group; ties keep the order asked. Costs count only
    // when every run minimises the same objective (otherwise: feasible first, order asked).
    std::vector<size_t> ranking;
    // "infeasible (gpu1 over by 3.2 GiB)", or "infeasible" when the store does not say by how much.
    std::string infeasibleText(size_t run) const;

    // Placement runs of one graph (every run has a placement): the nodes whose device is not
    // the same in every run, by name.
    bool placementsComparable = false;
    int64_t placedNodes = 0;
    std::vector<std::string> nodesPlacedDifferently;

    // Tuning runs of one task: each run's best configuration ("" when it measured nothing) and
    // the knobs whose value is not the same in all of them.
    bool tuningComparable = false;
    std::string task;
    std::vector<std::string> bestKnobs;
    std::vector<std::string> knobsThatDiffer;
};

// Throws StoreError for an unknown run id.
RunComparison compareRuns(RunStore& store, const std::vector<int64_t>& runIds);

// -1 lower is better, +1 higher is better, 0 not a score; by the figure's name.
int figureDirection(const std::string& name);

}  // namespace graphopt
