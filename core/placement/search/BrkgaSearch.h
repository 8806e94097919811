// Biased random-key genetic algorithm (papers/REGAL.md, "BRKGA"), generic over the decoder.
//
// Each generation: the elite (pe*p best) are copied; pm*p mutants are drawn fresh; the rest are
// offspring of one elite and one non-elite parent, each key taken from the elite parent with
// probability rho_e. The budget counts decoder evaluations (copied elites are not re-decoded); the
// last generation is cut short so that exactly `budget` decodings happen.
//
// REGAL hooks (KeyBias): per-key Beta(alpha, beta) for mutant keys (and the initial population)
// instead of Uniform(0,1), and per-key elite-inheritance probabilities instead of one rho_e (a
// per-node crossover probability is that value repeated over the node's d+1 keys).
//
// Determinism: individual i of generation g draws from its own stream Rng::stream(seed, g, i), and
// sorting breaks ties by index, so the result for a seed is the same for any number of threads.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "run/Rng.h"
#include "placement/search/WorkerPool.h"

namespace graphopt {

struct BrkgaParams {
    int population = 100;
    double eliteFraction = 0.10;
    double mutantFraction = 0.10;
    double rhoE = 0.70;
    // With a KeyBias: the share of mutants (generation 0's included) drawn uniform instead of from
    // the bias, each chromosome as a whole. 0 (the default) draws every one from the bias.
    double uniformMutantShare = 0;
};

struct KeyBias {
    std::vector<double> betaAlpha, betaBeta;  // per key; empty = Uniform(0,1)
    std::vector<double> inheritProb;          // per key; empty = rho_e
    // Per-node parameters (node v covers keys v*keysPerNode .. +keysPerNode-1).
    static KeyBias perNode(int keysPerNode, const std::vector<double>& alphaPerKey,
                           const std::vector<double>& betaPerKey, const std::vector<double>& crossoverPerNode);
};

// Where an individual of the current population came from (for teaching: step mode shows them).
enum class BrkgaOrigin : uint8_t {
    Initial,    // generation 0, drawn from the mutant distribution
    Elite,      // copied unchanged from the previous generation's elite
    Offspring,  // crossover of an elite and a non-elite parent
    Mutant,     // drawn fresh from the mutant distribution
    Seeded,     // generation 0, given (a heuristic's solution: setInitialChromosomes)
};
char brkgaOriginLetter(BrkgaOrigin o);  // 'i', 'e', 'o', 'm', 's'

struct BrkgaGeneration {
    int generation = 0;
    int64_t evaluations = 0;
    double bestCost = 0;
    std::span<const double> populationCosts;         // sorted best first (unevaluated = +inf)
    std::span<const BrkgaOrigin> populationOrigins;  // in the same order
    std::span<const double> bestKeys;                // the best chromosome found so far
};

// Decodes one chromosome into a cost (lower is better). One per worker thread.
using KeyDecoder = std::function<double(std::span<const double>)>;

struct BrkgaOutcome {
    std::vector<double> bestKeys;
    double bestCost = 0;
    int64_t evaluations = 0;
    int generations = 0;
    bool stopped = false;  // the observer asked to stop (cancellation)
};

class BrkgaSearch {
public:
    BrkgaSearch(size_t keyCount, BrkgaParams params, KeyBias bias = {});

    // Generation 0 starts with these chromosomes (at most the population; the rest is drawn as
    // usual). Seeding with heuristics' solutions guarantees the search ends no worse than the best
    // of them, since the elite is carried over. Throws std::invalid_argument for a wrong length.
    void setInitialChromosomes(std::vector<std::vector<double>> chromosomes);

    // `decoders` has one entry per pool worker. `onGeneration` runs on the calling thread after the
    // initial population and after every generation; returning false stops the search (the best
    // found so far is returned).
    BrkgaOutcome run(std::vector<KeyDecoder>& decoders, WorkerPool& pool, int64_t budget, uint64_t seed,
                     const std::function<bool(const BrkgaGeneration&)>& onGeneration = {});

private:
    void drawMutant(Rng& rng, double* out) const;

    size_t L_;
    BrkgaParams params_;
    KeyBias bias_;
    std::vector<std::vector<double>> initial_;
};

}  // namespace graphopt
