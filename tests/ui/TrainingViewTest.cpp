// Policy training from the application: epochs plotted as they arrive, cancel keeps the
// checkpoint, resume goes on from it, and the finished policy is offered by the run panel.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "MainWindow.h"
#include "GraphView.h"
#include "PolicyNodeView.h"
#include "RunPanel.h"
#include "TrainingView.h"
#include "placement/regal/RegalEngine.h"
#include "store/RunStore.h"

using graphopt::ui::MainWindow;
using graphopt::ui::TrainingView;

namespace {

void tiny(TrainingView* t, int epochs) {
    t->setObjective("memory");
    t->setDevices("2xgpu-pcie");
    t->setEpochs(epochs);
    t->setBudget(100);
    t->setSamples(1);
    t->setSizes("30");
    t->setSeed(3);
}

// The run panel keeps its settings (QSettings) for the next window, and so for the next test in
// this process: put back what the other tests expect.
void restoreRunPanel(MainWindow& w) {
    graphopt::RunSpec spec = w.runPanel()->spec();
    spec.engine = "brkga";
    spec.objective = "runtime";
    spec.devices = "2xgpu-pcie";
    spec.params = nlohmann::json::object();
    w.runPanel()->setSpec(spec);
    (void)w.runPanel()->spec();  // spec() is what saves them
}

}  // namespace

TEST(TrainingView, OneEpochFromTheGuiGivesAPolicyTheRunPanelOffers) {
    QTemporaryDir dir;
    qputenv("GRAPHOPT_USER_POLICY_DIR", dir.filePath("policies").toLocal8Bit());
    const QString db = dir.filePath("runs.db");
    MainWindow w;
    w.setDatabasePath(db);
    TrainingView* t = w.trainingView();
    tiny(t, 1);
    t->setImitationEpochs(1);
    QSignalSpy finished(t, &TrainingView::trainingFinished);
    QSignalSpy statuses(t, &TrainingView::statusChanged);
    QString error;
    ASSERT_TRUE(t->startTraining(&error)) << error.toStdString();
    ASSERT_TRUE(finished.wait(600000));
    const QString policy = finished.first().first().toString();
    ASSERT_FALSE(policy.isEmpty()) << t->statusText().toStdString();
    EXPECT_TRUE(QFileInfo::exists(policy));
    EXPECT_TRUE(policy.startsWith(dir.filePath("policies")));
    EXPECT_EQ(t->epochsPlotted(), 1);
    // The phases before the first epoch said what they were doing, in order, before it came.
    QStringList said;
    for (const auto& args : statuses) said << args.first().toString();
    const auto at = [&](const QString& needle) {
        for (int i = 0; i < said.size(); ++i)
            if (said[i].contains(needle)) return i;
        return -1;
    };
    const int elite = at("Training: imitation: elite BRKGA runs"), imitated = at("Training: imitation epoch 1/1"),
              epoch = at("Epoch 1:");
    EXPECT_GE(elite, 0) << said.join("\n").toStdString();
    EXPECT_GT(imitated, elite) << said.join("\n").toStdString();
    EXPECT_GT(epoch, imitated) << said.join("\n").toStdString();

    // Registered in the store with its training run, and offered for memory on 2xgpu-pcie only.
    graphopt::RunStore store(db.toStdString());
    ASSERT_EQ(store.policies().size(), 1u);
    EXPECT_TRUE(store.policies()[0].trainingRunId.has_value());
    graphopt::RunSpec spec = w.runPanel()->spec();
    spec.engine = "regal";
    spec.objective = "memory";
    spec.devices = "2xgpu-pcie";
    w.runPanel()->setSpec(spec);
    EXPECT_TRUE(w.runPanel()->policyChoices().contains(policy)) << w.runPanel()->policyChoices().join(",").toStdString();
    spec.objective = "runtime";
    w.runPanel()->setSpec(spec);
    EXPECT_FALSE(w.runPanel()->policyChoices().contains(policy));
    // Choosing it puts it in the run's parameters.
    spec.objective = "memory";
    w.runPanel()->setSpec(spec);
    auto* chooser = qobject_cast<QComboBox*>(w.runPanel()->parameterWidget("policy"));
    ASSERT_NE(chooser, nullptr);
    chooser->setCurrentIndex(chooser->findData(policy));
    EXPECT_EQ(w.runPanel()->spec().params.value("policy", std::string()), policy.toStdString());
    chooser->setCurrentIndex(0);
    EXPECT_FALSE(w.runPanel()->spec().params.contains("policy"));  // the shipped one

    // The stored run opens in the training tab with its curve.
    TrainingView fresh;
    fresh.setDatabasePath(db);
    ASSERT_TRUE(fresh.showStoredRun(store.policies()[0].trainingRunId.value(), &error)) << error.toStdString();
    EXPECT_EQ(fresh.epochsPlotted(), 1);
    restoreRunPanel(w);
    qunsetenv("GRAPHOPT_USER_POLICY_DIR");
}

