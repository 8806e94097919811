// graphopt place MODEL: see placeCommand() for the options.
// Runs a PlacementRun (core/placement) and prints the final running time, peak memory (per device
// too), evaluations and wall time; --json prints the result object instead.
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "Args.h"
#include "Commands.h"
#include "run/Units.h"
#include "Interrupt.h"
#include "ModelOptions.h"
#include "StoreOptions.h"
#include "graph/Loaders.h"
#include "execution/MeasuredCosts.h"
#include "placement/PlacementEngines.h"
#include "placement/PlacementExport.h"
#include "placement/PlacementRun.h"
#include "store/RecordedRun.h"

namespace graphopt::cli {

CommandSpec placeCommand() {
    CommandSpec spec{"place",
                     "MODEL",
                     "Places and schedules a model's operations on a set of devices with a placement engine, and "
                     "records the run",
                     {{"engine", "NAME", "brkga", "placement engine (listed below)", placementEngineNames()},
                      {"objective", "O", "runtime",
                       "what to minimize: the running time, the peak memory, or the time per sample in a "
                       "pipeline (max-load)",
                       {"runtime", "memory", "throughput"}},
                      {"micro-batches", "M", "1",
                       "M micro-batches of the model's batch flow through the placement as a pipeline "
                       "(params.micro_batches)"},
                      {"devices", "PRESET|FILE", DeviceModel::defaultPresetName(),
                       "device preset (" + [] {
                           std::string s;
                           for (const auto& p : DeviceModel::presetNames()) s += (s.empty() ? "" : ", ") + p;
                           return s;
                       }() + ") or a device JSON file",
                       {},
                       std::string("the model's own devices (a NeurIPS 2020 workload), else ") +
                           DeviceModel::defaultPresetName()},
                      {"costs", "FILE", "", "measured op costs (`graphopt profile`) for the devices of their kind",
                       {}, "the device model's estimates"},
                      {"budget", "EVALS", "5000", "decoder evaluations"},
                      {"seed", "S", "1", "random seed"},
                      {"threads", "T", "0", "worker threads (0 = all cores)"},
                      {"params", "JSON", "", "engine parameters as a JSON object (listed below), e.g. '{\"population\": 200}'"},
                      {"population", "N", "", "BRKGA/REGAL: chromosomes per generation (params.population)"},
                      {"elite-fraction", "X", "", "BRKGA/REGAL: params.elite_fraction"},
                      {"mutant-fraction", "X", "", "BRKGA/REGAL: params.mutant_fraction"},
                      {"rho-e", "X", "", "BRKGA/REGAL: params.rho_e"},
                      {"policy", "FILE", "", "REGAL: policy file (params.policy)", {}, "the shipped one for objective and devices"},
                      {"no-weights", "", "", "do not count weights in device memory (params.count_weights = false)"},
                      {"schedule", "", "", "with --json: include the full schedule"},
                      {"json", "", "", "print the result as JSON"},
                      {"export", "FILE", "", "write the placement for other tools: node -> device and each device's order"},
                      {"export-format", "F", "graphopt",
                       "--export's format: graphopt (docs/formats.md) or neurips (the NeurIPS 2020 package's split; "
                       "NeurIPS workloads only)",
                       {"graphopt", "neurips"}},
                      noStoreOption(),
                      dbOption()},
                     {"graphopt place resources/models/resnet18.onnx --engine regal --objective memory",
                      "graphopt place resources/models/inception_v3.onnx --engine brkga --params '{\"population\": 200}'",
                      "graphopt place resources/models/transformer_encoder.onnx --batch 32 --devices 4xgpu-nvlink"}};
    for (auto& o : modelShapeOptions()) spec.options.insert(spec.options.end() - 2, o);  // before --no-store, --db
    spec.options.insert(spec.options.end() - 2, trainingOption());
    spec.details = "engines:\n";
    for (const auto& d : placementEngineDescriptions()) {
        spec.details += "  " + d.name + ": " + d.summary + "\n";
        spec.details += describeParams(d.params, "      ");
    }
    spec.details += "every engine:\n" + describeParams(placementRunParams(), "      ");
    return spec;
}

int cmdPlace(const ArgList& argv) {
    const CommandSpec command = placeCommand();
    Args args(argv, command);
    const std::string path = args.onePositional("MODEL");
    RunSpec spec;
    spec.kind = "placement";
    spec.objective = args.getChoice("objective");
    spec.engine = args.getChoice("engine");
    spec.devices = args.require("devices");
    spec.budget = args.getInt("budget", 0, int64_t(1) << 40);
    spec.seed = args.getSeed("seed");
    spec.threads = int(args.getInt("threads", 0, 1024));
    spec.params = args.getJsonObject("params");
    if (args.has("population")) spec.params["population"] = args.getInt("population", 2, 1'000'000);
    if (args.has("elite-fraction")) spec.params["elite_fraction"] = args.getDouble("elite-fraction", 0, 1);
    if (args.has("mutant-fraction")) spec.params["mutant_fraction"] = args.getDouble("mutant-fraction", 0, 1);
    if (args.has("rho-e")) spec.params["rho_e"] = args.getDouble("rho-e", 0, 1);
    if (args.has("no-weights")) spec.params["count_weights"] = false;
    if (args.has("micro-batches")) spec.params["micro_batches"] = args.getInt("micro-batches", 1, 1024);
    if (args.has("policy")) spec.params["policy"] = args.require("policy");
    const LoadOptions inputs = loadOptionsFrom(args);

    const std::string exportPath = args.has("export") ? args.require("export") : std::string();
    const PlacementExportFormat exportFormat = placementExportFormatFromName(args.require("export-format"));

    // --devices given: fail on a bad preset before loading; else the graph's own devices when it
    // brings them (a NeurIPS 2020 workload), else the default preset.
    std::optional<DeviceModel> given;
    if (args.has("devices")) given = DeviceModel::load(spec.devices);
    // The stored run records the input dimensions set here (RunSpec::inputDims, from the graph).
    const Graph g = loadGraph(path, inputs);
    std::optional<DeviceModel> own = given ? std::nullopt : DeviceModel::fromGraph(g);
    if (own) spec.devices = own->name;
    DeviceModel devices = given ? *given : own ? *own : DeviceModel::load(spec.devices);
    if (!exportPath.empty()) checkPlacementExportable(g, devices, exportFormat);  // before the run, not after
    if (args.has("costs")) {
        const std::string costsPath = args.require("costs");
        spec.params.update(exec::MeasuredCosts::load(costsPath).placementParams(g, costsPath));
    }
    const auto inputDims = g.metadata.find("onnx.input_dims");
    PlacementRun run(g, spec, devices, path);  // refuses a bad engine parameter before anything is stored
    // Recorded in the run store (--db PATH, default in the XDG data folder) unless --no-store;
    // Ctrl-C cancels the run and stores its best result so far.
    RecordedRun recorded(run, recordingPathFrom(args));
    InterruptScope interrupt;
    const PlacementResult r = runOrFail([&] { return recorded.executeAs<PlacementResult>({}, interrupt.token()); });
    const int status = interrupt.interrupted() ? kExitInterrupted : 0;
    if (!exportPath.empty()) writePlacementExport(exportPath, g, devices, r, exportFormat);

    if (args.has("json")) {
        nlohmann::json j = r.toJson(args.has("schedule"));
        j["model"] = path;
        if (inputDims != g.metadata.end()) j["input_dims"] = inputDims->second;
        if (recorded.runId()) j["run_id"] = *recorded.runId();
        std::cout << j.dump(2) << "\n";
        return status;
    }
    std::cout << "model:        " << path << " (" << g.nodeCount() << " nodes"
              << (inputDims != g.metadata.end() ? ", inputs " + inputDims->second : "") << ")\n";
    std::cout << "devices:      " << devices.name << " (";
    for (size_t k = 0; k < r.deviceNames.size(); ++k) std::cout << (k ? ", " : "") << r.deviceNames[k];
    std::cout << ")\n";
    std::cout << "engine:       " << r.engine << ", objective " << r.objective << ", budget " << r.budget << ", seed "
              << r.seed << (r.countWeights ? "" : ", weights not counted")
              << (r.microBatches > 1 ? ", " + std::to_string(r.microBatches) + " micro-batches" : "") << "\n";
    std::cout << "running time: " << humanSeconds(r.runtimeS);
    if (r.microBatches > 1) std::cout << " (" << humanSeconds(r.runtimeS / r.microBatches) << " per micro-batch)";
    std::cout << "\n";
    std::cout << "throughput:   " << humanSeconds(r.throughputS) << " per sample (max-load of the placement)\n";
    std::cout << "peak memory:  " << humanBytes(double(r.peakBytes)) << " (";
    for (size_t k = 0; k < r.devicePeakBytes.size(); ++k)
        std::cout << (k ? ", " : "") << r.deviceNames[k] << " " << humanBytes(double(r.devicePeakBytes[k]));
    std::cout << ")\n";
    std::vector<int> perDevice(r.deviceNames.size(), 0);
    for (int d : r.placement) ++perDevice[d];
    std::cout << "ops:          ";
    for (size_t k = 0; k < perDevice.size(); ++k) std::cout << (k ? ", " : "") << r.deviceNames[k] << " " << perDevice[k];
    std::cout << "\n";
    std::cout << "memory fit:   " << r.feasibilityText() << "\n";
    if (r.engineInfo.contains("infeasible_devices")) {
        // The single-device baselines tried each device: say which did not hold the graph, one
        // line for devices that failed alike (a workload's identical accelerators).
        std::vector<std::pair<std::string, std::string>> lines;  // (figures, devices)
        for (const auto& dev : r.engineInfo["infeasible_devices"]) {
            std::string figures = humanBytes(dev.value("peak_bytes", 0.0)) + ", " +
                                        humanBytes(dev.value("over_limit_bytes", 0.0)) + " over its " +
                                        humanBytes(dev.value("capacity_bytes", 0.0));
            if (r.objective == "throughput")
                figures += " (it would take " + humanSeconds(dev.value("throughput_s", 0.0)) + " per sample)";
            else if (r.objective == "runtime")
                figures += " (it would take " + humanSeconds(dev.value("runtime_s", 0.0)) + ")";
            const std::string name = dev.value("device", "?");
            if (!lines.empty() && lines.back().first == figures)
                lines.back().second += ", " + name;
            else
                lines.push_back({figures, name});
        }
        for (const auto& [figures, names] : lines)
            std::cout << "              everything on " << names << " does not fit: " << figures << "\n";
        if (r.engineInfo.contains("device"))
            std::cout << "              kept " << r.engineInfo["device"].get<std::string>() << "\n";
    }
    // An infeasible result has no cost to compare: its search cost is the penalty's.
    if (r.feasible)
        std::cout << "cost:         " << std::setprecision(9) << r.cost << "\n";
    else
        std::cout << "cost:         infeasible\n";
    std::cout << "evaluations:  " << r.evaluations << "\n";
    std::cout << "wall time:    " << humanSeconds(r.wallS) << (r.cancelled ? " (cancelled)" : "") << "\n";
    // What an engine says about its own result (a partitioner that fell back to one order, a
    // split that ignores memory because none fits).
    if (r.engineInfo.contains("note") && r.engineInfo["note"].is_string())
        std::cout << "note:         " << r.engineInfo["note"].get<std::string>() << "\n";
    if (!exportPath.empty()) std::cout << "exported:     " << exportPath << "\n";
    if (recorded.runId())
        std::cout << "recorded:     run " << *recorded.runId() << " in " << recorded.databasePath() << "\n";
    return status;
}

}  // namespace graphopt::cli
