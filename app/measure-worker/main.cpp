// graphopt-measure-worker: compiles and times Halide kernels for HalideMeasurer, one JSON request
// per line on stdin, one JSON reply per line on stdout (protocol in
// core/tuning/halide/MeasureWorkbench.h). It runs in its own process so that a kernel that
// crashes or hangs only takes this process down; the measurer then starts a new one.
#include <cstring>
#include <iostream>
#include <string>

#include "tuning/halide/MeasureWorkbench.h"

int main(int argc, char** argv) {
    bool hooks = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--test-hooks")) {
            hooks = true;
        } else {
            std::cerr << "usage: graphopt-measure-worker [--test-hooks]\n";
            return 2;
        }
    }
    std::ios::sync_with_stdio(false);
    graphopt::tuning::MeasureWorkbench bench(hooks);
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.empty()) continue;
        nlohmann::json reply;
        try {
            reply = bench.handle(nlohmann::json::parse(line));
        } catch (const std::exception& e) {
            reply = {{"ok", false}, {"error", std::string("bad request: ") + e.what()}};
        }
        std::cout << reply.dump() << '\n' << std::flush;
    }
    return 0;
}
