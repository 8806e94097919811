#include "placement/search/SeedSolutions.h"

namespace graphopt {

SearchOutcome SeedSolutions::get(const std::string& name, bool deterministic, const SearchContext& ctx,
                                 const std::function<SearchOutcome()>& run) {
    const std::string key =
        deterministic ? name : name + " seed " + std::to_string(ctx.seed) + " budget " + std::to_string(ctx.budget);
    std::lock_guard lock(mutex_);
    if (auto it = kept_.find(key); it != kept_.end()) {
        ++reused_;
        return it->second;
    }
    SearchOutcome out = run();
    ++computed_;
    if (!out.cancelled) kept_.emplace(key, out);
    return out;
}

std::optional<SearchOutcome> SeedSolutions::kept(const std::string& name) const {
    std::lock_guard lock(mutex_);
    if (auto it = kept_.find(name); it != kept_.end()) return it->second;
    return std::nullopt;
}

void SeedSolutions::keep(const std::string& name, SearchOutcome out) {
    std::lock_guard lock(mutex_);
    kept_.emplace(name, std::move(out));
}

int64_t SeedSolutions::computed() const {
    std::lock_guard lock(mutex_);
    return computed_;
}

int64_t SeedSolutions::reused() const {
    std::lock_guard lock(mutex_);
    return reused_;
}

}  // namespace graphopt
