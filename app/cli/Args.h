// A small, strict command-line parser over a CommandSpec: every option must be one the command
// describes, values are checked, defaults come from the description, and a mistake is a
// UsageError whose message says what was wrong (main() prints it and exits 2).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "CommandSpec.h"

namespace graphopt::cli {

class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class Args {
public:
    // Options are written --name VALUE, --name=VALUE or --name (switches). `spec` must outlive
    // the Args.
    Args(const std::vector<std::string>& argv, const CommandSpec& spec);

    const std::vector<std::string>& positional() const { return positional_; }
    // The single positional argument `what` (e.g. "MODEL"); UsageError when missing or extra.
    std::string onePositional(const std::string& what) const;
    // UsageError when any positional argument was given.
    void noPositional() const;

    // Given on the command line (defaults do not count).
    bool has(const std::string& flag) const;
    // The command describes this option (shared helpers read options some commands lack).
    bool declares(const std::string& flag) const { return spec_.find(flag) != nullptr; }
    // The value given, else the option's default; nullopt when neither.
    std::optional<std::string> get(const std::string& flag) const;
    // Every value given, in order (an option given several times, e.g. --input-shape).
    std::vector<std::string> getAll(const std::string& flag) const;
    // As get(), UsageError "option --x is required" when neither.
    std::string require(const std::string& flag) const;
    int64_t getInt(const std::string& flag, int64_t min, int64_t max) const;
    uint64_t getSeed(const std::string& flag) const;
    double getDouble(const std::string& flag, double min, double max) const;
    // One of the option's choices.
    std::string getChoice(const std::string& flag) const;
    // A JSON object (e.g. --tuner-params '{"plan_size": 16}'); an empty object when absent.
    nlohmann::json getJsonObject(const std::string& flag) const;

private:
    const OptionSpec& option(const std::string& flag) const;  // logic_error for an undeclared flag

    const CommandSpec& spec_;
    std::vector<std::string> positional_;
    std::map<std::string, std::string> values_;                // the last value of each option
    std::map<std::string, std::vector<std::string>> every_;     // every value, for repeatable ones
    std::set<std::string> switchesSeen_;
};

}  // namespace graphopt::cli
