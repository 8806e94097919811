#include "tuning/KnobSpace.h"

#include <stdexcept>

#include "run/Rng.h"

namespace graphopt::tuning {

namespace {

// The divisors of n in increasing order, by trial division up to sqrt(n).
std::vector<int64_t> divisorsOf(int64_t n) {
    std::vector<int64_t> low, high;
    for (int64_t f = 1; f <= n / f; ++f)
        if (n % f == 0) {
            low.push_back(f);
            if (f != n / f) high.push_back(n / f);
        }
    low.insert(low.end(), high.rbegin(), high.rend());
    return low;
}

// How many ordered factorizations into `parts` factors n has: the product over its prime powers
// p^a of C(a + parts - 1, parts - 1), saturating at `cap` (so the count is known before anything
// is enumerated).
size_t countFactorizations(int64_t n, int parts, size_t cap) {
    auto ways = [parts](int a) {  // C(a + parts - 1, a), exact in double for a < 64, parts <= 16
        double c = 1;
        for (int i = 1; i <= a; ++i) c = c * double(parts - 1 + i) / double(i);
        return c;
    };
    double count = 1;
    for (int64_t p = 2; p <= n / p; ++p) {
        int a = 0;
        while (n % p == 0) n /= p, ++a;
        if (a) count *= ways(a);
    }
    if (n > 1) count *= ways(1);
    return count >= double(cap) ? cap : size_t(count + 0.5);
}

// Every divisor of `rest` divides the extent, so each level walks the extent's (few) divisors.
void factorRec(int64_t rest, int parts, const std::vector<int64_t>& divisors, size_t maxCount,
               std::vector<int64_t>& prefix, std::vector<std::vector<int64_t>>& out) {
    if (parts == 1) {
        if (out.size() >= maxCount)
            throw std::invalid_argument("more than " + std::to_string(maxCount) + " ways to split it");
        prefix.push_back(rest);
        out.push_back(prefix);
        prefix.pop_back();
        return;
    }
    for (int64_t f : divisors) {
        if (f > rest) break;
        if (rest % f) continue;
        prefix.push_back(f);
        factorRec(rest / f, parts - 1, divisors, maxCount, prefix, out);
        prefix.pop_back();
    }
}

}  // namespace

std::vector<std::vector<int64_t>> factorizations(int64_t extent, int parts, size_t maxCount) {
    if (extent < 1 || parts < 1) throw std::invalid_argument("factorizations: extent and parts must be >= 1");
    if (extent > kMaxSplitExtent)
        throw std::invalid_argument("factorizations: extent " + std::to_string(extent) + " is larger than " +
                                    std::to_string(kMaxSplitExtent) + " (2^31 - 1)");
    if (parts > kMaxSplitParts)
        throw std::invalid_argument("factorizations: " + std::to_string(parts) + " parts; at most " +
                                    std::to_string(kMaxSplitParts));
    if (countFactorizations(extent, parts, maxCount + 1) > maxCount)
        throw std::invalid_argument("factorizations: " + std::to_string(extent) + " into " + std::to_string(parts) +
                                    " factors: more than " + std::to_string(maxCount) + " ways to split it");
    const std::vector<int64_t> divisors = divisorsOf(extent);
    std::vector<std::vector<int64_t>> out;
    std::vector<int64_t> prefix;
    try {
        factorRec(extent, parts, divisors, maxCount, prefix, out);
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument("factorizations: " + std::to_string(extent) + " into " + std::to_string(parts) +
                                    " factors: " + e.what());
    }
    return out;
}

void KnobSpace::addSplit(const std::string& name, int64_t extent, int parts, int64_t maxInner) {
    Knob k;
    k.name = name;
    k.kind = Knob::Kind::Split;
    k.extent = extent;
    std::vector<std::vector<int64_t>> all;
    try {
        all = factorizations(extent, parts);
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument("split knob '" + name + "': " + e.what());
    }
    for (auto& f : all)
        if (maxInner <= 0 || f.back() <= maxInner || f.back() == 1) k.entities.push_back(std::move(f));
    knobs_.push_back(std::move(k));
    recomputeSize();
}

void KnobSpace::addEnum(const std::string& name, const std::vector<int64_t>& values) {
    if (values.empty()) throw std::invalid_argument("knob '" + name + "' has no values");
    Knob k;
    k.name = name;
    k.kind = Knob::Kind::Enum;
    for (int64_t v : values) k.entities.push_back({v});
    knobs_.push_back(std::move(k));
    recomputeSize();
}

void KnobSpace::recomputeSize() {
    ConfigIndex s = 1;
    for (const auto& k : knobs_) {
        if (s > (ConfigIndex(1) << 63) / k.size()) throw std::overflow_error("knob space larger than 2^63");
        s *= k.size();
    }
    size_ = s;
}

int KnobSpace::knobIndex(const std::string& name) const {
    for (size_t i = 0; i < knobs_.size(); ++i)
        if (knobs_[i].name == name) return static_cast<int>(i);
    throw std::out_of_range("no knob named '" + name + "'");
}

KnobIndices KnobSpace::decode(ConfigIndex index) const {
    if (index >= size_) throw std::out_of_range("configuration " + std::to_string(index) + " outside the space");
    KnobIndices k(knobs_.size());
    for (size_t i = 0; i < knobs_.size(); ++i) {
        k[i] = static_cast<int>(index % knobs_[i].size());
        index /= knobs_[i].size();
    }
    return k;
}

bool KnobSpace::contains(const KnobIndices& k) const {
    if (k.size() != knobs_.size()) return false;
    for (size_t i = 0; i < k.size(); ++i)
        if (k[i] < 0 || static_cast<size_t>(k[i]) >= knobs_[i].size()) return false;
    return true;
}

ConfigIndex KnobSpace::encode(const KnobIndices& k) const {
    if (!contains(k)) throw std::out_of_range("knob indices outside the space");
    ConfigIndex index = 0;
    for (size_t i = knobs_.size(); i-- > 0;) index = index * knobs_[i].size() + static_cast<ConfigIndex>(k[i]);
    return index;
}

const std::vector<int64_t>& KnobSpace::split(const KnobIndices& k, const std::string& name) const {
    const int i = knobIndex(name);
    return knobs_[i].entities.at(k.at(i));
}

int64_t KnobSpace::value(const KnobIndices& k, const std::string& name) const {
    const int i = knobIndex(name);
    return knobs_[i].entities.at(k.at(i)).front();
}

ConfigIndex KnobSpace::move(ConfigIndex index, const std::vector<int>& moves) const {
    if (moves.size() != knobs_.size()) throw std::invalid_argument("one move per knob expected");
    KnobIndices k = decode(index);
    for (size_t i = 0; i < k.size(); ++i) {
        const int v = k[i] + (moves[i] > 0 ? 1 : moves[i] < 0 ? -1 : 0);
        if (v >= 0 && static_cast<size_t>(v) < knobs_[i].size()) k[i] = v;
    }
    return encode(k);
}

std::vector<ConfigIndex> KnobSpace::neighbours(ConfigIndex index) const {
    const KnobIndices k = decode(index);
    std::vector<ConfigIndex> out;
    for (size_t i = 0; i < k.size(); ++i)
        for (int d : {-1, 1}) {
            const int v = k[i] + d;
            if (v < 0 || static_cast<size_t>(v) >= knobs_[i].size()) continue;
            KnobIndices n = k;
            n[i] = v;
            out.push_back(encode(n));
        }
    return out;
}

KnobIndices KnobSpace::randomIndices(Rng& rng) const {
    KnobIndices k(knobs_.size());
    for (size_t i = 0; i < k.size(); ++i) k[i] = static_cast<int>(rng.below(knobs_[i].size()));
    return k;
}

ConfigIndex KnobSpace::random(Rng& rng) const { return rng.below(size_); }

std::vector<double> KnobSpace::normalized(ConfigIndex index) const {
    const KnobIndices k = decode(index);
    std::vector<double> out(k.size());
    for (size_t i = 0; i < k.size(); ++i)
        out[i] = knobs_[i].size() > 1 ? static_cast<double>(k[i]) / static_cast<double>(knobs_[i].size() - 1) : 0.0;
    return out;
}

nlohmann::json KnobSpace::describe(ConfigIndex index) const {
    const KnobIndices k = decode(index);
    nlohmann::json j = nlohmann::json::object();
    for (size_t i = 0; i < k.size(); ++i) {
        const auto& e = knobs_[i].entities[k[i]];
        if (knobs_[i].kind == Knob::Kind::Split)
            j[knobs_[i].name] = e;
        else
            j[knobs_[i].name] = e.front();
    }
    return j;
}

std::string KnobSpace::describeText(ConfigIndex index) const {
    std::string s;
    const KnobIndices k = decode(index);
    for (size_t i = 0; i < k.size(); ++i) {
        if (i) s += ' ';
        s += knobs_[i].name + '=';
        const auto& e = knobs_[i].entities[k[i]];
        for (size_t j = 0; j < e.size(); ++j) s += (j ? "x" : "") + std::to_string(e[j]);
    }
    return s;
}

}  // namespace graphopt::tuning
