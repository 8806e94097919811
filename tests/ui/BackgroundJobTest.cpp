// The GUI's one job class runs every kind of run off the GUI thread: a placement, a tuning and a
// training run through the same BackgroundJob, each recorded in the store; progress arrives
// throttled on the GUI thread; a superseded job delivers nothing; Cancel stores a cancelled run.
#include <gtest/gtest.h>

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include "BackgroundJob.h"
#include "graph/Loaders.h"
#include "graph/SyntheticGenerator.h"
#include "placement/PlacementRun.h"
#include "placement/regal/TrainingRun.h"
#include "store/RunStore.h"
#include "tuning/TuningRun.h"

using namespace graphopt;
using graphopt::ui::BackgroundJob;

namespace {

const std::string kResnetFile = GRAPHOPT_SOURCE_DIR "/resources/models/resnet18.onnx";

// A run that keeps its graph alive (the GUI hands runs to the job the same way).
template <typename R, typename... Args>
std::shared_ptr<Run> withGraph(std::shared_ptr<const Graph> g, Args&&... args) {
    return std::shared_ptr<R>(new R(*g, std::forward<Args>(args)...), [g](R* r) { delete r; });
}

std::shared_ptr<const Graph> generated(int nodes) {
    GeneratorOptions o;
    o.family = GraphFamily::Layered;
    o.nodes = nodes;
    o.seed = 2;
    return std::make_shared<const Graph>(generateGraph(o));
}

// Waits for finished() or failed(); true on finished.
bool waitForEnd(BackgroundJob& job, int ms = 120000) {
    QSignalSpy finished(&job, &BackgroundJob::finished), failed(&job, &BackgroundJob::failed);
    for (int waited = 0; finished.isEmpty() && failed.isEmpty() && waited < ms; waited += 20) QTest::qWait(20);
    EXPECT_TRUE(failed.isEmpty()) << (failed.isEmpty() ? "" : failed.first().first().toString().toStdString());
    return !finished.isEmpty();
}

}  // namespace

TEST(BackgroundJob, RunsAPlacementATuningAndATrainingRunAndStoresEach) {
    QTemporaryDir dir;
    const QString db = dir.filePath("runs.db");
    BackgroundJob job;
    int progressSignals = 0;
    bool everyDeliveryOnTheGuiThread = true;
    QObject::connect(&job, &BackgroundJob::progress, [&](const QVector<ProgressEvent>& events) {
        ++progressSignals;
        everyDeliveryOnTheGuiThread &= QThread::currentThread() == qApp->thread() && !events.isEmpty();
    });
    QVector<TuningMeasurement> measured;
    QObject::connect(&job, &BackgroundJob::measured,
                     [&](const QVector<TuningMeasurement>& ms) { measured += ms; });

    // Placement.
    RunSpec place;
    place.engine = "brkga";
    place.budget = 3000;
    place.seed = 4;
    ASSERT_TRUE(job.startRun(withGraph<PlacementRun>(generated(300), place, std::string("g.json")), db));
    EXPECT_TRUE(job.isRunning());
    ASSERT_TRUE(waitForEnd(job));
    const auto* placed = job.outcomeAs<PlacementResult>();
    ASSERT_NE(placed, nullptr);
    EXPECT_EQ(placed->evaluations, 3000);
    const qint64 placementRun = job.runId();

    // Tuning, on the simulated CPU.
    const auto resnet = std::make_shared<const Graph>(loadGraph(kResnetFile));
    RunSpec tune;
    tune.engine = "random";
    tune.budget = 24;
    tune.seed = 2;
    tune.params = {{"task_index", 1}, {"measurer", "sim"}, {"batch_size", 8}};
    ASSERT_TRUE(job.startRun(withGraph<tuning::TuningRun>(resnet, tune, kResnetFile), db));
    ASSERT_TRUE(waitForEnd(job));
    const auto* tuned = job.outcomeAs<tuning::TuningResult>();
    ASSERT_NE(tuned, nullptr);
    EXPECT_EQ(tuned->measurements.size(), 24u);
    EXPECT_EQ(measured.size(), 24);  // every measurement reached the GUI as it came
    const qint64 tuningRun = job.runId();

    // Training, one epoch on a tiny set.
    RunSpec train;
    train.objective = "memory";
    train.budget = 100;
    train.params = {{"epochs", 1}, {"sizes", "30"}, {"graph_seeds", 1}, {"models", "none"}, {"samples", 1},
                    {"out", dir.filePath("policy.json").toStdString()}};
    ASSERT_TRUE(job.startRun(std::make_shared<regal::TrainingRun>(train), db));
    ASSERT_TRUE(waitForEnd(job));
    const auto* trained = job.outcomeAs<regal::TrainingResult>();
    ASSERT_NE(trained, nullptr);
    EXPECT_EQ(trained->status(), RunStatus::Finished);
    EXPECT_EQ(trained->epochsDone, 1);
    EXPECT_TRUE(QFileInfo::exists(dir.filePath("policy.json")));
    const qint64 trainingRun = job.runId();

    EXPECT_GT(progressSignals, 0);
    EXPECT_TRUE(everyDeliveryOnTheGuiThread);
    RunStore store(db.toStdString());
    EXPECT_EQ(store.run(placementRun).run.kind, "placement");
    EXPECT_EQ(store.run(tuningRun).run.kind, "tuning");
    EXPECT_EQ(store.measurements(tuningRun).size(), 24u);
    EXPECT_EQ(store.run(trainingRun).run.kind, "training");
    EXPECT_EQ(store.events(trainingRun).size(), 1u);
    for (qint64 id : {placementRun, tuningRun, trainingRun})
        EXPECT_EQ(store.run(id).run.status, RunStatus::Finished) << id;
}

