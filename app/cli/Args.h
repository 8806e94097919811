// A small, strict command-line parser: every flag must be declared, values are checked, and a
// mistake is a UsageError whose message says what was wrong (main() prints it and exits 2).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace graphopt::cli {

class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class Args {
public:
    // `valued`: flags that take a value (--seed 3 or --seed=3); `switches`: flags without one.
    // Flags are written without the leading dashes.
    Args(const std::vector<std::string>& argv, const std::set<std::string>& valued,
         const std::set<std::string>& switches);

    const std::vector<std::string>& positional() const { return positional_; }
    // The single positional argument `what` (e.g. "MODEL"); UsageError when missing or extra.
    std::string onePositional(const std::string& what) const;

    bool has(const std::string& flag) const;
    std::optional<std::string> get(const std::string& flag) const;
    std::string get(const std::string& flag, const std::string& fallback) const;
    std::string require(const std::string& flag) const;
    int64_t getInt(const std::string& flag, int64_t fallback, int64_t min, int64_t max) const;
    uint64_t getSeed(const std::string& flag, uint64_t fallback) const;
    double getDouble(const std::string& flag, double fallback, double min, double max) const;
    // The value must be one of `choices`.
    std::string getChoice(const std::string& flag, const std::string& fallback,
                          const std::vector<std::string>& choices) const;

private:
    std::vector<std::string> positional_;
    std::map<std::string, std::string> values_;
    std::set<std::string> switchesSeen_;
};

}  // namespace graphopt::cli
