// Two or more stored runs compared: their best-so-far curves overlaid (aligned by evaluations or
// by wall-clock time), their figures side by side with the best of each row marked and the
// difference to the first run, and what differs in their answers (core/store/RunComparison.h):
// the nodes placed on other devices, or the knobs of the best kernels.
#pragma once

#include <QWidget>

#include <string>
#include <vector>

#include "store/RunComparison.h"

class QChart;
class QChartView;
class QComboBox;
class QLabel;
class QPushButton;
class QSplitter;
class QTableWidget;
class QValueAxis;

namespace graphopt {
class RunStore;
}

namespace graphopt::ui {

class RunComparisonView : public QWidget {
    Q_OBJECT
public:
    enum class XAxis { Evaluations, WallClock };

    explicit RunComparisonView(QWidget* parent = nullptr);

    // Reads the runs from the store and shows them; throws StoreError for an unknown id.
    void showRuns(RunStore& store, const std::vector<int64_t>& runIds);
    void clear();
    void setXAxis(XAxis axis);
    XAxis xAxis() const { return xAxis_; }

    const RunComparison& comparison() const { return comparison_; }
    int curveCount() const;
    QTableWidget* figuresTable() const { return figures_; }
    // The source path of the graph the compared placements ran on ("" when not one graph).
    QString graphPath() const { return graphPath_; }

signals:
    // "Show on graph": ring these nodes on the graph drawn from `graphPath`.
    void showNodesRequested(const QString& graphPath, const std::vector<std::string>& nodes);

private:
    void redrawCurves();

    struct Curve {
        QString label;
        std::vector<double> evaluations, seconds, best;  // best so far at each event
    };
    XAxis xAxis_ = XAxis::Evaluations;
    RunComparison comparison_;
    std::vector<Curve> curves_;
    QString graphPath_;
    QSplitter* split_ = nullptr;
    QChartView* chartView_ = nullptr;
    QValueAxis* x_ = nullptr;
    QValueAxis* y_ = nullptr;
    QComboBox* axisChoice_ = nullptr;
    QTableWidget* figures_ = nullptr;
    QLabel* differences_ = nullptr;
    QPushButton* showOnGraph_ = nullptr;
};

}  // namespace graphopt::ui
