// Graphviz DOT -> Graph, parsed by cgraph. The attributes read are documented in docs/formats.md
// ("DOT"): node `op` (else `label`, else "Op"), `flops`, `bytes`, `compute_cost_us`,
// `temp_bytes`; edge `bytes` (or `size`) and `control`. Every node has one output tensor
// "NAME:0"; an edge a -> b makes b read a's tensor (or wait for a, for a control edge).
#include <graphviz/cgraph.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "graph/GraphError.h"
#include "graph/GraphvizLock.h"
#include "graph/LoaderText.h"
#include "graph/Loaders.h"

namespace graphopt {

namespace {

// cgraph reports through agerr(); collect the messages instead of letting them reach stderr. They
// arrive in pieces: "Error" or "Warning", ": ", then the text. The first error is kept whole
// however many warnings came before it. Only touched with graphvizMutex() held.
struct CgraphLog {
    std::string text;        // everything, capped
    std::string firstError;  // "Error: ..." up to its end of line
    bool sawError = false;
    bool inFirstError = false;

    void clear() { *this = CgraphLog(); }
};

CgraphLog& cgraphLog() {
    static CgraphLog log;
    return log;
}

int collectCgraphMessage(char* message) {
    CgraphLog& log = cgraphLog();
    const std::string piece = message ? message : "";
    if (piece.rfind("Error", 0) == 0 && !log.sawError) log.inFirstError = true;
    if (piece.rfind("Error", 0) == 0) log.sawError = true;
    if (log.inFirstError) {
        log.firstError += piece;
        if (piece.find('\n') != std::string::npos || log.firstError.size() > 1000) log.inFirstError = false;
    }
    if (log.text.size() < 4096) log.text += piece;
    return 0;
}

std::string trimSpace(std::string s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
    size_t b = 0;
    while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    return s.substr(b);
}

// agget() returns nullptr when the attribute is not declared and "" when it is declared elsewhere
// but not set here; both mean absent.
std::string attrOf(void* obj, const char* name) {
    const char* v = agget(obj, const_cast<char*>(name));
    return v ? std::string(v) : std::string();
}

class AttrReader {
public:
    AttrReader(const std::string& path, std::string what) : path_(path), what_(std::move(what)) {}

    bool int64(void* obj, const char* name, int64_t& out) const {
        const std::string s = trimSpace(attrOf(obj, name));
        if (s.empty()) return false;
        int64_t v = 0;
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec != std::errc() || p != s.data() + s.size() || v < 0)
            throw GraphError(path_ + ": " + what_ + ": attribute " + name + "=\"" + s +
                             "\" is not a non-negative integer");
        out = v;
        return true;
    }

    bool number(void* obj, const char* name, double& out) const {
        const std::string s = trimSpace(attrOf(obj, name));
        if (s.empty()) return false;
        double v = 0;
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec != std::errc() || p != s.data() + s.size() || !std::isfinite(v) || v < 0)
            throw GraphError(path_ + ": " + what_ + ": attribute " + name + "=\"" + s +
                             "\" is not a non-negative number");
        out = v;
        return true;
    }

private:
    const std::string& path_;
    std::string what_;
};

bool truthy(const std::string& s) {
    std::string t = trimSpace(s);
    std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
    return t == "true" || t == "1" || t == "yes";
}

// The message of a failed read: the first error (else the first line, else a generic text),
// without the "Error: " prefix and the stand-in file name cgraph uses for memory input.
std::string parseFailure(const CgraphLog& log) {
    std::string pick = log.sawError ? log.firstError : log.text;
    if (auto nl = pick.find('\n'); nl != std::string::npos) pick.resize(nl);
    pick = trimSpace(pick);
    for (const char* junk : {"Error: ", "Error:", "Warning: ", "<unknown>: ", "(null): "})
        if (pick.rfind(junk, 0) == 0) pick = trimSpace(pick.substr(std::string(junk).size()));
    return pick.empty() ? std::string("no graph found (not a DOT file)") : "DOT " + pick;
}

// After a parse that stopped early cgraph's lexer can keep the rest of the old input, and the next
// read would continue from it. A failed read of a tiny graph flushes it (the lexer is reset
// whenever a read yields no graph); a clean read proves the parser is usable again.
void resetCgraphParser() {
    for (int attempt = 0; attempt < 4; ++attempt) {
        cgraphLog().clear();
        Agraph_t* probe = agmemread("digraph{}");
        const bool clean = probe && !cgraphLog().sawError;
        if (probe) agclose(probe);
        if (clean) break;
    }
    cgraphLog().clear();
}

struct CloseGraph {
    void operator()(Agraph_t* g) const { agclose(g); }
};

