// graphopt-studio [FILE]: the GUI. Without FILE it opens the last model, or the bundled
// ResNet-18 on first start.
#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QSettings>

#include "MainWindow.h"
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
    parser.process(app);

    graphopt::ui::MainWindow window;
    window.show();
    QString path = parser.positionalArguments().value(0);
    if (path.isEmpty()) {
        path = QSettings().value("lastModel").toString();
        if (path.isEmpty() || !QFileInfo::exists(path)) path = graphopt::ui::bundledModelPath("resnet18.onnx");
    }
    if (!path.isEmpty()) window.openModel(path);
    return app.exec();
}
