#include "run/Units.h"

#include <cmath>
#include <iomanip>
#include <sstream>

namespace graphopt {

std::string humanBytes(double b) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    const bool negative = b < 0;
    b = std::fabs(b);
    int u = 0;
    while (b >= 1024 && u < 5) b /= 1024, ++u;
    std::ostringstream os;
    os << (negative ? "-" : "") << std::fixed << std::setprecision(u ? 2 : 0) << b << ' ' << units[u];
    return os.str();
}

std::string humanSeconds(double s) {
    std::ostringstream os;
    os << std::fixed << std::setprecision(3);
    const double a = std::fabs(s);
    if (a < 1e-3)
        os << s * 1e6 << " us";
    else if (a < 1)
        os << s * 1e3 << " ms";
    else
        os << s << " s";
    return os.str();
}

std::string humanFlopsPerS(double f) {
    std::ostringstream os;
    os << std::fixed << std::setprecision(1);
    if (std::fabs(f) >= 1e12)
        os << f / 1e12 << " TFLOP/s";
    else
        os << f / 1e9 << " GFLOP/s";
    return os.str();
}

}  // namespace graphopt