TEST(BackgroundJob, ProgressIsThrottled) {
    BackgroundJob job;
    job.setProgressInterval(200);
    int batches = 0, events = 0;
    QObject::connect(&job, &BackgroundJob::progress, [&](const QVector<ProgressEvent>& e) {
        ++batches;
        events += e.size();
    });
    // 20,000 events as fast as the worker can send them.
    job.start([](ui::JobContext& ctx) -> std::any {
        for (int i = 0; i < 20000; ++i) ctx.progress(ProgressEvent{i, i, double(i), 0, {}});
        QThread::msleep(450);
        return 1;
    });
    ASSERT_TRUE(waitForEnd(job));
    EXPECT_EQ(events, 20000);  // nothing lost
    EXPECT_LE(batches, 5);     // a few batches, not 20,000 signals
}

TEST(BackgroundJob, ASupersededJobDeliversNothing) {
    BackgroundJob job;
    std::atomic<bool> firstSawCancel{false};
    job.start([&](ui::JobContext& ctx) -> std::any {
        while (!ctx.cancelled()) QThread::msleep(5);
        firstSawCancel = true;
        return std::string("first");
    });
    QTest::qWait(50);
    job.start([](ui::JobContext&) -> std::any { return std::string("second"); });
    ASSERT_TRUE(waitForEnd(job));
    QTest::qWait(100);  // anything the first job still sends arrives by now
    ASSERT_NE(job.resultAs<std::string>(), nullptr);
    EXPECT_EQ(*job.resultAs<std::string>(), "second");
    EXPECT_TRUE(firstSawCancel);
}

TEST(BackgroundJob, CancelStoresACancelledRunWithItsBestSoFar) {
    QTemporaryDir dir;
    const QString db = dir.filePath("runs.db");
    BackgroundJob job;
    RunSpec place;
    place.engine = "brkga";
    place.budget = 50'000'000;  // far more than the test waits for
    ASSERT_TRUE(job.startRun(withGraph<PlacementRun>(generated(500), place, std::string("g.json")), db));
    QTest::qWait(300);
    job.cancel();
    ASSERT_TRUE(waitForEnd(job));
    const auto* placed = job.outcomeAs<PlacementResult>();
    ASSERT_NE(placed, nullptr);
    EXPECT_EQ(placed->status(), RunStatus::Cancelled);
    EXPECT_LT(placed->evaluations, 50'000'000);
    RunStore store(db.toStdString());
    EXPECT_EQ(store.run(job.runId()).run.status, RunStatus::Cancelled);
    EXPECT_TRUE(store.result(job.runId()));
}

TEST(BackgroundJob, TheDestructorCancelsAndWaits) {
    std::atomic<bool> returned{false};
    {
        BackgroundJob job;
        job.start([&](ui::JobContext& ctx) -> std::any {
            while (!ctx.cancelled()) QThread::msleep(5);
            returned = true;
            return {};
        });
        QTest::qWait(30);
    }
    EXPECT_TRUE(returned);
}

TEST(BackgroundJob, AStoreThatCannotBeOpenedStartsNothing) {
    QTemporaryDir dir;
    const QString db = dir.filePath("not-a-db");
    {
        QFile f(db);
        ASSERT_TRUE(f.open(QIODevice::WriteOnly));
        f.write("not a database\n");
    }
    BackgroundJob job;
    RunSpec place;
    place.budget = 100;
    QString error;
    EXPECT_FALSE(job.startRun(withGraph<PlacementRun>(generated(30), place, std::string("g.json")), db, &error));
    EXPECT_FALSE(job.isRunning());
    EXPECT_TRUE(error.contains(db)) << error.toStdString();
}
