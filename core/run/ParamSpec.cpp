#include "run/ParamSpec.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace graphopt {

std::string formatNumber(double v) {
    std::ostringstream os;
    os.precision(15);
    os << v;
    return os.str();
}

ParamSpec ParamSpec::integer(std::string name, int64_t def, int64_t lo, int64_t hi, std::string help) {
    return {std::move(name), Type::Integer, def, double(lo), double(hi), std::move(help)};
}

ParamSpec ParamSpec::number(std::string name, double def, double lo, double hi, std::string help) {
    return {std::move(name), Type::Number, def, lo, hi, std::move(help)};
}

ParamSpec ParamSpec::boolean(std::string name, bool def, std::string help) {
    return {std::move(name), Type::Boolean, def, 0, 0, std::move(help)};
}

ParamSpec ParamSpec::string(std::string name, std::string def, std::string help) {
    nlohmann::json d = def.empty() ? nlohmann::json() : nlohmann::json(def);
    return {std::move(name), Type::String, d, 0, 0, std::move(help)};
}

ParamSpec ParamSpec::choice(std::string name, std::string def, std::vector<std::string> choices, std::string help) {
    ParamSpec p = string(std::move(name), std::move(def), std::move(help));
    p.choices = std::move(choices);
    return p;
}

ParamSpec ParamSpec::object(std::string name, std::string help) {
    return {std::move(name), Type::Object, nullptr, 0, 0, std::move(help)};
}

ParamSpec ParamSpec::list(std::string name, std::string help) {
    return {std::move(name), Type::List, nlohmann::json::array(), 0, 0, std::move(help)};
}

const char* paramTypeName(ParamSpec::Type t) {
    switch (t) {
        case ParamSpec::Type::Integer: return "integer";
        case ParamSpec::Type::Number: return "number";
        case ParamSpec::Type::Boolean: return "boolean";
        case ParamSpec::Type::String: return "string";
        case ParamSpec::Type::Object: return "object";
        case ParamSpec::Type::List: return "list of names";
    }
    return "value";
}

std::string ParamSpec::allowedValues() const {
    if (!choices.empty()) {
        std::string s = "one of ";
        for (size_t i = 0; i < choices.size(); ++i) s += (i ? "|" : "") + choices[i];
        return s;
    }
    std::string s = paramTypeName(type);
    if (type == Type::Integer)
        s += " in [" + std::to_string(int64_t(min)) + ", " + std::to_string(int64_t(max)) + "]";
    else if (type == Type::Number)
        s += " in [" + formatNumber(min) + ", " + formatNumber(max) + "]";
    return s;
}

std::string ParamSpec::describeRange() const {
    std::string s = allowedValues();
    if (!defaultValue.is_null())
        s += ", default " + (defaultValue.is_number_float() ? formatNumber(defaultValue.get<double>()) : defaultValue.dump());
    return s;
}

const ParamSpec* EngineDescription::find(const std::string& key) const {
    for (const auto& p : params)
        if (p.name == key) return &p;
    return nullptr;
}

nlohmann::json EngineDescription::defaults() const {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& p : params)
        if (!p.defaultValue.is_null()) j[p.name] = p.defaultValue;
    return j;
}

void checkParams(const std::string& owner, const std::vector<ParamSpec>& specs, const nlohmann::json& params) {
    if (params.is_null()) return;
    if (!params.is_object()) throw std::invalid_argument(owner + ": parameters must be a JSON object");
    for (auto it = params.begin(); it != params.end(); ++it) {
        const ParamSpec* spec = nullptr;
        for (const auto& s : specs)
            if (s.name == it.key()) spec = &s;
        if (!spec) {
            std::string known;
            for (const auto& s : specs) known += (known.empty() ? "" : ", ") + s.name;
            throw std::invalid_argument(owner + ": unknown parameter '" + it.key() + "' (known: " +
                                        (known.empty() ? "none" : known) + ")");
        }
        const nlohmann::json& v = it.value();
        auto refuse = [&] {
            const char* article = !spec->choices.empty()                                                      ? ""
                                  : spec->type == ParamSpec::Type::Integer || spec->type == ParamSpec::Type::Object ? "an "
                                                                                                                  : "a ";
            throw std::invalid_argument(owner + ": " + spec->name + " must be " + article + spec->allowedValues() +
                                        ", not " + v.dump());
        };
        switch (spec->type) {
            case ParamSpec::Type::Integer: {
                if (!v.is_number()) refuse();
                const double d = v.get<double>();
                if (d != std::floor(d) || d < spec->min || d > spec->max) refuse();
                break;
            }
            case ParamSpec::Type::Number: {
                if (!v.is_number()) refuse();
                const double d = v.get<double>();
                if (!(d >= spec->min && d <= spec->max)) refuse();
                break;
            }
            case ParamSpec::Type::Boolean:
                if (!v.is_boolean()) refuse();
                break;
            case ParamSpec::Type::String:
                if (!v.is_string() || (!spec->choices.empty() && std::find(spec->choices.begin(), spec->choices.end(),
                                                                            v.get<std::string>()) == spec->choices.end()))
                    refuse();
                break;
            case ParamSpec::Type::Object:
                if (!v.is_object()) refuse();
                break;
            case ParamSpec::Type::List:
                if (!v.is_array() || std::any_of(v.begin(), v.end(), [](const nlohmann::json& x) { return !x.is_string(); }))
                    refuse();
                break;
        }
    }
}

std::string describeParams(const std::vector<ParamSpec>& specs, const std::string& indent) {
    size_t width = 0;
    for (const auto& p : specs) width = std::max(width, p.name.size());
    std::string out;
    for (const auto& p : specs) {
        out += indent + p.name + std::string(width + 2 - p.name.size(), ' ') + p.describeRange();
        if (!p.help.empty()) out += ". " + p.help;
        out += "\n";
    }
    return out;
}

}  // namespace graphopt
