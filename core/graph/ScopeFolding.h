// Name scopes and folding them into boxes, as TensorBoard's graph view does.
//
// ONNX exports from PyTorch and TensorFlow name nodes by their module path (profiled workloads by
// dotted PyTorch module names: `bert.encoder.layer.3.attention`):
// `/model/layers.3/self_attn/q_proj/MatMul_6` lies in the scopes `/model`, `/model/layers.3`,
// `/model/layers.3/self_attn` and `/model/layers.3/self_attn/q_proj`. A ScopeTree holds those
// scopes with what each contains (op count, FLOPs, bytes); a ScopeFolding says which are open and
// gives the graph as the view draws it: one item per visible node or folded scope, and the edges
// between items. A scope holding a single node is never a box (the node is shown instead).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "graph/Graph.h"
#include "graph/LayeredLayout.h"

namespace graphopt {

struct Scope {
    std::string path;            // "/model/layers.3"; "" for the root
    std::string label;           // the last part: "layers.3"
    int parent = -1;             // -1 for the root
    int depth = 0;               // root 0
    std::vector<int> children;   // sub-scopes, in order of first appearance
    std::vector<int> nodes;      // nodes directly inside
    int nodeCount = 0;           // nodes inside, sub-scopes included
    double flops = 0;            // of those nodes
    int64_t bytes = 0;           // their outputs, weights and resident state
    bool foldable() const { return parent >= 0 && nodeCount > 1; }
};

class ScopeTree {
public:
    ScopeTree() = default;
    explicit ScopeTree(const Graph& g);

    const std::vector<Scope>& scopes() const { return scopes_; }
    int scopeOf(int node) const { return scopeOfNode_[static_cast<size_t>(node)]; }  // innermost
    int find(const std::string& path) const;  // -1 if there is no such scope
    bool hasScopes() const { return scopes_.size() > 1; }
    std::vector<int> pathTo(int scope) const;  // root first, `scope` last
    bool contains(int scope, int node) const;
    size_t nodeCount() const { return scopeOfNode_.size(); }

    // The scope parts of a node name ("/a/b/Conv_3" -> {"a", "b"}); the last part is the op's own
    // name. With '.' as the separator (PyTorch module paths, as profiled workloads name their
    // nodes: "bert.encoder.layer.3.attention.self.query"), a numeric part stays with the one before
    // it ("layer.3").
    static std::vector<std::string> scopeParts(const std::string& name, char separator = '/');
    // '/' when any node name has one, else '.' when most names have one, else 0 (no scopes).
    static char separatorFor(const Graph& g);
    char separator() const { return separator_; }

private:
    std::vector<Scope> scopes_;
    std::vector<int> scopeOfNode_;
    char separator_ = '/';
};

// What the view draws: items (a node, or a folded scope standing for the nodes inside it) and the
// edges between them (deduplicated, no self loops).
struct FoldedView {
    struct Item {
        int node = -1;   // >= 0: a single node
        int scope = -1;  // >= 0: a folded scope
    };
    std::vector<Item> items;
    std::vector<int> itemOfNode;              // the item that shows each node
    std::vector<std::vector<int>> members;    // per item, the nodes it shows
    std::vector<std::pair<int, int>> edges;
    bool folded() const { return items.size() != itemOfNode.size(); }
};

class ScopeFolding {
public:
    ScopeFolding() = default;
    explicit ScopeFolding(const Graph& g);  // every scope open

    const ScopeTree& tree() const { return tree_; }
    bool isOpen(int scope) const { return open_[static_cast<size_t>(scope)] != 0; }
    void open(int scope);     // and every scope around it
    void close(int scope);    // folds it into a box (what is inside keeps its state for reopening)
    void openAll();
    void closeAll();
    void reveal(int node);    // opens every scope the node lies in
    bool isHidden(int node) const;  // inside a folded scope
    bool anyFolded() const;

    // The default for big graphs: if the graph has more than `foldAbove` nodes, scopes open depth
    // by depth, every scope of a depth at once, while the drawing keeps at most `maxVisible` items
    // (so repeated blocks, transformer layers, stay folded together); otherwise everything is open.
    void foldToFit(int foldAbove, int maxVisible);

    FoldedView view() const;
    int visibleCount() const;

private:
    ScopeTree tree_;
    std::vector<char> open_;
    std::vector<std::vector<int>> successors_;  // copied, so a folding holds no pointer into a graph
};

// A folded scope's box size in points (a title line and a line of figures).
std::pair<double, double> scopeBoxSize(const Scope& s);

// The folded view as a DAG for the layered layout: node boxes and scope boxes, items in order.
LayeredInput layeredInput(const Graph& g, const ScopeTree& tree, const FoldedView& view);

// A scoped name shortened to `maxChars` characters in the middle: the first scope, an ellipsis and
// as many of the last scopes as fit, always keeping the op's own name whole
// ("/model/…/q_proj/MatMul_6"). Unscoped names are elided in the middle.
std::string elideScopedName(const std::string& name, size_t maxChars);

}  // namespace graphopt
