// Every input a fuzzer once broke the program with (tests/data/fuzz-regressions/TARGET/, one
// folder per fuzz target) and every hand-written seed (fuzz/seeds/TARGET/) goes through the same
// check as in the fuzzer (fuzz/FuzzChecks.h): the loader either refuses it with its documented
// error or accepts it, and then what the program does with it works. Any other exception fails;
// a crash would end the test program (the ASan build of the suite, tools/asan-tests.sh, also sees
// memory errors and undefined behaviour).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "FuzzChecks.h"

namespace {

namespace fs = std::filesystem;

using graphopt::fuzz::Target;
using graphopt::fuzz::targets;

std::vector<std::string> filesIn(const fs::path& dir) {
    std::vector<std::string> files;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return files;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.is_regular_file() && e.path().filename() != "README.md") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    return files;
}

void checkAll(const std::string& folder, size_t& count) {
    for (const Target& t : targets())
        for (const std::string& file : filesIn(fs::path(GRAPHOPT_SOURCE_DIR) / folder / t.name)) {
            SCOPED_TRACE(std::string(t.name) + ": " + file);
            ++count;
            try {
                t.check(file);
            } catch (const std::exception& e) {
                ADD_FAILURE() << "escaped: " << e.what();
            } catch (...) {
                ADD_FAILURE() << "escaped: an exception that is not a std::exception";
            }
        }
}

TEST(FuzzRegressions, EveryInputIsRefusedCleanlyOrLoads) {
    size_t count = 0;
    checkAll("tests/data/fuzz-regressions", count);
    // Folders every target has, so that a misspelt folder name is not silently skipped.
    for (const auto& dir : filesIn(fs::path(GRAPHOPT_SOURCE_DIR) / "tests/data/fuzz-regressions"))
        ADD_FAILURE() << "a file directly in tests/data/fuzz-regressions: " << dir;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(fs::path(GRAPHOPT_SOURCE_DIR) / "tests/data/fuzz-regressions", ec)) {
        if (!e.is_directory()) continue;
        const std::string name = e.path().filename().string();
        const bool known = std::any_of(targets().begin(), targets().end(), [&](const Target& t) { return name == t.name; });
        EXPECT_TRUE(known) << "tests/data/fuzz-regressions/" << name << " is not a fuzz target";
    }
    RecordProperty("inputs", static_cast<int>(count));
}

TEST(FuzzRegressions, HandWrittenSeedsPassTheChecks) {
    size_t count = 0;
    checkAll("fuzz/seeds", count);
    EXPECT_GE(count, 10u);
}

}  // namespace
