// Issue 28's views, headless: the device-setup editor (exact round trip of presets through the
// units people read, refusal of a bad row with a message), the Gantt chart of a pipeline (one bar
// per node and micro-batch, numbered and shaded), the memory view against each device's limit
// (dashed limit, a device over its limit marked) and the comparison of feasible and infeasible
// runs (ranked behind, printed "infeasible (...)", never as a cost). Results are made by hand.
#include <gtest/gtest.h>

#include <QApplication>
#include <QDialogButtonBox>
#include <QImage>
#include <QLegend>
#include <QLegendMarker>
#include <QLineEdit>
#include <QLineSeries>
#include <QPushButton>
#include <QScatterSeries>
#include <QSettings>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QChart>
#include <QComboBox>
#include <QFile>
#include <QValueAxis>

#include "DeviceSetupDialog.h"
#include "MemoryChartView.h"
#include "RunComparisonView.h"
#include "RunPanel.h"
#include "ScheduleView.h"
#include "placement/model/DeviceModel.h"
#include "run/Units.h"
#include "store/RunStore.h"

using namespace graphopt;
using graphopt::ui::DeviceSetupDialog;
using graphopt::ui::MemoryChartView;
using graphopt::ui::RunComparisonView;
using graphopt::ui::ScheduleView;

namespace {

// Types `text` into a table cell as a user's edit would end.
void typeInto(QTableWidget* t, int row, int column, const QString& text) { t->item(row, column)->setText(text); }

// By field name: where microBatch sits in ScheduledTransfer is not the same on every branch.
ScheduledTransfer transfer(int tensor, int microBatch, int from, int to, double start, double end, int64_t bytes) {
    ScheduledTransfer t;
    t.tensor = tensor;
    t.microBatch = microBatch;
    t.from = from;
    t.to = to;
    t.start = start;
    t.end = end;
    t.bytes = bytes;
    return t;
}

// Two devices, four nodes (a, b on gpu0; c, d on gpu1), three micro-batches as a GPipe forward
// pass: micro-batch m starts on gpu0 at m * 2 ms, its activations cross to gpu1, which runs them
// after the transfer. ops[m * nodes + v].
PlacementResult pipelineResult() {
    PlacementResult r;
    r.engine = "hand";
    r.devices = "2xgpu-pcie";
    r.objective = "throughput";
    r.nodeNames = {"embed", "layer1", "layer2", "head"};
    r.deviceNames = {"gpu0", "gpu1"};
    r.placement = {0, 0, 1, 1};
    r.microBatches = 3;
    ScheduleDetail& s = r.schedule;
    s.clear(4, 2);
    s.microBatches = 3;
    s.ops.assign(12, {});
    s.transfers.clear();
    const double ms = 1e-3;
    for (int m = 0; m < 3; ++m) {
        const double t0 = m * 2 * ms;
        s.ops[m * 4 + 0] = {0, 0, t0, t0 + ms, m};
        s.ops[m * 4 + 1] = {1, 0, t0 + ms, t0 + 2 * ms, m};
        const double t1 = t0 + 2.2 * ms;
        s.transfers.push_back(transfer(7, m, 0, 1, t0 + 2 * ms, t1, int64_t(4) << 20));
        s.ops[m * 4 + 2] = {2, 1, t1, t1 + ms, m};
        s.ops[m * 4 + 3] = {3, 1, t1 + ms, t1 + 2 * ms, m};
    }
    s.makespan = s.ops[11].end;
    s.order = {0, 1, 2, 3};
    s.memory = {{{0, 1 << 20}, {ms, 3 << 20}, {6 * ms, 1 << 20}}, {{0, 0}, {2.2 * ms, 5 << 20}, {s.makespan, 0}}};
    s.devicePeakBytes = {3 << 20, 5 << 20};
    r.devicePeakBytes = s.devicePeakBytes;
    r.peakBytes = 5 << 20;
    r.runtimeS = s.makespan;
    r.throughputS = 2 * ms;
    return r;
}

}  // namespace

TEST(DeviceSetupDialog, RoundTripsEveryPresetThroughTheTableExactly) {
    for (const std::string& name : DeviceModel::presetNames()) {
        const DeviceModel preset = DeviceModel::preset(name);
        DeviceSetupDialog dialog;
        dialog.setSetup(preset);
        ASSERT_TRUE(dialog.isValid()) << dialog.validationMessage().toStdString();
        EXPECT_EQ(dialog.deviceTable()->rowCount(), preset.deviceCount());
        EXPECT_EQ(dialog.setup().toJson(), preset.toJson()) << name;

        // Saved as device JSON (what graphopt place --devices FILE reads) and opened again.
        QTemporaryDir dir;
        const QString path = dir.filePath("setup.json");
        QString error;
        ASSERT_TRUE(dialog.saveTo(path, &error)) << error.toStdString();
        EXPECT_EQ(dialog.savedPath(), path);
        EXPECT_EQ(DeviceModel::loadFile(path.toStdString()).toJson(), preset.toJson()) << name;
        DeviceSetupDialog reopened;
        ASSERT_TRUE(reopened.openFrom(path, &error)) << error.toStdString();
        EXPECT_EQ(reopened.setup().toJson(), preset.toJson()) << name;
    }
}

