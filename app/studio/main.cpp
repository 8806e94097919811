// graphopt-studio [FILE]: the GUI. Without FILE it opens the last model, or the bundled
// ResNet-18 on first start.
#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QSettings>
#include <QTimer>
#include <cstdio>

#include "MainWindow.h"
#include "RunPanel.h"
#include "ResourcePaths.h"

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName("GraphOptStudio");
    QApplication::setApplicationName("graphopt-studio");
    QApplication::setApplicationVersion("0.1.0");

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
                                 "After the layout, start a placement run with <engine> and the run panel's "
                                 "other settings (with --screenshot: grab when it finishes).",
                                 "engine");
    parser.addOption(runEngine);
    parser.process(app);

    graphopt::ui::MainWindow window;
    window.show();
    QString path = parser.positionalArguments().value(0);
    if (path.isEmpty()) {
        path = QSettings().value("lastModel").toString();
        if (path.isEmpty() || !QFileInfo::exists(path)) path = graphopt::ui::bundledModelPath("resnet18.onnx");
    }
    const QString engine = parser.value(runEngine);
    if (!engine.isEmpty()) {
        QObject::connect(&window, &graphopt::ui::MainWindow::layoutReady, &window, [&window, engine] {
            graphopt::RunSpec spec = window.runPanel()->spec();
            spec.engine = engine.toStdString();
            window.runPanel()->setSpec(spec);
            if (!window.startRun()) std::fprintf(stderr, "could not start a %s run\n", qPrintable(engine));
        }, Qt::SingleShotConnection);
    }
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
        if (engine.isEmpty())
            QObject::connect(&window, &graphopt::ui::MainWindow::layoutReady, &window, grabAndQuit);
        else
            QObject::connect(&window, &graphopt::ui::MainWindow::runFinished, &window, grabAndQuit);
        QObject::connect(&window, &graphopt::ui::MainWindow::loadFailed, &window, [](const QString& message) {
            std::fprintf(stderr, "%s\n", qPrintable(message));
            QCoreApplication::exit(2);
        });
    }
    if (!path.isEmpty()) window.openModel(path);
    return app.exec();
}
