// Baseline "random": `budget` chromosomes drawn uniformly from [0,1)^(n(d+1)), each decoded, the
// best kept. It is what BRKGA's initial population does, continued for the whole budget: the floor
// any search must beat at equal budget. Decoded in batches of 100 on the worker pool; draw i uses
// its own stream (seed, i), so the answer does not depend on the thread count.
#include "placement/search/SearchEngines.h"

#include <algorithm>
#include <limits>

#include "run/Rng.h"
#include "placement/search/WorkerPool.h"

namespace graphopt {

SearchOutcome randomSearchEngine(const SearchContext& ctx) {
    constexpr int kBatch = 100;
    const size_t L = ctx.keyCount();
    WorkerPool pool(ctx.threads);
    std::vector<std::unique_ptr<ScheduleSimulator>> sims;
    for (int w = 0; w < pool.size(); ++w) sims.push_back(ctx.makeSimulator());
    std::vector<double> keys(size_t(kBatch) * L), costs(kBatch);

    SearchOutcome out;
    double best = std::numeric_limits<double>::infinity();
    int64_t step = 0;
    while (out.evaluations < ctx.budget) {
        const int count = int(std::min<int64_t>(kBatch, ctx.budget - out.evaluations));
        const int64_t base = out.evaluations;
        pool.forEach(count, [&](int i, int worker) {
            Rng rng = Rng::stream(ctx.seed, 0x52414e44, uint64_t(base + i));
            double* x = keys.data() + size_t(i) * L;
            for (size_t k = 0; k < L; ++k) x[k] = rng.uniform();
            costs[i] = sims[worker]->evaluate(std::span<const double>(x, L)).cost;
        });
        for (int i = 0; i < count; ++i)
            if (costs[i] < best) {
                best = costs[i];
                out.keys.assign(keys.begin() + size_t(i) * L, keys.begin() + size_t(i + 1) * L);
            }
        out.evaluations += count;
        ctx.report(++step, out.evaluations, best);
        if (ctx.cancelled()) {
            out.cancelled = true;
            break;
        }
    }
    if (out.keys.empty()) out.keys.assign(L, 0.5);  // budget 0: a fixed, valid chromosome
    return out;
}

}  // namespace graphopt
