#include "placement/regal/RegalImitation.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "placement/PlacementEngines.h"
#include "run/Elapsed.h"

namespace graphopt::regal {

namespace {

int betaIndex(double alpha, double beta) {
    const auto& choices = betaChoices();
    for (size_t i = 0; i < choices.size(); ++i)
        if (choices[i].alpha == alpha && choices[i].beta == beta) return int(i);
    throw std::logic_error("REGAL imitation: Beta(" + std::to_string(alpha) + ", " + std::to_string(beta) +
                           ") is not one of the policy's choices");
}

int crossoverIndex(double p) {
    const auto& choices = crossoverChoices();
    for (size_t i = 0; i < choices.size(); ++i)
        if (std::abs(choices[i] - p) < 1e-12) return int(i);
    throw std::logic_error("REGAL imitation: crossover probability not among the policy's choices");
}

}  // namespace

nlohmann::json ImitationOptions::toJson() const {
    nlohmann::json j = {{"epochs", epochs},       {"budget", budget},           {"seeds", seeds},
            {"seed_heuristics", seedHeuristics}, {"batch_graphs", batchGraphs}, {"learning_rate", learningRate}};
    if (!seedEngines.empty()) j["seed_engines"] = seedEngines;
    return j;
}

std::vector<std::vector<double>> eliteChromosomes(const PolicyGraph& g,
                                                  const ImitationOptions& o) {
    std::vector<std::vector<double>> out;
    const nlohmann::json params = brkgaSeedParams(o.seedHeuristics, o.seedEngines);
    for (int s = 1; s <= o.seeds; ++s) {
        out.push_back(brkgaEngine(contextFor(g, o.budget, uint64_t(s), o.threads, params)).keys);
    }
    return out;
}

std::vector<PolicyAction> eliteTargets(const std::vector<PolicyGraph>& graphs, const ImitationOptions& o,
                                       Communicator& comm, const CancellationToken* cancel,
                                       const std::function<void(size_t done)>& onRound, int perRank) {
    std::vector<PolicyAction> targets;
    targets.reserve(graphs.size());
    // A graph's result: its elite count, their length, and the keys.
    const auto work = [&](size_t i) {
        const std::vector<std::vector<double>> elites = eliteChromosomes(graphs[i], o);
        std::string out;
        appendDoubles(out, {double(elites.size()), elites.empty() ? 0.0 : double(elites[0].size())});
        for (const auto& e : elites) appendDoubles(out, e);
        return out;
    };
    const auto use = [&](size_t i, const std::string& result) {
        size_t offset = 0;
        const std::vector<double> shape = readDoubles(result, offset, 2);
        std::vector<std::vector<double>> elites;
        for (size_t s = 0; s < size_t(shape[0]); ++s) elites.push_back(readDoubles(result, offset, size_t(shape[1])));
        targets.push_back(eliteTargetAction(graphs[i], elites));
    };
    shareOutGraphs(graphs, comm, cancel, perRank, work, use, onRound);
    return targets;
}

PolicyAction eliteTargetAction(const PolicyGraph& g, const std::vector<std::vector<double>>& elites) {
    const int n = g.features.n, d = g.features.d, K = d + 1;
    if (elites.empty()) throw std::invalid_argument("REGAL imitation: no elite chromosomes");
    for (const auto& e : elites)
        if (e.size() != size_t(n) * size_t(K)) throw std::invalid_argument("REGAL imitation: chromosome of the wrong length");
    const int S = int(elites.size());
    const int uniform = betaIndex(1, 1);
    PolicyAction a;
    a.beta.assign(size_t(n) * size_t(K), uniform);
    a.cross.assign(size_t(n), defaultCrossoverChoice());

    // Each elite's schedule order by priority key (higher first, ties by node id, as the decoder
    // breaks them), as a normalized rank in [0, 1].
    std::vector<std::vector<double>> rank(size_t(S), std::vector<double>(size_t(n), 0.5));
    for (int s = 0; s < S; ++s) {
        std::vector<int> order(static_cast<size_t>(n), 0);
        std::iota(order.begin(), order.end(), 0);
        const auto& x = elites[size_t(s)];
        std::stable_sort(order.begin(), order.end(), [&](int u, int v) { return x[size_t(u) * K + d] > x[size_t(v) * K + d]; });
        for (int r = 0; r < n; ++r) rank[size_t(s)][size_t(order[size_t(r)])] = n > 1 ? double(r) / double(n - 1) : 0.5;
    }
    for (int v = 0; v < n; ++v) {
        // Device: the argmax of the affinities (ties to the lower device, as the decoder does).
        std::vector<int> votes(size_t(d), 0);
        for (const auto& x : elites) {
            int best = 0;
            for (int k = 1; k < d; ++k)
                if (x[size_t(v) * K + k] > x[size_t(v) * K + best]) best = k;
            ++votes[size_t(best)];
        }
        const int m = int(std::max_element(votes.begin(), votes.end()) - votes.begin());
        if (d > 1 && votes[size_t(m)] == S) {  // every elite puts it there
            for (int k = 0; k < d; ++k) a.beta[size_t(v) * K + k] = k == m ? betaIndex(10, 1) : betaIndex(1, 4);
            a.cross[size_t(v)] = crossoverIndex(0.9);
        } else if (d > 1 && 2 * votes[size_t(m)] > S) {  // most do
            a.beta[size_t(v) * K + m] = betaIndex(4, 1);
        }
        // Priority: consistently early (rank near 0) -> keys near 1, late -> near 0.
        double mean = 0;
        for (int s = 0; s < S; ++s) mean += rank[size_t(s)][size_t(v)];
        mean /= S;
        int& p = a.beta[size_t(v) * K + d];
        if (mean < 0.15) p = betaIndex(10, 1);
        else if (mean < 0.35) p = betaIndex(4, 1);
        else if (mean > 0.85) p = betaIndex(1, 10);
        else if (mean > 0.65) p = betaIndex(1, 4);
    }
    return a;
}

double actionAgreement(const PolicyAction& action, const PolicyAction& target) {
    if (action.beta.size() != target.beta.size() || action.cross.size() != target.cross.size())
        throw std::invalid_argument("REGAL imitation: actions of different graphs");
    size_t same = 0;
    for (size_t i = 0; i < target.beta.size(); ++i) same += action.beta[i] == target.beta[i];
    for (size_t i = 0; i < target.cross.size(); ++i) same += action.cross[i] == target.cross[i];
    const size_t total = target.beta.size() + target.cross.size();
    return total ? double(same) / double(total) : 1.0;
}

ImitationReport imitateTargets(PolicyModel& model, const std::vector<PolicyGraph>& graphs,
                               const std::vector<PolicyAction>& targets, const ImitationOptions& o,
                               const std::function<void(const ImitationReport&)>& onEpoch,
                               const CancellationToken* cancel) {
    if (graphs.size() != targets.size()) throw std::invalid_argument("REGAL imitation: one target per graph");
    if (graphs.empty()) throw std::invalid_argument("REGAL imitation: no training graphs");
    TrainHyper h;
    h.learningRate = o.learningRate;
    h.entropyCoef = 0;  // maximum likelihood of the targets, nothing else
    ImitationReport rep;
    for (int e = 1; e <= o.epochs; ++e) {
        const auto t0 = std::chrono::steady_clock::now();
        Rng rng = Rng::stream(o.seed, 0x1A17A7E0ull + uint64_t(e), 0);
        std::vector<size_t> order(graphs.size());
        std::iota(order.begin(), order.end(), 0);
        for (size_t i = order.size() - 1; i > 0; --i) std::swap(order[i], order[rng.index(i + 1)]);
        double loss = 0;
        int updates = 0;
        std::vector<PolicySample> batch;
        for (size_t pos = 0; pos < order.size(); ++pos) {
            if (cancel && cancel->isCancelled()) return rep;
            batch.push_back({&graphs[order[pos]].features, targets[order[pos]], 1.0});
            if (int(batch.size()) == std::max(1, o.batchGraphs) || pos + 1 == order.size()) {
                loss += model.reinforce(batch, h).loss;
                ++updates;
                batch.clear();
            }
        }
        double agree = 0;
        for (size_t i = 0; i < graphs.size(); ++i)
            agree += actionAgreement(greedyAction(model.predict(graphs[i].features)), targets[i]);
        rep.epoch = e;
        rep.loss = updates ? loss / updates : 0;
        rep.agreement = agree / double(graphs.size());
        rep.seconds = secondsSince(t0);
        if (onEpoch) onEpoch(rep);
    }
    return rep;
}

}  // namespace graphopt::regal
