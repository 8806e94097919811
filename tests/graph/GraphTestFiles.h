// Helpers shared by the graph tests: bundled test data and a per-test temporary directory.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <unistd.h>

#include "graph/Graph.h"
#include "graph/GraphError.h"

namespace graphopt::test {

// The bundled models' folder, with its trailing slash.
inline const std::string kModels = std::string(GRAPHOPT_SOURCE_DIR) + "/resources/models/";

inline std::string dataPath(const std::string& relative) {
    return std::string(GRAPHOPT_SOURCE_DIR) + "/tests/data/" + relative;
}

inline std::string readBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Removes the file first: ext4 flushes a file that is truncated and rewritten when it is closed,
// which costs milliseconds per write, and the robustness tests write hundreds of files.
inline void writeBytes(const std::string& path, const std::string& bytes) {
    std::error_code ec;
    std::filesystem::remove(path, ec);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A fresh directory under the system temp dir, removed with the object.
class TempDir {
public:
    TempDir() {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        std::string name = std::string("graphopt-") + (info ? info->test_suite_name() : "x") + "-" +
                           (info ? info->name() : "y") + "-" + std::to_string(::getpid());
        for (char& c : name)
            if (c == '/') c = '_';
        path_ = std::filesystem::temp_directory_path() / name;
        std::filesystem::remove_all(path_);
        std::filesystem::create_directories(path_);
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    std::string file(const std::string& name) const { return (path_ / name).string(); }
    std::string path() const { return path_.string(); }

private:
    std::filesystem::path path_;
};

// The node / tensor with that name; throws (failing the test) when there is none.
inline const Node& nodeNamed(const Graph& g, const std::string& name) {
    const int id = g.findNode(name);
    if (id < 0) throw std::runtime_error("no node " + name);
    return g.nodes()[id];
}

inline const Tensor& tensorNamed(const Graph& g, const std::string& name) {
    const int id = g.findTensor(name);
    if (id < 0) throw std::runtime_error("no tensor " + name);
    return g.tensors()[id];
}

// Writes `text` to `fileName` in `dir`, loads it with `load`, and returns the GraphError message
// ("" when it loaded); `pathOut` receives the file's path.
template <class Load>
std::string loadErrorFor(const TempDir& dir, const std::string& fileName, const std::string& text, Load load,
                         std::string* pathOut = nullptr) {
    const std::string path = dir.file(fileName);
    writeBytes(path, text);
    if (pathOut) *pathOut = path;
    try {
        load(path);
    } catch (const GraphError& e) {
        return e.what();
    }
    return "";
}

}  // namespace graphopt::test
