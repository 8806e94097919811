// The kernel-tuning view, headless: a release run on the simulated CPU draws its clusters (two or
// more colours, the picks marked), every run adds one convergence curve, Cancel stores a
// cancelled run, and a stored run reopened shows the same scatter for its last batch.
#include <gtest/gtest.h>

#include <QLabel>
#include <QSignalSpy>
#include <QSlider>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include "BackgroundJob.h"
#include "TuningView.h"
#include "graph/Loaders.h"
#include "store/RunStore.h"

using namespace graphopt;
using graphopt::ui::TuningView;

namespace {

const QString kResnet = QStringLiteral(GRAPHOPT_SOURCE_DIR "/resources/models/resnet18.onnx");
// Small plans and a quick agent, so the model phase (and its clusters) starts within a few batches.
const QString kReleaseParams = R"({"plan_size": 16, "initial_random": 16, "candidates": 120, "episodes": 32, "steps": 100})";

std::shared_ptr<const Graph> resnet() {
    static auto g = std::make_shared<const Graph>(loadGraph(kResnet.toStdString()));
    return g;
}

// Runs the view's settings to the end; returns the stored run id.
qint64 tune(TuningView& v) {
    QSignalSpy done(&v, &TuningView::allTuningFinished), finished(&v, &TuningView::tuningFinished);
    EXPECT_TRUE(v.startTuning()) << v.statusText().toStdString();
    EXPECT_TRUE(done.wait(120000));
    return finished.isEmpty() ? -1 : finished.last().first().toLongLong();
}

// The last batch's points as (config, cluster, picked), for comparing two views of one run.
std::vector<std::tuple<int64_t, int64_t, bool>> lastBatch(const ui::TuningFrames& f) {
    std::vector<std::tuple<int64_t, int64_t, bool>> out;
    for (const auto& p : f.frames().back().points) out.emplace_back(p.config, p.cluster, p.representative);
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

TEST(TuningView, ListsTheTasksAndTheSkippedOperators) {
    TuningView v;
    v.setModel(resnet(), kResnet);
    EXPECT_EQ(v.taskCount(), 12);
    EXPECT_EQ(v.taskTable()->model()->rowCount(), 12);
    EXPECT_EQ(v.taskTable()->model()->index(1, TuningView::Kind).data().toString(), "conv2d");
    EXPECT_EQ(v.taskTable()->model()->index(1, TuningView::Uses).data().toInt(), 4);
    EXPECT_EQ(v.taskTable()->model()->index(1, TuningView::State).data().toString(), "not tuned");
}

TEST(TuningView, ReleaseDrawsItsClustersAndEachRunAddsACurve) {
    QTemporaryDir dir;
    TuningView v;
    v.setDatabasePath(dir.filePath("runs.db"));
    v.setModel(resnet(), kResnet);
    v.selectTask(1);
    v.setTuner("release");
    v.setMeasurer("sim");
    v.setTrials(48);
    v.setTunerParams(kReleaseParams);
    const qint64 release = tune(v);
    ASSERT_GT(release, 0);

    const auto* scatter = v.clusterScatter();
    EXPECT_GT(scatter->pointCount(), 16);
    EXPECT_GE(scatter->clusterColourCount(), 2);
    EXPECT_GT(scatter->representativeCount(), 0);
    EXPECT_LE(scatter->representativeCount(), 16);
    EXPECT_GT(scatter->fadedPointCount(), 0);  // the earlier batches, behind
    EXPECT_EQ(v.convergenceChart()->runCount(), 1);
    EXPECT_TRUE(v.taskTable()->model()->index(1, TuningView::Best).data().toString().contains("simulated"));
    EXPECT_EQ(v.taskTable()->model()->index(1, TuningView::State).data().toString(), "tuned");
    // Replaying: the slider goes back to the first batch (random phase: the batch itself, no clusters).
    ASSERT_NE(scatter->slider(), nullptr);
    v.clusterScatter()->showBatch(1);
    EXPECT_EQ(scatter->clusterColourCount(), 0);
    EXPECT_EQ(scatter->representativeCount(), 8);

    // Annealing-only autotvm beside it: the same scatter, uncoloured; a second curve.
    v.setTuner("autotvm");
    v.setTunerParams(R"({"plan_size": 16, "initial_random": 16})");
    const qint64 autotvm = tune(v);
    ASSERT_GT(autotvm, release);
    EXPECT_EQ(v.convergenceChart()->runCount(), 2);
    EXPECT_EQ(scatter->clusterColourCount(), 0);
    EXPECT_GT(scatter->pointCount(), 0);

    RunStore store(dir.filePath("runs.db").toStdString());
    for (qint64 id : {release, autotvm}) {
        EXPECT_EQ(store.run(id).run.kind, "tuning");
        EXPECT_EQ(store.run(id).run.status, RunStatus::Finished);
        EXPECT_EQ(store.measurements(id).size(), 48u);
    }
}

TEST(TuningView, AStoredRunReopenedShowsTheSameScatterForItsLastBatch) {
    QTemporaryDir dir;
    const QString db = dir.filePath("runs.db");
    std::vector<std::tuple<int64_t, int64_t, bool>> live;
    qint64 id = -1;
    int liveColours = 0;
    {
        TuningView v;
        v.setDatabasePath(db);
        v.setModel(resnet(), kResnet);
        v.selectTask(3);
        v.setTuner("release");
        v.setMeasurer("sim");
        v.setTrials(40);
        v.setTunerParams(kReleaseParams);
        id = tune(v);
        ASSERT_GT(id, 0);
        live = lastBatch(*v.framesOf(id));
        liveColours = v.clusterScatter()->clusterColourCount();
    }
    TuningView reopened;
    reopened.setDatabasePath(db);
    reopened.setModel(resnet(), kResnet);
    QString error;
    ASSERT_TRUE(reopened.openStoredRun(id, &error)) << error.toStdString();
    ASSERT_NE(reopened.framesOf(id), nullptr);
    EXPECT_EQ(lastBatch(*reopened.framesOf(id)), live);
    EXPECT_EQ(reopened.clusterScatter()->clusterColourCount(), liveColours);
    EXPECT_EQ(reopened.convergenceChart()->runCount(), 1);
    EXPECT_FALSE(reopened.openStoredRun(id + 100, &error));
    EXPECT_FALSE(error.isEmpty());
}

TEST(TuningView, CancelStoresACancelledRunWithItsBestSoFar) {
    QTemporaryDir dir;
    TuningView v;
    v.setDatabasePath(dir.filePath("runs.db"));
    v.setModel(resnet(), kResnet);
    v.selectTask(1);
    v.setTuner("random");
    v.setMeasurer("sim");
    v.setTrials(100000);
    v.setBatchSize(1);
    QSignalSpy done(&v, &TuningView::allTuningFinished), finished(&v, &TuningView::tuningFinished);
    ASSERT_TRUE(v.startTuning());
    EXPECT_TRUE(v.isRunning());
    QTest::qWait(500);
    v.cancel();
    ASSERT_TRUE(done.wait(60000));
    const qint64 id = finished.last().first().toLongLong();
    RunStore store(dir.filePath("runs.db").toStdString());
    EXPECT_EQ(store.run(id).run.status, RunStatus::Cancelled);
    const auto result = store.result(id);
    ASSERT_TRUE(result);
    EXPECT_GT(result->costs["best_gflops"].get<double>(), 0);
    EXPECT_LT(store.measurements(id).size(), 100000u);
    EXPECT_EQ(v.taskTable()->model()->index(1, TuningView::State).data().toString(), "cancelled");
    EXPECT_FALSE(v.isRunning());
}

// A budget that ends before a model-based tuner's model is used is said beside the budget.
TEST(TuningView, SaysWhenTheBudgetNeverReachesTheModel) {
    TuningView v;
    v.setModel(resnet(), kResnet);
    auto* hint = v.findChild<QLabel*>("warmupHint");
    ASSERT_NE(hint, nullptr);
    v.setTuner("release");
    v.setTrials(48);
    EXPECT_FALSE(hint->isHidden());
    EXPECT_TRUE(hint->text().contains("first 64 configurations at random")) << hint->text().toStdString();
    v.setTunerParams(R"({"initial_random": 16})");
    EXPECT_TRUE(hint->isHidden());
    v.setTunerParams("");
    v.setTrials(96);
    EXPECT_TRUE(hint->isHidden());
    v.setTrials(64);  // the 64th is still random
    EXPECT_FALSE(hint->isHidden());
    v.setTuner("random");
    EXPECT_TRUE(hint->isHidden());
}
