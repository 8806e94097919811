#include "graph/ScopeFolding.h"

#include <algorithm>
#include <cctype>
#include <unordered_map>
#include <unordered_set>

namespace graphopt {

std::vector<std::string> ScopeTree::scopeParts(const std::string& name, char separator) {
    std::vector<std::string> parts;
    if (separator == 0) return parts;
    size_t start = 0;
    while (start <= name.size()) {
        const size_t slash = name.find(separator, start);
        const size_t end = slash == std::string::npos ? name.size() : slash;
        if (end > start) {
            std::string part = name.substr(start, end - start);
            const bool numeric = std::all_of(part.begin(), part.end(), [](unsigned char c) { return std::isdigit(c); });
            if (separator == '.' && numeric && !parts.empty()) parts.back() += "." + part;  // "layer.3"
            else parts.push_back(std::move(part));
        }
        if (slash == std::string::npos) break;
        start = slash + 1;
    }
    if (!parts.empty()) parts.pop_back();  // the op's own name
    return parts;
}

char ScopeTree::separatorFor(const Graph& g) {
    size_t dotted = 0;
    for (const Node& n : g.nodes()) {
        if (n.name.find('/') != std::string::npos) return '/';
        dotted += n.name.find('.') != std::string::npos;
    }
    return 2 * dotted > g.nodeCount() ? '.' : 0;
}

ScopeTree::ScopeTree(const Graph& g) : separator_(separatorFor(g)) {
    scopes_.push_back({});  // the root
    std::unordered_map<std::string, int> byPath;
    scopeOfNode_.resize(g.nodeCount(), 0);
    for (size_t v = 0; v < g.nodeCount(); ++v) {
        const Node& node = g.nodes()[v];
        int at = 0;
        std::string path;
        for (const std::string& part : scopeParts(node.name, separator_)) {
            path += (path.empty() && separator_ == '.' ? "" : std::string(1, separator_)) + part;
            auto [it, inserted] = byPath.try_emplace(path, static_cast<int>(scopes_.size()));
            if (inserted) {
                Scope s;
                s.path = path;
                s.label = part;
                s.parent = at;
                s.depth = scopes_[at].depth + 1;
                scopes_[at].children.push_back(it->second);
                scopes_.push_back(std::move(s));
            }
            at = it->second;
        }
        scopeOfNode_[v] = at;
        scopes_[at].nodes.push_back(static_cast<int>(v));
        int64_t bytes = node.residentBytes;
        for (int t : node.outputs)
            if (t >= 0) bytes += g.tensors()[static_cast<size_t>(t)].bytes;
        for (int t : node.inputs)
            if (t >= 0 && g.tensors()[static_cast<size_t>(t)].kind == TensorKind::Weight)
                bytes += g.tensors()[static_cast<size_t>(t)].bytes;
        for (int s = at; s >= 0; s = scopes_[s].parent) {
            ++scopes_[s].nodeCount;
            scopes_[s].flops += node.flops;
            scopes_[s].bytes += bytes;
        }
    }
}

int ScopeTree::find(const std::string& path) const {
    if (path.empty()) return 0;
    for (size_t s = 1; s < scopes_.size(); ++s)
        if (scopes_[s].path == path) return static_cast<int>(s);
    return -1;
}

std::vector<int> ScopeTree::pathTo(int scope) const {
    std::vector<int> path;
    for (int s = scope; s >= 0; s = scopes_[s].parent) path.push_back(s);
    std::reverse(path.begin(), path.end());
    return path;
}

bool ScopeTree::contains(int scope, int node) const {
    for (int s = scopeOf(node); s >= 0; s = scopes_[s].parent)
        if (s == scope) return true;
    return false;
}

ScopeFolding::ScopeFolding(const Graph& g) : tree_(g), open_(tree_.scopes().size(), 1) {
    successors_.resize(g.nodeCount());
    for (size_t v = 0; v < g.nodeCount(); ++v) successors_[v] = g.successors(static_cast<int>(v));
}

void ScopeFolding::open(int scope) {
    for (int s = scope; s >= 0; s = tree_.scopes()[s].parent) open_[s] = 1;
}

void ScopeFolding::close(int scope) {
    if (scope > 0) open_[scope] = 0;  // the root is always open
}

void ScopeFolding::openAll() { std::fill(open_.begin(), open_.end(), 1); }

void ScopeFolding::closeAll() {
    std::fill(open_.begin(), open_.end(), 0);
    if (!open_.empty()) open_[0] = 1;
}

void ScopeFolding::reveal(int node) { open(tree_.scopeOf(node)); }

namespace {

// The outermost folded scope around `node`, or -1 when the node is visible itself.
int foldedAround(const ScopeTree& tree, const std::vector<char>& open, int node) {
    int outermost = -1;
    for (int s = tree.scopeOf(node); s > 0; s = tree.scopes()[s].parent)
        if (!open[s] && tree.scopes()[s].foldable()) outermost = s;
    return outermost;
}

}  // namespace

bool ScopeFolding::isHidden(int node) const { return foldedAround(tree_, open_, node) >= 0; }

bool ScopeFolding::anyFolded() const {
    for (size_t v = 0; v < tree_.nodeCount(); ++v)
        if (isHidden(static_cast<int>(v))) return true;
    return false;
}

FoldedView ScopeFolding::view() const {
    FoldedView fv;
    const size_t n = tree_.nodeCount();
    fv.itemOfNode.assign(n, -1);
    std::unordered_map<int, int> itemOfScope;
    for (size_t v = 0; v < n; ++v) {
        const int s = foldedAround(tree_, open_, static_cast<int>(v));
        int item;
        if (s < 0) {
            item = static_cast<int>(fv.items.size());
            fv.items.push_back({static_cast<int>(v), -1});
            fv.members.push_back({});
        } else {
            auto [it, inserted] = itemOfScope.try_emplace(s, static_cast<int>(fv.items.size()));
            if (inserted) {
                fv.items.push_back({-1, s});
                fv.members.push_back({});
            }
            item = it->second;
        }
        fv.itemOfNode[v] = item;
        fv.members[static_cast<size_t>(item)].push_back(static_cast<int>(v));
    }
    std::unordered_set<uint64_t> seen;
    for (size_t v = 0; v < n; ++v)
        for (int w : successors_[v]) {
            const int a = fv.itemOfNode[v], b = fv.itemOfNode[static_cast<size_t>(w)];
            if (a == b) continue;
            if (seen.insert((static_cast<uint64_t>(a) << 32) | static_cast<uint32_t>(b)).second) fv.edges.push_back({a, b});
        }
    return fv;
}

int ScopeFolding::visibleCount() const {
    std::unordered_set<int> boxes;
    int nodes = 0;
    for (size_t v = 0; v < tree_.nodeCount(); ++v) {
        const int s = foldedAround(tree_, open_, static_cast<int>(v));
        if (s < 0) ++nodes;
        else boxes.insert(s);
    }
    return nodes + static_cast<int>(boxes.size());
}

void ScopeFolding::foldToFit(int foldAbove, int maxVisible) {
    openAll();
    if (static_cast<int>(tree_.nodeCount()) <= foldAbove || !tree_.hasScopes()) return;
    closeAll();
    const auto& scopes = tree_.scopes();
    int maxDepth = 0;
    for (const Scope& s : scopes) maxDepth = std::max(maxDepth, s.depth);
    for (int depth = 1; depth <= maxDepth; ++depth) {
        std::vector<int> level;
        for (size_t s = 1; s < scopes.size(); ++s)
            if (scopes[s].depth == depth && isOpen(scopes[s].parent)) level.push_back(static_cast<int>(s));
        for (int s : level) open_[s] = 1;
        if (visibleCount() > maxVisible) {
            for (int s : level) open_[s] = 0;
            break;
        }
    }
}

std::pair<double, double> scopeBoxSize(const Scope& s) {
    const size_t chars = std::max<size_t>(std::min<size_t>(s.label.size(), 28), 26);  // the figures line fits
    return {72.0 * (0.09 * static_cast<double>(chars) + 0.4), 72.0 * 0.8};
}

LayeredInput layeredInput(const Graph& g, const ScopeTree& tree, const FoldedView& view) {
    LayeredInput in;
    in.sizes.reserve(view.items.size());
    for (const FoldedView::Item& item : view.items)
        in.sizes.push_back(item.node >= 0 ? nodeBoxSize(g.nodes()[static_cast<size_t>(item.node)])
                                          : scopeBoxSize(tree.scopes()[static_cast<size_t>(item.scope)]));
    in.edges = view.edges;
    return in;
}

std::string elideScopedName(const std::string& name, size_t maxChars) {
    static const std::string kEllipsis = "\u2026";  // one character on screen, three bytes
    auto screenLength = [](const std::string& s) {  // UTF-8 code points
        size_t count = 0;
        for (unsigned char c : s) count += (c & 0xC0) != 0x80;
        return count;
    };
    if (screenLength(name) <= maxChars) return name;
    const size_t lastSlash = name.rfind('/');
    if (lastSlash == std::string::npos || lastSlash == 0) {  // no scopes: the middle goes
        const size_t keep = maxChars > 1 ? maxChars - 1 : 0;
        const size_t head = keep / 2, tail = keep - head;
        return name.substr(0, head) + kEllipsis + name.substr(name.size() - tail);
    }
    const std::string leaf = name.substr(lastSlash);  // "/MatMul_6"
    std::vector<std::string> parts;                   // the scopes, with their leading '/'
    size_t start = 0;
    while (start < lastSlash) {
        size_t next = name.find('/', start + 1);
        if (next == std::string::npos || next > lastSlash) next = lastSlash;
        parts.push_back(name.substr(start, next - start));
        start = next;
    }
    // The first scope, an ellipsis, then the last scopes while they fit, then the leaf.
    std::string head = parts.empty() ? std::string() : parts.front();
    if (screenLength(head) + 2 + screenLength(leaf) > maxChars) head.clear();
    std::string tail = leaf;
    for (size_t i = parts.size(); i-- > 1;) {
        const std::string candidate = parts[i] + tail;
        if (screenLength(head) + 2 + screenLength(candidate) > maxChars) break;
        tail = candidate;
    }
    std::string out = head + "/" + kEllipsis + tail;
    if (screenLength(out) > maxChars && screenLength(leaf) + 2 > maxChars) {  // even the leaf is too long
        const size_t keep = maxChars > 2 ? maxChars - 2 : 0;
        out = "/" + kEllipsis + leaf.substr(leaf.size() - std::min(keep, leaf.size()));
    }
    return out;
}

}  // namespace graphopt
