// Memory over time per device for a placement result: one step line per device (live bytes from
// each event on), its peak marked (a point, and a legend entry "gpu0 peak 27.6 MiB"), and a dashed
// capacity line per device when capacities are given. Colours are the device colours shared with
// the graph and Gantt views (DeviceColors.h).
//
// Capacities come from the result (PlacementResult::deviceCapacityBytes) where it has them, else
// from setResult's argument. A device over its limit at the peak (PlacementResult::overLimitBytes)
// is marked: a red square on its peak, a red legend entry "gpu1: over by 3.2 GiB", the title
// naming it, and its capacity line always on the scale.
//
// When a capacity is far above every peak (16 GiB against 30 MiB), drawing it would flatten the
// curves to nothing: the axis then fits the curves and the capacity's legend entry says
// "(off scale)" (the context menu, or setCapacityAlwaysOnScale, puts it back on).
#pragma once

#include <QChartView>
#include <cstdint>
#include <vector>

#include "placement/model/PlacementResult.h"

class QLineSeries;
class QScatterSeries;
class QValueAxis;

namespace graphopt::ui {

class MemoryChartView : public QChartView {
    Q_OBJECT
public:
    explicit MemoryChartView(QWidget* parent = nullptr);

    // `capacityBytes[k]` is device k's memory (e.g. from DeviceModel::devices[k].memoryBytes);
    // empty or shorter: no capacity line for the devices left out.
    void setResult(const PlacementResult& result, const std::vector<int64_t>& capacityBytes = {});
    void clear();

    // Off (default): the memory axis fits the curves and a capacity far above them is left off the
    // scale. On: every capacity is on the scale. Also a check item in the chart's context menu.
    void setCapacityAlwaysOnScale(bool on);
    bool capacityAlwaysOnScale() const { return capacityOnScale_; }

    int deviceCount() const { return static_cast<int>(memory_.size()); }
    QLineSeries* memorySeries(int device) const;    // step line, x in time units, y in memory units
    QScatterSeries* peakSeries(int device) const;   // one point: the device's peak
    // nullptr without a capacity for the device; when all devices have the same capacity, one grey
    // line named "capacity 16.0 GiB (each device)" serves them all.
    QLineSeries* capacitySeries(int device) const;
    // The red mark of a device over its memory limit (nullptr when it fits), and by how much.
    QScatterSeries* overLimitSeries(int device) const;
    int64_t overLimitBytes(int device) const;
    double secondsPerUnit() const { return secondsPerUnit_; }  // x axis: 1e-3 for ms, ...
    double bytesPerUnit() const { return bytesPerUnit_; }      // y axis: 2^20 for MiB, ...
    QValueAxis* timeAxis() const { return timeAxis_; }
    QValueAxis* memoryAxis() const { return memoryAxis_; }

protected:
    void contextMenuEvent(QContextMenuEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void rebuild();
    void placeLegend();

    PlacementResult result_;
    std::vector<int64_t> capacityBytes_;
    bool hasResult_ = false;
    bool capacityOnScale_ = false;
    QValueAxis* timeAxis_;
    QValueAxis* memoryAxis_;
    std::vector<QLineSeries*> memory_, capacity_;
    std::vector<QScatterSeries*> peaks_, overLimit_;
    std::vector<int64_t> overBytes_;
    double secondsPerUnit_ = 1e-3;
    double bytesPerUnit_ = 1 << 20;
};

}  // namespace graphopt::ui
