// Adaptive sampling (papers/ReLeASE.md, "Adaptive sampling" and "Sample synthesis"): instead of
// measuring the explorer's top candidates, which crowd into a few regions of the space, cluster
// them and measure one representative per cluster.
//
//  - k-means over the candidates' normalized knob vectors (KnobSpace::normalized): k-means++
//    seeding from the tuner's Rng, then Lloyd iterations until no point changes cluster;
//  - k at the knee of the loss curve: k = firstK, 2 firstK, 4 firstK, ... up to the batch size,
//    and never above a quarter of the candidates (`minClusterSize`), so that a cluster always
//    stands for several candidates and k never reaches the candidate count (where the loss is 0
//    and "sampling" would measure every candidate); stop at the first k whose loss is not at
//    least `kneeRatio` times smaller than the previous k's, and keep the previous k;
//  - representative = the centroid snapped to a configuration (each coordinate rounded to the
//    nearest knob index);
//  - sample synthesis when that configuration is invalid, already measured or proposed, or taken
//    by another cluster: each knob takes the majority value among the cluster's members; if that
//    is taken too, the cluster's best-scored free member, then any free candidate.
// Never returns a taken or invalid configuration, never the same one twice.
#pragma once

#include <functional>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuning/Explorer.h"
#include "tuning/KnobSpace.h"
#include "run/Rng.h"

namespace graphopt::tuning {

using Point = std::vector<double>;

struct KMeansResult {
    int k = 0;
    std::vector<Point> centroids;
    std::vector<int> assignment;  // cluster of each point
    double loss = 0;              // sum of squared distances to the assigned centroid
    int iterations = 0;
};

// k is clamped to [1, points.size()]; points must be non-empty and of one dimension.
KMeansResult kmeans(const std::vector<Point>& points, int k, Rng& rng, int maxIterations = 100);

struct KneeSelection {
    KMeansResult clustering;                    // at the chosen k
    std::vector<std::pair<int, double>> losses;  // every k tried and its loss
};

// Tries `ks` in order (increasing) and keeps the k before the first one whose loss is not at
// least `ratio` times smaller than its predecessor's (the last k when every step pays off). Each k
// keeps the best of `restarts` k-means runs (k-means++ can seed two centres in one blob).
KneeSelection kneeKMeans(const std::vector<Point>& points, const std::vector<int>& ks, Rng& rng,
                         double ratio = 2.5, int restarts = 3);
// firstK, 2 firstK, 4 firstK, ... below maxK, then maxK itself (so maxK is always tried).
std::vector<int> kneeSchedule(int firstK, int maxK);

// The configuration nearest to a point of the normalized space (each coordinate to its knob's
// nearest index, clamped).
KnobIndices snapToSpace(const KnobSpace& space, const Point& normalized);

struct AdaptiveSamplingOptions {
    int firstK = 8;
    double kneeRatio = 2.5;
    int minClusterSize = 4;  // k <= max(1, candidates / minClusterSize)
};

// The largest k adaptiveSample tries for `candidates` points and a batch of `maxK`.
int adaptiveMaxK(size_t candidates, int maxK, const AdaptiveSamplingOptions& options = {});

struct SampledBatch {
    int k = 0;
    std::vector<std::pair<int, double>> losses;
    std::vector<int> candidateCluster;       // per candidate, in the order given
    std::vector<ConfigIndex> representatives;  // best cluster (by its best score) first
    std::vector<int> representativeCluster;
    std::vector<bool> synthesized;  // false: the snapped centroid itself
};

// `taken(c)`: measured or already proposed. `valid(c)` may be empty (every point of a KnobSpace is
// a valid kernel). maxK: the batch size (the most representatives wanted); k stays at or below
// adaptiveMaxK(candidates.size(), maxK), which is below the candidate count whenever there are two
// or more.
SampledBatch adaptiveSample(const KnobSpace& space, const std::vector<ScoredConfig>& candidates, int maxK,
                            const std::function<bool(ConfigIndex)>& taken, Rng& rng,
                            const AdaptiveSamplingOptions& options = {},
                            const std::function<bool(ConfigIndex)>& valid = {});

}  // namespace graphopt::tuning
