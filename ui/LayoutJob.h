// Lays a graph out off the GUI thread, cancellably, in two steps: the fast layered layout
// (LayeredLayout.h) on a worker thread of this process, which gives the first picture within
// milliseconds and checks the cancel token between its phases; then, unless only the fast one is
// wanted, Graphviz dot on a second BackgroundJob. The dot layout runs in a child process (`graphopt layout MODEL --json`) that the job's worker thread waits for: Graphviz
// cannot be interrupted inside a call and is not thread-safe, but a process can be killed, and the
// worker kills it as soon as the job is cancelled or superseded. If the CLI binary is missing, the
// layout runs on the worker thread itself, where Cancel only discards the result.
#pragma once

#include <QObject>
#include <memory>

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

    // Supersedes any running layout. `graph` is the model read from `modelPath` (the fast layout
    // uses it; dot's child process reads the file). `withDot` false stops after the fast layout.
    void start(const QString& modelPath, std::shared_ptr<const Graph> graph, bool horizontal, bool withDot);
    void startDot(const QString& modelPath, bool horizontal);  // dot alone (the fast one is shown)
    void cancel();
    bool isRunning() const;
    bool isDotRunning() const;
    double elapsedSeconds() const;     // of the dot layout
    double fastSeconds() const { return fastSeconds_; }  // the last fast layout's time

signals:
    void fastFinished(const graphopt::GraphLayout& layout);
    void finished(const graphopt::GraphLayout& layout);  // dot's
    void failed(const QString& message);
    void cancelled();

private:
    QString cliPath_;
    BackgroundJob* fastJob_ = nullptr;
    BackgroundJob* job_ = nullptr;  // dot
    QString pendingPath_;           // dot follows the fast layout for this model
    bool pendingHorizontal_ = false, pendingDot_ = false;
    double fastSeconds_ = 0;
};

}  // namespace graphopt::ui
