// A space of schedule knobs, in the manner of AutoTVM's ConfigSpace.
//
// A knob has a list of entities (its choices). A split knob's entities are every ordered
// factorization of a loop extent into `parts` factors (AutoTVM's "factors" policy), optionally
// filtered by a bound on the innermost factor; an enumerated knob's entities are single values
// (unroll on/off, vector width, where a producer is computed, ...).
//
// A configuration is a point of the mixed-radix product of the knobs: an index in [0, size()),
// knob 0 being the fastest-varying digit. Index <-> per-knob entity indices convert both ways.
// Entity lists are ordered (factorizations lexicographically by their factors, enumerations as
// given) so that "one step up or down a knob" is a small change in the schedule: the RL agent of
// ReLeASE walks the space with decrement / stay / increment per knob.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace graphopt {
class Rng;
}

namespace graphopt::tuning {

// Limits of a split knob. Loop extents are 32-bit in the kernels (Halide), and a knob with more
// entities than this is no search space anyone can measure; both are refused with an error that
// names the knob rather than left to run (the divisors of 2^40 took hours to enumerate).
constexpr int64_t kMaxSplitExtent = 2147483647;  // 2^31 - 1
constexpr int kMaxSplitParts = 16;
constexpr size_t kMaxSplitEntities = size_t(1) << 20;

// Every ordered way to write `extent` as a product of `parts` positive factors, in lexicographic
// order of the factor vectors. 1 <= extent <= kMaxSplitExtent, 1 <= parts <= kMaxSplitParts; throws
// std::invalid_argument otherwise, or when there are more than `maxCount` factorizations. Divisors
// are found in O(sqrt(extent)).
std::vector<std::vector<int64_t>> factorizations(int64_t extent, int parts, size_t maxCount = kMaxSplitEntities);

struct Knob {
    enum class Kind { Split, Enum };
    std::string name;
    Kind kind = Kind::Enum;
    int64_t extent = 0;                          // split knobs: the loop extent
    std::vector<std::vector<int64_t>> entities;  // split: the factors (outer first); enum: {value}
    size_t size() const { return entities.size(); }
};

using ConfigIndex = uint64_t;
using KnobIndices = std::vector<int>;  // one entity index per knob

class KnobSpace {
public:
    // Split `extent` into `parts` factors, outer first. maxInner > 0 keeps only factorizations
    // whose innermost factor is <= maxInner (never empties the knob: [extent/1 ..., 1] stays).
    // Throws std::invalid_argument naming the knob past the limits above.
    void addSplit(const std::string& name, int64_t extent, int parts, int64_t maxInner = 0);
    void addEnum(const std::string& name, const std::vector<int64_t>& values);

    size_t knobCount() const { return knobs_.size(); }
    const Knob& knob(size_t i) const { return knobs_.at(i); }
    const std::vector<Knob>& knobs() const { return knobs_; }
    int knobIndex(const std::string& name) const;  // throws std::out_of_range
    // Number of configurations (throws std::overflow_error past 2^63).
    ConfigIndex size() const { return size_; }

    KnobIndices decode(ConfigIndex index) const;  // throws std::out_of_range
    ConfigIndex encode(const KnobIndices& k) const;  // throws std::out_of_range
    bool contains(const KnobIndices& k) const;

    // Knob values of a configuration.
    const std::vector<int64_t>& split(const KnobIndices& k, const std::string& name) const;
    int64_t value(const KnobIndices& k, const std::string& name) const;

    // Apply one move per knob (-1 decrement, 0 stay, +1 increment), clamped at the bounds.
    ConfigIndex move(ConfigIndex index, const std::vector<int>& moves) const;
    // Every configuration one step away along a single knob.
    std::vector<ConfigIndex> neighbours(ConfigIndex index) const;
    ConfigIndex random(Rng& rng) const;
    KnobIndices randomIndices(Rng& rng) const;
    // Knob indices divided by (knob size - 1), each in [0, 1] (0 for one-entity knobs).
    std::vector<double> normalized(ConfigIndex index) const;

    // {"tile_co": [8, 8], "vec": 8, ...}
    nlohmann::json describe(ConfigIndex index) const;
    std::string describeText(ConfigIndex index) const;

private:
    void recomputeSize();
    std::vector<Knob> knobs_;
    ConfigIndex size_ = 1;
};

}  // namespace graphopt::tuning
