#include "CommandSpec.h"

namespace graphopt::cli {

const OptionSpec* CommandSpec::find(const std::string& option) const {
    for (const auto& o : options)
        if (o.name == option) return &o;
    return nullptr;
}

namespace {

std::string valueText(const OptionSpec& o) {
    if (!o.choices.empty()) {
        std::string s;
        for (const auto& c : o.choices) s += (s.empty() ? "" : "|") + c;
        return s;
    }
    return o.value;
}

}  // namespace

std::string CommandSpec::usageLine() const {
    std::string line = name + (arguments.empty() ? "" : " " + arguments);
    std::string out;
    for (const auto& o : options) {
        const std::string item = "[--" + o.name + (o.isSwitch() ? "" : " " + valueText(o)) + "]";
        if (line.size() + item.size() + 1 > 96) {
            out += line + "\n";
            line = std::string(name.size() + 1, ' ');
        }
        line += " " + item;
    }
    return out + line;
}

void CommandSpec::printHelp(std::ostream& os) const {
    os << "usage: graphopt " << usageLine() << "\n\n" << summary << "\n";
    if (!options.empty()) {
        os << "\noptions:\n";
        size_t width = 0;
        for (const auto& o : options) width = std::max(width, o.name.size() + (o.isSwitch() ? 0 : o.value.size() + 1));
        for (const auto& o : options) {
            std::string head = "--" + o.name + (o.isSwitch() ? "" : " " + o.value);
            os << "  " << head << std::string(width + 4 - head.size(), ' ') << o.help;
            if (!o.choices.empty()) os << " (" << valueText(o) << ")";
            if (!o.defaultText.empty())
                os << " [default: " << o.defaultText << "]";
            else if (!o.defaultValue.empty())
                os << " [default: " << o.defaultValue << "]";
            os << "\n";
        }
    }
    if (!details.empty()) os << "\n" << details << (details.back() == '\n' ? "" : "\n");
    if (!examples.empty()) {
        os << "\nexample" << (examples.size() > 1 ? "s" : "") << ":\n";
        for (const auto& e : examples) os << "  " << e << "\n";
    }
    os << "\nexit status: 0 done, 1 the run failed, 2 usage error (bad flag or value, unreadable input), 130 "
          "interrupted (Ctrl-C)\n";
}

}  // namespace graphopt::cli
