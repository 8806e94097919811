// Ctrl-C and SIGTERM for the commands that run an engine. While an InterruptScope lives, the
// first signal cancels its token: the run stops at its next step, stores what it has as
// `cancelled`, and the command exits 130. A second signal, for a run that does not stop quickly
// enough, ends the process the default way (the run is then found `interrupted` at the next open
// of the store). Each scope has a token of its own, so nothing carries over between commands.
#pragma once

#include "run/Run.h"

namespace graphopt::cli {

class InterruptScope {
public:
    InterruptScope();
    ~InterruptScope();
    InterruptScope(const InterruptScope&) = delete;
    InterruptScope& operator=(const InterruptScope&) = delete;

    const CancellationToken* token() const { return &token_; }
    bool interrupted() const { return token_.isCancelled(); }

private:
    CancellationToken token_;
};

}  // namespace graphopt::cli
