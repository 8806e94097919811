// The runs browser: stored runs listed, filtered, compared, opened, deleted and exported; a run
// the CLI writes while the window is open appears in it.
#include <gtest/gtest.h>

#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include "GraphView.h"
#include "MainWindow.h"
#include "RunComparisonView.h"
#include "RunsBrowser.h"
#include "store/RunStore.h"

using graphopt::ui::MainWindow;
using graphopt::ui::RunComparisonView;
using graphopt::ui::RunsBrowser;

namespace {

const QString kCli = QStringLiteral(GRAPHOPT_BINARY_DIR "/app/graphopt");
const QString kBundledModels = QStringLiteral(GRAPHOPT_SOURCE_DIR "/resources/models/");

// `graphopt place MODEL --engine E ...` into `db`, as a user at a terminal would.
void place(const QString& db, const QString& model, const QString& engine, int seed = 1) {
    QProcess p;
    p.start(kCli, {"place", kBundledModels + model, "--engine", engine, "--budget", "400", "--seed", QString::number(seed),
                   "--threads", "1", "--db", db});
    ASSERT_TRUE(p.waitForFinished(120000));
    ASSERT_EQ(p.exitCode(), 0) << p.readAllStandardError().toStdString();
}

}  // namespace

TEST(RunsBrowser, ComparesBrkgaAndRegalOnOneModelAndRingsTheNodesPlacedDifferently) {
    QTemporaryDir dir;
    const QString db = dir.filePath("runs.db");
    place(db, "resnet18.onnx", "brkga");
    place(db, "resnet18.onnx", "regal");
    MainWindow w;
    w.setDatabasePath(db);
    RunsBrowser* b = w.runsBrowser();
    ASSERT_EQ(b->visibleRunCount(), 2);
    b->selectRuns({1, 2});
    QString error;
    ASSERT_TRUE(b->compareSelected(&error)) << error.toStdString();
    RunComparisonView* cmp = b->comparisonView();
    EXPECT_EQ(cmp->curveCount(), 2);  // both best-so-far curves
    const auto& c = cmp->comparison();
    ASSERT_TRUE(c.placementsComparable);
    EXPECT_EQ(c.placedNodes, 49);
    ASSERT_FALSE(c.nodesPlacedDifferently.empty());
    // The figures table: one column per run, the best cost marked bold.
    QTableWidget* t = cmp->figuresTable();
    EXPECT_EQ(t->columnCount(), 2);
    int bestCostRow = -1;
    for (int r = 0; r < t->rowCount(); ++r)
        if (t->verticalHeaderItem(r)->text() == "best cost") bestCostRow = r;
    ASSERT_GE(bestCostRow, 0);
    const int boldCells = t->item(bestCostRow, 0)->font().bold() + t->item(bestCostRow, 1)->font().bold();
    EXPECT_EQ(boldCells, 1);
    EXPECT_TRUE(t->item(bestCostRow, 1)->text().contains("%")) << t->item(bestCostRow, 1)->text().toStdString();
    // Wall-clock alignment keeps both curves.
    cmp->setXAxis(RunComparisonView::XAxis::WallClock);
    EXPECT_EQ(cmp->curveCount(), 2);

    // "Show on graph" opens the model and rings exactly the nodes placed differently.
    QSignalSpy laidOut(&w, &MainWindow::layoutReady);
    emit cmp->showNodesRequested(cmp->graphPath(), c.nodesPlacedDifferently);
    ASSERT_TRUE(laidOut.wait(60000));
    EXPECT_EQ(w.graphView()->highlightedNodeCount(), static_cast<int>(c.nodesPlacedDifferently.size()));
}

TEST(RunsBrowser, ARunWrittenByTheCliAppearsInTheOpenBrowser) {
    QTemporaryDir dir;
    const QString db = dir.filePath("runs.db");
    place(db, "alexnet.onnx", "random");
    MainWindow w;
    w.setDatabasePath(db);
    w.show();
    w.showRuns();
    RunsBrowser* b = w.runsBrowser();
    b->setPollInterval(100);
    ASSERT_EQ(b->visibleRunCount(), 1);
    QSignalSpy changed(b, &RunsBrowser::storeChanged);
    place(db, "alexnet.onnx", "brkga");
    ASSERT_TRUE(changed.wait(10000));
    EXPECT_EQ(b->visibleRunCount(), 2);
}

