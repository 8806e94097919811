// The nodes list as a tree of name scopes (`/model` > `layers.3` > `self_attn` > `MatMul_6`): a
// scope row with its op count and MFLOP, a node row with its own name, op and MFLOP. The Nodes
// dock shows it instead of the flat table when "Group by scope" is on. Clicking a node selects it
// on the graph (opening its folded box); double clicking a scope opens its box.
#pragma once

#include <QTreeView>
#include <memory>

#include "graph/Graph.h"

class QStandardItemModel;
class QSortFilterProxyModel;

namespace graphopt::ui {

class ScopeTreeView : public QTreeView {
    Q_OBJECT
public:
    explicit ScopeTreeView(QWidget* parent = nullptr);

    void setGraph(std::shared_ptr<const Graph> graph);  // rebuilds the tree
    bool hasScopes() const { return hasScopes_; }
    void selectNode(int node);                          // shows and selects its row, quietly
    void setFilterText(const QString& text);            // rows matching, with their scopes
    int rowCountBelowRoot() const;                      // top-level rows (for tests)

signals:
    void nodeClicked(int node);
    void scopeOpenRequested(const QString& scopePath);

private:
    QStandardItemModel* model_ = nullptr;
    QSortFilterProxyModel* proxy_ = nullptr;
    std::vector<QModelIndex> rowOfNode_;  // source-model indexes
    bool hasScopes_ = false;
};

}  // namespace graphopt::ui
