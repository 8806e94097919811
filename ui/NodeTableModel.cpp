#include "NodeTableModel.h"

#include <QLocale>

#include "run/Units.h"

namespace graphopt::ui {

NodeTableModel::NodeTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void NodeTableModel::setGraph(std::shared_ptr<const Graph> graph) {
    beginResetModel();
    graph_ = std::move(graph);
    endResetModel();
}

void NodeTableModel::setMeasuredCosts(std::map<std::string, exec::MeasuredOpCost> costs) {
    measured_ = std::move(costs);
    if (rowCount() > 0) emit dataChanged(index(0, Measured), index(rowCount() - 1, Measured));
}

int NodeTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !graph_ ? 0 : static_cast<int>(graph_->nodeCount());
}

int NodeTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant NodeTableModel::data(const QModelIndex& index, int role) const {
    if (!graph_ || !index.isValid() || index.row() >= rowCount()) return {};
    const Node& n = graph_->nodes()[index.row()];
    int64_t outBytes = 0;
    QStringList shapes;
    for (int t : n.outputs) {
        const Tensor& tensor = graph_->tensors()[t];
        outBytes += tensor.bytes;
        shapes << QString::fromStdString(tensor.shapeKnown ? shapeToString(tensor.shape) : std::string("?"));
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
            case Index: return index.row();
            case Name: return QString::fromStdString(n.name);
            case Op: return QString::fromStdString(n.op);
            case OutputShape: return shapes.join(", ");
            case Flops: return QLocale().toString(n.flops / 1e6, 'f', 2);
            case OutputBytes: return QLocale().formattedDataSize(outBytes);
            case Measured: {
                auto it = measured_.find(n.name);
                return it == measured_.end() ? QVariant() : QVariant(QString::fromStdString(units::seconds(it->second.medianS)));
            }
        }
    } else if (role == Qt::UserRole) {  // raw values, for sorting
        switch (index.column()) {
            case Index: return index.row();
            case Flops: return n.flops;
            case OutputBytes: return static_cast<qlonglong>(outBytes);
            case Measured: {
                auto it = measured_.find(n.name);
                return it == measured_.end() ? -1.0 : it->second.medianS;
            }
            default: return data(index, Qt::DisplayRole);
        }
    } else if (role == Qt::ToolTipRole && index.column() == Measured) {
        auto it = measured_.find(n.name);
        if (it == measured_.end()) return measured_.empty() ? QVariant() : tr("Not profiled: keeps the device model's estimate");
        const auto& c = it->second;
        return tr("median %1 over %2 timed runs (fastest %3, slowest %4), %5")
            .arg(QString::fromStdString(units::seconds(c.medianS)))
            .arg(c.repeats)
            .arg(QString::fromStdString(units::seconds(c.minS)), QString::fromStdString(units::seconds(c.maxS)),
                 QString::fromStdString(c.source));
    } else if (role == Qt::TextAlignmentRole && (index.column() == Index || index.column() == Flops || index.column() == OutputBytes ||
                                                    index.column() == Measured)) {
        return int(Qt::AlignRight | Qt::AlignVCenter);
    }
    return {};
}

QVariant NodeTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case Index: return tr("#");
        case Name: return tr("Node");
        case Op: return tr("Op");
        case OutputShape: return tr("Output shape");
        case Flops: return tr("MFLOP");
        case OutputBytes: return tr("Output bytes");
        case Measured: return tr("Measured");
    }
    return {};
}

}  // namespace graphopt::ui
