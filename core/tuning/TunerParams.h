// Reading a tuner's --tuner-params (a JSON object): one value at a time, with its range checked,
// and the whole object checked for names no part knows.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

namespace graphopt::tuning {

// params[key] when present, else `def`; adds `key` to `known`. Throws std::invalid_argument
// "<key> must be an integer in [lo, hi]" (integerParam) or "<key> must be a number in [lo, hi]"
// (numberParam) when the value is of another type or out of range.
int64_t integerParam(const nlohmann::json& params, const char* key, int64_t def, int64_t lo, int64_t hi,
                     std::set<std::string>& known);
double numberParam(const nlohmann::json& params, const char* key, double def, double lo, double hi,
                   std::set<std::string>& known);

// A model-based tuner's --tuner-params: `read` reads its parts' parameters, adding the names it
// knows to `known`; then any other key is refused ("<tuner>: unknown parameter 'x' (known: ...)").
// Every error is a std::invalid_argument whose message starts with "<tuner>: ".
void readTunerParams(const std::string& tuner, const nlohmann::json& params,
                     const std::function<void(std::set<std::string>& known)>& read);

}  // namespace graphopt::tuning
