// The schedule of a placement run as a Gantt chart: one lane per device with its ops as bars, one
// lane per link that carried data (from -> to) with its transfers as bars, a time axis, and the
// lane names on the left. Zoom in time (wheel or Ctrl+wheel about the cursor, +/- keys, buttons),
// pan (drag, Shift+wheel, arrow keys, scroll bars), fit (0 key, button); hover a bar for details,
// click an op to select it in other views (opClicked).
//
// A pipeline (ScheduleDetail::microBatches > 1) runs every node once per micro-batch: each bar is
// shaded by its micro-batch (darkest first) and shows its number (with the op's name when wide
// enough), so the diagonal of the pipeline and its idle bubbles can be seen; tooltips say "node X,
// micro-batch m", and the summary gives the idle share.
//
// Painted directly, culling to the visible time range with a binary search per lane and merging
// bars thinner than a pixel, so 10,000 ops draw as fast as 100.
#pragma once

#include <QWidget>
#include <vector>

#include "placement/model/PlacementResult.h"

class QLabel;
class QToolButton;

namespace graphopt {
class Graph;
}

namespace graphopt::ui {

class ScheduleCanvas;

class ScheduleView : public QWidget {
    Q_OBJECT
public:
    explicit ScheduleView(QWidget* parent = nullptr);
    ~ScheduleView() override;

    // Shows the result's schedule (result.schedule) and fits it to the width. With `graph` (the
    // graph the result was computed on; not kept), tooltips also name op types and tensors.
    void setResult(const PlacementResult& result, const Graph* graph = nullptr);
    void clear();
    bool hasResult() const;

    // Lanes: the devices first (every device, busy or not), then each link that carried a transfer.
    int laneCount() const;
    int deviceLaneCount() const;
    int linkLaneCount() const;
    QString laneName(int lane) const;
    int opBarCount() const;  // one per scheduled op: nodes x micro-batches in a pipeline
    int microBatchCount() const;  // 1 without a pipeline
    QString summaryText() const;  // the line above the chart
    int transferBarCount() const;

    void zoomBy(double factor);  // in time, about the centre of the visible range
    void fitToWindow();
    double visibleSeconds() const;  // the time span the chart area shows now

    // Highlights the op of `node` and scrolls it into view (e.g. when selected in the graph view);
    // -1 clears the highlight.
    void showOp(int node);
    int shownOp() const;

    // The widget that paints and takes the mouse, and bar geometry in its coordinates (empty when
    // off screen): for tests and for tools that point at bars.
    QWidget* canvas() const;
    // With micro-batches a node has one bar per micro-batch: `microBatch` picks one (-1: the earliest).
    QRect opBarRect(int node, int microBatch = -1) const;
    QString opBarText(int node, int microBatch = -1) const;  // the text drawn in that bar ("" for none)
    QRect transferBarRect(int transfer) const;  // index into result.schedule.transfers
    QString toolTipAt(const QPoint& canvasPos) const;

signals:
    void opClicked(int node);

private:
    friend class ScheduleCanvas;
    ScheduleCanvas* canvas_;
    QLabel* summary_;
    std::vector<QToolButton*> buttons_;  // zoom in, zoom out, fit
};

}  // namespace graphopt::ui
