// Figures in the units people read: bytes as KiB/MiB/GiB, seconds as us/ms/s, FLOP/s as
// GFLOP/s. Every front end (CLI summaries, tables, the GUI's labels and axes) formats through
// these, so that one figure reads the same everywhere.
#pragma once

#include <string>

namespace graphopt {

// 1536 -> "1.50 KiB"; whole bytes below 1 KiB; negative values keep their sign.
std::string humanBytes(double bytes);
// 0.000633 -> "633.000 us", 0.0178 -> "17.790 ms", 2.5 -> "2.500 s" (three decimals).
std::string humanSeconds(double seconds);
// 1.234e11 -> "123.4 GFLOP/s" (TFLOP/s from 1e12 on).
std::string humanFlopsPerS(double flopsPerS);

}  // namespace graphopt
