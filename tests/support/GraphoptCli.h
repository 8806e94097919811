// Runs the graphopt executable of this build as a user would, for the CLI tests.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace graphopt::test_support {

struct CliResult {
    int status = -1;  // exit status; -1 when it did not exit normally
    std::string out, err;
};

// `args` is appended to the command line as is (quote paths with spaces yourself).
inline CliResult runGraphopt(const std::string& args) {
    namespace fs = std::filesystem;
    static int counter = 0;
    const fs::path errFile =
        fs::temp_directory_path() / ("graphopt-cli-err-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    const std::string cmd = std::string(GRAPHOPT_BINARY_DIR) + "/app/graphopt " + args + " 2>" + errFile.string();
    CliResult r;
    FILE* p = ::popen(cmd.c_str(), "r");
    if (!p) return r;
    std::array<char, 4096> buf{};
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
    const int st = ::pclose(p);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    std::ifstream in(errFile);
    r.err.assign(std::istreambuf_iterator<char>(in), {});
    fs::remove(errFile);
    return r;
}

// A fresh folder for one test's files (graphopt-NAME-PID in the temporary directory), removed
// with everything in it when the test's scope ends.
struct CliScratch {
    std::filesystem::path dir;
    explicit CliScratch(const std::string& name)
        : dir(std::filesystem::temp_directory_path() / ("graphopt-" + name + "-" + std::to_string(::getpid()))) {
        std::filesystem::remove_all(dir);
        std::filesystem::create_directories(dir);
    }
    ~CliScratch() {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
    }
    CliScratch(const CliScratch&) = delete;
    CliScratch& operator=(const CliScratch&) = delete;
    std::string file(const std::string& name) const { return (dir / name).string(); }
};

inline int lineCount(const std::string& s) { return int(std::count(s.begin(), s.end(), '\n')); }

}  // namespace graphopt::test_support
