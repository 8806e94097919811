#include "graph/GraphvizLock.h"

namespace graphopt {

std::mutex& graphvizMutex() {
    static std::mutex m;
    return m;
}

}  // namespace graphopt