TEST(DeviceSetupDialog, ShowsPeoplesUnitsAndConvertsEditsToTheJsonsSiFields) {
    DeviceSetupDialog dialog;
    dialog.setSetup(DeviceModel::preset("2xgpu-pcie"));
    QTableWidget* t = dialog.deviceTable();
    EXPECT_EQ(t->item(0, DeviceSetupDialog::Name)->text(), "gpu0");
    EXPECT_EQ(t->item(0, DeviceSetupDialog::Compute)->text(), "15");     // TFLOP/s
    EXPECT_EQ(t->item(0, DeviceSetupDialog::Memory)->text(), "16");      // GiB
    EXPECT_EQ(t->item(0, DeviceSetupDialog::Bandwidth)->text(), "900");  // GB/s
    EXPECT_EQ(t->item(0, DeviceSetupDialog::Overhead)->text(), "5");     // µs
    EXPECT_EQ(dialog.defaultLatency()->text(), "10");                    // µs
    EXPECT_EQ(dialog.defaultBandwidth()->text(), "12");                  // GB/s

    typeInto(t, 1, DeviceSetupDialog::Memory, "24");
    typeInto(t, 1, DeviceSetupDialog::Compute, "7.5");
    typeInto(t, 1, DeviceSetupDialog::Overhead, "2.5");
    ASSERT_TRUE(dialog.isValid()) << dialog.validationMessage().toStdString();
    EXPECT_TRUE(dialog.isEdited());
    DeviceModel m = dialog.setup();
    EXPECT_EQ(m.devices[1].memoryBytes, int64_t(24) << 30);
    EXPECT_EQ(m.devices[1].flopsPerS, 7.5e12);  // exactly the double nearest to the decimal figure
    EXPECT_EQ(m.devices[1].overheadS, 2.5e-6);
    typeInto(t, 1, DeviceSetupDialog::Overhead, "2.3");
    EXPECT_EQ(dialog.setup().devices[1].overheadS, 2.3e-6);  // 2.3 * 1e-6 would be 2.2999999999999996e-06
    typeInto(t, 1, DeviceSetupDialog::Compute, "4.35");
    EXPECT_EQ(dialog.setup().devices[1].flopsPerS, 4.35e12);  // not 4349999999999.9995
    typeInto(t, 1, DeviceSetupDialog::Compute, "7.5");
    EXPECT_EQ(m.devices[0].memoryBytes, int64_t(16) << 30);  // untouched

    // A link override in people's units.
    dialog.addLinkOverride();
    typeInto(dialog.linkTable(), 0, DeviceSetupDialog::LinkBandwidth, "50");
    m = dialog.setup();
    EXPECT_DOUBLE_EQ(m.link(0, 1).bandwidth, 50e9);
    EXPECT_DOUBLE_EQ(m.link(1, 0).bandwidth, 12e9);

    // Add, duplicate, remove; names stay unique.
    dialog.duplicateDevice(0);
    ASSERT_EQ(t->rowCount(), 3);
    EXPECT_EQ(t->item(1, DeviceSetupDialog::Name)->text(), "gpu2");
    EXPECT_TRUE(dialog.isValid()) << dialog.validationMessage().toStdString();
    dialog.addDevice();
    EXPECT_EQ(t->rowCount(), 4);
    dialog.removeDevice(3);
    dialog.removeDevice(1);
    EXPECT_EQ(dialog.setup().deviceCount(), 2);

    // Revert: back to the setup it opened with.
    dialog.revert();
    EXPECT_FALSE(dialog.isEdited());
    EXPECT_EQ(dialog.setup().toJson(), DeviceModel::preset("2xgpu-pcie").toJson());
}

