// graphopt-screenshots OUTDIR: renders the schedule views (Gantt chart, memory over time) of real
// results into PNGs in OUTDIR, for docs/screenshots. Run it under xvfb-run or with
// QT_QPA_PLATFORM=offscreen:
//
//   QT_QPA_PLATFORM=offscreen build/tools/screenshots/graphopt-screenshots docs/screenshots
//
// It prints what it measured (makespan, peaks, paint times); it checks nothing (the views are
// tested in tests/ui/ScheduleViewsTest.cpp).
#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QLabel>
#include <QLineSeries>
#include <QThread>
#include <cstdio>

#include "MemoryChartView.h"
#include "ScheduleView.h"
#include "graph/Loaders.h"
#include "graph/SyntheticGenerator.h"
#include "placement/model/DeviceModel.h"
#include "placement/PlacementRun.h"
#include "run/ResourceLocator.h"

using namespace graphopt;
using graphopt::ui::MemoryChartView;
using graphopt::ui::ScheduleView;

namespace {

// Lets pending layout and paint events run, as a user's event loop would between frames.
void settle(int ms) {
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < ms) {
        QApplication::processEvents(QEventLoop::AllEvents, 5);
        QThread::msleep(1);
    }
}

// Both views for a real result: ResNet-18 by BRKGA on two small GPUs.
bool resnet18OnTwoGpus(const QString& dir) {
    const std::string model = bundledModelPath("resnet18.onnx");
    if (model.empty()) {
        std::fprintf(stderr, "resnet18.onnx not found under %s\n", modelsDir().c_str());
        return false;
    }
    const Graph g = loadGraph(model);
    bool ok = true;
    RunSpec spec;
    spec.engine = "brkga";
    spec.kind = "placement";
    spec.objective = "runtime";
    spec.devices = "2xgpu-pcie";
    spec.budget = 2000;
    spec.seed = 1;
    // Small GPUs, so the capacity lines sit near the curves and the placement has to respect them.
    DeviceModel devices = DeviceModel::preset("2xgpu-pcie");
    for (auto& d : devices.devices) d.memoryBytes = int64_t(32) << 20;
    PlacementRun run(g, spec, devices);
    const PlacementResult r = run.run();
    std::vector<int64_t> capacity;
    for (const auto& d : run.devices().devices) capacity.push_back(d.memoryBytes);
    std::printf("resnet18: makespan %.1f us, peaks %.1f / %.1f MiB, feasible %d\n", r.runtimeS * 1e6,
                r.devicePeakBytes[0] / 1048576.0, r.devicePeakBytes[1] / 1048576.0, int(r.feasible));

    ScheduleView gantt;
    gantt.move(200, 200);  // away from the offscreen cursor at (0, 0): no hover highlight
    gantt.resize(1280, gantt.sizeHint().height());
    gantt.show();
    ok &= (gantt.grab().save(dir + "/gantt-empty.png"));
    {
        MemoryChartView empty;
        empty.resize(700, 400);
        empty.show();
        settle(20);
        ok &= (empty.grab().save(dir + "/memory-empty.png"));
    }
    gantt.setResult(r, &g);
    gantt.resize(1280, gantt.sizeHint().height());
    settle(50);
    ok &= (gantt.grab().save(dir + "/gantt.png"));
    gantt.zoomBy(6);
    ok &= (gantt.grab().save(dir + "/gantt-zoomed.png"));
    // The hover texts of one op and one transfer, as a tooltip label would show them.
    QLabel tips;
    gantt.fitToWindow();
    tips.setText(gantt.toolTipAt(gantt.opBarRect(r.order.at(5)).center()) + "<hr>" +
                 gantt.toolTipAt(gantt.transferBarRect(0).center()));
    tips.adjustSize();
    ok &= (tips.grab().save(dir + "/gantt-tooltips.png"));

    MemoryChartView memory;
    memory.move(200, 200);
    memory.resize(1100, 560);
    memory.show();
    memory.setResult(r, capacity);
    settle(50);
    ok &= (memory.grab().save(dir + "/memory.png"));
    memory.setResult(r, {int64_t(16) << 30, int64_t(16) << 30});
    ok &= (memory.grab().save(dir + "/memory-offscale.png"));
    memory.resize(560, 420);  // narrow: the legend moves to the right rather than elide
    settle(20);
    ok &= (memory.grab().save(dir + "/memory-narrow.png"));
    return ok;
}

// A 10,000-op generated graph on four GPUs, rendered fitted and zoomed, with the paint times
// printed.
bool tenThousandOpsOnFourGpus(const QString& dir) {
    bool ok = true;
    const Graph g = generateGraph({GraphFamily::Layered, 10000, 3});
    RunSpec spec;
    spec.engine = "brkga";
    spec.kind = "placement";
    spec.objective = "runtime";
    spec.devices = "4xgpu-nvlink";
    spec.budget = 200;
    spec.seed = 1;
    const PlacementResult r = PlacementRun(g, spec).run();
    ScheduleView gantt;
    gantt.move(200, 200);
    gantt.show();
    gantt.setResult(r, &g);
    gantt.resize(1280, gantt.sizeHint().height());
    QElapsedTimer timer;
    timer.start();
    QImage fitted = gantt.grab().toImage();
    const double fitMs = timer.nsecsElapsed() / 1e6;
    ok &= fitted.save(dir + "/gantt-10k.png");
    gantt.zoomBy(200);
    timer.restart();
    QImage zoomed = gantt.grab().toImage();
    const double zoomMs = timer.nsecsElapsed() / 1e6;
    ok &= zoomed.save(dir + "/gantt-10k-zoomed.png");
    std::printf("10k ops, %d transfers: paint fitted %.1f ms, zoomed %.1f ms\n", gantt.transferBarCount(), fitMs, zoomMs);

    MemoryChartView memory;
    memory.move(200, 200);
    memory.resize(1100, 560);
    memory.show();
    timer.restart();
    memory.setResult(r, {int64_t(16) << 30, int64_t(16) << 30, int64_t(16) << 30, int64_t(16) << 30});
    const double setMs = timer.nsecsElapsed() / 1e6;
    settle(20);  // the chart lays out its legend on the next event loop pass
    timer.restart();
    QImage chart = memory.grab().toImage();
    const double chartMs = timer.nsecsElapsed() / 1e6;
    ok &= chart.save(dir + "/memory-10k.png");
    std::printf("10k ops memory chart: %lld points, setResult %.1f ms, paint %.1f ms\n",
                static_cast<long long>(memory.memorySeries(0)->count()), setMs, chartMs);
    return ok;
}

}  // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    if (argc != 2) {
        std::fprintf(stderr, "usage: graphopt-screenshots OUTDIR\n");
        return 2;
    }
    const QString dir = QString::fromLocal8Bit(argv[1]);
    const bool ok = resnet18OnTwoGpus(dir) && tenThousandOpsOnFourGpus(dir);
    std::printf("%s\n", ok ? "screenshots written" : "some screenshots could not be written");
    return ok ? 0 : 1;
}
