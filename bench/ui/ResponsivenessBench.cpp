// ui_responsiveness_bench [--engine E] [--nodes N] [--family F] [--seconds S]
// ui_responsiveness_bench --tuner T [--measurer halide|sim] [--task K] [--trials N] [--tuner-params JSON]
//
// Tuning mode (--tuner): opens the bundled ResNet-18 in the main window, switches to the Kernel
// tuning tab and tunes task K (real Halide measurements by default), measuring the longest GUI
// stall while the tuning run goes (the scatter and the charts redraw after every batch).
//
// Opens a generated graph (1,000 nodes by default) in the real main window, starts a placement
// run with a budget far larger than the measuring window, and meanwhile ticks a 5 ms precise timer
// on the GUI thread. The longest gap between two ticks, minus the 5 ms period, is the longest
// stall of the event loop: what a user feels as a frozen window. Also reports the stalls of the
// load and layout phases, which happen before the run starts. Runs offscreen unless a display is
// set; figures depend on the machine's load.
#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTimer>
#include <cstdio>

#include "MainWindow.h"
#include "StallMeter.h"
#include "BackgroundJob.h"
#include "placement/regal/RegalEngine.h"
#include "RunPanel.h"
#include "TuningView.h"
#include "run/ResourceLocator.h"
#include "tuning/LearnedTuners.h"
#include "graph/Loaders.h"
#include "graph/SyntheticGenerator.h"

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    qputenv("GRAPHOPT_CLI", GRAPHOPT_BINARY_DIR "/app/graphopt");
    QApplication app(argc, argv);
    graphopt::registerRegalEngine();  // as the program's main does
    QApplication::setOrganizationName("GraphOptStudioBench");
    QCommandLineParser p;
    p.addOption({"engine", "placement engine", "engine", "brkga"});
    p.addOption({"nodes", "graph size", "n", "1000"});
    p.addOption({"family", "generator family", "family", "layered"});
    p.addOption({"seconds", "how long to measure during the run", "s", "10"});
    p.addOption({"tuner", "tuning mode: the tuner to run in the Kernel tuning tab", "tuner"});
    p.addOption({"measurer", "tuning mode: halide or sim", "measurer", "halide"});
    p.addOption({"task", "tuning mode: the task to tune", "k", "1"});
    p.addOption({"trials", "tuning mode: measurements", "n", "96"});
    p.addOption({"tuner-params", "tuning mode: tuner parameters (JSON)", "json", ""});
    p.addHelpOption();
    p.process(app);

    QTemporaryDir dir;
    if (p.isSet("tuner")) {
        graphopt::tuning::registerLearnedTuners();
        graphopt::ui::MainWindow w;
        w.setDatabasePath(dir.filePath("runs.db"));
        w.show();
        graphopt::bench::StallMeter meter(5);
        QElapsedTimer runClock;
        graphopt::ui::TuningView* v = w.tuningView();
        QObject::connect(&w, &graphopt::ui::MainWindow::modelLoaded, &w, [&] {
            w.showTuning();
            v->selectTask(p.value("task").toInt());
            v->setTuner(p.value("tuner"));
            v->setMeasurer(p.value("measurer"));
            v->setTrials(p.value("trials").toInt());
            v->setTunerParams(p.value("tuner-params"));
            // The references (libtorch, FMA peak) first, as a user's first look at the tab starts them.
            QObject::connect(v, &graphopt::ui::TuningView::referencesMeasured, &w, [&] {
                meter.reset();
                runClock.start();
                if (!v->startTuning()) {
                    std::fprintf(stderr, "could not start tuning: %s\n", qPrintable(v->statusText()));
                    QCoreApplication::exit(1);
                }
            }, Qt::SingleShotConnection);
        });
        QObject::connect(v, &graphopt::ui::TuningView::allTuningFinished, &w, [&] {
            const double stall = meter.longestStallMs();
            std::printf("ResNet-18 task %s, tuner %s, measurer %s, %s measurements in %.1f s\n",
                        qPrintable(p.value("task")), qPrintable(p.value("tuner")), qPrintable(p.value("measurer")),
                        qPrintable(p.value("trials")), runClock.elapsed() / 1000.0);
            std::printf("%s\n", qPrintable(v->statusText()));
            std::printf("longest GUI stall while tuning ran:   %7.1f ms over %lld ticks of 5 ms (target < 100 ms)\n",
                        stall, static_cast<long long>(meter.ticks()));
            QCoreApplication::exit(0);
        });
        QObject::connect(v, &graphopt::ui::TuningView::tuningFailed, &w, [](const QString& m) {
            std::fprintf(stderr, "tuning failed: %s\n", qPrintable(m));
            QCoreApplication::exit(1);
        });
        w.openModel(QString::fromStdString(graphopt::bundledModelPath("resnet18.onnx")));
        return app.exec();
    }
    const QString model = dir.filePath("graph.json");
    graphopt::GeneratorOptions gen;
    gen.family = graphopt::graphFamilyFromName(p.value("family").toStdString());
    gen.nodes = p.value("nodes").toInt();
    gen.seed = 1;
    graphopt::saveJson(graphopt::generateGraph(gen), model.toStdString());

    graphopt::ui::MainWindow w;
    w.setDatabasePath(dir.filePath("runs.db"));
    w.show();
    graphopt::bench::StallMeter meter(5);
    double loadStall = 0, layoutStall = 0;
    const double seconds = p.value("seconds").toDouble();
    QElapsedTimer runClock;

    QObject::connect(&w, &graphopt::ui::MainWindow::modelLoaded, &w, [&] {
        loadStall = meter.longestStallMs();
        meter.reset();
    });
    QObject::connect(&w, &graphopt::ui::MainWindow::layoutReady, &w, [&] {
        layoutStall = meter.longestStallMs();
        graphopt::RunSpec spec = w.runPanel()->spec();
        spec.engine = p.value("engine").toStdString();
        spec.budget = 100'000'000;  // never reached: the measurement stops the run
        w.runPanel()->setSpec(spec);
        if (!w.startRun()) {
            std::fprintf(stderr, "could not start the run\n");
            QCoreApplication::exit(1);
            return;
        }
        meter.reset();
        runClock.start();
        QTimer::singleShot(static_cast<int>(seconds * 1000), &w, [&] {
            const double runStall = meter.longestStallMs();
            const qint64 ticks = meter.ticks();
            w.runJob()->cancel();
            std::printf("graph: %s, %d nodes; engine %s; measured %.1f s of the run\n",
                        qPrintable(p.value("family")), gen.nodes, qPrintable(p.value("engine")),
                        runClock.elapsed() / 1000.0);
            std::printf("longest GUI stall while loading:      %7.1f ms\n", loadStall);
            std::printf("longest GUI stall while laying out:   %7.1f ms (includes building the scene)\n", layoutStall);
            std::printf("longest GUI stall while the run ran:  %7.1f ms over %lld ticks of 5 ms (target < 100 ms)\n",
                        runStall, static_cast<long long>(ticks));
        });
    });
    QObject::connect(&w, &graphopt::ui::MainWindow::runFinished, &w, [] { QCoreApplication::exit(0); });
    QObject::connect(&w, &graphopt::ui::MainWindow::loadFailed, &w, [](const QString& m) {
        std::fprintf(stderr, "%s\n", qPrintable(m));
        QCoreApplication::exit(1);
    });
    meter.reset();
    w.openModel(model);
    return app.exec();
}
