#include "Args.h"

#include <charconv>

namespace graphopt::cli {

Args::Args(const std::vector<std::string>& argv, const std::set<std::string>& valued,
           const std::set<std::string>& switches) {
    for (size_t i = 0; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (a.size() < 3 || a.compare(0, 2, "--") != 0) {
            if (a.size() > 1 && a[0] == '-') throw UsageError("unknown option '" + a + "'");
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
        if (valued.count(name)) {
            if (!inlineValue) {
                if (i + 1 >= argv.size()) throw UsageError("option --" + name + " needs a value");
                value = argv[++i];
            }
            values_[name] = value;
        } else if (switches.count(name)) {
            if (inlineValue) throw UsageError("option --" + name + " takes no value");
            switchesSeen_.insert(name);
        } else {
            throw UsageError("unknown option '--" + name + "'");
        }
    }
}

std::string Args::onePositional(const std::string& what) const {
    if (positional_.empty()) throw UsageError("missing " + what);
    if (positional_.size() > 1) throw UsageError("unexpected argument '" + positional_[1] + "'");
    return positional_[0];
}

bool Args::has(const std::string& flag) const { return values_.count(flag) || switchesSeen_.count(flag); }

std::optional<std::string> Args::get(const std::string& flag) const {
    auto it = values_.find(flag);
    if (it == values_.end()) return std::nullopt;
    return it->second;
}

std::string Args::get(const std::string& flag, const std::string& fallback) const {
    auto v = get(flag);
    return v ? *v : fallback;
}

std::string Args::require(const std::string& flag) const {
    auto v = get(flag);
    if (!v) throw UsageError("option --" + flag + " is required");
    return *v;
}

int64_t Args::getInt(const std::string& flag, int64_t fallback, int64_t min, int64_t max) const {
    auto v = get(flag);
    if (!v) return fallback;
    int64_t out = 0;
    auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
    if (ec != std::errc() || p != v->data() + v->size())
        throw UsageError("option --" + flag + " wants a whole number, not '" + *v + "'");
    if (out < min || out > max)
        throw UsageError("option --" + flag + " must be between " + std::to_string(min) + " and " +
                         std::to_string(max) + ", not " + *v);
    return out;
}

uint64_t Args::getSeed(const std::string& flag, uint64_t fallback) const {
    auto v = get(flag);
    if (!v) return fallback;
    uint64_t out = 0;
    auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
    if (ec != std::errc() || p != v->data() + v->size())
        throw UsageError("option --" + flag + " wants a non-negative whole number, not '" + *v + "'");
    return out;
}

double Args::getDouble(const std::string& flag, double fallback, double min, double max) const {
    auto v = get(flag);
    if (!v) return fallback;
    double out = 0;
    auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
    if (ec != std::errc() || p != v->data() + v->size())
        throw UsageError("option --" + flag + " wants a number, not '" + *v + "'");
    if (!(out >= min && out <= max))
        throw UsageError("option --" + flag + " must be between " + std::to_string(min) + " and " +
                         std::to_string(max) + ", not " + *v);
    return out;
}

std::string Args::getChoice(const std::string& flag, const std::string& fallback,
                            const std::vector<std::string>& choices) const {
    std::string v = get(flag, fallback);
    for (const auto& c : choices)
        if (c == v) return v;
    std::string list;
    for (const auto& c : choices) list += (list.empty() ? "" : "|") + c;
    throw UsageError("option --" + flag + " must be one of " + list + ", not '" + v + "'");
}

}  // namespace graphopt::cli
