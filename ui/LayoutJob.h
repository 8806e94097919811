// Runs a Graphviz layout off the GUI thread, cancellably, on a BackgroundJob. The layout runs in a
// child process (`graphopt layout MODEL --json`) that the job's worker thread waits for: Graphviz
// cannot be interrupted inside a call and is not thread-safe, but a process can be killed, and the
// worker kills it as soon as the job is cancelled or superseded. If the CLI binary is missing, the
// layout runs on the worker thread itself, where Cancel only discards the result.
#pragma once

#include <QObject>

#include "graph/GraphLayout.h"

namespace graphopt::ui {

class BackgroundJob;

class LayoutJob : public QObject {
    Q_OBJECT
public:
    explicit LayoutJob(QObject* parent = nullptr);
    ~LayoutJob() override;

    // The `graphopt` executable; default: $GRAPHOPT_CLI, else next to this application's binary.
    void setCliPath(const QString& path) { cliPath_ = path; }
    QString cliPath() const;

    void start(const QString& modelPath, bool horizontal);  // supersedes any running layout
    void cancel();
    bool isRunning() const;
    double elapsedSeconds() const;

signals:
    void finished(const graphopt::GraphLayout& layout);
    void failed(const QString& message);
    void cancelled();

private:
    QString cliPath_;
    BackgroundJob* job_ = nullptr;
};

}  // namespace graphopt::ui
