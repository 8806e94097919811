// Comma-separated lists as the command lines take them ("heft,single", "1,2,3"): the items in
// order, empty ones dropped ("a,,b," -> a, b). Shared by the CLI and the benchmarks' flags.
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace graphopt {

inline std::vector<std::string> splitList(const std::string& s, char sep = ',') {
    std::vector<std::string> out;
    std::stringstream ss(s);
    for (std::string item; std::getline(ss, item, sep);)
        if (!item.empty()) out.push_back(item);
    return out;
}

}  // namespace graphopt
