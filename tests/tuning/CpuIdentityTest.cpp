// The CPU identity that keys measurements (the tuner comparison's cache, a cost file's machine):
// two hosts a VM names alike must get different keys.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "run/CpuIdentity.h"

using namespace graphopt;

namespace {

CpuIdentity parse(const std::string& text) {
    std::istringstream in(text);
    return parseCpuInfo(in);
}

// Two processors of a VM's /proc/cpuinfo, abridged; `flags` is the flags line's value.
std::string cpuinfo(int family, int model, const std::string& flags) {
    std::string one = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: " + std::to_string(family) +
                      "\nmodel\t\t: " + std::to_string(model) + "\nmodel name\t: AMD EPYC\nstepping\t: 1\n" +
                      "flags\t\t: " + flags + "\nbogomips\t: 4000.00\n\n";
    // The second processor's entry differs only in its number (and here, to prove it is not read,
    // in its model).
    std::string two = "processor\t: 1\nvendor_id\t: AuthenticAMD\ncpu family\t: " + std::to_string(family) +
                      "\nmodel\t\t: 99\nmodel name\t: AMD EPYC\nflags\t\t: " + flags + "\n\n";
    return one + two;
}

}  // namespace

TEST(CpuIdentity, HostsWithTheSameModelNameGetDifferentLabels) {
    const CpuIdentity zen3 = parse(cpuinfo(25, 1, "fpu sse sse2 avx fma avx2 vaes"));
    const CpuIdentity zen5 = parse(cpuinfo(26, 2, "fpu sse sse2 avx fma avx2 avx512f avx512bw"));
    EXPECT_EQ(zen3.modelName, "AMD EPYC");
    EXPECT_EQ(zen3.family, 25);
    EXPECT_EQ(zen3.model, 1);  // the first processor's, not the second's 99
    EXPECT_EQ(zen3.vectorIsa, "AVX2");
    EXPECT_EQ(zen3.label(), "AMD EPYC (family 25 model 1, AVX2)");
    EXPECT_EQ(zen5.label(), "AMD EPYC (family 26 model 2, AVX-512)");
    EXPECT_NE(zen3.label(), zen5.label());
    // The same family and model with AVX-512 turned off (a VM can hide it) is another key too:
    // the kernels built for it are other kernels.
    EXPECT_NE(parse(cpuinfo(26, 2, "fpu sse sse2 avx fma avx2")).label(), zen5.label());
}

TEST(CpuIdentity, TheWidestVectorUnitIsNamed) {
    EXPECT_EQ(parse(cpuinfo(6, 85, "sse2 avx avx2 avx512f")).vectorIsa, "AVX-512");
    EXPECT_EQ(parse(cpuinfo(6, 85, "sse2 avx")).vectorIsa, "AVX");
    EXPECT_EQ(parse(cpuinfo(6, 85, "sse sse2")).vectorIsa, "SSE");
    // A flag that merely starts like one is not it.
    EXPECT_EQ(parse(cpuinfo(6, 85, "sse2 avx512_bf16")).vectorIsa, "SSE");
    EXPECT_EQ(parse(cpuinfo(6, 85, "")).vectorIsa, "");
}

TEST(CpuIdentity, MissingPartsAreLeftOutOfTheLabel) {
    EXPECT_EQ(parse("").label(), "");
    EXPECT_EQ(parse("model name\t: Some CPU\n").label(), "Some CPU");
    EXPECT_EQ(parse("cpu family\t: 6\nflags\t\t: avx2\n").label(), "unknown CPU (family 6, AVX2)");
    // A number that is not one is unknown, not zero.
    const CpuIdentity odd = parse("model name\t: X\ncpu family\t: six\nmodel\t\t: -3\n");
    EXPECT_EQ(odd.family, -1);
    EXPECT_EQ(odd.model, -1);
    EXPECT_EQ(odd.label(), "X");
}

TEST(CpuIdentity, TheHostIsWhatItsCpuinfoSays) {
    std::ifstream in("/proc/cpuinfo");
    if (!in) GTEST_SKIP() << "no /proc/cpuinfo here";
    const CpuIdentity expected = parseCpuInfo(in);
    EXPECT_EQ(hostCpu().label(), expected.label());
}
