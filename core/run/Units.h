// Figures in the units people read: "850 µs", "12.4 ms", "3.2 GiB", "15 TFLOP/s". One place for
// the GUI's tables, charts and status lines (and any CLI output that wants it), so a time or a size
// reads the same everywhere. Plain C++ (no Qt): the store's comparison uses it too.
#pragma once

#include <string>

namespace graphopt {

// Fixed-decimal forms for the CLI's aligned output (the same functions as on main, kept so both
// front ends format through this one file):
// 1536 -> "1.50 KiB"; whole bytes below 1 KiB; negative values keep their sign.
std::string humanBytes(double bytes);
// 0.000633 -> "633.000 us", 0.0178 -> "17.790 ms", 2.5 -> "2.500 s" (three decimals).
std::string humanSeconds(double seconds);
// 1.234e11 -> "123.4 GFLOP/s" (TFLOP/s from 1e12 on).
std::string humanFlopsPerS(double flopsPerS);

}  // namespace graphopt

// The GUI's forms: about four significant digits, trailing zeros dropped, µs, and the units
// chosen by a figure's name or an objective.
namespace graphopt::units {

// Seconds in ns, µs, ms or s, whichever keeps the number between 1 and 1000; about four
// significant digits, trailing zeros dropped: "850 µs", "12.4 ms", "3.21 s", "0 s".
std::string seconds(double s);
// Bytes in B, KiB, MiB, GiB or TiB (powers of 1024), one decimal above bytes: "27.6 MiB", "3.2 GiB".
std::string bytes(double b);
// FLOP per second in GFLOP/s or TFLOP/s (powers of 1000): "113 GFLOP/s", "15 TFLOP/s".
std::string flopsRate(double flopsPerS);
// A number without a unit: integers whole ("5000"), others with about five significant digits.
std::string plain(double v);

// What a named figure measures, from its name (the store's figure names and the objectives):
// "..._s", "... s", "seconds", runtime/throughput objectives -> Time; "..._bytes", "memory" -> Bytes;
// "..._gflops", "gflops" -> GflopsRate (the value is already in GFLOP/s); else Plain.
enum class Kind { Plain, Time, Bytes, GflopsRate };
Kind figureKind(const std::string& name);
Kind objectiveKind(const std::string& objective);  // "runtime", "throughput" -> Time; "memory" -> Bytes
std::string format(Kind kind, double v);           // by kind: seconds(), bytes(), ...
inline std::string figure(const std::string& name, double v) { return format(figureKind(name), v); }

// A scale for a chart axis of values up to `max`: divide by `divisor`, label with `unit`
// (time: "µs", "ms", "s"; bytes: "KiB", "MiB", "GiB"; plain: divisor 1, unit "").
struct AxisUnit {
    double divisor = 1;
    std::string unit;
};
AxisUnit axisUnit(Kind kind, double max);

}  // namespace graphopt::units
