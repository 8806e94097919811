// graphopt-pipeline-screenshots OUTDIR: renders issue 28's views into PNGs in OUTDIR (the device
// editor, a pipeline's Gantt chart, memory against each device's limit, a comparison with an
// infeasible run, the run panel). Run it under xvfb-run or with QT_QPA_PLATFORM=offscreen. The
// pipeline result is made by hand (a GPipe forward pass: 4 stages, 8 micro-batches); it checks
// nothing (tests/ui/PipelineViewsTest.cpp does).
//   graphopt-pipeline-screenshots OUTDIR MODEL DEVICES ENGINE OBJECTIVE MICRO_BATCHES BUDGET [PREFIX]
// instead places MODEL for real (a PlacementRun, seed 1) and renders that result's Gantt chart and
// memory over time as PREFIX-gantt.png and PREFIX-memory.png (the full window waits for the graph's
// layout first, which big models make slow).
#include <QApplication>
#include <QElapsedTimer>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QThread>
#include <cstdio>
#include <exception>

#include "DeviceSetupDialog.h"
#include "MemoryChartView.h"
#include "RunComparisonView.h"
#include "RunPanel.h"
#include "ScheduleView.h"
#include "graph/Loaders.h"
#include "placement/PlacementRun.h"
#include "placement/model/DeviceModel.h"
#include "store/RunStore.h"

using namespace graphopt;
using namespace graphopt::ui;

namespace {

void settle(int ms) {
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < ms) {
        QApplication::processEvents(QEventLoop::AllEvents, 5);
        QThread::msleep(1);
    }
}

// S stages of `perStage` nodes on S GPUs, M micro-batches: stage s runs micro-batch m once it has
// finished m - 1 and the activations of m from stage s - 1 have arrived (GPipe's forward pass).
PlacementResult gpipe(int stages, int perStage, int micro) {
    PlacementResult r;
    r.engine = "hand-made GPipe";
    r.devices = "4xgpu-nvlink";
    r.objective = "throughput";
    r.microBatches = micro;
    const int n = stages * perStage;
    for (int s = 0; s < stages; ++s) r.deviceNames.push_back("gpu" + std::to_string(s));
    for (int v = 0; v < n; ++v) {
        r.nodeNames.push_back("/stage" + std::to_string(v / perStage) + "/block" + std::to_string(v % perStage) + "/MatMul");
        r.placement.push_back(v / perStage);
    }
    ScheduleDetail& d = r.schedule;
    d.clear(n, stages);
    d.microBatches = micro;
    d.ops.assign(size_t(n) * micro, {});
    const double op[] = {0.42e-3, 0.31e-3, 0.55e-3};
    const int64_t activation = int64_t(6) << 20;
    const double transfer = 5e-6 + activation / 50e9;
    std::vector<double> stageFree(stages, 0), arrived(stages, 0);
    std::vector<std::vector<std::pair<double, int64_t>>> events(stages);
    for (int m = 0; m < micro; ++m) {
        for (int s = 0; s < stages; ++s) {
            double t = std::max(stageFree[s], s == 0 ? 0.0 : arrived[s]);
            events[s].push_back({t, activation});  // the micro-batch's activations held from here on
            for (int k = 0; k < perStage; ++k) {
                const int v = s * perStage + k;
                const double dur = op[k % 3] * (1 + 0.15 * s);
                d.ops[size_t(m) * n + v] = {v, s, t, t + dur, m};
                t += dur;
            }
            stageFree[s] = t;
            if (s + 1 < stages) {
                ScheduledTransfer x;  // by field name: microBatch's place differs between branches
                x.tensor = m;
                x.microBatch = m;
                x.from = s;
                x.to = s + 1;
                x.start = t;
                x.end = t + transfer;
                x.bytes = activation;
                d.transfers.push_back(x);
                arrived[s + 1] = t + transfer;
            }
        }
    }
    for (int v = 0; v < n; ++v) d.order.push_back(v);
    for (const auto& o : d.ops) d.makespan = std::max(d.makespan, o.end);
    // Memory: weights, then each micro-batch's activations stay until the end (kept for backward).
    for (int s = 0; s < stages; ++s) {
        int64_t live = int64_t(40 + 10 * s) << 20;
        d.memory[s] = {{0, live}};
        for (const auto& [t, b] : events[s]) d.memory[s].push_back({t, live += b});
        d.devicePeakBytes[s] = live;
    }
    r.devicePeakBytes = d.devicePeakBytes;
    r.peakBytes = *std::max_element(d.devicePeakBytes.begin(), d.devicePeakBytes.end());
    r.runtimeS = d.makespan;
    r.throughputS = (d.makespan) / micro;
    r.deviceCapacityBytes = {int64_t(96) << 20, int64_t(96) << 20, int64_t(128) << 20, int64_t(128) << 20};
    for (int s = 0; s < stages; ++s) r.overLimitBytes.push_back(std::max<int64_t>(0, r.devicePeakBytes[s] - r.deviceCapacityBytes[s]));
    r.feasible = std::all_of(r.overLimitBytes.begin(), r.overLimitBytes.end(), [](int64_t b) { return b == 0; });
    return r;
}

bool save(QWidget& w, const QString& path) {
    settle(40);
    const bool ok = w.grab().save(path);
    std::printf("%s %s\n", ok ? "wrote" : "FAILED", path.toLocal8Bit().constData());
    return ok;
}

}  // namespace

