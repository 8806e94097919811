// Self-descriptions of engines and tuners: a name, a one-line summary and their parameters with
// type, default, range and help. The registries hold them; `graphopt COMMAND --help`, the GUI's
// run panel (widgets and tooltips) and the README's engine list are generated from them, and
// checkParams() refuses what they do not describe, so the three cannot drift apart.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace graphopt {

struct ParamSpec {
    enum class Type { Integer, Number, Boolean, String, Object, List };  // List: of names (strings)
    std::string name;  // the JSON key, e.g. "population"
    Type type = Type::Number;
    nlohmann::json defaultValue;  // null: none (the parameter is optional, e.g. a file)
    double min = 0, max = 0;      // Integer and Number: the allowed range, inclusive
    std::string help;
    std::vector<std::string> choices = {};  // String: the allowed values (empty: any)

    static ParamSpec integer(std::string name, int64_t def, int64_t lo, int64_t hi, std::string help);
    static ParamSpec number(std::string name, double def, double lo, double hi, std::string help);
    static ParamSpec boolean(std::string name, bool def, std::string help);
    static ParamSpec string(std::string name, std::string def, std::string help);  // def "" = none
    static ParamSpec choice(std::string name, std::string def, std::vector<std::string> choices, std::string help);
    static ParamSpec object(std::string name, std::string help);
    static ParamSpec list(std::string name, std::string help);  // default: the empty list

    // What a value may be: "integer in [2, 1000000]", "number in [0, 1]", "one of greedy|sample",
    // "boolean", ... (help texts, tooltips and refusals share it).
    std::string allowedValues() const;
    // allowedValues() and the default: "integer in [2, 1000000], default 100".
    std::string describeRange() const;
};

const char* paramTypeName(ParamSpec::Type t);
// The shortest text that reads back as the same number ("0.1", "1e-07", "5000").
std::string formatNumber(double v);

struct EngineDescription {
    std::string name;
    std::string summary;  // one line
    std::vector<ParamSpec> params;
    // Can pause after every step in step mode (RunReporter::step): BRKGA and REGAL, per generation.
    bool steps = false;
    // Its result depends on the problem and its parameters alone, not on the seed, the budget or
    // the thread count (the heuristics and the partitioners): a result kept for the problem can
    // stand for running it again (SeedSolutions).
    bool deterministic = false;

    const ParamSpec* find(const std::string& key) const;
    nlohmann::json defaults() const;  // every parameter that has a default
};

// Throws std::invalid_argument "<owner>: unknown parameter 'x' (known: a, b)" for a key not in
// `specs`, "<owner>: <key> must be ..." for a value of the wrong type or out of range, and
// "<owner>: parameters must be a JSON object" when `params` is not one.
void checkParams(const std::string& owner, const std::vector<ParamSpec>& specs, const nlohmann::json& params);

// Help text: one line per parameter, "  name  type range, default D. help".
std::string describeParams(const std::vector<ParamSpec>& specs, const std::string& indent = "    ");

}  // namespace graphopt
