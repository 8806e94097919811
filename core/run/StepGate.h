// Step mode (teaching): a run that reaches a step boundary (BRKGA: the end of a generation) waits
// at the gate until someone lets it take one more step, lets it run to the end, or cancels it.
//
//   run's thread                      controlling thread (the GUI)
//   ... generation g done ...
//   gate.wait(&token)   -- blocks --  gate.step()      one more generation, then it waits again
//                                     gate.release()   no more waiting: runs to the end
//                                     token.cancel()   wait() returns false within ~20 ms
//
// Steps granted before the run reaches the gate are remembered (two clicks = two generations).
// Thread-safe; no Qt, so the CLI and tests can drive it too.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>

#include "run/Run.h"

namespace graphopt {

class StepGate {
public:
    // On the run's thread: returns true when the run may go on (a step was granted or the gate is
    // released), false when `cancel` was cancelled meanwhile.
    bool wait(const CancellationToken* cancel = nullptr);
    void step();     // grants one more step
    void release();  // the run goes on without waiting from now on
    bool released() const;
    bool waiting() const;     // the run is blocked in wait() now
    int64_t passed() const;   // boundaries passed so far (each wait() that returned true)

private:
    mutable std::mutex mutex_;
    std::condition_variable cv_;
    int64_t granted_ = 0;
    int64_t passed_ = 0;
    bool released_ = false;
    bool waiting_ = false;
};

}  // namespace graphopt
