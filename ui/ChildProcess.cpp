#include "ChildProcess.h"

#include <QElapsedTimer>
#include <stdexcept>

namespace graphopt::ui {

ChildOutcome runChild(const QString& program, const QStringList& args, const std::function<bool()>& stop, int timeoutMs,
                      int pollMs) {
    QProcess p;
    p.setProcessChannelMode(QProcess::SeparateChannels);
    p.start(program, args);
    if (!p.waitForStarted(10000)) throw std::runtime_error("could not start " + program.toStdString());
    ChildOutcome r;
    QElapsedTimer clock;
    clock.start();
    while (!p.waitForFinished(pollMs)) {
        r.stopped = stop && stop();
        r.timedOut = !r.stopped && timeoutMs > 0 && clock.elapsed() > timeoutMs;
        if (r.stopped || r.timedOut) {
            p.kill();
            p.waitForFinished(2000);
            return r;
        }
    }
    r.crashed = p.exitStatus() == QProcess::CrashExit;
    r.exitCode = p.exitCode();
    r.out = p.readAllStandardOutput();
    r.err = QString::fromLocal8Bit(p.readAllStandardError()).trimmed();
    return r;
}

}  // namespace graphopt::ui
