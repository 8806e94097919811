// Graphviz (cgraph and gvc) keeps global state and is not thread-safe: every call into it (DOT
// parsing in loadDot, layout in the UI) holds this one mutex.
#pragma once

#include <mutex>

namespace graphopt {

std::mutex& graphvizMutex();

}  // namespace graphopt
