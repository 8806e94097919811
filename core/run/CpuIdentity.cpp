#include "run/CpuIdentity.h"

#include <fstream>
#include <set>
#include <sstream>

namespace graphopt {

namespace {

// "key<tabs> : value" -> (key, value), both trimmed; false for a line without a colon.
bool splitField(const std::string& line, std::string& key, std::string& value) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) return false;
    const auto trim = [](std::string s) {
        const auto b = s.find_first_not_of(" \t");
        const auto e = s.find_last_not_of(" \t\r");
        return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
    };
    key = trim(line.substr(0, colon));
    value = trim(line.substr(colon + 1));
    return true;
}

int toInt(const std::string& s) {
    try {
        size_t used = 0;
        const int v = std::stoi(s, &used);
        return used == s.size() && v >= 0 ? v : -1;
    } catch (const std::exception&) {
        return -1;
    }
}

}  // namespace

std::string CpuIdentity::label() const {
    std::string inner;
    if (family >= 0) inner = "family " + std::to_string(family);
    if (model >= 0) inner += (inner.empty() ? "" : " ") + std::string("model ") + std::to_string(model);
    if (!vectorIsa.empty()) inner += (inner.empty() ? "" : ", ") + vectorIsa;
    if (inner.empty()) return modelName;
    return (modelName.empty() ? "unknown CPU" : modelName) + " (" + inner + ")";
}

CpuIdentity parseCpuInfo(std::istream& in) {
    CpuIdentity id;
    std::string line, key, value;
    bool seenProcessor = false;
    while (std::getline(in, line)) {
        if (!splitField(line, key, value)) {
            // A blank line ends a processor's entry: the first one is enough.
            if (seenProcessor && line.find_first_not_of(" \t\r") == std::string::npos) break;
            continue;
        }
        seenProcessor = true;
        if (key == "model name") {
            id.modelName = value;
        } else if (key == "cpu family") {
            id.family = toInt(value);
        } else if (key == "model") {
            id.model = toInt(value);
        } else if (key == "flags") {
            std::set<std::string> flags;
            std::istringstream words(value);
            for (std::string f; words >> f;) flags.insert(f);
            id.vectorIsa = flags.count("avx512f") ? "AVX-512"
                           : flags.count("avx2")  ? "AVX2"
                           : flags.count("avx")   ? "AVX"
                           : flags.count("sse2")  ? "SSE"
                                                  : "";
        }
    }
    return id;
}

const CpuIdentity& hostCpu() {
    static const CpuIdentity host = [] {
        std::ifstream in("/proc/cpuinfo");
        return in ? parseCpuInfo(in) : CpuIdentity{};
    }();
    return host;
}

}  // namespace graphopt
