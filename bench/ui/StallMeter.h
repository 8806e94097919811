// The longest stall of the GUI event loop: a 5 ms precise timer ticks on the GUI thread, and the
// longest gap between two ticks, minus the period, is what a user feels as a frozen window.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <algorithm>

namespace graphopt::bench {

// Records the longest gap between consecutive ticks since the last reset().
class StallMeter : public QObject {
public:
    explicit StallMeter(int periodMs) : periodMs_(periodMs) {
        timer_.setTimerType(Qt::PreciseTimer);
        timer_.setInterval(periodMs);
        connect(&timer_, &QTimer::timeout, this, [this] {
            const qint64 now = clock_.nsecsElapsed();
            if (last_ >= 0) worst_ = std::max(worst_, now - last_);
            last_ = now;
            ++ticks_;
        });
        clock_.start();
        timer_.start();
    }
    void reset() {
        worst_ = 0;
        ticks_ = 0;
        last_ = clock_.nsecsElapsed();
    }
    double longestStallMs() const { return std::max(0.0, worst_ / 1e6 - periodMs_); }
    qint64 ticks() const { return ticks_; }

private:
    int periodMs_;
    QTimer timer_;
    QElapsedTimer clock_;
    qint64 last_ = -1, worst_ = 0, ticks_ = 0;
};

}  // namespace graphopt::bench
