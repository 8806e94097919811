#include "graph/GraphLayout.h"

#include <graphviz/gvc.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "graph/GraphvizLock.h"
#include "graph/LayeredLayout.h"

namespace graphopt {

namespace {

// Graphviz wants mutable char*; these names and values are never written through.
void set(void* obj, const char* name, const std::string& value) {
    agsafeset(obj, const_cast<char*>(name), const_cast<char*>(value.c_str()), const_cast<char*>(""));
}

}  // namespace

// Box size from the label lengths (DejaVu Sans ~0.55 em per character at 10 pt).
std::pair<double, double> nodeBoxSize(const Node& n) {
    const size_t chars = std::max<size_t>(std::min<size_t>(n.name.size(), 28), n.op.size());
    return {72.0 * std::max(1.0, 0.08 * static_cast<double>(chars) + 0.3), 72.0 * 0.55};
}

LayoutOptions::Quality effectiveQuality(const Graph& g, LayoutOptions::Quality requested) {
    if (requested != LayoutOptions::Quality::Auto) return requested;
    // Edges drive dot's cost (crossing minimisation and network simplex). Thresholds measured
    // here: full quality stays under ~1 s up to a few hundred edges.
    const size_t edges = g.edges().size();
    if (edges <= 400) return LayoutOptions::Quality::Full;
    if (edges <= 3000) return LayoutOptions::Quality::Fast;
    return LayoutOptions::Quality::Fastest;
}

GraphLayout layoutGraph(const Graph& g, const LayoutOptions& options) {
    const auto quality = effectiveQuality(g, options.quality);
    std::lock_guard<std::mutex> lock(graphvizMutex());

    struct Closer {
        GVC_t* gvc = nullptr;
        Agraph_t* graph = nullptr;
        bool laidOut = false;
        ~Closer() {
            if (laidOut) gvFreeLayout(gvc, graph);
            if (graph) agclose(graph);
            if (gvc) gvFreeContext(gvc);
        }
    } h;
    h.gvc = gvContext();
    if (!h.gvc) throw std::runtime_error("Graphviz could not start (gvContext failed)");
    h.graph = agopen(const_cast<char*>("g"), Agdirected, nullptr);

    GraphLayout out;
    std::string settings = options.direction == LayoutOptions::Direction::LeftToRight ? "rankdir=LR" : "rankdir=TB";
    set(h.graph, "rankdir", options.direction == LayoutOptions::Direction::LeftToRight ? "LR" : "TB");
    set(h.graph, "nodesep", "0.25");
    set(h.graph, "ranksep", "0.4");
    if (quality != LayoutOptions::Quality::Full) {
        set(h.graph, "nslimit", "2");
        set(h.graph, "nslimit1", "2");
        set(h.graph, "mclimit", "0.2");
        set(h.graph, "remincross", "false");
        set(h.graph, "searchsize", "20");
        settings += " nslimit=2 mclimit=0.2 remincross=false searchsize=20";
    }
    if (quality == LayoutOptions::Quality::Fastest) {
        set(h.graph, "splines", "false");
        settings += " splines=false";
    }

    const int n = static_cast<int>(g.nodeCount());
    std::vector<Agnode_t*> gvNodes(n);
    for (int v = 0; v < n; ++v) {
        // Node names in Graphviz are our ids: the real names may repeat after escaping or be huge.
        const std::string id = std::to_string(v);
        Agnode_t* an = agnode(h.graph, const_cast<char*>(id.c_str()), 1);
        const auto [wPt, hPt] = nodeBoxSize(g.nodes()[v]);
        const double w = wPt / 72.0, hgt = hPt / 72.0;
        set(an, "shape", "box");
        set(an, "fixedsize", "true");
        set(an, "label", "");
        set(an, "width", std::to_string(w));
        set(an, "height", std::to_string(hgt));
        gvNodes[v] = an;
    }
    // The edges the fast layout draws as stubs (a value read by many nodes far below) are left out
    // of dot's graph and drawn as stubs too: they are what makes dense graphs slow to lay out
    // (DenseNet-121: 909 edges, half of them stubs) and unreadable once laid out.
    const LayeredInput input = nodeGraphInput(g);
    const std::vector<char> stub = stubbedEdges(input);
    std::vector<std::pair<int, int>> edgeEnds;
    std::vector<Agedge_t*> gvEdges;  // nullptr for a stub
    for (size_t e = 0; e < input.edges.size(); ++e) {
        const auto [v, w] = input.edges[e];
        edgeEnds.emplace_back(v, w);
        gvEdges.push_back(stub[e] ? nullptr : agedge(h.graph, gvNodes[v], gvNodes[w], nullptr, 1));
    }
    const int stubs = static_cast<int>(std::count(stub.begin(), stub.end(), 1));
    if (stubs > 0) settings += " (" + std::to_string(stubs) + " edges from widely read values drawn as stubs)";
    out.settings = settings;

    if (gvLayout(h.gvc, h.graph, "dot") != 0) throw std::runtime_error("Graphviz dot layout failed");
    h.laidOut = true;

    const boxf bb = GD_bb(h.graph);
    out.width = bb.UR.x - bb.LL.x;
    out.height = bb.UR.y - bb.LL.y;
    // Graphviz puts the origin bottom-left with y up; flip to top-left with y down.
    auto flip = [&](pointf p) { return LayoutPoint{p.x - bb.LL.x, bb.UR.y - p.y}; };

    out.nodes.resize(n);
    for (int v = 0; v < n; ++v) {
        const LayoutPoint c = flip(ND_coord(gvNodes[v]));
        out.nodes[v] = {c.x, c.y, ND_width(gvNodes[v]) * 72.0, ND_height(gvNodes[v]) * 72.0};
    }
    out.edges.reserve(gvEdges.size());
    const bool sideways = options.direction == LayoutOptions::Direction::LeftToRight;
    std::vector<int> stubsInto(static_cast<size_t>(n), 0), stubsSeen(static_cast<size_t>(n), 0);
    for (size_t i = 0; i < gvEdges.size(); ++i)
        if (!gvEdges[i]) ++stubsInto[edgeEnds[i].second];
    for (size_t i = 0; i < gvEdges.size(); ++i) {
        EdgeRoute r;
        r.src = edgeEnds[i].first;
        r.dst = edgeEnds[i].second;
        if (!gvEdges[i]) {  // a short segment into the consumer's near side, side by side with its fellows
            constexpr double kLength = 14, kSpacing = 7;
            const NodeBox& b = out.nodes[r.dst];
            const double offset = (stubsSeen[r.dst]++ - (stubsInto[r.dst] - 1) / 2.0) * kSpacing;
            if (sideways) r.points = {{b.x - b.width / 2 - kLength, b.y + offset}, {b.x - b.width / 2, b.y + offset}};
            else r.points = {{b.x + offset, b.y - b.height / 2 - kLength}, {b.x + offset, b.y - b.height / 2}};
            r.bezier = false;
            r.stub = true;
            out.edges.push_back(std::move(r));
            continue;
        }
        const splines* spl = ED_spl(gvEdges[i]);
        if (spl && spl->size > 0) {
            const bezier& bz = spl->list[0];
            for (int k = 0; k < bz.size; ++k) r.points.push_back(flip(bz.list[k]));
            if (bz.eflag) {
                r.hasArrow = true;
                r.arrowTip = flip(bz.ep);
            }
            r.bezier = quality != LayoutOptions::Quality::Fastest && (bz.size % 3 == 1);
        } else {
            // No route (can happen with splines=false on some edges): a straight segment.
            const NodeBox& a = out.nodes[r.src];
            const NodeBox& b = out.nodes[r.dst];
            r.points = {{a.x, a.y}, {b.x, b.y}};
            r.bezier = false;
        }
        out.edges.push_back(std::move(r));
    }
    return out;
}

nlohmann::json GraphLayout::toJson() const {
    nlohmann::json j;
    j["width"] = width;
    j["height"] = height;
    j["settings"] = settings;
    auto& ns = j["nodes"] = nlohmann::json::array();
    for (const auto& b : nodes) ns.push_back({b.x, b.y, b.width, b.height});
    auto& es = j["edges"] = nlohmann::json::array();
    for (const auto& e : edges) {
        nlohmann::json pts = nlohmann::json::array();
        for (const auto& p : e.points) pts.push_back({p.x, p.y});
        nlohmann::json je = {{"src", e.src}, {"dst", e.dst}, {"points", pts}, {"bezier", e.bezier}};
        if (e.hasArrow) je["arrow"] = {e.arrowTip.x, e.arrowTip.y};
        if (e.stub) je["stub"] = true;
        es.push_back(std::move(je));
    }
    return j;
}

GraphLayout GraphLayout::fromJson(const nlohmann::json& j) {
    try {
        GraphLayout l;
        l.width = j.at("width").get<double>();
        l.height = j.at("height").get<double>();
        l.settings = j.value("settings", "");
        for (const auto& b : j.at("nodes"))
            l.nodes.push_back({b.at(0).get<double>(), b.at(1).get<double>(), b.at(2).get<double>(), b.at(3).get<double>()});
        for (const auto& je : j.at("edges")) {
            EdgeRoute e;
            e.src = je.at("src").get<int>();
            e.dst = je.at("dst").get<int>();
            e.bezier = je.value("bezier", true);
            e.stub = je.value("stub", false);
            for (const auto& p : je.at("points")) e.points.push_back({p.at(0).get<double>(), p.at(1).get<double>()});
            if (je.contains("arrow")) {
                e.hasArrow = true;
                e.arrowTip = {je["arrow"].at(0).get<double>(), je["arrow"].at(1).get<double>()};
            }
            l.edges.push_back(std::move(e));
        }
        return l;
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error(std::string("malformed layout: ") + e.what());
    }
}

}  // namespace graphopt
