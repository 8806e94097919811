// Small text helpers shared by the CLI commands' human-readable output.
#pragma once

#include <iomanip>
#include <sstream>
#include <string>

namespace graphopt::cli {

// 1536 -> "1.50 KiB"; whole bytes below 1 KiB.
inline std::string humanBytes(double b) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (b >= 1024 && u < 4) b /= 1024, ++u;
    std::ostringstream os;
    os << std::fixed << std::setprecision(u ? 2 : 0) << b << ' ' << units[u];
    return os.str();
}

}  // namespace graphopt::cli
