// The Gantt (ScheduleView) and memory (MemoryChartView) views of a placement result, headless:
// lanes and bars match the schedule, hover and click work, the peak markers carry the result's
// peaks, and both render to a non-blank image.
#include <gtest/gtest.h>

#include <QElapsedTimer>
#include <QApplication>
#include <QImage>
#include <QLabel>
#include <QWheelEvent>
#include <QLegend>
#include <QLineSeries>
#include <QScatterSeries>
#include <QSignalSpy>
#include <QTest>
#include <QValueAxis>
#include <cstdio>
#include <set>

#include "DeviceColors.h"
#include "MemoryChartView.h"
#include "ScheduleView.h"
#include "graph/Loaders.h"
#include "graph/SyntheticGenerator.h"
#include "placement/model/DeviceModel.h"
#include "placement/PlacementRun.h"

using namespace graphopt;
using graphopt::ui::MemoryChartView;
using graphopt::ui::ScheduleView;

namespace {

// A small, quick, real result: a 30-node chain on two GPUs, BRKGA with a tiny budget.
const PlacementResult& chainResult() {
    static const PlacementResult result = [] {
        static const Graph g = generateGraph({GraphFamily::Chain, 30, 1});
        RunSpec spec;
        spec.engine = "brkga";
        spec.kind = "placement";
        spec.objective = "runtime";
        spec.devices = "2xgpu-pcie";
        spec.budget = 500;
        spec.seed = 1;
        spec.threads = 1;
        return PlacementRun(g, spec).run();
    }();
    return result;
}

// A hand-made result with ops on both devices and transfers both ways, for exact checks.
PlacementResult handResult() {
    PlacementResult r;
    r.engine = "hand";
    r.devices = "2xgpu-pcie";
    r.nodeNames = {"conv1", "relu1", "conv2", "add"};
    r.deviceNames = {"gpu0", "gpu1"};
    r.placement = {0, 0, 1, 0};
    ScheduleDetail& s = r.schedule;
    s.clear(4, 2);
    s.ops = {{0, 0, 0.0, 1e-3}, {1, 0, 1e-3, 1.5e-3}, {2, 1, 1.7e-3, 3e-3}, {3, 0, 3.2e-3, 4e-3}};
    s.transfers = {{.tensor = 5, .from = 0, .to = 1, .start = 1.5e-3, .end = 1.7e-3, .bytes = 2 << 20},
                   {.tensor = 7, .from = 1, .to = 0, .start = 3e-3, .end = 3.2e-3, .bytes = 1 << 20}};
    s.memory = {{{0, 1 << 20}, {1e-3, 3 << 20}, {1.5e-3, 5 << 20}, {3.2e-3, 2 << 20}, {4e-3, 1 << 20}},
                {{0, 0}, {1.7e-3, 4 << 20}, {3e-3, 1 << 20}, {4e-3, 0}}};
    s.devicePeakBytes = {5 << 20, 4 << 20};
    s.makespan = 4e-3;
    r.devicePeakBytes = s.devicePeakBytes;
    r.peakBytes = 5 << 20;
    r.runtimeS = s.makespan;
    return r;
}

int distinctColors(const QImage& image) {
    std::set<QRgb> colors;
    for (int y = 0; y < image.height(); y += 3)
        for (int x = 0; x < image.width(); x += 3) colors.insert(image.pixel(x, y));
    return static_cast<int>(colors.size());
}

}  // namespace

TEST(DeviceColors, DistinctAndStable) {
    std::set<QRgb> seen;
    for (int k = 0; k < 16; ++k) seen.insert(ui::deviceColor(k).rgb());
    EXPECT_EQ(seen.size(), 16u);
    EXPECT_EQ(ui::deviceColor(1), ui::deviceColor(1));
}

TEST(ScheduleView, OneLanePerDeviceAndUsedLinkOneBarPerOpAndTransfer) {
    const PlacementResult& r = chainResult();
    ASSERT_EQ(r.schedule.ops.size(), 30u);
    ScheduleView view;
    view.resize(900, 300);
    view.show();
    view.setResult(r);
    std::set<std::pair<int, int>> links;
    for (const auto& t : r.schedule.transfers) links.insert({t.from, t.to});
    EXPECT_EQ(view.deviceLaneCount(), 2);
    EXPECT_EQ(view.linkLaneCount(), static_cast<int>(links.size()));
    EXPECT_EQ(view.laneCount(), 2 + static_cast<int>(links.size()));
    EXPECT_EQ(view.laneName(0), "gpu0");
    EXPECT_EQ(view.opBarCount(), 30);
    EXPECT_EQ(view.transferBarCount(), static_cast<int>(r.schedule.transfers.size()));

    const QImage image = view.grab().toImage();
    ASSERT_FALSE(image.isNull());
    EXPECT_GT(distinctColors(image), 10);
    view.clear();
    EXPECT_FALSE(view.hasResult());
    EXPECT_EQ(view.laneCount(), 0);
}