TEST(DeviceSetupDialog, RefusesAnInvalidRowWithAMessageThatNamesIt) {
    DeviceSetupDialog dialog;
    dialog.setSetup(DeviceModel::preset("2xgpu-pcie"));
    dialog.show();
    QTableWidget* t = dialog.deviceTable();
    auto* box = dialog.findChild<QDialogButtonBox*>();
    ASSERT_NE(box, nullptr);

    typeInto(t, 1, DeviceSetupDialog::Compute, "-3");
    EXPECT_FALSE(dialog.isValid());
    const std::string message = dialog.validationMessage().toStdString();
    EXPECT_NE(message.find("Device 2 (gpu1)"), std::string::npos) << message;
    EXPECT_NE(message.find("Compute (TFLOP/s)"), std::string::npos) << message;
    EXPECT_NE(message.find("must be > 0"), std::string::npos) << message;
    EXPECT_FALSE(box->button(QDialogButtonBox::Ok)->isEnabled());
    EXPECT_THROW(dialog.setup(), std::invalid_argument);
    QString error;
    QTemporaryDir dir;
    EXPECT_FALSE(dialog.saveTo(dir.filePath("bad.json"), &error));
    EXPECT_FALSE(QFile::exists(dir.filePath("bad.json")));

    typeInto(t, 1, DeviceSetupDialog::Compute, "abc");
    EXPECT_NE(dialog.validationMessage().toStdString().find("'abc' is not a number"), std::string::npos)
        << dialog.validationMessage().toStdString();

    typeInto(t, 1, DeviceSetupDialog::Compute, "15");
    EXPECT_TRUE(dialog.isValid()) << dialog.validationMessage().toStdString();
    EXPECT_TRUE(box->button(QDialogButtonBox::Ok)->isEnabled());

    typeInto(t, 1, DeviceSetupDialog::Name, "gpu0");
    EXPECT_NE(dialog.validationMessage().toStdString().find("device name 'gpu0'"), std::string::npos)
        << dialog.validationMessage().toStdString();
}

TEST(RunPanel, OffersThroughputMicroBatchesAndAnEditedDeviceSetup) {
    QTemporaryDir dir;
    qputenv("GRAPHOPT_USER_POLICY_DIR", dir.filePath("policies").toUtf8());
    // spec() remembers the settings for the next start: put them back for the other tests.
    const QString savedDevices = QSettings().value("run/devices", "2xgpu-pcie").toString();
    graphopt::ui::RunPanel panel;
    auto* objective = panel.findChild<QComboBox*>("objective");
    ASSERT_NE(objective, nullptr);
    EXPECT_GE(objective->findData("throughput"), 0);
    panel.setMicroBatches(8);
    EXPECT_EQ(panel.spec().params.value("micro_batches", 0), 8);

    DeviceModel edited = DeviceModel::preset("2xgpu-pcie");
    edited.name = "my gpus";
    edited.devices[1].memoryBytes = int64_t(8) << 30;
    QString error;
    const QString used = panel.useDeviceSetup(edited, QString(), &error);
    ASSERT_FALSE(used.isEmpty()) << error.toStdString();
    EXPECT_EQ(panel.spec().devices, used.toStdString());
    EXPECT_EQ(DeviceModel::load(used.toStdString()).devices[1].memoryBytes, int64_t(8) << 30);
    // An unchanged preset stays the preset.
    EXPECT_EQ(panel.useDeviceSetup(DeviceModel::preset("4xgpu-nvlink"), QString()), "4xgpu-nvlink");
    EXPECT_EQ(panel.spec().devices, "4xgpu-nvlink");
    panel.setMicroBatches(1);
    panel.selectDevices(savedDevices);
    panel.spec();
    qunsetenv("GRAPHOPT_USER_POLICY_DIR");
}

