// Baseline "local": stochastic hill climbing on the keys. It starts from one uniform random
// chromosome; each step picks a node at random and either redraws its d device keys (a move to a
// random device, possibly the same) or redraws its priority key, decodes, and keeps the change when
// the cost does not get worse (sideways moves are accepted so plateaus can be crossed). No restarts,
// no tabu list: the point is to show what a simple neighbourhood search gets for the same budget.
// Sequential by nature: one thread whatever --threads says.
#include "placement/search/SearchEngines.h"

#include "run/Rng.h"

namespace graphopt {

SearchOutcome localSearchEngine(const SearchContext& ctx) {
    const int n = ctx.nodes(), d = ctx.deviceCount();
    const size_t L = ctx.keyCount();
    auto sim = ctx.makeSimulator();
    Rng rng(ctx.seed ^ 0x4C4F43414C);
    SearchOutcome out;
    std::vector<double> cur(L), saved(d + 1);
    for (auto& k : cur) k = rng.uniform();
    out.keys = cur;
    if (ctx.budget <= 0 || n == 0) return out;
    double curCost = sim->evaluate(cur).cost;
    out.evaluations = 1;
    int64_t step = 0;
    while (out.evaluations < ctx.budget) {
        const int v = rng.index(n);
        double* kv = cur.data() + size_t(v) * (d + 1);
        std::copy(kv, kv + d + 1, saved.begin());
        if (d > 1 && rng.uniform() < 0.5) {
            for (int k = 0; k < d; ++k) kv[k] = rng.uniform();
        } else {
            kv[d] = rng.uniform();
        }
        const double c = sim->evaluate(cur).cost;
        ++out.evaluations;
        if (c <= curCost) {
            curCost = c;
        } else {
            std::copy(saved.begin(), saved.end(), kv);
        }
        if (out.evaluations % 100 == 0 || out.evaluations == ctx.budget) {
            ctx.report(++step, out.evaluations, curCost);
            if (ctx.cancelled()) {
                out.cancelled = true;
                break;
            }
        }
    }
    out.keys = cur;
    return out;
}

}  // namespace graphopt
