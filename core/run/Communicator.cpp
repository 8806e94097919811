#include "run/Communicator.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace graphopt {

namespace {

std::optional<std::string> env(const char* name) {
    const char* v = std::getenv(name);
    if (!v || !*v) return std::nullopt;
    return std::string(v);
}

int parseInt(const std::string& text, const std::string& what) {
    try {
        size_t used = 0;
        const long v = std::stol(text, &used);
        if (used != text.size()) throw std::invalid_argument(text);
        if (v < -1000000000L || v > 1000000000L) throw std::out_of_range(text);
        return int(v);
    } catch (const std::exception&) {
        throw std::invalid_argument(what + ": '" + text + "' is not a whole number");
    }
}

int parsePort(const std::string& text, const std::string& what) {
    const int port = parseInt(text, what);
    if (port < 1 || port > 65535) throw std::invalid_argument(what + ": port " + text + " is not in 1..65535");
    return port;
}

}  // namespace

std::string DistributedConfig::describe() const {
    return "rank " + std::to_string(rank) + " of " + std::to_string(worldSize) + " (master " + masterAddr + ":" +
           std::to_string(masterPort) + ")";
}

DistributedConfig resolveDistributedConfig(std::optional<int> worldSize, std::optional<int> rank,
                                           std::optional<std::string> master, std::optional<double> timeoutS) {
    DistributedConfig c;
    if (!worldSize)
        if (auto e = env("WORLD_SIZE")) worldSize = parseInt(*e, "WORLD_SIZE");
    if (!rank)
        if (auto e = env("RANK")) rank = parseInt(*e, "RANK");
    bool portGiven = false;
    if (master) {
        const size_t colon = master->rfind(':');
        if (colon == std::string::npos || colon == 0 || colon + 1 == master->size())
            throw std::invalid_argument("--master: '" + *master + "' is not HOST:PORT");
        c.masterAddr = master->substr(0, colon);
        c.masterPort = parsePort(master->substr(colon + 1), "--master");
        portGiven = true;
    } else {
        if (auto e = env("MASTER_ADDR")) c.masterAddr = *e;
        if (auto e = env("MASTER_PORT")) {
            c.masterPort = parsePort(*e, "MASTER_PORT");
            portGiven = true;
        }
    }
    if (c.masterAddr.size() > 2 && c.masterAddr.front() == '[' && c.masterAddr.back() == ']')
        c.masterAddr = c.masterAddr.substr(1, c.masterAddr.size() - 2);  // [::1]
    c.worldSize = worldSize.value_or(1);
    c.rank = rank.value_or(0);
    if (c.worldSize < 1 || c.worldSize > 4096)
        throw std::invalid_argument("world size " + std::to_string(c.worldSize) + " is not in 1..4096");
    if (c.rank < 0 || c.rank >= c.worldSize)
        throw std::invalid_argument("rank " + std::to_string(c.rank) + " is not in 0.." + std::to_string(c.worldSize - 1) +
                                    " (world size " + std::to_string(c.worldSize) + ")");
    if (c.worldSize > 1 && !rank)
        throw std::invalid_argument("a world of " + std::to_string(c.worldSize) + " ranks needs this process's rank (RANK or --rank)");
    if (c.worldSize > 1 && !portGiven)
        throw std::invalid_argument("a world of " + std::to_string(c.worldSize) +
                                    " ranks needs the master's port (MASTER_PORT or --master HOST:PORT)");
    if (timeoutS) {
        if (!(*timeoutS > 0) || *timeoutS > 86400) throw std::invalid_argument("--dist-timeout must be in (0, 86400] seconds");
        c.timeoutS = *timeoutS;
        c.deadAfterS = std::min(c.deadAfterS, std::max(2.0, *timeoutS));
    }
    return c;
}

void appendDoubles(std::string& out, const std::vector<double>& v) {
    out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(double));
}

void appendFloats(std::string& out, const std::vector<float>& v) {
    out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
}

namespace {
template <typename T>
std::vector<T> readValues(const std::string& in, size_t& offset, size_t count) {
    if (offset > in.size() || count > (in.size() - offset) / sizeof(T))
        throw DistributedError("a rank sent a message shorter than expected (" + std::to_string(in.size()) + " bytes)");
    std::vector<T> v(count);
    if (count) std::memcpy(v.data(), in.data() + offset, count * sizeof(T));
    offset += count * sizeof(T);
    return v;
}
}  // namespace

std::vector<double> readDoubles(const std::string& in, size_t& offset, size_t count) {
    return readValues<double>(in, offset, count);
}

std::vector<float> readFloats(const std::string& in, size_t& offset, size_t count) {
    return readValues<float>(in, offset, count);
}

uint64_t fnv1a(const std::string& bytes, uint64_t h) {
    for (unsigned char c : bytes) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

}  // namespace graphopt
