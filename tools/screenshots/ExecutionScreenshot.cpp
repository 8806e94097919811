// graphopt-execution-screenshot MODEL OUT.png: the main window after Model > Profile on This CPU, a
// BRKGA placement on cpu-cores with the measured costs, and Model > Run on This Machine: the
// Measured column, and measured against predicted in the run summary (issue 34's screenshot).
// Run under xvfb-run or with QT_QPA_PLATFORM=offscreen; it checks nothing
// (tests/ui/MachineRunsTest.cpp does).
#include <QApplication>
#include <QDockWidget>
#include <QScrollBar>
#include <QTableView>
#include <QTextBrowser>
#include <QSignalSpy>
#include <QTest>
#include <QTemporaryDir>
#include <cstdio>

#include "GraphView.h"
#include "MainWindow.h"
#include "RunPanel.h"

using namespace graphopt;
using namespace graphopt::ui;

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s MODEL OUT.png\n", argv[0]);
        return 2;
    }
    QTemporaryDir dir;
    // The graphopt program of this build tree (the window's readers and `execute` run it).
    if (qgetenv("GRAPHOPT_CLI").isEmpty())
        qputenv("GRAPHOPT_CLI", (QCoreApplication::applicationDirPath() + "/../../app/graphopt").toLocal8Bit());
    MainWindow w;
    w.setDatabasePath(dir.filePath("runs.db"));
    w.resize(1500, 950);
    w.show();
    QSignalSpy ready(&w, &MainWindow::finalLayoutReady);
    w.openModel(QString::fromLocal8Bit(argv[1]));
    if (!ready.wait(120000)) return std::fprintf(stderr, "the model did not lay out\n"), 1;
    QSignalSpy profiled(&w, &MainWindow::profileFinished);
    QString error;
    if (!w.profileModel(&error) || !profiled.wait(300000)) return std::fprintf(stderr, "profile: %s\n", qPrintable(error)), 1;
    RunSpec spec = w.runPanel()->spec();
    spec.engine = "brkga";
    spec.devices = "cpu-cores";
    spec.objective = "runtime";
    spec.budget = 3000;
    spec.seed = 1;
    w.runPanel()->setSpec(spec);
    QSignalSpy done(&w, &MainWindow::runFinished);
    if (!w.startRun() || !done.wait(300000)) return std::fprintf(stderr, "the placement did not finish\n"), 1;
    QObject::connect(&w, &MainWindow::machineJobFailed, [](const QString& m) { std::fprintf(stderr, "failed: %s\n", qPrintable(m)); });
    QSignalSpy executed(&w, &MainWindow::executionFinished);
    if (!w.runOnThisMachine(&error) || !executed.wait(300000)) return std::fprintf(stderr, "execute: %s\n", qPrintable(error)), 1;
    std::printf("%s\n", qPrintable(w.executionSummary()));
    // The Nodes table with its Measured column, and a conv's measured time in the properties.
    w.setGroupByScope(false);
    w.graphView()->selectNode(w.graph()->findNode("/inception3a/branch2/branch2.1/conv/Conv") >= 0
                                  ? w.graph()->findNode("/inception3a/branch2/branch2.1/conv/Conv")
                                  : 0);
    // Room for the Measured column and the properties' measured row.
    auto* nodes = w.findChild<QDockWidget*>("nodesDock");
    auto* props = w.findChild<QDockWidget*>("propertiesDock");
    auto* results = w.findChild<QDockWidget*>("resultsDock");
    if (nodes) w.resizeDocks({nodes}, {560}, Qt::Horizontal);
    if (props && results) w.resizeDocks({props, results}, {330, 230}, Qt::Vertical);
    QTest::qWait(500);  // the docks' new sizes laid out
    // A narrow dock (the user's saved layout wins over resizeDocks): scroll to the Measured column
    // and to the properties' measured row.
    if (auto* table = w.findChild<QTableView*>("nodeTable")) {
        table->setColumnHidden(0, true);
        table->horizontalScrollBar()->setValue(table->horizontalScrollBar()->maximum());
    }
    if (auto* browser = w.findChild<QTextBrowser*>()) browser->verticalScrollBar()->setValue(browser->verticalScrollBar()->maximum() / 4);
    QTest::qWait(200);
    if (!w.grab().save(QString::fromLocal8Bit(argv[2]))) return std::fprintf(stderr, "cannot write %s\n", argv[2]), 1;
    return 0;
}
