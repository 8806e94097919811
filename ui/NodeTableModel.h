// The nodes of a Graph as a table: position in the file, name, op, output shapes, FLOPs, output
// bytes, and the op's measured time on this CPU once the model was profiled.
#pragma once

#include <QAbstractTableModel>
#include <memory>

#include <map>

#include "execution/MeasuredCosts.h"
#include "graph/Graph.h"

namespace graphopt::ui {

class NodeTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Index, Name, Op, OutputShape, Flops, OutputBytes, Measured, ColumnCount };

    explicit NodeTableModel(QObject* parent = nullptr);
    void setGraph(std::shared_ptr<const Graph> graph);
    // The profile's costs by node name (empty: none; the column shows nothing).
    void setMeasuredCosts(std::map<std::string, exec::MeasuredOpCost> costs);
    const Graph* graph() const { return graph_.get(); }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::shared_ptr<const Graph> graph_;
    std::map<std::string, exec::MeasuredOpCost> measured_;
};

}  // namespace graphopt::ui
