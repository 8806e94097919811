#include "store/GraphFingerprint.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace graphopt {

namespace {

// Two independent 64-bit FNV-1a streams (different offset bases) give 128 bits: collisions
// between the few thousand graphs of one database are not a concern.
class ContentHasher {
public:
    void bytes(const void* data, size_t n) {
        auto* p = static_cast<const unsigned char*>(data);
        for (size_t i = 0; i < n; ++i) {
            a_ = (a_ ^ p[i]) * kPrime;
            b_ = (b_ ^ p[i]) * kPrime;
            b_ ^= b_ >> 29;
        }
    }
    void text(const std::string& s) {
        uint64_t n = s.size();
        bytes(&n, sizeof n);  // length first: "ab"+"c" differs from "a"+"bc"
        bytes(s.data(), s.size());
    }
    void integer(int64_t v) { bytes(&v, sizeof v); }
    void real(double v) { bytes(&v, sizeof v); }
    std::string hex() const {
        char buf[33];
        std::snprintf(buf, sizeof buf, "%016llx%016llx", (unsigned long long)a_, (unsigned long long)b_);
        return buf;
    }

private:
    static constexpr uint64_t kPrime = 0x100000001b3ULL;
    uint64_t a_ = 0xcbf29ce484222325ULL;
    uint64_t b_ = 0x84222325cbf29ce4ULL;
};

}  // namespace

std::string graphContentHash(const Graph& g) {
    ContentHasher h;
    h.integer(int64_t(g.nodes().size()));
    for (const auto& n : g.nodes()) {
        h.text(n.name);
        h.text(n.op);
        h.real(n.flops);
        h.real(n.computeCostS);
        h.integer(n.tempBytes);
        h.integer(int64_t(n.inputs.size()));
        for (int t : n.inputs) h.integer(t);
        h.integer(int64_t(n.outputs.size()));
        for (int t : n.outputs) h.integer(t);
        h.integer(int64_t(n.controlInputs.size()));
        for (int c : n.controlInputs) h.integer(c);
    }
    h.integer(int64_t(g.tensors().size()));
    for (const auto& t : g.tensors()) {
        h.text(t.name);
        h.integer(int64_t(t.kind));
        h.integer(t.bytes);
        h.integer(t.isGraphOutput ? 1 : 0);
        h.integer(t.aliasInputPort);
    }
    return h.hex();
}

GraphRecord describeGraph(const Graph& g, const std::string& sourcePath) {
    GraphRecord r;
    r.contentHash = graphContentHash(g);
    r.name = !g.name.empty() ? g.name : std::filesystem::path(sourcePath).stem().string();
    r.sourcePath = sourcePath.empty() ? "" : std::filesystem::absolute(sourcePath).lexically_normal().string();
    r.nodes = int64_t(g.nodeCount());
    r.edges = int64_t(g.edges().size());
    return r;
}

}  // namespace graphopt