TEST(ScheduleView, HoverShowsDetailsAndClickEmitsTheNode) {
    ScheduleView view;
    view.resize(800, 260);
    view.show();
    view.setResult(handResult());
    EXPECT_EQ(view.laneCount(), 4);  // gpu0, gpu1, gpu0 -> gpu1, gpu1 -> gpu0
    EXPECT_EQ(view.laneName(2), QString::fromUtf8("gpu0 → gpu1"));

    const QRect conv2 = view.opBarRect(2);
    ASSERT_FALSE(conv2.isEmpty());
    const QString tip = view.toolTipAt(conv2.center());
    EXPECT_TRUE(tip.contains("conv2")) << tip.toStdString();
    EXPECT_TRUE(tip.contains("gpu1")) << tip.toStdString();
    EXPECT_TRUE(tip.contains("1.3 ms")) << tip.toStdString();  // duration 3.0 - 1.7 ms

    const QRect transfer = view.transferBarRect(0);
    ASSERT_FALSE(transfer.isEmpty());
    const QString ttip = view.toolTipAt(transfer.center());
    EXPECT_TRUE(ttip.contains("tensor 5")) << ttip.toStdString();
    EXPECT_TRUE(ttip.contains("2 MiB")) << ttip.toStdString();
    EXPECT_TRUE(ttip.contains(QString::fromUtf8("gpu0 → gpu1"))) << ttip.toStdString();

    // Hovering outlines the bar in near-black.
    QTest::mouseMove(view.canvas(), conv2.center());
    const QImage hovered = view.canvas()->grab().toImage();
    EXPECT_LT(QColor(hovered.pixel(conv2.left() - 1, conv2.center().y())).lightness(), 60);

    QSignalSpy clicked(&view, &ScheduleView::opClicked);
    QTest::mouseClick(view.canvas(), Qt::LeftButton, {}, conv2.center());
    ASSERT_EQ(clicked.count(), 1);
    EXPECT_EQ(clicked.first().first().toInt(), 2);
    QTest::mouseClick(view.canvas(), Qt::LeftButton, {}, transfer.center());
    EXPECT_EQ(clicked.count(), 1);  // transfers are not ops
}

TEST(ScheduleView, ZoomNarrowsTheVisibleTimeAndFitRestoresIt) {
    ScheduleView view;
    view.resize(800, 260);
    view.show();
    view.setResult(handResult());
    const double fitted = view.visibleSeconds();
    EXPECT_GT(fitted, 4e-3);  // the whole makespan shows
    view.zoomBy(4);
    EXPECT_NEAR(view.visibleSeconds(), fitted / 4, fitted * 1e-6);
    view.fitToWindow();
    EXPECT_NEAR(view.visibleSeconds(), fitted, fitted * 1e-6);
    view.showOp(3);
    EXPECT_EQ(view.shownOp(), 3);
}

