#include "placement/search/BrkgaSearch.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace graphopt {

char brkgaOriginLetter(BrkgaOrigin o) {
    switch (o) {
        case BrkgaOrigin::Initial: return 'i';
        case BrkgaOrigin::Elite: return 'e';
        case BrkgaOrigin::Offspring: return 'o';
        case BrkgaOrigin::Mutant: return 'm';
        case BrkgaOrigin::Seeded: return 's';
    }
    return '?';
}

KeyBias KeyBias::perNode(int keysPerNode, const std::vector<double>& alphaPerKey,
                         const std::vector<double>& betaPerKey, const std::vector<double>& crossoverPerNode) {
    KeyBias b;
    b.betaAlpha = alphaPerKey;
    b.betaBeta = betaPerKey;
    b.inheritProb.reserve(crossoverPerNode.size() * keysPerNode);
    for (double p : crossoverPerNode)
        for (int k = 0; k < keysPerNode; ++k) b.inheritProb.push_back(p);
    return b;
}

BrkgaSearch::BrkgaSearch(size_t keyCount, BrkgaParams params, KeyBias bias)
    : L_(keyCount), params_(params), bias_(std::move(bias)) {
    if (params_.population < 2) throw std::invalid_argument("BRKGA population must be at least 2");
    if (!(params_.eliteFraction > 0 && params_.eliteFraction < 1))
        throw std::invalid_argument("BRKGA elite fraction must be in (0, 1)");
    if (!(params_.uniformMutantShare >= 0 && params_.uniformMutantShare <= 1))
        throw std::invalid_argument("BRKGA uniform mutant share must be in [0, 1]");
    if (!(params_.mutantFraction >= 0 && params_.eliteFraction + params_.mutantFraction <= 1))
        throw std::invalid_argument("BRKGA mutant fraction must be >= 0 and elite + mutant <= 1");
    if (!(params_.rhoE >= 0 && params_.rhoE <= 1)) throw std::invalid_argument("BRKGA rho_e must be in [0, 1]");
    if (!bias_.betaAlpha.empty() || !bias_.betaBeta.empty()) {
        if (bias_.betaAlpha.size() != L_ || bias_.betaBeta.size() != L_)
            throw std::invalid_argument("BRKGA Beta parameters must have one (alpha, beta) per key");
        for (size_t i = 0; i < L_; ++i)
            if (!(bias_.betaAlpha[i] > 0 && bias_.betaBeta[i] > 0))
                throw std::invalid_argument("BRKGA Beta parameters must be > 0");
    }
    if (!bias_.inheritProb.empty() && bias_.inheritProb.size() != L_)
        throw std::invalid_argument("BRKGA crossover probabilities must have one value per key");
}

void BrkgaSearch::setInitialChromosomes(std::vector<std::vector<double>> chromosomes) {
    for (const auto& c : chromosomes)
        if (c.size() != L_) throw std::invalid_argument("BRKGA initial chromosomes must have one value per key");
    if (chromosomes.size() > size_t(params_.population)) chromosomes.resize(size_t(params_.population));
    initial_ = std::move(chromosomes);
}

void BrkgaSearch::drawMutant(Rng& rng, double* out) const {
    // (the extra draw only when a share is set, so the default keeps every stream as it was)
    if (bias_.betaAlpha.empty() || (params_.uniformMutantShare > 0 && rng.uniform() < params_.uniformMutantShare)) {
        for (size_t i = 0; i < L_; ++i) out[i] = rng.uniform();
    } else {
        for (size_t i = 0; i < L_; ++i) out[i] = rng.beta(bias_.betaAlpha[i], bias_.betaBeta[i]);
    }
}