TEST(RunsBrowser, FiltersDeletesExportsAndOpensAStoredPlacement) {
    QTemporaryDir dir;
    const QString db = dir.filePath("runs.db");
    place(db, "alexnet.onnx", "random");
    place(db, "squeezenet1_0.onnx", "brkga");
    place(db, "squeezenet1_0.onnx", "brkga", 2);
    MainWindow w;
    w.setDatabasePath(db);
    RunsBrowser* b = w.runsBrowser();
    ASSERT_EQ(b->visibleRunCount(), 3);
    b->setTextFilter("squeeze");
    EXPECT_EQ(b->visibleRunCount(), 2);
    b->setTextFilter("");
    b->setKindFilter("tuning");
    EXPECT_EQ(b->visibleRunCount(), 0);
    b->setKindFilter("");

    b->selectRuns({2, 3});
    const QString csv = dir.filePath("sel.csv"), json = dir.filePath("sel.json");
    QString error;
    ASSERT_TRUE(b->exportSelection(csv, &error)) << error.toStdString();
    ASSERT_TRUE(b->exportSelection(json, &error)) << error.toStdString();
    QFile f(csv);
    ASSERT_TRUE(f.open(QIODevice::ReadOnly));
    EXPECT_EQ(f.readAll().count('\n'), 3);  // header + 2 runs
    QFile j(json);
    ASSERT_TRUE(j.open(QIODevice::ReadOnly));
    EXPECT_EQ(nlohmann::json::parse(j.readAll().toStdString()).size(), 2u);

    ASSERT_TRUE(b->deleteRuns({1}, &error)) << error.toStdString();
    EXPECT_EQ(b->visibleRunCount(), 2);

    // Open a stored placement: its model opens and the nodes take their devices' colours.
    QSignalSpy laidOut(&w, &MainWindow::layoutReady);
    ASSERT_TRUE(w.openStoredRun(3, &error)) << error.toStdString();
    ASSERT_TRUE(laidOut.wait(60000));
    ASSERT_NE(w.lastResult(), nullptr);
    EXPECT_EQ(w.lastResult()->seed, 2u);
    EXPECT_EQ(w.currentPath(), kBundledModels + "squeezenet1_0.onnx");
    EXPECT_GT(w.lastResult()->placement.size(), 0u);
    EXPECT_FALSE(w.openStoredRun(99, &error));
    EXPECT_TRUE(error.contains("99")) << error.toStdString();
}

// A training run's "best cost" is 1 - its best validation improvement: the browser shows the
// improvement, not a running time.
TEST(RunsBrowser, ShowsATrainingRunsBestValidationImprovement) {
    QTemporaryDir dir;
    const QString db = dir.filePath("runs.db");
    QProcess p;
    p.start(kCli, {"train-policy", "--objective", "memory", "--epochs", "1", "--budget", "40", "--sizes", "12",
                   "--graph-seeds", "1", "--models", "none", "--hidden", "8", "--rounds", "1", "--out",
                   dir.filePath("p.json"), "--db", db});
    ASSERT_TRUE(p.waitForFinished(120000));
    ASSERT_EQ(p.exitCode(), 0) << p.readAllStandardError().toStdString();
    RunsBrowser b;
    b.setDatabasePath(db);
    ASSERT_EQ(b.visibleRunCount(), 1);
    const auto* m = b.table()->model();
    int best = -1;
    for (int c = 0; c < m->columnCount(); ++c)
        if (m->headerData(c, Qt::Horizontal).toString() == "Best cost") best = c;
    ASSERT_GE(best, 0);
    const QString text = m->index(0, best).data().toString();
    EXPECT_TRUE(text.startsWith("validation ")) << text.toStdString();
    EXPECT_TRUE(text.endsWith(" %")) << text.toStdString();
    graphopt::RunStore store(db.toStdString());
    const double cost = *store.listRuns().front().bestCost;
    EXPECT_TRUE(text.contains(QString::number(100 * (1 - cost), 'f', 1))) << text.toStdString() << " " << cost;
}
