// Runs the graphopt executable of this build as a user would, for the CLI tests.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

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

}  // namespace graphopt::test_support
