#include "ScopeTreeView.h"

#include <QHeaderView>
#include <QLocale>
#include <QSignalBlocker>
#include <QSortFilterProxyModel>
#include <QStandardItemModel>

#include "ScopedNames.h"
#include "graph/ScopeFolding.h"

namespace graphopt::ui {

namespace {
constexpr int kNodeRole = Qt::UserRole + 1;   // node id on node rows
constexpr int kScopeRole = Qt::UserRole + 2;  // scope path on scope rows
constexpr int kFilterRole = Qt::UserRole + 3; // what the filter matches: the whole name and the op
}  // namespace

ScopeTreeView::ScopeTreeView(QWidget* parent) : QTreeView(parent) {
    setObjectName("scopeTree");
    model_ = new QStandardItemModel(this);
    proxy_ = new QSortFilterProxyModel(this);
    proxy_->setSourceModel(model_);
    proxy_->setRecursiveFilteringEnabled(true);  // a matching node keeps its scopes visible
    proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
    proxy_->setFilterKeyColumn(0);
    proxy_->setFilterRole(kFilterRole);  // "layer3.1/conv2" matches as it does in the flat table
    setModel(proxy_);
    setUniformRowHeights(true);
    setIndentation(12);
    setAlternatingRowColors(true);
    setSelectionBehavior(SelectRows);
    setSelectionMode(SingleSelection);
    connect(this, &QTreeView::clicked, this, [this](const QModelIndex& idx) {
        const QVariant node = proxy_->index(idx.row(), 0, idx.parent()).data(kNodeRole);
        if (node.isValid()) emit nodeClicked(node.toInt());
    });
    connect(this, &QTreeView::doubleClicked, this, [this](const QModelIndex& idx) {
        const QVariant scope = proxy_->index(idx.row(), 0, idx.parent()).data(kScopeRole);
        if (scope.isValid()) emit scopeOpenRequested(scope.toString());
    });
}

void ScopeTreeView::setGraph(std::shared_ptr<const Graph> graph) {
    model_->clear();
    model_->setHorizontalHeaderLabels({tr("Scope / node"), tr("Op"), tr("MFLOP")});
    rowOfNode_.clear();
    hasScopes_ = false;
    if (!graph) return;
    const ScopeTree tree(*graph);
    hasScopes_ = tree.hasScopes();
    const QLocale loc;
    const auto& scopes = tree.scopes();
    std::vector<QStandardItem*> itemOfScope(scopes.size(), nullptr);
    itemOfScope[0] = model_->invisibleRootItem();
    auto mflop = [&loc](double flops) {
        auto* item = new QStandardItem(loc.toString(flops / 1e6, 'f', 2));
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        return item;
    };
    // Scopes in order of first appearance (a parent always comes before its children).
    for (size_t s = 1; s < scopes.size(); ++s) {
        const Scope& sc = scopes[s];
        auto* name = new QStandardItem(QString::fromStdString(sc.label));
        name->setData(QString::fromStdString(sc.path), kScopeRole);
        name->setData(QString::fromStdString(sc.path), kFilterRole);
        name->setToolTip(QString::fromStdString(sc.path));
        QFont bold = name->font();
        bold.setBold(true);
        name->setFont(bold);
        auto* ops = new QStandardItem(sc.nodeCount == 1 ? tr("1 op") : tr("%1 ops").arg(sc.nodeCount));
        itemOfScope[s] = name;
        itemOfScope[static_cast<size_t>(sc.parent)]->appendRow({name, ops, mflop(sc.flops)});
    }
    rowOfNode_.resize(graph->nodeCount());
    for (size_t v = 0; v < graph->nodeCount(); ++v) {
        const Node& n = graph->nodes()[v];
        const size_t cut = tree.separator() ? n.name.rfind(tree.separator()) : std::string::npos;
        const bool scoped = cut != std::string::npos && tree.scopeOf(static_cast<int>(v)) != 0;
        auto* name = new QStandardItem(QString::fromStdString(scoped ? n.name.substr(cut + 1) : n.name));
        name->setData(static_cast<int>(v), kNodeRole);
        name->setData(QString::fromStdString(n.name + " " + n.op), kFilterRole);
        name->setToolTip(QString::fromStdString(n.name));
        QStandardItem* parent = itemOfScope[static_cast<size_t>(tree.scopeOf(static_cast<int>(v)))];
        parent->appendRow({name, new QStandardItem(QString::fromStdString(n.op)), mflop(n.flops)});
        rowOfNode_[v] = name->index();
    }
    // The names get the room: a narrow dock still shows "layers.3" and "MatMul_6" whole.
    header()->setSectionResizeMode(0, QHeaderView::Stretch);
    header()->setSectionResizeMode(1, QHeaderView::Interactive);
    header()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    header()->setResizeContentsPrecision(200);
    header()->resizeSection(1, fontMetrics().horizontalAdvance("1609 ops") + 8);
    header()->setStretchLastSection(false);
}

void ScopeTreeView::selectNode(int node) {
    if (node < 0 || node >= static_cast<int>(rowOfNode_.size())) return;
    const QModelIndex idx = proxy_->mapFromSource(rowOfNode_[static_cast<size_t>(node)]);
    if (!idx.isValid()) return;
    QSignalBlocker block(selectionModel());
    setCurrentIndex(idx);
    scrollTo(idx);
}

void ScopeTreeView::setFilterText(const QString& text) {
    proxy_->setFilterFixedString(text);
    if (!text.isEmpty()) expandAll();
}

int ScopeTreeView::rowCountBelowRoot() const { return proxy_->rowCount(); }

}  // namespace graphopt::ui
