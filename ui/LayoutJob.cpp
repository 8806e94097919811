#include "LayoutJob.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QtConcurrent>

#include "graph/Loaders.h"

namespace graphopt::ui {

LayoutJob::LayoutJob(QObject* parent) : QObject(parent) {}

LayoutJob::~LayoutJob() {
    if (process_) {
        process_->disconnect(this);
        process_->kill();
        process_->waitForFinished(2000);
    }
}

QString LayoutJob::cliPath() const {
    if (!cliPath_.isEmpty()) return cliPath_;
    if (const QByteArray env = qgetenv("GRAPHOPT_CLI"); !env.isEmpty()) return QString::fromLocal8Bit(env);
    return QDir(QCoreApplication::applicationDirPath()).absoluteFilePath("graphopt");
}

void LayoutJob::start(const QString& modelPath, bool horizontal) {
    cancel();
    running_ = true;
    const int generation = ++generation_;
    timer_.start();
    const QString cli = cliPath();
    if (QFileInfo(cli).isExecutable()) {
        auto* p = new QProcess(this);
        process_ = p;
        QStringList args{"layout", modelPath, "--json"};
        if (horizontal) args << "--horizontal";
        connect(p, &QProcess::finished, this, [this, p, generation](int code, QProcess::ExitStatus st) {
            p->deleteLater();
            if (generation != generation_) return;  // stale: a newer layout started
            onProcessFinished(p, code, st);
        });
        connect(p, &QProcess::errorOccurred, this, [this, p, generation](QProcess::ProcessError e) {
            if (e != QProcess::FailedToStart || generation != generation_) return;
            running_ = false;
            p->deleteLater();
            emit failed(tr("Could not start %1 for the layout").arg(cliPath()));
        });
        p->start(cli, args);
        return;
    }
    // Fallback: in-process, on a worker thread.
    auto* watcher = new QFutureWatcher<std::pair<GraphLayout, QString>>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation] {
        watcher->deleteLater();
        if (generation != generation_) return;
        running_ = false;
        auto [layout, error] = watcher->result();
        if (error.isEmpty())
            emit finished(layout);
        else
            emit failed(error);
    });
    watcher->setFuture(QtConcurrent::run([modelPath, horizontal]() -> std::pair<GraphLayout, QString> {
        try {
            LayoutOptions opt;
            if (horizontal) opt.direction = LayoutOptions::Direction::LeftToRight;
            return {layoutGraph(loadGraph(modelPath.toStdString()), opt), QString()};
        } catch (const std::exception& e) {
            return {GraphLayout{}, QString::fromStdString(e.what())};
        }
    }));
}

void LayoutJob::cancel() {
    if (!running_) return;
    ++generation_;  // whatever arrives from the old job is dropped
    running_ = false;
    if (process_) {
        process_->kill();
        process_ = nullptr;  // deleted by its finished handler
    }
    emit cancelled();
}

void LayoutJob::onProcessFinished(QProcess* p, int exitCode, QProcess::ExitStatus status) {
    running_ = false;
    const QByteArray out = p->readAllStandardOutput();
    const QString err = QString::fromLocal8Bit(p->readAllStandardError()).trimmed();
    if (status != QProcess::NormalExit || exitCode != 0) {
        emit failed(err.isEmpty() ? tr("The layout process stopped (exit code %1)").arg(exitCode) : err);
        return;
    }
    try {
        emit finished(GraphLayout::fromJson(nlohmann::json::parse(out.toStdString())));
    } catch (const std::exception& e) {
        emit failed(tr("Unreadable layout: %1").arg(QString::fromStdString(e.what())));
    }
}

}  // namespace graphopt::ui
