// A folder of the temporary directory for one test process, made on construction and removed,
// with everything in it, when the process ends: a test that stops at a failed ASSERT leaves
// nothing behind either. Hold it in a function-local static.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace graphopt::test_support {

struct ScratchFolder {
    std::filesystem::path dir;
    explicit ScratchFolder(const std::string& prefix)
        : dir(std::filesystem::temp_directory_path() / (prefix + std::to_string(::getpid()))) {
        std::filesystem::create_directories(dir);
    }
    ~ScratchFolder() {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
    }
    ScratchFolder(const ScratchFolder&) = delete;
    ScratchFolder& operator=(const ScratchFolder&) = delete;
};

}  // namespace graphopt::test_support
