// Runs a `graphopt` subcommand in a child process for the GUI and waits for it on the calling
// (worker) thread, checking a stop condition as it waits: the model reader (ModelLoader.h) and the
// graph layout (LayoutJob.h) both use it, so a reader or a Graphviz layout that crashes, hangs or
// is cancelled costs the child, never the window.
#pragma once

#include <QByteArray>
#include <QProcess>
#include <QString>
#include <QStringList>

#include <functional>

namespace graphopt::ui {

struct ChildOutcome {
    bool stopped = false;    // `stop` returned true: the child was killed, nothing else is set
    bool timedOut = false;   // ran past the time limit: killed
    bool crashed = false;    // ended by a signal
    int exitCode = 0;
    QByteArray out;          // standard output
    QString err;             // standard error, trimmed
};

// Starts `program args` and waits, looking at `stop` every `pollMs`; a child that runs longer
// than `timeoutMs` (<= 0: no limit) is killed. Throws std::runtime_error when it cannot start.
ChildOutcome runChild(const QString& program, const QStringList& args, const std::function<bool()>& stop,
                      int timeoutMs = 0, int pollMs = 25);

}  // namespace graphopt::ui
