// The nodes of a Graph as a table: position in the file, name, op, output shapes, FLOPs, output bytes.
#pragma once

#include <QAbstractTableModel>
#include <memory>

#include "graph/Graph.h"

namespace graphopt::ui {

class NodeTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Index, Name, Op, OutputShape, Flops, OutputBytes, ColumnCount };

    explicit NodeTableModel(QObject* parent = nullptr);
    void setGraph(std::shared_ptr<const Graph> graph);
    const Graph* graph() const { return graph_.get(); }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::shared_ptr<const Graph> graph_;
};

}  // namespace graphopt::ui
