// Running the `graphopt` binary from a test: exit status, stdout and stderr.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "StoreTestSupport.h"

namespace graphopt::testing {

inline std::string graphoptBinary() { return std::string(GRAPHOPT_BINARY_DIR) + "/app/graphopt"; }

struct CliResult {
    int status = -1;  // exit status, -1 when killed
    std::string out, err;
};

inline std::string shellQuote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// Starts `graphopt ARGS...` in the background, its stdout thrown away and its stderr written to
// `errFile` (thrown away too when empty). Returns its pid (waitChild() reaps it).
inline pid_t startGraphopt(const std::vector<std::string>& args, const std::string& errFile = "") {
    std::vector<std::string> argv = {graphoptBinary()};
    argv.insert(argv.end(), args.begin(), args.end());
    pid_t pid = ::fork();
    if (pid == 0) {
        int devnull = ::open("/dev/null", O_WRONLY);
        int err = errFile.empty() ? devnull : ::open(errFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        ::dup2(devnull, 1);
        ::dup2(err, 2);
        std::vector<char*> cargs;
        for (auto& a : argv) cargs.push_back(a.data());
        cargs.push_back(nullptr);
        ::execv(cargs[0], cargs.data());
        ::_exit(127);
    }
    return pid;
}

// Runs `graphopt ARGS...`, capturing its output in files of `dir`.
inline CliResult runGraphopt(const TempDir& dir, const std::vector<std::string>& args) {
    std::string cmd = shellQuote(graphoptBinary());
    for (const auto& a : args) cmd += " " + shellQuote(a);
    const std::string out = dir.file("cli.out"), err = dir.file("cli.err");
    cmd += " >" + shellQuote(out) + " 2>" + shellQuote(err);
    int raw = std::system(cmd.c_str());
    CliResult r;
    r.status = (raw != -1 && WIFEXITED(raw)) ? WEXITSTATUS(raw) : -1;
    r.out = readBytes(out);
    r.err = readBytes(err);
    return r;
}

// `graphopt generate` of a layered graph of `nodes` nodes (seed 3) into `dir`/`name`: its path.
inline std::string generateLayered(const TempDir& dir, const std::string& name, int nodes) {
    const std::string path = dir.file(name);
    auto r = runGraphopt(dir, {"generate", "--family", "layered", "--nodes", std::to_string(nodes), "--seed", "3",
                               "--out", path});
    EXPECT_EQ(r.status, 0) << r.err;
    return path;
}

}  // namespace graphopt::testing
