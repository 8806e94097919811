#include "Args.h"

#include <charconv>

#include "run/ParamSpec.h"

namespace graphopt::cli {

Args::Args(const std::vector<std::string>& argv, const CommandSpec& spec) : spec_(spec) {
    for (size_t i = 0; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (a.size() < 3 || a.compare(0, 2, "--") != 0) {
            if (a.size() > 1 && a[0] == '-') throw UsageError("unknown option '" + a + "' (see graphopt " + spec_.name + " --help)");
            positional_.push_back(a);
            continue;
        }
        std::string name = a.substr(2), value;
        bool inlineValue = false;
        if (auto eq = name.find('='); eq != std::string::npos) {
            value = name.substr(eq + 1);
            name = name.substr(0, eq);
            inlineValue = true;
        }
        const OptionSpec* o = spec_.find(name);
        if (!o) throw UsageError("unknown option '--" + name + "' (see graphopt " + spec_.name + " --help)");
        if (o->isSwitch()) {
            if (inlineValue) throw UsageError("option --" + name + " takes no value");
            switchesSeen_.insert(name);
        } else {
            if (!inlineValue) {
                if (i + 1 >= argv.size()) throw UsageError("option --" + name + " needs a value (" + o->value + ")");
                value = argv[++i];
            }
            values_[name] = value;
            every_[name].push_back(value);
        }
    }
}

const OptionSpec& Args::option(const std::string& flag) const {
    const OptionSpec* o = spec_.find(flag);
    if (!o) throw std::logic_error("graphopt " + spec_.name + " reads --" + flag + " but does not describe it");
    return *o;
}

std::string Args::onePositional(const std::string& what) const {
    if (positional_.empty()) throw UsageError("missing " + what);
    if (positional_.size() > 1) throw UsageError("unexpected argument '" + positional_[1] + "'");
    return positional_[0];
}

void Args::noPositional() const {
    if (!positional_.empty()) throw UsageError("unexpected argument '" + positional_[0] + "'");
}

bool Args::has(const std::string& flag) const {
    option(flag);
    return values_.count(flag) || switchesSeen_.count(flag);
}

std::optional<std::string> Args::get(const std::string& flag) const {
    const OptionSpec& o = option(flag);
    auto it = values_.find(flag);
    if (it != values_.end()) return it->second;
    if (!o.defaultValue.empty()) return o.defaultValue;
    return std::nullopt;
}

std::vector<std::string> Args::getAll(const std::string& flag) const {
    option(flag);
    auto it = every_.find(flag);
    return it == every_.end() ? std::vector<std::string>{} : it->second;
}

std::string Args::require(const std::string& flag) const {
    auto v = get(flag);
    if (!v) throw UsageError("option --" + flag + " is required");
    return *v;
}

int64_t Args::getInt(const std::string& flag, int64_t min, int64_t max) const {
    const std::string v = require(flag);
    int64_t out = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
    if (ec != std::errc() || p != v.data() + v.size())
        throw UsageError("option --" + flag + " wants a whole number, not '" + v + "'");
    if (out < min || out > max)
        throw UsageError("option --" + flag + " must be between " + std::to_string(min) + " and " + std::to_string(max) +
                         ", not " + v);
    return out;
}

uint64_t Args::getSeed(const std::string& flag) const {
    const std::string v = require(flag);
    uint64_t out = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
    if (ec != std::errc() || p != v.data() + v.size())
        throw UsageError("option --" + flag + " wants a non-negative whole number, not '" + v + "'");
    return out;
}

double Args::getDouble(const std::string& flag, double min, double max) const {
    const std::string v = require(flag);
    double out = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
    if (ec != std::errc() || p != v.data() + v.size()) throw UsageError("option --" + flag + " wants a number, not '" + v + "'");
    if (!(out >= min && out <= max))
        throw UsageError("option --" + flag + " must be between " + formatNumber(min) + " and " + formatNumber(max) +
                         ", not " + v);
    return out;
}

std::string Args::getChoice(const std::string& flag) const {
    const OptionSpec& o = option(flag);
    const std::string v = require(flag);
    for (const auto& c : o.choices)
        if (c == v) return v;
    std::string list;
    for (const auto& c : o.choices) list += (list.empty() ? "" : "|") + c;
    throw UsageError("option --" + flag + " must be one of " + list + ", not '" + v + "'");
}

nlohmann::json Args::getJsonObject(const std::string& flag) const {
    auto v = get(flag);
    if (!v) return nlohmann::json::object();
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(*v);
    } catch (const std::exception&) {
        throw UsageError("option --" + flag + " must be a JSON object, e.g. '{\"population\": 50}', not '" + *v + "'");
    }
    if (!j.is_object()) throw UsageError("option --" + flag + " must be a JSON object, not '" + *v + "'");
    return j;
}

}  // namespace graphopt::cli
