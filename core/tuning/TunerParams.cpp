#include "tuning/TunerParams.h"

#include <stdexcept>

namespace graphopt::tuning {

bool ParamCollector::knows(const std::string& key) const {
    for (const auto& s : specs)
        if (s.name == key) return true;
    return false;
}

void ParamCollector::add(ParamSpec spec) {
    if (!knows(spec.name)) specs.push_back(std::move(spec));
}

int64_t integerParam(const nlohmann::json& params, const char* key, int64_t def, int64_t lo, int64_t hi,
                     const char* help, ParamCollector& known) {
    known.add(ParamSpec::integer(key, def, lo, hi, help));
    if (!params.contains(key)) return def;
    const auto& v = params[key];
    if (!v.is_number_integer() || v.get<int64_t>() < lo || v.get<int64_t>() > hi)
        throw std::invalid_argument(std::string(key) + " must be an integer in [" + std::to_string(lo) + ", " +
                                    std::to_string(hi) + "]");
    return v.get<int64_t>();
}

double numberParam(const nlohmann::json& params, const char* key, double def, double lo, double hi, const char* help,
                   ParamCollector& known) {
    known.add(ParamSpec::number(key, def, lo, hi, help));
    if (!params.contains(key)) return def;
    const auto& v = params[key];
    if (!v.is_number() || !(v.get<double>() >= lo) || !(v.get<double>() <= hi))
        throw std::invalid_argument(std::string(key) + " must be a number in [" + formatNumber(lo) + ", " + formatNumber(hi) +
                                    "]");
    return v.get<double>();
}

bool booleanParam(const nlohmann::json& params, const char* key, bool def, const char* help, ParamCollector& known) {
    known.add(ParamSpec::boolean(key, def, help));
    if (!params.contains(key)) return def;
    if (!params[key].is_boolean()) throw std::invalid_argument(std::string(key) + " must be true or false");
    return params[key].get<bool>();
}

void readTunerParams(const std::string& tuner, const nlohmann::json& params, const ParamReader& read) {
    if (!params.is_object()) throw std::invalid_argument(tuner + ": tuner parameters must be a JSON object");
    ParamCollector known;
    try {
        read(params, known);
    } catch (const std::invalid_argument& e) {
        const std::string msg = e.what();
        if (msg.rfind(tuner + ":", 0) == 0) throw;
        throw std::invalid_argument(tuner + ": " + msg);
    }
    for (const auto& [key, value] : params.items()) {
        if (known.knows(key)) continue;
        std::string list;
        for (const auto& s : known.specs) list += (list.empty() ? "" : ", ") + s.name;
        throw std::invalid_argument(tuner + ": unknown parameter '" + key + "' (known: " + (list.empty() ? "none" : list) +
                                    ")");
    }
}

std::vector<ParamSpec> describeTunerParams(const ParamReader& read) {
    ParamCollector known;
    read(nlohmann::json::object(), known);
    return known.specs;
}

}  // namespace graphopt::tuning
