#include "run/StepGate.h"

#include <chrono>

namespace graphopt {

bool StepGate::wait(const CancellationToken* cancel) {
    std::unique_lock lock(mutex_);
    waiting_ = true;
    // The token has no way to notify, so a cancelled run is noticed by polling it: 20 ms is
    // well under what a user perceives after pressing Cancel.
    while (!released_ && granted_ == 0) {
        if (cancel && cancel->isCancelled()) {
            waiting_ = false;
            return false;
        }
        cv_.wait_for(lock, std::chrono::milliseconds(20));
    }
    waiting_ = false;
    if (!released_) --granted_;
    ++passed_;
    return !(cancel && cancel->isCancelled());
}

void StepGate::step() {
    {
        std::lock_guard lock(mutex_);
        ++granted_;
    }
    cv_.notify_all();
}

void StepGate::release() {
    {
        std::lock_guard lock(mutex_);
        released_ = true;
    }
    cv_.notify_all();
}

bool StepGate::released() const {
    std::lock_guard lock(mutex_);
    return released_;
}

bool StepGate::waiting() const {
    std::lock_guard lock(mutex_);
    return waiting_;
}

int64_t StepGate::passed() const {
    std::lock_guard lock(mutex_);
    return passed_;
}

}  // namespace graphopt
