#include "Interrupt.h"

#include <atomic>
#include <csignal>

namespace graphopt::cli {

namespace {

// The scope's token, reachable from the signal handler. A lock-free atomic pointer and a
// lock-free atomic<bool> inside the token keep the handler async-signal-safe.
std::atomic<CancellationToken*> gToken{nullptr};
static_assert(std::atomic<CancellationToken*>::is_always_lock_free);
static_assert(std::atomic<bool>::is_always_lock_free);

extern "C" void cancelOnSignal(int sig) {
    CancellationToken* t = gToken.load();
    if (!t || t->isCancelled()) {
        std::signal(sig, SIG_DFL);
        std::raise(sig);
        return;
    }
    t->cancel();
}

}  // namespace

InterruptScope::InterruptScope() {
    gToken.store(&token_);
    std::signal(SIGINT, cancelOnSignal);
    std::signal(SIGTERM, cancelOnSignal);
}

InterruptScope::~InterruptScope() {
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    gToken.store(nullptr);
}

}  // namespace graphopt::cli
