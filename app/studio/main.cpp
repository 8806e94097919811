// graphopt-studio [FILE]: the GUI. Without FILE it opens the last model, or the bundled
// ResNet-18 on first start.
#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QSettings>
#include <QTimer>
#include <cstdio>
#include <memory>

#include "MainWindow.h"
#include "RunsBrowser.h"
#include "TrainingView.h"
#include "RunPanel.h"
#include "GraphView.h"
#include "TuningView.h"
#include "BackgroundJob.h"
#include "placement/regal/RegalEngine.h"
#include "run/ResourceLocator.h"
#include "tuning/LearnedTuners.h"

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    // Engines and tuners from graphopt_nn register here, in the program's main, so every window
    // and panel lists them.
    graphopt::registerRegalEngine();
    graphopt::tuning::registerLearnedTuners();
    QApplication::setOrganizationName("GraphOptStudio");
    QApplication::setApplicationName("graphopt-studio");
    QApplication::setApplicationVersion(GRAPHOPT_VERSION);

    QCommandLineParser parser;
    parser.setApplicationDescription("GraphOpt Studio: placement, scheduling and kernel tuning of computation graphs");
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument("file", "Model to open (ONNX, CostGraphDef text, DOT or JSON)");
    QCommandLineOption screenshot("screenshot",
                                  "Open the model, save a PNG of the window to <png>, and quit (for docs and checks).",
                                  "png");
    parser.addOption(screenshot);
    QCommandLineOption runEngine("run",
                                 "After the layout, run placements with <engines> (comma-separated, one after "
                                 "the other, the run panel's other settings; with --screenshot: grab when the "
                                 "last finishes).",
                                 "engines");
    parser.addOption(runEngine);
    QCommandLineOption tune("tune",
                            "After loading, tune a task with <tuners> (comma-separated, one after the other) in the "
                            "Kernel tuning tab (with --screenshot: grab when the last finishes).",
                            "tuners");
    QCommandLineOption task("task", "The task --tune tunes (default 1).", "K", "1");
    QCommandLineOption measurer("measurer", "halide (default) or sim, for --tune.", "M", "halide");
    QCommandLineOption trials("trials", "Measurements per --tune run (default 48).", "N", "48");
    QCommandLineOption tunerParams("tuner-params",
                                   "Tuner parameters (JSON) for --tune; given once per tuner, the n-th goes to the n-th.",
                                   "JSON");
    for (const auto* o : {&tune, &task, &measurer, &trials, &tunerParams}) parser.addOption(*o);
    QCommandLineOption compare("compare",
                               "Show the Runs tab comparing stored runs: comma-separated run ids, or 'new' for the "
                               "runs --run made (after they finish; with --screenshot: grab then).",
                               "ids");
    parser.addOption(compare);
    QCommandLineOption openRun("open-run",
                               "After the layout, open stored run <id> as the Runs tab's Open does (a training run: "
                               "its curves in the Policy training tab; with --screenshot: grab then).",
                               "id");
    parser.addOption(openRun);
    QCommandLineOption train("train",
                             "Train a REGAL policy for <epochs> epochs in the Policy training tab with its other "
                             "settings (with --screenshot: grab when it ends).",
                             "epochs");
    parser.addOption(train);
    QCommandLineOption explain("explain",
                               "After the layout, select the first node whose name contains <text> and show, in the "
                               "REGAL policy tab, the key distributions the policy chose for it (engine regal).",
                               "text");
    parser.addOption(explain);
    QCommandLineOption steps("steps",
                             "With --run: step mode (one generation per step); step on until generation <n> is "
                             "shown and wait there (with --screenshot: grab then).",
                             "n");
    parser.addOption(steps);
    QCommandLineOption fastLayout("fast-layout", "Keep the fast layered layout (View > Keep the Fast Layout): no Graphviz dot.");
    parser.addOption(fastLayout);
    QCommandLineOption openScope("open-scope",
                                 "After the first picture of a graph folded by name scope, open the scope <path> "
                                 "(for example /model/layers.3) and select its first node.",
                                 "path");
    parser.addOption(openScope);
    // Settings of the runs --run starts (as the run panel would take them), for scripted demos.
    QCommandLineOption devices("devices", "Devices for --run: a preset, a device JSON file or from-model.", "D");
    QCommandLineOption objective("objective", "Objective for --run: runtime, memory or throughput.", "O");
    QCommandLineOption microBatches("micro-batches", "Micro-batches for --run (a pipeline).", "M");
    QCommandLineOption budget("budget", "Decoder evaluations for --run.", "EVALS");
    for (const auto* o : {&devices, &objective, &microBatches, &budget}) parser.addOption(*o);
    parser.process(app);

    graphopt::ui::MainWindow window;
    if (parser.isSet(fastLayout)) window.setKeepFastLayout(true);
    window.show();
    QString path = parser.positionalArguments().value(0);
    if (path.isEmpty()) {
        path = QSettings().value("lastModel").toString();
        if (path.isEmpty() || !QFileInfo::exists(path)) path = QString::fromStdString(graphopt::bundledModelPath("resnet18.onnx"));
    }
    const QStringList engines = parser.value(runEngine).split(',', Qt::SkipEmptyParts);
    auto nextRun = std::make_shared<int>(0);
    auto newRuns = std::make_shared<QList<qint64>>();
    auto finishedRuns = std::make_shared<int>(0);  // counted here, before startNext starts the next one
    QObject::connect(&window, &graphopt::ui::MainWindow::runFinished, &window, [newRuns, finishedRuns](qint64 id) {
        ++*finishedRuns;
        if (id >= 0) newRuns->append(id);
    });
    // --compare: select the runs in the Runs tab and compare them.
    auto showComparison = [&window, newRuns, ids = parser.value(compare)] {
        QList<qint64> wanted;
        if (ids == "new")
            wanted = *newRuns;
        else
            for (const QString& id : ids.split(',', Qt::SkipEmptyParts)) wanted << id.toLongLong();
        window.showRuns();
        window.runsBrowser()->refresh();
        window.runsBrowser()->selectRuns(wanted);
        QString error;
        if (!window.runsBrowser()->compareSelected(&error)) std::fprintf(stderr, "cannot compare: %s\n", qPrintable(error));
    };
    const bool comparing = parser.isSet(compare);
    const bool opening = parser.isSet(openRun);
    auto openStored = [&window, id = parser.value(openRun).toLongLong()] {
        QString error;
        if (!window.openStoredRun(id, &error)) std::fprintf(stderr, "cannot open run %lld: %s\n", id, qPrintable(error));
    };
    if (opening && !parser.isSet(screenshot))
        QObject::connect(&window, &graphopt::ui::MainWindow::finalLayoutReady, &window, openStored, Qt::SingleShotConnection);
    auto startNext = [&window, engines, nextRun, &parser, &devices, &objective, &microBatches, &budget] {
        if (*nextRun >= engines.size()) return;
        const QString engine = engines[(*nextRun)++];
        graphopt::RunSpec spec = window.runPanel()->spec();
        spec.engine = engine.toStdString();
        if (parser.isSet(devices)) spec.devices = parser.value(devices).toStdString();
        if (parser.isSet(objective)) spec.objective = parser.value(objective).toStdString();
        if (parser.isSet(microBatches)) spec.params["micro_batches"] = parser.value(microBatches).toInt();
        if (parser.isSet(budget)) spec.budget = parser.value(budget).toLongLong();
        window.runPanel()->setSpec(spec);
        if (!window.startRun()) std::fprintf(stderr, "could not start a %s run\n", qPrintable(engine));
    };
    const bool stepping = parser.isSet(steps) && !engines.isEmpty();
    if (stepping) {
        window.runPanel()->setStepMode(true);
        QObject::connect(&window, &graphopt::ui::MainWindow::stepShown, &window, [&window, last = parser.value(steps).toLongLong()](qint64 g) {
            if (g < last) QTimer::singleShot(0, window.runJob(), &graphopt::ui::BackgroundJob::step);
        });
    }
    if (!engines.isEmpty()) {
        QObject::connect(&window, &graphopt::ui::MainWindow::layoutReady, &window, startNext, Qt::SingleShotConnection);
        QObject::connect(&window, &graphopt::ui::MainWindow::runFinished, &window, startNext);
    }
    const QStringList tuners = parser.value(tune).split(',', Qt::SkipEmptyParts);
    auto nextTune = std::make_shared<int>(0);
    auto tuneNext = [&window, tuners, nextTune, &parser, &task, &measurer, &trials, &tunerParams] {
        if (*nextTune >= tuners.size()) return;
        graphopt::ui::TuningView* v = window.tuningView();
        v->setTuner(tuners[(*nextTune)++]);
        v->selectTask(parser.value(task).toInt());
        v->setMeasurer(parser.value(measurer));
        v->setTrials(parser.value(trials).toInt());
        const QStringList params = parser.values(tunerParams);
        v->setTunerParams(params.size() == tuners.size() ? params[*nextTune - 1] : params.value(0));
        if (!v->startTuning()) std::fprintf(stderr, "could not start tuning: %s\n", qPrintable(v->statusText()));
    };
    if (!tuners.isEmpty()) {
        QObject::connect(&window, &graphopt::ui::MainWindow::modelLoaded, &window, [&window, tuneNext] {
            window.showTuning();
            QTimer::singleShot(0, &window, tuneNext);
        }, Qt::SingleShotConnection);
        QObject::connect(window.tuningView(), &graphopt::ui::TuningView::allTuningFinished, &window, tuneNext);
    }
    const bool explaining = parser.isSet(explain);
    auto showExplanation = [&window, text = parser.value(explain)] {
        graphopt::RunSpec spec = window.runPanel()->spec();
        spec.engine = "regal";
        window.runPanel()->setSpec(spec);
        if (window.graphView()->findNext(text) < 0) std::fprintf(stderr, "no node matches %s\n", qPrintable(text));
        window.showPolicyTab();
    };
    const bool training = parser.isSet(train);
    if (training)
        QObject::connect(&window, &graphopt::ui::MainWindow::layoutReady, &window, [&window, epochs = parser.value(train).toInt()] {
            window.showTraining();
            window.trainingView()->setEpochs(std::max(1, epochs));
            QString error;
            if (!window.trainingView()->startTraining(&error)) std::fprintf(stderr, "cannot train: %s\n", qPrintable(error));
        }, Qt::SingleShotConnection);
    if (parser.isSet(openScope))
        QObject::connect(&window, &graphopt::ui::MainWindow::layoutReady, &window, [&window, scope = parser.value(openScope)] {
            graphopt::ui::GraphView* view = window.graphView();
            const int s = view->folding().tree().find(scope.toStdString());
            if (s < 0) {
                std::fprintf(stderr, "no scope %s in this graph\n", qPrintable(scope));
                return;
            }
            view->openScope(s);
            const auto& nodes = view->folding().tree().scopes()[static_cast<size_t>(s)].nodes;
            if (!nodes.empty()) view->selectNode(nodes.front());
        }, Qt::SingleShotConnection);
    if (parser.isSet(screenshot)) {
        const QString png = parser.value(screenshot);
        auto grabAndQuit = [&window, png] {
            // Let layouts and charts settle before grabbing.
            QTimer::singleShot(500, &window, [&window, png] {
                const bool ok = window.grab().save(png);
                std::fprintf(ok ? stdout : stderr, ok ? "saved %s\n" : "could not write %s\n", qPrintable(png));
                QCoreApplication::exit(ok ? 0 : 1);
            });
        };
        if (training)
            QObject::connect(window.trainingView(), &graphopt::ui::TrainingView::trainingFinished, &window,
                             [grabAndQuit](const QString&) { grabAndQuit(); });
        else if (!tuners.isEmpty())
            QObject::connect(window.tuningView(), &graphopt::ui::TuningView::allTuningFinished, &window,
                             [&window, nextTune, tuners, grabAndQuit] {
                                 if (*nextTune >= tuners.size() && !window.tuningView()->isRunning()) grabAndQuit();
                             });
        else if (stepping)
            QObject::connect(&window, &graphopt::ui::MainWindow::stepShown, &window,
                             [grabAndQuit, last = parser.value(steps).toLongLong()](qint64 g) {
                                 if (g == last) grabAndQuit();
                             });
        else if (engines.isEmpty())  // the layout that stays (dot's, unless the fast one is kept)
            QObject::connect(&window, &graphopt::ui::MainWindow::finalLayoutReady, &window,
                             [grabAndQuit, comparing, showComparison, explaining, showExplanation, opening, openStored] {
                if (explaining) showExplanation();
                if (opening) openStored();
                if (comparing) showComparison();
                grabAndQuit();
            }, Qt::SingleShotConnection);
        else
            QObject::connect(&window, &graphopt::ui::MainWindow::runFinished, &window,
                             [finishedRuns, engines, grabAndQuit, comparing, showComparison] {
                                 if (*finishedRuns < engines.size()) return;
                                 if (comparing) showComparison();
                                 grabAndQuit();
                             });
    } else if (explaining) {
        QObject::connect(&window, &graphopt::ui::MainWindow::layoutReady, &window, showExplanation, Qt::SingleShotConnection);
    } else if (comparing) {
        if (engines.isEmpty())
            QObject::connect(&window, &graphopt::ui::MainWindow::layoutReady, &window, showComparison,
                             Qt::SingleShotConnection);
        else
            QObject::connect(&window, &graphopt::ui::MainWindow::runFinished, &window, [finishedRuns, engines, showComparison] {
                if (*finishedRuns >= engines.size()) showComparison();
            });
        QObject::connect(&window, &graphopt::ui::MainWindow::loadFailed, &window, [](const QString& message) {
            std::fprintf(stderr, "%s\n", qPrintable(message));
            QCoreApplication::exit(2);
        });
    }
    if (!path.isEmpty()) window.openModel(path);
    return app.exec();
}
