#include "run/ResourceLocator.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#ifndef GRAPHOPT_SOURCE_RESOURCES
#define GRAPHOPT_SOURCE_RESOURCES ""
#endif

namespace graphopt {

namespace fs = std::filesystem;

namespace {

std::string envDir(const char* name) {
    const char* v = std::getenv(name);
    return v && *v ? std::string(v) : std::string();
}

}  // namespace

std::string resourcesDir() {
    if (std::string env = envDir("GRAPHOPT_RESOURCE_DIR"); !env.empty()) return env;
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        // Installed: bin/../share/graphopt-studio/resources, or libexec/graphopt-studio/../../share/...
        // for the programs in libexec (graphopt-nn, the measure worker).
        const fs::path dir = exe.parent_path();
        fs::path prefix = dir.parent_path();
        if (dir.filename() == "graphopt-studio" && prefix.filename() == "libexec") prefix = prefix.parent_path();
        const fs::path installed = prefix / "share" / "graphopt-studio" / "resources";
        if (fs::is_directory(installed, ec)) return installed.lexically_normal().string();
    }
    return GRAPHOPT_SOURCE_RESOURCES;
}

std::string modelsDir() { return (fs::path(resourcesDir()) / "models").string(); }

std::string policiesDir() { return (fs::path(resourcesDir()) / "policies").string(); }

std::vector<std::string> policySearchDirs() {
    std::vector<std::string> dirs;
    if (std::string env = envDir("GRAPHOPT_POLICY_DIR"); !env.empty()) dirs.push_back(env);
    dirs.push_back(policiesDir());
    return dirs;
}

std::string userPolicyDir() {
    if (std::string env = envDir("GRAPHOPT_USER_POLICY_DIR"); !env.empty()) return env;
    std::string base = envDir("XDG_DATA_HOME");
    if (base.empty()) {
        const char* home = std::getenv("HOME");
        base = std::string(home && *home ? home : ".") + "/.local/share";
    }
    return base + "/graphopt-studio/policies";
}

std::string bundledModelPath(const std::string& fileName) {
    const fs::path p = fs::path(modelsDir()) / fileName;
    std::error_code ec;
    return fs::exists(p, ec) ? p.string() : std::string();
}

std::vector<std::string> helperProgramCandidates(const std::string& name) {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return {};
    const fs::path dir = exe.parent_path();
    std::vector<std::string> out;
    for (const fs::path& d : {dir, dir.parent_path() / "libexec" / "graphopt-studio", dir.parent_path() / "app",
                              dir.parent_path().parent_path() / "app"}) {
        std::string p = (d / name).lexically_normal().string();
        if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(std::move(p));  // / is its own parent
    }
    return out;
}

std::string findHelperProgram(const std::string& name) {
    std::error_code ec;
    for (const auto& p : helperProgramCandidates(name))
        if (fs::exists(p, ec)) return p;
    return "";
}

}  // namespace graphopt