TEST(ScheduleView, WheelZoomsAboutTheCursorKeysFitAndZoom) {
    ScheduleView view;
    view.resize(800, 260);
    view.show();
    view.setResult(handResult());
    const double fitted = view.visibleSeconds();
    const QRect conv2 = view.opBarRect(2);
    ASSERT_FALSE(conv2.isEmpty());
    const QPoint at = conv2.center();
    QWheelEvent wheel(at, view.canvas()->mapToGlobal(at), QPoint(), QPoint(0, 3 * 120), Qt::NoButton,
                      Qt::ControlModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(view.canvas(), &wheel);
    EXPECT_LT(view.visibleSeconds(), fitted / 1.5);
    // The op under the cursor stays under it.
    EXPECT_TRUE(view.opBarRect(2).contains(at));
    EXPECT_TRUE(view.toolTipAt(at).contains("conv2"));
    QTest::keyClick(view.canvas(), Qt::Key_0);
    EXPECT_NEAR(view.visibleSeconds(), fitted, fitted * 1e-6);
    QTest::keyClick(view.canvas(), Qt::Key_Plus);
    EXPECT_NEAR(view.visibleSeconds(), fitted / 1.5, fitted * 1e-6);
}

TEST(ScheduleView, TenThousandOpsDrawWithBarsMergedPerPixel) {
    PlacementResult r;
    r.deviceNames = {"gpu0", "gpu1", "gpu2", "gpu3"};
    const int n = 10000;
    r.schedule.clear(n, 4);
    for (int v = 0; v < n; ++v) {
        r.nodeNames.push_back("op" + std::to_string(v));
        r.schedule.ops[v] = {v, v % 4, (v / 4) * 1e-5, (v / 4) * 1e-5 + 8e-6};
    }
    for (int i = 0; i < 2000; ++i) r.schedule.transfers.push_back(
            {.tensor = i, .from = i % 4, .to = (i + 1) % 4, .start = i * 1e-5, .end = i * 1e-5 + 5e-6, .bytes = 4096});
    r.schedule.makespan = (n / 4) * 1e-5;
    ScheduleView view;
    view.resize(1000, 400);
    view.show();
    view.setResult(r);
    EXPECT_EQ(view.opBarCount(), n);
    EXPECT_EQ(view.linkLaneCount(), 4);
    EXPECT_FALSE(view.grab().toImage().isNull());
    view.zoomBy(50);
    EXPECT_FALSE(view.grab().toImage().isNull());
}

TEST(MemoryChartView, OneStepLinePerDevicePeaksMarkedCapacityDashed) {
    const PlacementResult& r = chainResult();
    const DeviceModel devices = DeviceModel::preset("2xgpu-pcie");
    std::vector<int64_t> capacity;
    for (const auto& d : devices.devices) capacity.push_back(d.memoryBytes);
    MemoryChartView view;
    view.resize(800, 450);
    view.show();
    view.setResult(r, capacity);
    ASSERT_EQ(view.deviceCount(), 2);
    for (int k = 0; k < 2; ++k) {
        QLineSeries* line = view.memorySeries(k);
        ASSERT_NE(line, nullptr);
        EXPECT_EQ(line->color(), ui::deviceColor(k));
        // A step line: each event after the first adds a horizontal and a vertical point.
        EXPECT_GE(line->count(), 2 * static_cast<int>(r.schedule.memory[k].size()) - 1);
        QScatterSeries* peak = view.peakSeries(k);
        ASSERT_NE(peak, nullptr);
        ASSERT_EQ(peak->count(), 1);
        EXPECT_NEAR(peak->at(0).y() * view.bytesPerUnit(), double(r.devicePeakBytes[k]), 1.0);
        EXPECT_TRUE(peak->name().startsWith(QString::fromStdString(r.deviceNames[k]) + " peak "))
            << peak->name().toStdString();
        QLineSeries* cap = view.capacitySeries(k);
        ASSERT_NE(cap, nullptr);
        EXPECT_EQ(cap->pen().style(), Qt::DashLine);
        EXPECT_NEAR(cap->at(0).y() * view.bytesPerUnit(), double(capacity[k]), 1.0);
    }
    EXPECT_FALSE(view.grab().toImage().isNull());
    EXPECT_GT(distinctColors(view.grab().toImage()), 10);
}

TEST(MemoryChartView, StepsHoldTheirLevelAndAxesFitThePeaks) {
    MemoryChartView view;
    view.resize(700, 400);
    view.setResult(handResult(), {int64_t(8) << 20, int64_t(16) << 30});
    EXPECT_EQ(view.bytesPerUnit(), double(1 << 20));  // MiB
    EXPECT_EQ(view.secondsPerUnit(), 1e-3);           // ms
    QLineSeries* gpu0 = view.memorySeries(0);
    // (0, 1) (1, 1) (1, 3) (1.5, 3) (1.5, 5) (3.2, 5) (3.2, 2) (4, 2) (4, 1)
    ASSERT_EQ(gpu0->count(), 9);
    EXPECT_EQ(gpu0->at(3), QPointF(1.5, 3));
    EXPECT_EQ(gpu0->at(4), QPointF(1.5, 5));
    EXPECT_EQ(view.peakSeries(0)->at(0), QPointF(1.5, 5));
    EXPECT_EQ(view.peakSeries(1)->at(0), QPointF(1.7, 4));
    EXPECT_EQ(view.peakSeries(0)->name(), "gpu0 peak 5 MiB");  // units::bytes, as every view prints sizes
    // gpu0's 8 MiB capacity is on the scale; gpu1's 16 GiB would flatten the curves.
    EXPECT_GE(view.memoryAxis()->max(), 8.0);
    EXPECT_LT(view.memoryAxis()->max(), 100.0);
    EXPECT_TRUE(view.capacitySeries(1)->name().contains("off scale"));
    EXPECT_FALSE(view.capacitySeries(0)->name().contains("off scale"));
    view.clear();
    EXPECT_EQ(view.deviceCount(), 0);
}
