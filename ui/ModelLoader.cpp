#include "ModelLoader.h"

#include "ChildProcess.h"

#include <QFileInfo>
#include <QTemporaryDir>

#include <stdexcept>

#include "graph/Loaders.h"

namespace graphopt::ui {

namespace {
constexpr int kLoadPollMs = 25;  // how often the waiting thread looks at `cancelled`
}

std::shared_ptr<const Graph> loadModelIsolated(const QString& path, const ModelLoadOptions& options,
                                               const std::atomic<bool>& cancelled) {
    const std::string where = path.toStdString() + ": ";
    const bool onnx = path.endsWith(".onnx", Qt::CaseInsensitive);
    const int batch = onnx ? options.batch : 0;
    if (!QFileInfo(options.cliPath).isExecutable()) {
        LoadOptions load;
        load.batch = batch;
        return std::make_shared<const Graph>(loadGraph(path.toStdString(), load));
    }

    QTemporaryDir dir;
    if (!dir.isValid()) throw std::runtime_error(where + "no temporary folder to read it through");
    const QString json = dir.filePath("model.json");
    QStringList args{"convert", path, json, "--quiet"};
    if (batch > 0) args << "--batch" << QString::number(batch);
    ChildOutcome r;
    try {
        r = runChild(options.cliPath, args, [&cancelled] { return cancelled.load(); }, options.timeoutMs, kLoadPollMs);
    } catch (const std::exception&) {
        throw std::runtime_error(where + "could not start " + options.cliPath.toStdString() + " to read it");
    }
    if (r.stopped) return nullptr;
    if (r.timedOut)
        throw std::runtime_error(where + "reading it did not finish within " + std::to_string(options.timeoutMs / 1000) +
                                 " s and was stopped (the file may be damaged); the model shown is unchanged");
    if (r.crashed)
        throw std::runtime_error(where + "the reader crashed on this file (the file is damaged or triggers a bug; "
                                         "please report it); the model shown is unchanged");
    if (r.exitCode != 0) {
        // The CLI's one-line error already starts with the path.
        QString err = r.err;
        const QString prefix = "graphopt convert: ";
        if (err.startsWith(prefix)) err = err.mid(prefix.size());
        if (err.isEmpty()) err = QString::fromStdString(where) + QStringLiteral("the reader stopped with exit code %1").arg(r.exitCode);
        throw std::runtime_error(err.toStdString());
    }
    try {
        return std::make_shared<const Graph>(loadJson(json.toStdString()));
    } catch (const std::exception& e) {
        throw std::runtime_error(where + "its converted form could not be read back: " + e.what());
    }
}

}  // namespace graphopt::ui
