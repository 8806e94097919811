// The libFuzzer side of the fuzz targets: the loaders take a path, so each input is written to a
// file of this process's own (one per process, overwritten on every run, removed at exit) before
// the check in FuzzChecks.h reads it.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace graphopt::fuzz {

// The folder this process writes its files in: $TMPDIR (else /tmp)/graphopt-fuzz-XXXXXX, made
// once (mkdtemp), so fuzzers running side by side (-jobs, -workers, two CI runs) never share one,
// and removed at exit.
//
// The names inside it are fixed ("input.onnx", ...), and the folder's name has the same length in
// every process: a loader takes the graph's name from the file name and puts the path into its
// messages, and a name with this process's pid in it made the coverage of the very same input
// differ from one process to the next (loops over its characters run as often as it is long),
// enough for two CI runs with one seed to drift apart.
inline const std::string& workFolder() {
    static std::string dir;
    if (dir.empty()) {
        const char* tmp = std::getenv("TMPDIR");
        std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/graphopt-fuzz-XXXXXX";
        if (!::mkdtemp(pattern.data())) {
            std::perror(pattern.c_str());
            std::abort();
        }
        dir = pattern;
        std::atexit([] {
            std::error_code ec;
            std::filesystem::remove_all(dir, ec);
        });
    }
    return dir;
}

// The file each input is written to; `extension` is what a loader may look at (".onnx", ...).
inline const std::string& inputPath(const char* extension) {
    static std::string path;
    if (path.empty()) path = workFolder() + "/input" + extension;
    return path;
}

// With GRAPHOPT_FUZZ_KEEP_INPUTS=DIR every input is also kept as DIR/000000001, DIR/000000002, ...
// in the order this process ran them: a crash that needs earlier inputs is then replayed by
// passing the files, in that order, to one fuzz process (`fuzz_onnx $(ls DIR)`), and bisected.
inline void keepInput(const uint8_t* data, size_t size) {
    static const char* dir = std::getenv("GRAPHOPT_FUZZ_KEEP_INPUTS");
    static unsigned long count = 0;
    if (!dir || !*dir) return;
    char name[32];
    std::snprintf(name, sizeof name, "/%09lu", ++count);
    const std::string file = std::string(dir) + name;
    FILE* f = std::fopen(file.c_str(), "wb");
    if (!f || (size && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0) {
        std::perror(file.c_str());
        std::abort();
    }
}

// Writes the input; aborts when it cannot (a broken fuzzing setup, not a finding in the code).
inline const std::string& writeInput(const uint8_t* data, size_t size, const char* extension) {
    keepInput(data, size);
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