// A real placement's views (see the top of the file).
int realRun(const QString& dir, char** argv, int argc) {
    const Graph g = loadGraph(argv[2]);
    RunSpec spec;
    spec.kind = "placement";
    spec.devices = argv[3];
    spec.engine = argv[4];
    spec.objective = argv[5];
    spec.params = {{"micro_batches", std::atoi(argv[6])}};
    spec.budget = std::atoll(argv[7]);
    spec.seed = 1;
    const PlacementResult r = PlacementRun(g, spec).run(ProgressCallback{}, nullptr);
    std::printf("%s on %s: %s, running time %.6g s, throughput %.6g s, %s\n", spec.engine.c_str(),
                r.devices.c_str(), g.name.c_str(), r.runtimeS, r.throughputS, r.feasibilityText().c_str());
    const QString prefix = dir + "/" + (argc > 8 ? QString::fromLocal8Bit(argv[8]) : QString("run"));
    bool ok = true;
    {
        ScheduleView gantt;
        gantt.resize(1500, 10);
        gantt.show();
        gantt.setResult(r, &g);
        gantt.resize(1500, gantt.sizeHint().height() + 30);
        ok &= save(gantt, prefix + "-gantt.png");
    }
    {
        MemoryChartView memory;
        memory.resize(1100, 560);
        memory.show();
        memory.setResult(r);
        ok &= save(memory, prefix + "-memory.png");
    }
    return ok ? 0 : 1;
}

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    if (argc != 2 && argc != 8 && argc != 9) {
        std::fprintf(stderr,
                     "usage: graphopt-pipeline-screenshots OUTDIR [MODEL DEVICES ENGINE OBJECTIVE MICRO_BATCHES BUDGET "
                     "[PREFIX]]\n");
        return 2;
    }
    const QString dir = QString::fromLocal8Bit(argv[1]);
    if (argc >= 8) try {
            return realRun(dir, argv, argc);
        } catch (const std::exception& e) {  // a bad model, device setup or engine name: say which
            std::fprintf(stderr, "graphopt-pipeline-screenshots: %s\n", e.what());
            return 1;
        }
    QTemporaryDir scratch;
    qputenv("GRAPHOPT_USER_POLICY_DIR", scratch.filePath("policies").toUtf8());
    bool ok = true;

    {
        DeviceSetupDialog dialog;
        dialog.setSetup(DeviceModel::preset("cpu+gpu"));
        dialog.duplicateDevice(1);
        dialog.deviceTable()->item(2, DeviceSetupDialog::Memory)->setText("24");
        dialog.addLinkOverride();
        dialog.move(100, 100);
        dialog.show();
        ok &= save(dialog, dir + "/device-editor.png");
        dialog.deviceTable()->item(1, DeviceSetupDialog::Compute)->setText("-3");
        ok &= save(dialog, dir + "/device-editor-invalid.png");
    }

    const PlacementResult pipe = gpipe(4, 3, 8);
    {
        ScheduleView gantt;
        gantt.move(200, 200);
        gantt.resize(1400, 10);
        gantt.show();
        gantt.setResult(pipe);
        gantt.resize(1400, gantt.sizeHint().height() + 30);
        ok &= save(gantt, dir + "/gantt-pipeline.png");
        gantt.zoomBy(3);
        ok &= save(gantt, dir + "/gantt-pipeline-zoomed.png");
    }
    {
        MemoryChartView memory;
        memory.move(200, 200);
        memory.resize(1100, 560);
        memory.show();
        memory.setResult(pipe);
        ok &= save(memory, dir + "/memory-over-limit.png");
    }
    {
        RunStore store(scratch.filePath("runs.db").toStdString());
        std::vector<int64_t> ids;
        const struct {
            const char* engine;
            double cost, runtime;
            bool feasible;
            int64_t over;
        } runs[] = {{"brkga", 6.33453e-4, 6.33453e-4, true, 0},
                    {"single", 2.1e-3, 4.9e-4, false, int64_t(3.2 * (1 << 30))},
                    {"heft", 5.71e-4, 5.71e-4, true, 0}};
        for (const auto& x : runs) {
            RunSpec spec;
            spec.kind = "placement";
            spec.engine = x.engine;
            spec.objective = "runtime";
            spec.devices = "2xgpu-pcie";
            spec.seed = 1;
            const int64_t id = store.beginRun(spec, std::nullopt);
            std::vector<ProgressEvent> events;
            for (int k = 0; k < 10; ++k) {
                ProgressEvent e;
                e.step = k;
                e.evaluations = (k + 1) * 200;
                e.elapsedS = 0.05 * (k + 1);
                e.bestCost = x.cost * (1 + 0.5 / (k + 1));
                events.push_back(e);
            }
            store.appendEvents(id, events);
            RunResult result;
            result.cost = x.cost;
            result.costs = {{"runtime_s", x.runtime},
                            {"peak_bytes", 2.89709e+07},
                            {"wall_s", 0.52},
                            {"feasible", x.feasible},
                            {"over_limit_bytes", {{"gpu0", 0}, {"gpu1", x.over}}}};
            store.setResult(id, result);
            store.endRun(id, RunStatus::Finished);
            ids.push_back(id);
        }
        RunComparisonView compare;
        compare.move(100, 100);
        compare.resize(1300, 560);
        compare.show();
        compare.showRuns(store, ids);
        ok &= save(compare, dir + "/compare-infeasible.png");
    }
    {
        RunPanel panel;
        panel.setMicroBatches(8);
        panel.move(100, 100);
        panel.resize(420, 640);
        panel.show();
        ok &= save(panel, dir + "/run-panel.png");
    }
    std::printf("%s\n", ok ? "screenshots written" : "some screenshots could not be written");
    return ok ? 0 : 1;
}
