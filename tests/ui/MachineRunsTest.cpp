// The application on this machine: Model > Profile on This CPU fills the Measured column and the
// node properties and is offered to the next run; Model > Run on This Machine executes a placement
// on cpu-cores and puts measured against predicted in the run summary.
#include <gtest/gtest.h>

#include <QCheckBox>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextBrowser>

#include "BackgroundJob.h"
#include "MainWindow.h"
#include "NodeTableModel.h"
#include "RunPanel.h"
#include "store/RunStore.h"

using graphopt::ui::MainWindow;

namespace {
const QString kTiny = QStringLiteral(GRAPHOPT_SOURCE_DIR "/tests/data/exec/tiny_branches.onnx");
}

TEST(MachineRuns, ProfilesPlacesWithMeasuredCostsAndRunsOnThisMachine) {
    QTemporaryDir dir;
    MainWindow w;
    w.setDatabasePath(dir.filePath("runs.db"));
    QSignalSpy ready(&w, &MainWindow::layoutReady);
    w.openModel(kTiny);
    ASSERT_TRUE(ready.wait(60000));
    QString error;
    EXPECT_FALSE(w.runOnThisMachine(&error)) << "nothing placed yet";
    EXPECT_TRUE(error.contains("Place the model first")) << error.toStdString();

    QSignalSpy profiled(&w, &MainWindow::profileFinished);
    ASSERT_TRUE(w.profileModel(&error)) << error.toStdString();
    ASSERT_TRUE(profiled.wait(60000));
    ASSERT_NE(w.measuredCosts(), nullptr);
    EXPECT_EQ(w.measuredCosts()->costs.size(), w.graph()->nodeCount());
    auto* table = w.findChild<QTableView*>("nodeTable");
    ASSERT_NE(table, nullptr);
    EXPECT_FALSE(table->isColumnHidden(graphopt::ui::NodeTableModel::Measured));
    EXPECT_FALSE(table->model()->index(0, graphopt::ui::NodeTableModel::Measured).data().toString().isEmpty());
    auto* measured = w.runPanel()->findChild<QCheckBox*>("measuredCosts");
    ASSERT_NE(measured, nullptr);
    EXPECT_TRUE(measured->isEnabled());
    EXPECT_TRUE(measured->isChecked());
    {
        graphopt::RunStore store(dir.filePath("runs.db").toStdString());
        graphopt::RunFilter f;
        f.kind = "profile";
        EXPECT_EQ(store.listRuns(f).size(), 1u) << "the profile is a stored run";
    }

    graphopt::RunSpec spec = w.runPanel()->spec();
    spec.engine = "brkga";
    spec.devices = "cpu-cores";
    spec.budget = 300;
    spec.threads = 1;
    w.runPanel()->setSpec(spec);
    QSignalSpy done(&w, &MainWindow::runFinished);
    ASSERT_TRUE(w.startRun());
    ASSERT_TRUE(done.wait(60000));
    ASSERT_NE(w.lastResult(), nullptr);
    // The run used the measured costs: its stored spec carries each node's measured median.
    // (Not a bound on its running time: measured costs change with the machine's load, and a
    // schedule of microsecond ops is dominated by the transfers between cores.)
    EXPECT_GT(w.lastResult()->runtimeS, 0);
    {
        graphopt::RunStore store(dir.filePath("runs.db").toStdString());
        graphopt::RunFilter f;
        f.kind = "placement";
        const auto runs = store.listRuns(f);
        ASSERT_EQ(runs.size(), 1u);
        const nlohmann::json params = runs[0].run.spec.value("params", nlohmann::json::object());
        ASSERT_TRUE(params.contains("measured_costs_s")) << params.dump();
        const nlohmann::json& used = params["measured_costs_s"];
        EXPECT_EQ(used.size(), w.measuredCosts()->costs.size());
        for (const auto& [name, c] : w.measuredCosts()->costs) {
            ASSERT_TRUE(used.contains(name)) << name;
            EXPECT_DOUBLE_EQ(used[name].get<double>(), c.medianS) << name;
        }
    }

    QSignalSpy executed(&w, &MainWindow::executionFinished);
    QSignalSpy failed(&w, &MainWindow::machineJobFailed);
    ASSERT_TRUE(w.runOnThisMachine(&error)) << error.toStdString();
    ASSERT_TRUE(executed.wait(120000)) << (failed.isEmpty() ? std::string() : failed.first().first().toString().toStdString());
    EXPECT_TRUE(w.executionSummary().contains("measured")) << w.executionSummary().toStdString();
    EXPECT_TRUE(w.executionSummary().contains("predicted")) << w.executionSummary().toStdString();
}

TEST(MachineRuns, RefusesAPlacementOnDevicesThatAreNotThisMachinesCores) {
    QTemporaryDir dir;
    MainWindow w;
    w.setDatabasePath(dir.filePath("runs.db"));
    QSignalSpy ready(&w, &MainWindow::layoutReady);
    w.openModel(kTiny);
    ASSERT_TRUE(ready.wait(60000));
    graphopt::RunSpec spec = w.runPanel()->spec();
    spec.engine = "single";
    spec.devices = "2xgpu-pcie";
    w.runPanel()->setSpec(spec);
    QSignalSpy done(&w, &MainWindow::runFinished);
    ASSERT_TRUE(w.startRun());
    ASSERT_TRUE(done.wait(60000));
    QString error;
    EXPECT_FALSE(w.runOnThisMachine(&error));
    EXPECT_TRUE(error.contains("not one of this machine's cores")) << error.toStdString();
}
