#include "tuning/TunerParams.h"

#include <stdexcept>

namespace graphopt::tuning {

int64_t integerParam(const nlohmann::json& params, const char* key, int64_t def, int64_t lo, int64_t hi,
                     std::set<std::string>& known) {
    known.insert(key);
    if (!params.contains(key)) return def;
    const auto& v = params[key];
    if (!v.is_number_integer() || v.get<int64_t>() < lo || v.get<int64_t>() > hi)
        throw std::invalid_argument(std::string(key) + " must be an integer in [" + std::to_string(lo) + ", " +
                                    std::to_string(hi) + "]");
    return v.get<int64_t>();
}

double numberParam(const nlohmann::json& params, const char* key, double def, double lo, double hi,
                   std::set<std::string>& known) {
    known.insert(key);
    if (!params.contains(key)) return def;
    const auto& v = params[key];
    if (!v.is_number() || !(v.get<double>() >= lo) || !(v.get<double>() <= hi))
        throw std::invalid_argument(std::string(key) + " must be a number in [" + std::to_string(lo) + ", " +
                                    std::to_string(hi) + "]");
    return v.get<double>();
}

void readTunerParams(const std::string& tuner, const nlohmann::json& params,
                     const std::function<void(std::set<std::string>& known)>& read) {
    std::set<std::string> known;
    try {
        read(known);
    } catch (const std::invalid_argument& e) {
        const std::string msg = e.what();
        if (msg.rfind(tuner + ":", 0) == 0) throw;
        throw std::invalid_argument(tuner + ": " + msg);
    }
    if (!params.is_object()) throw std::invalid_argument(tuner + ": tuner parameters must be a JSON object");
    for (const auto& [key, value] : params.items()) {
        if (known.count(key)) continue;
        std::string list;
        for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
        throw std::invalid_argument(tuner + ": unknown parameter '" + key + "' (known: " + list + ")");
    }
}

}  // namespace graphopt::tuning
