// graphopt place MODEL --objective runtime|memory --devices PRESET_OR_FILE --engine NAME
//                      --budget EVALS --seed S [--threads T] [--json] [--schedule] [--no-weights]
//                      [--no-store] [--db PATH]
// Runs a PlacementRun (core/placement) and prints the final running time, peak memory (per device
// too), evaluations and wall time; --json prints the result object instead.
#include <iomanip>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "Args.h"
#include "Commands.h"
#include "TextFormat.h"
#include "RunRecording.h"
#include "StoreOptions.h"
#include "graph/Loaders.h"
#include "placement/PlacementEngines.h"
#include "placement/PlacementRun.h"

namespace graphopt::cli {

namespace {

std::string secondsText(double s) {
    std::ostringstream os;
    os << std::fixed << std::setprecision(3);
    if (s < 1e-3)
        os << s * 1e6 << " us";
    else if (s < 1)
        os << s * 1e3 << " ms";
    else
        os << s << " s";
    return os.str();
}

}  // namespace

int cmdPlace(const ArgList& argv) {
    Args args(argv,
              {"objective", "devices", "engine", "budget", "seed", "threads", "population", "elite-fraction",
               "mutant-fraction", "rho-e", "policy", kDbFlag},
              {"json", "schedule", "no-weights", kNoStoreFlag});
    const std::string path = args.onePositional("MODEL");
    RunSpec spec;
    spec.kind = "placement";
    spec.objective = args.getChoice("objective", "runtime", {"runtime", "memory"});
    spec.engine = args.getChoice("engine", "brkga", placementEngineNames());
    spec.devices = args.get("devices", "2xgpu-pcie");
    spec.budget = args.getInt("budget", 5000, 0, int64_t(1) << 40);
    spec.seed = args.getSeed("seed", 1);
    spec.threads = int(args.getInt("threads", 0, 0, 1024));
    if (args.has("population")) spec.params["population"] = args.getInt("population", 100, 2, 1'000'000);
    if (args.has("elite-fraction")) spec.params["elite_fraction"] = args.getDouble("elite-fraction", 0.1, 0, 1);
    if (args.has("mutant-fraction")) spec.params["mutant_fraction"] = args.getDouble("mutant-fraction", 0.1, 0, 1);
    if (args.has("rho-e")) spec.params["rho_e"] = args.getDouble("rho-e", 0.7, 0, 1);
    if (args.has("no-weights")) spec.params["count_weights"] = false;
    if (args.has("policy")) spec.params["policy"] = args.get("policy", "");  // --engine regal

    DeviceModel devices = DeviceModel::load(spec.devices);  // fail on a bad preset before loading
    const Graph g = loadGraph(path);
    // Recorded in the run store (--db PATH, default in the XDG data folder) unless --no-store;
    // Ctrl-C cancels the run and stores its best result so far.
    RunRecording recording(args, spec, g, path);
    const PlacementResult r = recording.guard([&] {
        PlacementRun run(g, spec, devices, recording.callback(), recording.cancellationToken());
        return run.run();
    });
    recording.finished(r.toJson(), r.cancelled);

    if (args.has("json")) {
        nlohmann::json j = r.toJson(args.has("schedule"));
        j["model"] = path;
        if (recording.runId()) j["run_id"] = *recording.runId();
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    std::cout << "model:        " << path << " (" << g.nodeCount() << " nodes)\n";
    std::cout << "devices:      " << devices.name << " (";
    for (size_t k = 0; k < r.deviceNames.size(); ++k) std::cout << (k ? ", " : "") << r.deviceNames[k];
    std::cout << ")\n";
    std::cout << "engine:       " << r.engine << ", objective " << r.objective << ", budget " << r.budget << ", seed "
              << r.seed << (r.countWeights ? "" : ", weights not counted") << "\n";
    std::cout << "running time: " << secondsText(r.runtimeS) << "\n";
    std::cout << "peak memory:  " << humanBytes(double(r.peakBytes)) << " (";
    for (size_t k = 0; k < r.devicePeakBytes.size(); ++k)
        std::cout << (k ? ", " : "") << r.deviceNames[k] << " " << humanBytes(double(r.devicePeakBytes[k]));
    std::cout << ")\n";
    std::vector<int> perDevice(r.deviceNames.size(), 0);
    for (int d : r.placement) ++perDevice[d];
    std::cout << "ops:          ";
    for (size_t k = 0; k < perDevice.size(); ++k) std::cout << (k ? ", " : "") << r.deviceNames[k] << " " << perDevice[k];
    std::cout << "\n";
    std::cout << "cost:         " << std::setprecision(9) << r.cost << (r.feasible ? "" : " (over a device's memory)")
              << "\n";
    std::cout << "evaluations:  " << r.evaluations << "\n";
    std::cout << "wall time:    " << secondsText(r.wallS) << (r.cancelled ? " (cancelled)" : "") << "\n";
    if (recording.runId())
        std::cout << "recorded:     run " << *recording.runId() << " in " << recording.databasePath() << "\n";
    return 0;
}

}  // namespace graphopt::cli
