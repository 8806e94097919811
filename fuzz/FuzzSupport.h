// The libFuzzer side of the fuzz targets: the loaders take a path, so each input is written to a
// file of this process's own (one per process, overwritten on every run, removed at exit) before
// the check in FuzzChecks.h reads it.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace graphopt::fuzz {

// A file in $TMPDIR (else /tmp) named after the process, so fuzzers running side by side
// (-jobs, -workers) never share one; `extension` is what a loader may look at (".onnx", ...).
inline const std::string& inputPath(const char* extension) {
    static std::string path;
    if (path.empty()) {
        const char* dir = std::getenv("TMPDIR");
        path = std::string(dir && *dir ? dir : "/tmp") + "/graphopt-fuzz-" + std::to_string(getpid()) + extension;
        std::atexit([] { std::remove(path.c_str()); });
    }
    return path;
}

// Writes the input; aborts when it cannot (a broken fuzzing setup, not a finding in the code).
inline const std::string& writeInput(const uint8_t* data, size_t size, const char* extension) {
    const std::string& path = inputPath(extension);
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f || (size && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0) {
        std::perror(path.c_str());
        std::abort();
    }
    return path;
}

}  // namespace graphopt::fuzz

// One libFuzzer entry point per target: write the bytes, run the check.
#define GRAPHOPT_FUZZ_TARGET(extension, check)                                              \
    extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {               \
        check(graphopt::fuzz::writeInput(data, size, extension));                           \
        return 0;                                                                           \
    }