BrkgaOutcome BrkgaSearch::run(std::vector<KeyDecoder>& decoders, WorkerPool& pool, int64_t budget, uint64_t seed,
                              const std::function<bool(const BrkgaGeneration&)>& onGeneration) {
    if (int(decoders.size()) < pool.size()) throw std::invalid_argument("BRKGA needs one decoder per worker");
    const int p = params_.population;
    const int ne = std::clamp(int(std::lround(params_.eliteFraction * p)), 1, p - 1);
    const int nm = std::clamp(int(std::lround(params_.mutantFraction * p)), 0, p - ne);
    const double inf = std::numeric_limits<double>::infinity();

    std::vector<double> pop(size_t(p) * L_), next(size_t(p) * L_);
    std::vector<double> cost(p, inf), nextCost(p, inf), sortedCosts(p);
    std::vector<BrkgaOrigin> origin(p, BrkgaOrigin::Initial), nextOrigin(p), sortedOrigins(p);
    std::vector<int> order(p);
    BrkgaOutcome out;
    out.bestCost = inf;

    auto evaluateRange = [&](int first, int count, const std::function<void(int, double*)>& build,
                             std::vector<double>& keys, std::vector<double>& costs) {
        const int64_t left = std::max<int64_t>(0, budget - out.evaluations);
        const int todo = int(std::min<int64_t>(count, left));
        for (int i = first + todo; i < first + count; ++i) costs[i] = inf;
        pool.forEach(todo, [&](int j, int worker) {
            const int i = first + j;
            double* x = keys.data() + size_t(i) * L_;
            build(i, x);
            costs[i] = decoders[worker](std::span<const double>(x, L_));
        });
        out.evaluations += todo;
        return todo == count;
    };
    auto rank = [&] {
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return cost[a] < cost[b]; });
        for (int i = 0; i < p; ++i) {
            sortedCosts[i] = cost[order[i]];
            sortedOrigins[i] = origin[order[i]];
        }
        if (cost[order[0]] < out.bestCost) {
            out.bestCost = cost[order[0]];
            out.bestKeys.assign(pop.begin() + size_t(order[0]) * L_, pop.begin() + size_t(order[0] + 1) * L_);
        }
    };
    auto report = [&](int g) {
        if (!onGeneration) return true;
        return onGeneration(BrkgaGeneration{g, out.evaluations, out.bestCost, sortedCosts, sortedOrigins, out.bestKeys});
    };

    // Generation 0: the given chromosomes, the rest from the mutant distribution (individual i
    // draws from its own stream either way, so seeding does not shift the others' draws).
    for (size_t i = 0; i < initial_.size(); ++i) origin[i] = BrkgaOrigin::Seeded;
    bool complete = evaluateRange(
        0, p, [&](int i, double* x) {
            if (size_t(i) < initial_.size()) {
                std::copy(initial_[i].begin(), initial_[i].end(), x);
                return;
            }
            Rng rng = Rng::stream(seed, 0, uint64_t(i));
            drawMutant(rng, x);
        },
        pop, cost);
    rank();
    if (out.bestKeys.empty()) out.bestKeys.assign(pop.begin(), pop.begin() + L_);  // budget 0
    if (!report(0)) {
        out.stopped = true;
        return out;
    }
    int g = 0;
    while (complete && out.evaluations < budget) {
        ++g;
        for (int e = 0; e < ne; ++e) {
            std::copy_n(pop.begin() + size_t(order[e]) * L_, L_, next.begin() + size_t(e) * L_);
            nextCost[e] = cost[order[e]];
            nextOrigin[e] = BrkgaOrigin::Elite;
        }
        const int offspring = p - ne - nm;
        for (int i = ne; i < p; ++i) nextOrigin[i] = i >= ne + offspring ? BrkgaOrigin::Mutant : BrkgaOrigin::Offspring;
        complete = evaluateRange(
            ne, p - ne, [&](int i, double* x) {
                Rng rng = Rng::stream(seed, uint64_t(g), uint64_t(i));
                if (i >= ne + offspring) {
                    drawMutant(rng, x);
                    return;
                }
                const double* elite = pop.data() + size_t(order[rng.index(ne)]) * L_;
                const double* other = pop.data() + size_t(order[ne + rng.index(p - ne)]) * L_;
                if (bias_.inheritProb.empty()) {
                    const double rho = params_.rhoE;
                    for (size_t k = 0; k < L_; ++k) x[k] = rng.uniform() < rho ? elite[k] : other[k];
                } else {
                    for (size_t k = 0; k < L_; ++k) x[k] = rng.uniform() < bias_.inheritProb[k] ? elite[k] : other[k];
                }
            },
            next, nextCost);
        pop.swap(next);
        cost.swap(nextCost);
        origin.swap(nextOrigin);
        rank();
        out.generations = g;
        if (!report(g)) {
            out.stopped = true;
            break;
        }
    }
    return out;
}

}  // namespace graphopt
