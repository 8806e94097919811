// Linked into every test executable: before main(), point the user-data and config folders at
// the build tree, so that no test (and no graphopt process a test starts) ever writes the
// developer's run database or settings, whether it runs under ctest or by hand.
#include <cstdlib>
#include <string>

namespace {

struct TestEnvironment {
    TestEnvironment() {
        const std::string home = std::string(GRAPHOPT_BINARY_DIR) + "/test-home";
        setenv("XDG_DATA_HOME", (home + "/data").c_str(), 1);
        setenv("XDG_CONFIG_HOME", (home + "/config").c_str(), 1);
        setenv("QT_QPA_PLATFORM", "offscreen", 0);  // headless unless told otherwise
    }
} const kTestEnvironment;

}  // namespace