// The loader proper; loadDot() below makes its error messages printable.
Graph loadDotFile(const std::string& path) {
    const std::string text = readFileForLoader(path);
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) throw GraphError(path + ": the file is empty");
    if (text.find('\0') != std::string::npos) throw GraphError(path + ": binary data, not a Graphviz DOT file");

    Graph g;
    {
        std::lock_guard<std::mutex> lock(graphvizMutex());
        cgraphLog().clear();
        agusererrf previous = agseterrf(collectCgraphMessage);
        agreseterrors();
        std::unique_ptr<Agraph_t, CloseGraph> dot(agmemread(text.c_str()));
        // cgraph may return a partial graph after an error (e.g. its parser stack overflowing).
        if (!dot || cgraphLog().sawError) {
            const std::string why = parseFailure(cgraphLog());
            dot.reset();
            resetCgraphParser();
            agseterrf(previous);
            throw GraphError(path + ": " + why);
        }
        agseterrf(previous);
        if (!agisdirected(dot.get()))
            throw GraphError(path + ": an undirected DOT graph; a computation graph needs 'digraph'");
        if (agnnodes(dot.get()) == 0) throw GraphError(path + ": the DOT graph has no nodes");

        const char* gname = agnameof(dot.get());
        g.name = gname && *gname && *gname != '%' ? gname : std::filesystem::path(path).stem().string();
        g.metadata["source_format"] = "dot";

        // Nodes and their output tensors, in the order the file introduces them.
        std::vector<Agnode_t*> order;
        for (Agnode_t* n = agfstnode(dot.get()); n; n = agnxtnode(dot.get(), n)) order.push_back(n);
        std::unordered_map<Agnode_t*, int> indexOfNode;
        for (size_t i = 0; i < order.size(); ++i) indexOfNode.emplace(order[i], static_cast<int>(i));
        std::vector<int> tensorOf(order.size());
        std::vector<Node> nodes(order.size());
        for (size_t i = 0; i < order.size(); ++i) {
            Agnode_t* n = order[i];
            Node& node = nodes[i];
            node.name = agnameof(n);
            const AttrReader read(path, "node '" + node.name + "'");
            node.op = attrOf(n, "op");
            if (node.op.empty()) node.op = attrOf(n, "label");
            if (node.op.empty() || node.op == "\\N") node.op = "Op";  // "\N" = Graphviz's "use the name"
            double flops = 0, costUs = 0;
            if (read.number(n, "flops", flops)) node.flops = flops;
            if (read.number(n, "compute_cost_us", costUs)) node.computeCostS = costUs * 1e-6;
            read.int64(n, "temp_bytes", node.tempBytes);

            Tensor t;
            t.name = node.name + ":0";
            t.dtype = DType::Unknown;
            int64_t bytes = -1;
            if (!read.int64(n, "bytes", bytes)) {
                bytes = 0;
                for (Agedge_t* e = agfstout(dot.get(), n); e; e = agnxtout(dot.get(), e)) {
                    if (truthy(attrOf(e, "control"))) continue;
                    const AttrReader edgeRead(path, "edge '" + node.name + "' -> '" + agnameof(aghead(e)) + "'");
                    int64_t eb = 0;
                    if (edgeRead.int64(e, "bytes", eb) || edgeRead.int64(e, "size", eb)) bytes = std::max(bytes, eb);
                }
            }
            t.bytes = bytes;
            tensorOf[i] = g.addTensor(std::move(t));
            node.outputs.push_back(tensorOf[i]);
        }

        // Inputs, in the order the edges appear in the file (cgraph keeps in-edges in creation order).
        std::vector<char> read(order.size(), 0);
        for (size_t i = 0; i < order.size(); ++i) {
            std::vector<Agedge_t*> in;
            for (Agedge_t* e = agfstin(dot.get(), order[i]); e; e = agnxtin(dot.get(), e)) in.push_back(e);
            std::sort(in.begin(), in.end(), [](Agedge_t* a, Agedge_t* b) { return AGSEQ(a) < AGSEQ(b); });
            for (Agedge_t* e : in) {
                const int src = indexOfNode.at(agtail(e));
                if (truthy(attrOf(e, "control"))) {
                    nodes[i].controlInputs.push_back(src);
                } else {
                    nodes[i].inputs.push_back(tensorOf[src]);
                    read[src] = 1;
                }
            }
        }
        for (size_t i = 0; i < order.size(); ++i) {
            if (!read[i]) g.mutableTensors()[tensorOf[i]].isGraphOutput = true;
            g.addNode(std::move(nodes[i]));
        }
    }  // cgraph's graph is closed here, before the lock is released
    finalizeLoadedGraph(g, path);
    return g;
}

}  // namespace

Graph loadDot(const std::string& path) {
    return withPrintableErrors(path, [&] { return loadDotFile(path); });
}

}  // namespace graphopt
