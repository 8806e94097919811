#include "run/Units.h"

#include <cmath>
#include <cstdio>
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

namespace graphopt::units {

namespace {

// `v` with `decimals` decimals, trailing zeros (and a trailing point) dropped.
std::string trimmed(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    std::string s = buf;
    if (s.find('.') != std::string::npos) {
        while (!s.empty() && s.back() == '0') s.pop_back();
        if (!s.empty() && s.back() == '.') s.pop_back();
    }
    if (s == "-0") s = "0";
    return s;
}

// About four significant digits for a value between 1 and 1000.
int decimalsFor(double v) {
    const double a = std::abs(v);
    return a >= 100 ? 1 : a >= 10 ? 2 : 3;
}

bool endsWith(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

std::string seconds(double s) {
    if (std::isnan(s)) return "-";
    if (std::isinf(s)) return s > 0 ? "inf s" : "-inf s";
    const double a = std::abs(s);
    if (a == 0) return "0 s";
    static const char* const kUnits[] = {"ns", "\u00b5s", "ms", "s"};
    int u = a < 1e-6 ? 0 : a < 1e-3 ? 1 : a < 1 ? 2 : 3;
    double v = s * std::pow(1000.0, 3 - u);
    std::string text = trimmed(v, decimalsFor(v));
    if (u < 3 && std::abs(std::stod(text)) >= 1000) {  // rounding carried it to the next unit: "1 ms", not "1000 µs"
        v /= 1000, ++u;
        text = trimmed(v, decimalsFor(v));
    }
    return text + ' ' + kUnits[u];
}

std::string bytes(double b) {
    if (std::isnan(b)) return "-";
    static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = b;
    int u = 0;
    while (std::abs(v) >= 1024 && u < 5) v /= 1024, ++u;
    if (u == 0) return trimmed(v, 0) + " B";
    std::string text = trimmed(v, 1);
    if (std::abs(std::stod(text)) >= 1024 && u < 5) text = trimmed(v / 1024, 1), ++u;  // 1023.96 KiB -> 1 MiB
    return text + ' ' + kUnits[u];
}

std::string flopsRate(double f) {
    if (std::isnan(f)) return "-";
    const double a = std::abs(f);
    if (a >= 1e12) return trimmed(f / 1e12, decimalsFor(f / 1e12)) + " TFLOP/s";
    if (a >= 1e9 || a == 0) return trimmed(f / 1e9, decimalsFor(f / 1e9)) + " GFLOP/s";
    return trimmed(f / 1e6, decimalsFor(f / 1e6)) + " MFLOP/s";
}

std::string plain(double v) {
    if (std::isnan(v)) return "-";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    if (v == std::floor(v) && std::abs(v) < 1e15) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.0f", v);
        return buf;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.5g", v);
    return buf;
}

Kind figureKind(const std::string& name) {
    if (name.find("gflops") != std::string::npos) return Kind::GflopsRate;
    if (endsWith(name, "_bytes") || endsWith(name, " bytes") || name == "bytes" || name == "memory") return Kind::Bytes;
    if (endsWith(name, "_s") || endsWith(name, " s") || name == "seconds" || name == "runtime" ||
        name == "throughput")
        return Kind::Time;
    return Kind::Plain;
}

Kind objectiveKind(const std::string& objective) {
    if (objective == "runtime" || objective == "throughput") return Kind::Time;
    if (objective == "memory") return Kind::Bytes;
    return Kind::Plain;
}

std::string format(Kind kind, double v) {
    switch (kind) {
        case Kind::Time: return seconds(v);
        case Kind::Bytes: return bytes(v);
        case Kind::GflopsRate: return flopsRate(v * 1e9);
        case Kind::Plain: break;
    }
    return plain(v);
}

AxisUnit axisUnit(Kind kind, double max) {
    const double a = std::abs(max);
    if (kind == Kind::Time) {
        if (a < 1e-3) return {1e-6, "\u00b5s"};
        if (a < 2) return {1e-3, "ms"};
        return {1, "s"};
    }
    if (kind == Kind::Bytes) {
        const double kib = 1024.0, mib = kib * 1024, gib = mib * 1024;
        if (a >= 2 * gib) return {gib, "GiB"};
        if (a >= 2 * mib) return {mib, "MiB"};
        if (a >= 2 * kib) return {kib, "KiB"};
        return {1, "B"};
    }
    if (kind == Kind::GflopsRate) return {1, "GFLOP/s"};
    return {1, ""};
}

}  // namespace graphopt::units
