// tiled_validity [--per-task N] [--seed S] [--lanes 8|16] [--threads T] [--model resnet18] [--from-task I]
//
// The tiled template's validity at scale: N seeded random configurations (default 200) of every
// conv2d task of a bundled model, each compiled, run and checked against libtorch's conv2d on the
// same data by the measure worker (the suite checks a few per task). Prints per task the space
// size, how many configurations failed (with the first errors) and the spread of the measured
// GFLOP/s, which says how much the choice of configuration matters in this space. Exits 1 when
// any configuration fails.
#include <algorithm>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <set>
#include <string>

#include "graph/Loaders.h"
#include "run/Rng.h"
#include "tuning/HalideMeasurer.h"
#include "tuning/TemplateSpace.h"

using namespace graphopt;
using namespace graphopt::tuning;

int main(int argc, char** argv) {
    int perTask = 200, lanes = hostVectorLanes(), threads = 1;
    size_t fromTask = 0;  // --from-task I: tasks before I draw their configurations (the same as a whole run) but measure nothing
    uint64_t seed = 1;
    std::string model = "resnet18";
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::cerr << "tiled_validity: " << a << " needs a value\n";
                std::exit(2);
            }
            return argv[++i];
        };
        try {
            if (a == "--per-task") perTask = std::stoi(next());
            else if (a == "--seed") seed = std::stoull(next());
            else if (a == "--lanes") lanes = std::stoi(next());
            else if (a == "--threads") threads = std::stoi(next());
            else if (a == "--model") model = next();
            else if (a == "--from-task") fromTask = std::stoul(next());
            else {
                std::cerr << "usage: tiled_validity [--per-task N] [--seed S] [--lanes 8|16] [--threads T] [--model M] [--from-task I]\n";
                return 2;
            }
        } catch (const std::exception&) {
            std::cerr << "tiled_validity: bad value for " << a << "\n";
            return 2;
        }
    }
    if (perTask < 1 || (lanes != 8 && lanes != 16) || threads < 1) {
        std::cerr << "tiled_validity: --per-task >= 1, --lanes 8 or 16, --threads >= 1\n";
        return 2;
    }
    const std::string path = std::string(GRAPHOPT_SOURCE_DIR) + "/resources/models/" + model + ".onnx";
    HalideMeasurerOptions o;
    o.workerPath = GRAPHOPT_MEASURE_WORKER;
    o.minTimeS = 0.01;
    o.timeoutS = 60;
    o.threads = threads;
    HalideMeasurer m(o);
    Rng rng(seed);
    int failures = 0, measured = 0;
    std::cout << model << ": " << perTask << " random tiled configurations per conv2d task, " << lanes << " lanes, "
              << threads << " thread(s), seed " << seed << "\n";
    std::cout << std::left << std::setw(4) << "#" << std::setw(44) << "task" << std::right << std::setw(14) << "configs"
              << std::setw(8) << "failed" << std::setw(10) << "min" << std::setw(10) << "median" << std::setw(10)
              << "best" << "  GFLOP/s\n";
    const auto tasks = extractTasks(loadGraph(path));
    for (size_t i = 0; i < tasks.size(); ++i) {
        const TuningTask t = withTiledTemplate(tasks[i], lanes);
        if (!t.isTiled()) continue;
        const KnobSpace s = templateSpace(t);
        std::set<ConfigIndex> configs;
        while (static_cast<int>(configs.size()) < std::min<uint64_t>(perTask, s.size())) configs.insert(s.random(rng));
        if (i < fromTask) continue;  // a run resumed where an earlier one stopped: the same draws
        std::vector<double> gflops;
        std::vector<std::string> errors;
        for (const auto& r : m.measure(t, {configs.begin(), configs.end()})) {
            ++measured;
            if (r.ok) {
                gflops.push_back(r.gflops);
            } else {
                ++failures;
                if (errors.size() < 3) errors.push_back(s.describeText(r.config) + ": " + r.error);
            }
        }
        std::sort(gflops.begin(), gflops.end());
        std::string shape = t.describe();
        std::cout << std::left << std::setw(4) << i << std::setw(44) << shape.substr(shape.find(' ') + 1) << std::right
                  << std::setw(14) << s.size() << std::setw(8) << (configs.size() - gflops.size()) << std::fixed
                  << std::setprecision(1);
        if (gflops.empty())
            std::cout << std::setw(10) << "-" << std::setw(10) << "-" << std::setw(10) << "-";
        else
            std::cout << std::setw(10) << gflops.front() << std::setw(10) << gflops[gflops.size() / 2] << std::setw(10)
                      << gflops.back();
        std::cout << "\n" << std::flush;
        std::cout.unsetf(std::ios::fixed);
        for (const auto& e : errors) std::cout << "    failed: " << e << "\n";
    }
    std::cout << measured << " configurations measured, " << failures << " failed\n";
    return failures ? 1 : 0;
}
