// Reading a tuner's --tuner-params (a JSON object): one value at a time, with its range checked,
// and the whole object checked for names no part knows. The same calls describe the parameters:
// each read adds a ParamSpec (name, type, default, range, help) to the collector, so a tuner's
// description is made by reading an empty object (describeTunerParams) and cannot drift from what
// the tuner actually reads.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run/ParamSpec.h"

namespace graphopt::tuning {

// The parameters read so far.
struct ParamCollector {
    std::vector<ParamSpec> specs;
    bool knows(const std::string& key) const;
    void add(ParamSpec spec);  // a name read twice keeps its first description
};

// params[key] when present, else `def`; describes the parameter in `known`. Throws
// std::invalid_argument "<key> must be an integer in [lo, hi]" (integerParam), "<key> must be a
// number in [lo, hi]" (numberParam) or "<key> must be true or false" (booleanParam) when the value
// is of another type or out of range.
int64_t integerParam(const nlohmann::json& params, const char* key, int64_t def, int64_t lo, int64_t hi,
                     const char* help, ParamCollector& known);
double numberParam(const nlohmann::json& params, const char* key, double def, double lo, double hi, const char* help,
                   ParamCollector& known);
bool booleanParam(const nlohmann::json& params, const char* key, bool def, const char* help, ParamCollector& known);

using ParamReader = std::function<void(const nlohmann::json& params, ParamCollector& known)>;

// A tuner's --tuner-params: `read` reads its parts' parameters; then any other key is refused
// ("<tuner>: unknown parameter 'x' (known: ...)"). Every error is a std::invalid_argument whose
// message starts with "<tuner>: ".
void readTunerParams(const std::string& tuner, const nlohmann::json& params, const ParamReader& read);
// What `read` reads, with the defaults it uses when nothing is given.
std::vector<ParamSpec> describeTunerParams(const ParamReader& read);

}  // namespace graphopt::tuning