// A per-device policy serves any device setup: the run panel offers it whatever the devices.
TEST(TrainingView, ThePanelOffersAPerDevicePolicyForEveryDeviceSetup) {
    QTemporaryDir dir;
    qputenv("GRAPHOPT_USER_POLICY_DIR", dir.filePath("policies").toLocal8Bit());
    QDir().mkpath(dir.filePath("policies"));
    graphopt::regal::PolicyConfig cfg;
    cfg.hidden = 4;
    cfg.rounds = 1;
    cfg.heads = graphopt::regal::PolicyHeads::PerDevice;
    graphopt::regal::PolicyFile f;
    f.objective = "runtime";
    f.devices = "2xgpu-pcie";
    f.config = cfg;
    f.parameters = graphopt::regal::makePolicyModel(cfg, 1)->parameters();
    const QString path = dir.filePath("policies/any.json");
    graphopt::regal::writePolicyFile(path.toStdString(), f);
    MainWindow w;
    w.setDatabasePath(dir.filePath("runs.db"));
    graphopt::RunSpec spec = w.runPanel()->spec();
    spec.engine = "regal";
    spec.objective = "runtime";
    for (const char* devices : {"2xgpu-pcie", "4xgpu-nvlink", "8xa100-40gb-nvlink"}) {
        spec.devices = devices;
        w.runPanel()->setSpec(spec);
        EXPECT_TRUE(w.runPanel()->policyChoices().contains(path)) << devices;
    }
    spec.objective = "memory";  // but only for its objective
    w.runPanel()->setSpec(spec);
    EXPECT_FALSE(w.runPanel()->policyChoices().contains(path));
    restoreRunPanel(w);
    qunsetenv("GRAPHOPT_USER_POLICY_DIR");
}

TEST(TrainingView, CancelKeepsTheCheckpointAndResumeGoesOn) {
    QTemporaryDir dir;
    qputenv("GRAPHOPT_USER_POLICY_DIR", dir.filePath("policies").toLocal8Bit());
    TrainingView t;
    t.setDatabasePath(dir.filePath("runs.db"));
    tiny(&t, 20);
    QSignalSpy finished(&t, &TrainingView::trainingFinished);
    QString error;
    ASSERT_TRUE(t.startTraining(&error)) << error.toStdString();
    // Cancel once the first epoch is plotted: the run stops within the next one.
    ASSERT_TRUE(QTest::qWaitFor([&] { return t.epochsPlotted() >= 1 || finished.count() > 0; }, 600000));
    t.cancel();
    ASSERT_TRUE(QTest::qWaitFor([&] { return finished.count() == 1; }, 600000));
    EXPECT_TRUE(finished.last().first().toString().isEmpty()) << t.statusText().toStdString();
    const int done = t.epochsPlotted();
    EXPECT_LT(done, 20);
    EXPECT_TRUE(QFileInfo::exists(t.lastCheckpointPath())) << t.lastCheckpointPath().toStdString();
    ASSERT_TRUE(t.resumeTraining(&error)) << error.toStdString();
    ASSERT_TRUE(QTest::qWaitFor([&] { return finished.count() == 2; }, 600000));
    EXPECT_FALSE(finished.last().first().toString().isEmpty()) << t.statusText().toStdString();
    EXPECT_EQ(t.epochsPlotted(), 20);  // the curve goes on from the checkpoint's epoch
    qunsetenv("GRAPHOPT_USER_POLICY_DIR");
}

TEST(PolicyNodeView, BetaDensityIsADensity) {
    using graphopt::ui::PolicyNodeView;
    for (auto [a, b] : {std::pair{1.0, 1.0}, {2.0, 5.0}, {0.5, 0.5}, {5.0, 1.0}}) {
        double integral = 0;
        const int steps = 200000;
        for (int i = 0; i < steps; ++i) integral += PolicyNodeView::betaDensity((i + 0.5) / steps, a, b) / steps;
        EXPECT_NEAR(integral, 1.0, 0.01) << a << "," << b;
    }
    EXPECT_DOUBLE_EQ(PolicyNodeView::betaDensity(0.3, 1, 1), 1.0);
}

// A node selected on the graph shows the Beta distribution the shipped policy chose for each of
// its keys (2 devices: 2 device keys and the priority key) beside Uniform(0,1), and its
// crossover probability.
TEST(PolicyNodeView, ShowsTheSelectedNodesKeyDistributions) {
    MainWindow w;
    QSignalSpy laidOut(&w, &MainWindow::layoutReady);
    w.openModel(QStringLiteral(GRAPHOPT_SOURCE_DIR "/resources/models/resnet18.onnx"));
    ASSERT_TRUE(laidOut.wait(60000));
    graphopt::RunSpec spec = w.runPanel()->spec();
    spec.engine = "regal";
    spec.objective = "runtime";
    spec.devices = "2xgpu-pcie";
    w.runPanel()->setSpec(spec);
    w.graphView()->selectNode(5);
    w.showPolicyTab();
    auto* v = w.policyNodeView();
    EXPECT_EQ(v->shownNode(), 5);
    EXPECT_EQ(v->curveCount(), 4);
    EXPECT_TRUE(v->crossoverText().contains("crossover probability")) << v->crossoverText().toStdString();
    w.graphView()->selectNode(7);
    EXPECT_EQ(v->shownNode(), 7);
    // The shipped 4-GPU policy: four device keys and the priority, beside the uniform.
    spec.devices = "4xgpu-nvlink";
    w.runPanel()->setSpec(spec);
    w.showPolicyTab();
    EXPECT_EQ(v->curveCount(), 6);
    // A policy file that is not there: a message, not a crash.
    spec.params["policy"] = "/nonexistent/policy.json";
    w.runPanel()->setSpec(spec);
    w.showPolicyTab();
    EXPECT_EQ(v->curveCount(), 0);
    restoreRunPanel(w);
}
