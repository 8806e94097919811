// Helpers shared by the run store tests: a private temporary folder, file bytes, sample data.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "run/Run.h"
#include "store/StoreRecords.h"

namespace graphopt::testing {

class TempDir {
public:
    TempDir() {
        std::string tmpl = (std::filesystem::temp_directory_path() / "graphopt-store-XXXXXX").string();
        if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
        path_ = tmpl;
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    std::string file(const std::string& name) const { return (path_ / name).string(); }
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

inline std::string readBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

inline void writeBytes(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
}

inline RunSpec sampleSpec(const std::string& engine = "brkga", uint64_t seed = 7) {
    RunSpec s;
    s.engine = engine;
    s.kind = "placement";
    s.objective = "runtime";
    s.devices = "2xgpu-pcie";
    s.budget = 5000;
    s.seed = seed;
    s.threads = 2;
    s.params = {{"population", 64}, {"elite_fraction", 0.2}};
    return s;
}

inline ProgressEvent sampleEvent(int i) {
    ProgressEvent e;
    e.step = i;
    e.evaluations = 64 * (i + 1);
    e.bestCost = 1.0 / (i + 3) + 0.1;  // decreasing, not exactly representable
    e.elapsedS = 0.001 * i + 1e-9;
    e.values = {{"population_costs", {0.1 * i, 1e-300, 3.0e8, -0.0}}, {"note", "gen \"" + std::to_string(i) + "\""}};
    return e;
}

inline GraphRecord sampleGraph(const std::string& name = "resnet18") {
    GraphRecord g;
    g.contentHash = "0123456789abcdef" + std::string(16, name.empty() ? '0' : name[0]);
    g.name = name;
    g.sourcePath = "/models/" + name + ".onnx";
    g.nodes = 69;
    g.edges = 80;
    return g;
}

// Forks; the child runs `body` and leaves with _exit(its return value), skipping atexit handlers
// and the parent's gtest state. Returns the child's pid.
template <typename F>
pid_t forkChild(F body) {
    pid_t pid = ::fork();
    if (pid == 0) {
        int rc = 1;
        try {
            rc = body();
        } catch (...) {
            rc = 3;
        }
        ::_exit(rc);
    }
    return pid;
}

// The child's exit status, or -1 when it did not exit normally.
inline int waitChild(pid_t pid) {
    int status = 0;
    if (::waitpid(pid, &status, 0) != pid) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace graphopt::testing
