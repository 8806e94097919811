// Runs a Graphviz layout off the GUI thread, cancellably. The layout runs in a child process
// (`graphopt layout MODEL --json`): Graphviz cannot be interrupted inside a call and is not
// thread-safe, but a process can be killed. If the CLI binary is missing, it falls back to a
// worker thread, where Cancel only discards the result.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QProcess>

#include "graph/GraphLayout.h"

namespace graphopt::ui {

class LayoutJob : public QObject {
    Q_OBJECT
public:
    explicit LayoutJob(QObject* parent = nullptr);
    ~LayoutJob() override;

    // The `graphopt` executable; default: next to this application's binary.
    void setCliPath(const QString& path) { cliPath_ = path; }
    QString cliPath() const;

    void start(const QString& modelPath, bool horizontal);  // cancels any running layout first
    void cancel();
    bool isRunning() const { return running_; }
    double elapsedSeconds() const { return timer_.isValid() ? timer_.elapsed() / 1000.0 : 0.0; }

signals:
    void finished(const graphopt::GraphLayout& layout);
    void failed(const QString& message);
    void cancelled();

private:
    void onProcessFinished(QProcess* p, int exitCode, QProcess::ExitStatus status);

    QString cliPath_;
    QPointer<QProcess> process_;
    QElapsedTimer timer_;
    bool running_ = false;
    int generation_ = 0;
};

}  // namespace graphopt::ui
