// Each `graphopt` subcommand describes itself once: its arguments, every option with its value,
// default and help, and an example. The parser (Args) accepts exactly these options and takes
// their defaults from here, and `graphopt help COMMAND` / `graphopt COMMAND --help` print them,
// so the help cannot drift from what the parser does.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace graphopt::cli {

struct OptionSpec {
    std::string name;          // without the dashes: "seed"
    std::string value;         // the value's placeholder ("N", "FILE"); empty for a switch
    std::string defaultValue;  // what the parser uses when the option is absent ("" = none)
    std::string help;
    // (the "= {}": most options leave these two out of their braces, and gcc's -Wextra warns about
    // an omitted member only when it has no initializer of its own)
    std::vector<std::string> choices = {};  // allowed values, when the value is one of a list
    std::string defaultText = {};   // shown instead of defaultValue when the default is computed
    bool isSwitch() const { return value.empty(); }
};

struct CommandSpec {
    std::string name;       // "place"
    std::string arguments;  // positional arguments as shown: "MODEL"
    std::string summary;    // one line
    std::vector<OptionSpec> options;
    std::vector<std::string> examples;
    std::string details = {};  // more text after the options (engine lists, parameters)

    const OptionSpec* find(const std::string& option) const;
    // "place MODEL [--objective runtime|memory] ..." on as many lines as needed.
    std::string usageLine() const;
    void printHelp(std::ostream& os) const;
};

}  // namespace graphopt::cli