// An integer parameter past a QSpinBox's int (dp-contiguous's max_steps, 2.5 billion by default)
// reaches the engine whole: the panel's spec carries the default, and a larger value set from a
// stored run's spec comes back unchanged (a QSpinBox turned 2.5 billion into its minimum, 1).
TEST(RunPanel, KeepsIntegerParametersPastTwoBillion) {
    const QString savedEngine = QSettings().value("run/engine", "brkga").toString();
    graphopt::ui::RunPanel panel;
    RunSpec s = panel.spec();
    s.engine = "dp-contiguous";
    s.objective = "throughput";
    panel.setSpec(s);
    ASSERT_EQ(panel.spec().engine, "dp-contiguous");
    ASSERT_NE(panel.parameterWidget("max_steps"), nullptr);
    EXPECT_EQ(panel.spec().params.value("max_steps", int64_t(0)), int64_t(2'500'000'000));
    EXPECT_TRUE(panel.spec().params.at("max_steps").is_number_integer());
    s.params["max_steps"] = int64_t(40'000'000'001);
    panel.setSpec(s);
    EXPECT_EQ(panel.spec().params.value("max_steps", int64_t(0)), int64_t(40'000'000'001));
    // An ordinary integer parameter stays a spin box.
    EXPECT_EQ(panel.spec().params.value("max_ideals", int64_t(0)), int64_t(100'000));
    s.engine = savedEngine.toStdString();
    s.objective = "runtime";
    s.params = nlohmann::json::object();
    panel.setSpec(s);
    panel.spec();
}

TEST(ScheduleView, DrawsOneNumberedBarPerNodeAndMicroBatch) {
    const PlacementResult r = pipelineResult();
    ScheduleView view;
    view.resize(1400, 300);
    view.show();
    view.setResult(r);
    EXPECT_EQ(view.microBatchCount(), 3);
    EXPECT_EQ(view.opBarCount(), 4 * 3);
    EXPECT_EQ(view.transferBarCount(), 3);
    EXPECT_NE(view.summaryText().indexOf("3 micro-batches"), -1) << view.summaryText().toStdString();

    const QImage image = view.canvas()->grab().toImage();
    for (int v = 0; v < 4; ++v) {
        std::vector<QRect> rects;
        for (int m = 0; m < 3; ++m) {
            const QRect rect = view.opBarRect(v, m);
            ASSERT_FALSE(rect.isEmpty()) << "node " << v << " micro-batch " << m;
            for (const QRect& other : rects) EXPECT_FALSE(rect.intersects(other));
            rects.push_back(rect);
            // The number drawn in the bar, the name beside it when the bar is wide enough.
            const QString text = view.opBarText(v, m);
            EXPECT_TRUE(text.startsWith(QString::number(m))) << text.toStdString();
            const QString tip = view.toolTipAt(rect.center());
            EXPECT_NE(tip.indexOf(QString("node %1, micro-batch %2").arg(v).arg(m)), -1) << tip.toStdString();
        }
        // Later micro-batches are lighter shades of the device colour.
        auto shadeAt = [&](const QRect& rc) { return image.pixelColor(rc.left() + 2, rc.top() + 2).lightness(); };
        EXPECT_LT(shadeAt(rects[0]), shadeAt(rects[2])) << "node " << v;
    }
    // The pipeline's diagonal: micro-batch m of the last stage starts after micro-batch m of the first.
    for (int m = 0; m < 3; ++m) EXPECT_GT(view.opBarRect(2, m).left(), view.opBarRect(1, m).right());
    // Transfers carry their micro-batch too.
    const QString tip = view.toolTipAt(view.transferBarRect(2).center());
    EXPECT_NE(tip.indexOf("micro-batch 2"), -1) << tip.toStdString();
    // Narrow bars keep the number alone.
    view.resize(420, 300);
    QApplication::processEvents();
    const QString narrow = view.opBarText(0, 1);
    EXPECT_TRUE(narrow.isEmpty() || narrow.startsWith("1")) << narrow.toStdString();
}

TEST(MemoryChartView, DrawsEachDevicesLimitAndMarksADeviceOverIt) {
    PlacementResult r = pipelineResult();
    r.deviceCapacityBytes = {int64_t(8) << 20, int64_t(4) << 20};
    r.overLimitBytes = {0, int64_t(1) << 20};
    r.feasible = false;
    MemoryChartView view;
    view.resize(900, 450);
    view.show();
    view.setResult(r);
    ASSERT_EQ(view.deviceCount(), 2);
    for (int k = 0; k < 2; ++k) {
        QLineSeries* cap = view.capacitySeries(k);
        ASSERT_NE(cap, nullptr) << k;
        EXPECT_EQ(cap->pen().style(), Qt::DashLine);
        EXPECT_DOUBLE_EQ(cap->at(0).y() * view.bytesPerUnit(), double(r.deviceCapacityBytes[k]));
        EXPECT_GE(view.memoryAxis()->max() * view.bytesPerUnit(), double(r.deviceCapacityBytes[k]));
    }
    EXPECT_EQ(view.overLimitSeries(0), nullptr);
    QScatterSeries* over = view.overLimitSeries(1);
    ASSERT_NE(over, nullptr);
    EXPECT_EQ(over->name(), "gpu1: over by 1 MiB");
    EXPECT_EQ(view.overLimitBytes(1), int64_t(1) << 20);
    const auto markers = view.chart()->legend()->markers(over);
    ASSERT_EQ(markers.size(), 1);
    EXPECT_GT(markers[0]->labelBrush().color().red(), 150);
    EXPECT_NE(view.chart()->title().indexOf("gpu1 over the memory limit"), -1) << view.chart()->title().toStdString();

    // Fits: no mark.
    r.overLimitBytes = {0, 0};
    r.deviceCapacityBytes = {int64_t(8) << 20, int64_t(8) << 20};
    r.feasible = true;
    view.setResult(r);
    EXPECT_EQ(view.overLimitSeries(1), nullptr);
    EXPECT_NE(view.capacitySeries(1), nullptr);
}

TEST(RunComparisonView, RanksAnInfeasibleRunBehindFeasibleOnesAndPrintsInfeasible) {
    QTemporaryDir dir;
    RunStore store(dir.filePath("runs.db").toStdString());
    std::vector<int64_t> ids;
    // The infeasible run is given the lowest cost here, to show that it still ranks last.
    const struct {
        const char* engine;
        double cost;
        bool feasible;
        int64_t over;
    } runs[] = {{"brkga", 6.3e-4, true, 0}, {"single", 1e-4, false, int64_t(3.2 * (1 << 30))}, {"heft", 5.1e-4, true, 0}};
    for (const auto& x : runs) {
        RunSpec spec;
        spec.kind = "placement";
        spec.engine = x.engine;
        spec.objective = "runtime";
        spec.devices = "2xgpu-pcie";
        const int64_t id = store.beginRun(spec, std::nullopt);
        RunResult result;
        result.cost = x.cost;
        result.costs = {{"runtime_s", x.cost}, {"peak_bytes", 2.89709e+07}, {"feasible", x.feasible},
                        {"over_limit_bytes", {{"gpu0", 0}, {"gpu1", x.over}}}};
        store.setResult(id, result);
        store.endRun(id, RunStatus::Finished);
        ids.push_back(id);
    }
    RunComparisonView view;
    view.resize(1000, 500);
    view.show();
    view.showRuns(store, ids);
    const RunComparison& c = view.comparison();
    ASSERT_EQ(c.ranking.size(), 3u);
    EXPECT_EQ(c.ranking[0], 2u);  // heft, the fastest feasible
    EXPECT_EQ(c.ranking[1], 0u);
    EXPECT_EQ(c.ranking[2], 1u);  // the infeasible one, whatever its cost
    EXPECT_EQ(c.infeasibleText(1), "infeasible (gpu1 over by 3.2 GiB)");

    QTableWidget* t = view.figuresTable();
    int costRow = -1, runtimeRow = -1, peakRow = -1, rankRow = -1;
    for (int r = 0; r < t->rowCount(); ++r) {
        const QString name = t->verticalHeaderItem(r)->text();
        if (name == "best cost") costRow = r;
        if (name == "runtime_s") runtimeRow = r;
        if (name == "peak_bytes") peakRow = r;
        if (name == "rank") rankRow = r;
    }
    ASSERT_GE(costRow, 0);
    ASSERT_GE(runtimeRow, 0);
    ASSERT_GE(peakRow, 0);
    ASSERT_GE(rankRow, 0);
    EXPECT_EQ(t->item(costRow, 1)->text(), "infeasible (gpu1 over by 3.2 GiB)");
    EXPECT_TRUE(t->item(costRow, 2)->font().bold());  // the best is a feasible run
    EXPECT_FALSE(t->item(costRow, 1)->font().bold());
    EXPECT_FALSE(t->item(runtimeRow, 1)->font().bold());
    EXPECT_EQ(t->item(rankRow, 1)->text(), "3 (infeasible)");
    // People's units, not raw seconds and bytes.
    EXPECT_EQ(t->item(costRow, 0)->text(), QString::fromUtf8("630 \u00b5s"));
    EXPECT_TRUE(t->item(runtimeRow, 2)->text().startsWith(QString::fromUtf8("510 \u00b5s"))) << t->item(runtimeRow, 2)->text().toStdString();
    EXPECT_TRUE(t->item(peakRow, 0)->text().startsWith("27.6 MiB")) << t->item(peakRow, 0)->text().toStdString();
}

TEST(Units, PrintFiguresInPeoplesUnits) {
    EXPECT_EQ(units::seconds(0.000633453), "633.5 \u00b5s");
    EXPECT_EQ(units::seconds(0.0124), "12.4 ms");
    EXPECT_EQ(units::seconds(0.9999999), "1 s");
    EXPECT_EQ(units::bytes(2.89709e+07), "27.6 MiB");
    EXPECT_EQ(units::bytes(3.2 * (1 << 30)), "3.2 GiB");
    EXPECT_EQ(units::flopsRate(15e12), "15 TFLOP/s");
    EXPECT_EQ(units::figure("runtime_s", 0.002), "2 ms");
    EXPECT_EQ(units::figure("peak_bytes", 1 << 20), "1 MiB");
    EXPECT_EQ(units::figure("evaluations", 5000), "5000");
}
