// The solutions of BRKGA's seed engines (its parameters seed_heuristics and seed_engines) on one
// problem, kept for the runs that follow. Training and evaluating REGAL run BRKGA on each graph
// many times (per episode, per seed, uniform and biased), each starting from the same seeds; a
// seed engine such as dp-contiguous can take seconds per run, so without this it would run again
// for every BRKGA run on the graph. One SeedSolutions serves one problem (a PolicyGraph owns one).
//
// An engine whose description says `deterministic` (its result depends on the problem and its
// parameters alone: the heuristics and the partitioners) runs once per problem. Any other engine
// (random, local, exhaustive) is kept per seed and budget, so a run gets exactly what running the
// engine itself would have given. A cancelled outcome is not kept. Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "placement/search/SearchContext.h"

namespace graphopt {

class SeedSolutions {
public:
    // `name`'s outcome on ctx's problem: `run()` the first time (for the engine's key), then the
    // kept copy. Runs of the same key wait for the first to finish.
    SearchOutcome get(const std::string& name, bool deterministic, const SearchContext& ctx,
                      const std::function<SearchOutcome()>& run);

    // A deterministic engine's kept solution, if there is one; and keeping one that another
    // process computed (training over ranks hands them round). keep() counts as neither computed
    // nor reused, and does not replace a solution already kept.
    std::optional<SearchOutcome> kept(const std::string& name) const;
    void keep(const std::string& name, SearchOutcome out);

    int64_t computed() const;  // how many times an engine ran
    int64_t reused() const;    // how many times a kept solution was handed out instead

private:
    mutable std::mutex mutex_;
    std::map<std::string, SearchOutcome> kept_;
    int64_t computed_ = 0;
    int64_t reused_ = 0;
};

}  // namespace graphopt
