// Which CPU this is, as a label people read and as the key of anything measured on it (the tuner
// comparison's measurement cache, the machine a cost file or a calibration was measured on).
//
// A model name alone is no key: in a VM it is often just the vendor's family name, and "AMD EPYC"
// has named a Zen 3 host with AVX2 (FMA peak 94 GFLOP/s a core) and Zen 4/5 hosts with AVX-512
// (116-245) in this project's own runs. Timings of one must never stand in for the other. So the
// identity adds the family and model numbers and the widest vector unit the kernels use:
// "AMD EPYC (family 25 model 1, AVX2)".
#pragma once

#include <istream>
#include <string>

namespace graphopt {

struct CpuIdentity {
    std::string modelName;  // "model name" of /proc/cpuinfo ("" when absent)
    int family = -1;        // "cpu family" (-1 when absent)
    int model = -1;         // "model"
    std::string vectorIsa;  // the widest of "AVX-512", "AVX2", "AVX", "SSE" the flags list ("" without flags)
    // "AMD EPYC (family 25 model 1, AVX2)"; the parts that are unknown are left out, "" when all are.
    std::string label() const;
};

// The first processor's entry of a /proc/cpuinfo text.
CpuIdentity parseCpuInfo(std::istream& cpuinfo);

// This machine's (read from /proc/cpuinfo once; empty where it cannot be read).
const CpuIdentity& hostCpu();

}  // namespace graphopt
