// graphopt train-policy (an adapter over regal::TrainingRun, core/placement/regal/TrainingRun.h) and
// graphopt eval-policy (core/placement/regal/RegalTraining.h). Options: trainPolicyCommand() and
// evalPolicyCommand().
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "Args.h"
#include "Commands.h"
#include "DistributedOptions.h"
#include "Interrupt.h"
#include "ModelOptions.h"
#include "StoreOptions.h"
#include "graph/IsolatedLoader.h"
#include "graph/Loaders.h"
#include "nn/TorchRuntime.h"
#include "placement/PlacementEngines.h"
#include "placement/regal/RegalEngine.h"
#include "placement/regal/RegalTraining.h"
#include "placement/regal/TrainingRun.h"
#include "store/RecordedRun.h"
#include "run/ResourceLocator.h"
#include "run/TextList.h"

namespace graphopt::cli {

namespace fs = std::filesystem;

namespace {

// A directory with splits.json gives its "test" list (or "train" for split == "train"); another
// directory gives every graph file in it (models, graph JSON, and the profiled workloads: NeurIPS
// JSON files and PipeDream .txt profiles); anything else is a file.
std::vector<std::string> graphFiles(const std::string& spec, const std::string& split) {
    std::vector<std::string> files;
    for (const std::string& item : splitList(spec)) {
        std::error_code ec;
        if (fs::is_directory(item, ec)) {
            if (fs::exists(fs::path(item) / "splits.json")) {
                for (const auto& f : regal::splitFiles(item, split)) files.push_back((fs::path(item) / f).string());
            } else {
                std::vector<std::string> found;
                for (const auto& e : fs::directory_iterator(item)) {
                    const std::string ext = e.path().extension().string(), stem = e.path().stem().string();
                    // .txt: PipeDream profiles; a workload folder's licence and read-me are not graphs.
                    const bool profile = ext == ".txt" && stem.rfind("LICENSE", 0) != 0 && stem.rfind("README", 0) != 0;
                    if (ext == ".onnx" || ext == ".json" || ext == ".pbtxt" || ext == ".dot" || ext == ".gv" || profile)
                        found.push_back(e.path().string());
                }
                std::sort(found.begin(), found.end());
                if (found.empty()) throw UsageError(item + ": no graph files in this directory");
                files.insert(files.end(), found.begin(), found.end());
            }
        } else {
            if (!fs::exists(item, ec)) throw UsageError(item + ": no such file or directory");
            files.push_back(item);
        }
    }
    if (files.empty()) throw UsageError("no test graphs given");
    return files;
}

// Every file with the same input sizes (--batch, --input-shape). A file that cannot be used (it
// cannot take those sizes, it is not a graph, ...) is put in `unusable` with the reason and the
// others go on; when none can be used, that is an error listing them all, in one line. A graph
// that carries its own devices (a data set graph of bench/regal/regal_dataset, a profiled
// workload) is placed on those, as `graphopt place` does; they must have as many devices as
// `devices` (the policy's), or the graph cannot be used, unless `anyDeviceCount` (a per-device
// policy).
std::vector<regal::PolicyGraph> loadGraphs(const std::vector<std::string>& files, const DeviceModel& devices,
                                           PlacementObjective objective, const LoadOptions& inputs,
                                           std::vector<regal::UnusableInput>& unusable, bool anyDeviceCount = false,
                                           int microBatches = 1) {
    // A graph is named by its file name, or by its folder and file name when another file of the
    // set has the same name (the NeurIPS workloads' latency/ and throughput/ copies).
    std::map<std::string, int> sameName;
    for (const auto& f : files) ++sameName[fs::path(f).filename().string()];
    std::vector<regal::PolicyGraph> out;
    for (const auto& f : files) try {
            const fs::path path(f);
            const std::string name = sameName[path.filename().string()] > 1
                                         ? (path.parent_path().filename() / path.filename()).string()
                                         : path.filename().string();
            Graph g = loadGraphIsolated(f, inputs);  // a reader that crashes on one file costs that file
            const std::optional<DeviceModel> own = DeviceModel::fromGraph(g);
            if (own)
                if (const std::string why = regal::deviceCountMismatch(*own, devices, anyDeviceCount); !why.empty())
                    throw std::invalid_argument(why);
            out.push_back(regal::preparePolicyGraph(name, std::move(g), own ? *own : devices,
                                                    objective, microBatches));
        } catch (const std::exception& e) {
            unusable.push_back(regal::unusableInput(f, e.what()));
        }
    if (out.empty()) {
        std::string list;
        for (const auto& u : unusable) list += (list.empty() ? "" : "; ") + u.file + ": " + u.reason;
        throw UsageError("none of the " + std::to_string(files.size()) + " graphs can be used: " + list);
    }
    return out;
}

nlohmann::json unusableToJson(const std::vector<regal::UnusableInput>& unusable) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& u : unusable) j.push_back({{"file", u.file}, {"reason", u.reason}});
    return j;
}

// One line per file that was left out, on stderr as the work starts.
void reportUnusable(const char* command, const std::vector<regal::UnusableInput>& unusable, size_t of) {
    for (const auto& u : unusable) std::cerr << command << ": skipped " << u.file << ": " << u.reason << "\n";
    if (!unusable.empty())
        std::cerr << command << ": " << unusable.size() << " of " << of << " graphs skipped, going on with the other "
                  << of - unusable.size() << "\n";
}


// A graph's evaluation as it travels between ranks: every number exactly (JSON keeps doubles
// round-trip exact).
nlohmann::json evaluationToJson(const regal::GraphEvaluation& e) {
    return {{"name", e.name},       {"nodes", e.nodes},         {"uniform", e.uniform},         {"regal", e.regal},
            {"tuned", e.tuned},     {"baselines", e.baselines}, {"uniform_s", e.uniformS},      {"regal_s", e.regalS},
            {"inference_s", e.inferenceS}, {"tuned_s", e.tunedS}, {"budget", e.budget},
            {"regal_evaluations_to_uniform", e.regalEvaluationsToUniform}};
}

regal::GraphEvaluation evaluationFromJson(const nlohmann::json& j) {
    regal::GraphEvaluation e;
    e.name = j.at("name").get<std::string>();
    e.nodes = j.at("nodes").get<int>();
    e.uniform = j.at("uniform").get<std::vector<double>>();
    e.regal = j.at("regal").get<std::vector<double>>();
    e.tuned = j.at("tuned").get<std::vector<double>>();
    e.baselines = j.at("baselines").get<std::map<std::string, double>>();
    e.uniformS = j.at("uniform_s").get<double>();
    e.regalS = j.at("regal_s").get<double>();
    e.inferenceS = j.at("inference_s").get<double>();
    e.tunedS = j.at("tuned_s").get<double>();
    e.budget = j.at("budget").get<int64_t>();
    e.regalEvaluationsToUniform = j.at("regal_evaluations_to_uniform").get<std::vector<int64_t>>();
    return e;
}

// Which rank evaluates each graph: largest first, to the rank with the fewest nodes so far.
std::vector<int> shareOutBySize(const std::vector<regal::PolicyGraph>& graphs, int ranks) {
    std::vector<size_t> bySize(graphs.size());
    for (size_t i = 0; i < bySize.size(); ++i) bySize[i] = i;
    std::stable_sort(bySize.begin(), bySize.end(),
                     [&](size_t a, size_t b) { return graphs[a].features.n > graphs[b].features.n; });
    std::vector<int64_t> load(size_t(ranks), 0);
    std::vector<int> owner(graphs.size(), 0);
    for (size_t i : bySize) {
        const int r = int(std::min_element(load.begin(), load.end()) - load.begin());
        owner[i] = r;
        load[size_t(r)] += graphs[i].features.n;
    }
    return owner;
}

}  // namespace

CommandSpec trainPolicyCommand() {
    const EngineDescription& d = regal::trainingDescription();
    auto param = [&](const char* flag, const char* key, const char* value) {
        const ParamSpec* p = d.find(key);
        OptionSpec o{flag, value, "", p->help};
        if (p->defaultValue.is_string())
            o.defaultValue = p->defaultValue.get<std::string>();
        else if (p->defaultValue.is_number_float())
            o.defaultValue = formatNumber(p->defaultValue.get<double>());
        else if (!p->defaultValue.is_null())
            o.defaultValue = p->defaultValue.dump();
        o.choices = p->choices;
        return o;
    };
    CommandSpec spec{
        "train-policy",
        "",
        "Trains REGAL's policy (REINFORCE on BRKGA rollouts) and writes it to a policy file; a checkpoint after "
        "every epoch, the run recorded epoch by epoch",
        {{"objective", "O", "runtime", "what the policy learns to minimize", {"runtime", "memory", "throughput"}},
         {"devices", "PRESET|FILE", DeviceModel::defaultPresetName(), "the devices the policy places on"},
         {"out", "FILE", "", "the policy file to write (required)"},
         param("epochs", "epochs", "N"),
         {"seed", "S", "1", "random seed (network initialization, sampled actions, BRKGA)"},
         {"budget", "EVALS", "1500", "BRKGA evaluations per training run"},
         param("samples", "samples", "K"),
         param("batch-graphs", "batch_graphs", "G"),
         param("seeds-per-graph", "seeds_per_graph", "S"),
         {"threads", "T", "2", "BRKGA worker threads"},
         param("lr", "lr", "X"),
         param("entropy", "entropy", "X"),
         param("hidden", "hidden", "H"),
         param("rounds", "rounds", "R"),
         param("heads", "heads", "H"),
         param("keep", "keep", "K"),
         param("sizes", "sizes", "N,N,..."),
         param("graph-seeds", "graph_seeds", "N"),
         param("imitate-epochs", "imitate_epochs", "N"),
         param("imitate-budget", "imitate_budget", "EVALS"),
         param("imitate-seeds", "imitate_seeds", "N"),
         {"seed-heuristics", "", "", "every BRKGA run of training starts from the heft, xla-best and single solutions "
                                     "(as eval-policy --seed-heuristics)"},
         {"seed-engines", "E,E,...", "", "every BRKGA run of training also starts from these engines' solutions, e.g. "
                                         "dp-contiguous (as eval-policy --seed-engines)"},
         {"models", "DIR|none", "", "folder with splits.json whose train split is added; none: synthetic graphs only", {},
          "the bundled models"},
         param("dataset", "dataset", "DIR"),
         {"checkpoint", "FILE", "", "checkpoint written after every epoch", {}, "OUT.ckpt"},
         {"resume", "CHECKPOINT", "", "go on from this checkpoint (same options)"},
         modelShapeOptions("ONNX models of the train split")[0],
         modelShapeOptions("ONNX models of the train split")[1],
         {"json", "", "", "print the result as JSON (world_size included) instead of the policy's path"},
         noStoreOption(),
         dbOption()},
        {"graphopt train-policy --objective runtime --epochs 40 --budget 2000 --out my-policy.json",
         "tools/launch-local.sh 2 graphopt train-policy --objective runtime --epochs 40 --threads 1 --out my-policy.json"}};
    for (OptionSpec& o : distributedOptions()) spec.options.push_back(std::move(o));
    spec.details = "Ctrl-C stops after the current training graph (with several ranks: after the current batch, on every "
                   "rank); the last epoch's checkpoint stays, and --resume goes on from it, with any number of ranks. "
                   "With several ranks (WORLD_SIZE, RANK, MASTER_ADDR, MASTER_PORT or --world-size, --rank, --master) "
                   "each batch's BRKGA runs are shared out among them and the per-graph gradients added up in order, so "
                   "the weights are those of one process; rank 0 writes the checkpoints and the policy and records the "
                   "run (with world_size).";
    return spec;
}

int cmdTrainPolicy(const ArgList& argv) {
    const CommandSpec command = trainPolicyCommand();
    Args args(argv, command);
    args.noPositional();
    RunSpec spec;
    spec.kind = "training";
    spec.engine = "regal";
    spec.objective = args.getChoice("objective");
    spec.devices = args.require("devices");
    spec.seed = args.getSeed("seed");
    spec.budget = args.getInt("budget", 10, int64_t(1) << 30);
    spec.threads = int(args.getInt("threads", 1, 256));
    nlohmann::json& p = spec.params;
    p["epochs"] = args.getInt("epochs", 0, 100000);
    p["imitate_epochs"] = args.getInt("imitate-epochs", 0, 100000);
    p["imitate_budget"] = args.getInt("imitate-budget", 10, 100000000);
    p["imitate_seeds"] = args.getInt("imitate-seeds", 1, 64);
    p["seed_heuristics"] = args.has("seed-heuristics");
    p["seed_engines"] = args.has("seed-engines") ? splitList(args.require("seed-engines")) : std::vector<std::string>{};
    p["samples"] = args.getInt("samples", 1, 64);
    p["batch_graphs"] = args.getInt("batch-graphs", 1, 1024);
    p["seeds_per_graph"] = args.getInt("seeds-per-graph", 1, 64);
    p["lr"] = args.getDouble("lr", 1e-7, 1);
    p["entropy"] = args.getDouble("entropy", 0, 10);
    p["hidden"] = args.getInt("hidden", 4, 1024);
    p["rounds"] = args.getInt("rounds", 0, 16);
    p["heads"] = args.getChoice("heads");
    p["keep"] = args.getChoice("keep");
    p["sizes"] = args.require("sizes");
    p["graph_seeds"] = args.getInt("graph-seeds", 1, 100);
    p["out"] = args.require("out");
    if (args.has("models")) p["models"] = args.require("models");
    if (args.has("dataset")) p["dataset"] = args.require("dataset");
    if (args.has("checkpoint")) p["checkpoint"] = args.require("checkpoint");
    if (args.has("resume")) p["resume"] = args.require("resume");
    // The train split's models are read with these input sizes (params.batch, params.input_shapes);
    // the synthetic graphs are generated as they are.
    const LoadOptions inputs = loadOptionsFrom(args);
    if (inputs.batch > 0) p["batch"] = inputs.batch;
    if (!inputs.inputShapes.empty()) p["input_shapes"] = inputs.inputShapes;
    std::ostringstream cmd;
    cmd << "graphopt train-policy";
    for (const auto& a : argv) cmd << " " << a;

    const bool json = args.has("json");

    // Bad options are refused before joining (a rank that leaves early would keep the others
    // waiting). Only rank 0 reads the checkpoint to resume from, so only rank 0 needs it here.
    try {
        RunSpec check = spec;
        if (distributedConfigFrom(args).rank != 0) check.params.erase("resume");
        regal::TrainingRun validate(check, cmd.str());
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
    const std::unique_ptr<Communicator> comm = joinRanks(args);
    const bool lead = comm->rank() == 0;
    std::unique_ptr<regal::TrainingRun> run;
    try {
        run = std::make_unique<regal::TrainingRun>(spec, cmd.str(), comm.get());
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
    run->setLog([lead](const std::string& line) {
        if (lead) std::cerr << "train-policy: " << line << "\n";
    });
    const int epochs = p["epochs"].get<int>();
    RunReporter reporter;
    if (lead)
        reporter.progress = [epochs](const ProgressEvent& e) {
            std::fprintf(stderr,
                         "epoch %lld/%d  mean reward %+.4f  validation win rate %.2f  mean improvement %+.2f%%  entropy %.3f  "
                         "%.1f s (total %.0f s)\n",
                         static_cast<long long>(e.step), epochs, e.values.value("mean_reward", 0.0),
                         e.values.value("validation_win_rate", 0.0), 100 * e.values.value("validation_mean_improvement", 0.0),
                         e.values.value("entropy", 0.0), e.values.value("epoch_s", 0.0), e.elapsedS);
        };
    nn::setTorchThreads(1);
    RecordedRun recorded(*run, lead ? recordingPathFrom(args) : std::string());
    InterruptScope interrupt;
    // A checkpoint that does not fit (other options, corrupt) is an std::invalid_argument: exit 2.
    // A rank that fails tells the others why; a rank that another one's failure stops says so.
    const std::string checkpoint = p.value("checkpoint", p["out"].get<std::string>() + ".ckpt");
    const regal::TrainingResult res = runOrFail([&] {
        try {
            return recorded.executeAs<regal::TrainingResult>(reporter, interrupt.token());
        } catch (const DistributedError& e) {
            throw RunFailure("rank " + std::to_string(comm->rank()) + " of " + std::to_string(comm->worldSize()) +
                             " stops: " + e.what() +
                             (lead && std::filesystem::exists(checkpoint) ? "; the last whole epoch is in " + checkpoint : ""));
        } catch (const std::exception& e) {
            comm->reportFailure(e.what());
            throw;
        }
    });
    if (!lead) return res.status() == RunStatus::Cancelled ? kExitInterrupted : 0;
    if (res.status() == RunStatus::Cancelled) {
        std::cerr << "train-policy: interrupted after " << res.epochsDone << " epochs; "
                  << (res.checkpointPath.empty() ? std::string("no checkpoint yet")
                                                 : "resume with --resume " + res.checkpointPath)
                  << "\n";
        return kExitInterrupted;
    }
    std::cerr << "train-policy: wrote " << res.policyPath << " (" << std::fixed << std::setprecision(0) << res.wallS
              << " s, world size " << res.worldSize << "), the weights of epoch " << res.keptEpoch << " of "
              << res.epochsDone << "\n";
    if (!res.skipped.empty()) {
        std::cerr << "train-policy: trained without " << res.skipped.size()
                  << " input(s) it could not use (models of the train split, data set graphs):\n";
        // (each one was also logged as training started; a data set that mixes device setups
        // can leave out thousands, so the summary names the first ones and --json every one)
        const size_t shown = std::min<size_t>(res.skipped.size(), 10);
        for (size_t i = 0; i < shown; ++i) std::cerr << "  " << res.skipped[i].file << ": " << res.skipped[i].reason << "\n";
        if (shown < res.skipped.size())
            std::cerr << "  ... and " << res.skipped.size() - shown << " more (--json lists every one)\n";
    }
    if (json)
        std::cout << res.toJson().dump(2) << "\n";
    else
        std::cout << res.policyPath << "\n";
    return 0;
}

CommandSpec evalPolicyCommand() {
    CommandSpec spec{"eval-policy",
            "",
            "Evaluates a REGAL policy against uniform BRKGA (and tuned BRKGA and baselines) on test graphs",
            {{"objective", "O", "runtime", "the objective the policy was trained for", {"runtime", "memory", "throughput"}},
             {"devices", "PRESET|FILE", DeviceModel::defaultPresetName(), "the devices to place on"},
             {"test", "DIR_OR_FILES", "", "graphs: a folder with splits.json (its test split), another folder, or "
                                          "comma-separated files (required); a graph that carries its own devices "
                                          "is placed on them"},
             {"budget", "EVALS", "5000", "BRKGA evaluations per run"},
             {"micro-batches", "M", "1", "place each graph as a pipeline of M micro-batches (as place --micro-batches)"},
             {"seeds", "N", "3", "BRKGA seeds 1..N"},
             {"threads", "T", "2", "BRKGA worker threads"},
             {"policy", "FILE", "", "policy file", {}, "the shipped one for objective and devices"},
             {"action", "A", "greedy", "greedy: most probable choice; sample: drawn, seeded by the BRKGA seed",
              {"greedy", "sample"}},
             {"baselines", "E,E,...", "", "placement engines to compare with, e.g. heft,xla-best,single,local"},
             {"tuned-params", "JSON", "", "BRKGA parameters for a tuned-BRKGA column"},
             {"tune-grid", "", "", "find the tuned-BRKGA parameters by a grid search on the train split"},
             {"tune-on", "DIR_OR_FILES", "", "graphs for --tune-grid", {}, "the bundled models' train split"},
             {"seed-heuristics", "", "", "uniform BRKGA, REGAL and tuned BRKGA all start from the heft, xla-best and "
                                         "single solutions (a fair comparison where those baselines are strong)"},
             {"seed-engines", "E,E,...", "", "uniform BRKGA, REGAL and tuned BRKGA all start from these engines' "
                                             "solutions too, e.g. dp-contiguous (on throughput, where BRKGA finds "
                                             "contiguous splits hard)"},
             {"uniform-mutants", "SHARE", "0", "REGAL's runs draw this share of their policy-drawn chromosomes "
                                               "uniform instead (the regal engine's uniform_mutant_share)"},
             modelShapeOptions("ONNX graphs (test and --tune-on)")[0],
             modelShapeOptions("ONNX graphs (test and --tune-on)")[1],
             {"json", "", "", "print JSON instead of a table (with world_size, and the rank that evaluated each graph)"}},
            {"graphopt eval-policy --objective runtime --test resources/models --budget 5000 --seeds 3 --baselines "
             "heft,xla-best,single,local",
             "tools/launch-local.sh 2 graphopt eval-policy --objective runtime --test resources/models --threads 1"}};
    for (OptionSpec& o : distributedOptions()) spec.options.push_back(std::move(o));
    spec.details = "With several ranks (WORLD_SIZE, RANK, MASTER_ADDR, MASTER_PORT or --world-size, --rank, --master) the "
                   "graphs are shared out among them (largest first) and rank 0 prints the results, the same as one "
                   "process's.";
    return spec;
}

int cmdEvalPolicy(const ArgList& argv) {
    const CommandSpec command = evalPolicyCommand();
    Args args(argv, command);
    args.noPositional();
    const std::string objectiveName = args.getChoice("objective");
    const std::string devicesName = args.require("devices");
    regal::EvalOptions o;
    o.budget = args.getInt("budget", 1, int64_t(1) << 30);
    o.seeds = int(args.getInt("seeds", 1, 100));
    o.threads = int(args.getInt("threads", 1, 256));
    o.sampleActions = args.getChoice("action") == "sample";
    o.seedHeuristics = args.has("seed-heuristics");
    if (args.has("seed-engines")) {
        o.seedEngines = splitList(args.require("seed-engines"));
        for (const auto& e : o.seedEngines) checkSeedEngine(e);  // fail early on a bad name
    }
    o.uniformMutantShare = args.getDouble("uniform-mutants", 0, 1);
    if (args.has("baselines")) {
        o.baselines = splitList(args.require("baselines"));
        for (const auto& b : o.baselines) findPlacementEngine(b);  // fail early on a bad name
    }
    if (args.has("tuned-params")) o.tunedParams = args.getJsonObject("tuned-params");
    const std::string testSpec = args.require("test");
    const LoadOptions inputs = loadOptionsFrom(args);
    const DeviceModel devices = DeviceModel::load(devicesName);
    const PlacementObjective objective = objectiveFromName(objectiveName);
    const std::string policy =
        args.has("policy") ? args.require("policy") : regal::findDefaultPolicy(objectiveName, devices.name);
    regal::PolicyFile meta;
    nn::setBlasThreads(1);  // as train-policy: OpenBLAS's spinning threads would take BRKGA's cores
    auto model = regal::loadPolicyModel(policy, &meta);
    if (!meta.config.servesDevices(devices.deviceCount()))
        throw UsageError(policy + ": the policy is for " + meta.config.devicesServed() + ", " + devices.name + " has " +
                         std::to_string(devices.deviceCount()));
    const bool anyDeviceCount = meta.config.heads == regal::PolicyHeads::PerDevice;
    const auto files = graphFiles(testSpec, "test");
    std::vector<regal::UnusableInput> unusable;
    const int microBatches = int(args.getInt("micro-batches", 1, 1024));
    const auto graphs = loadGraphs(files, devices, objective, inputs, unusable, anyDeviceCount, microBatches);
    const bool json = args.has("json");
    const std::unique_ptr<Communicator> comm = joinRanks(args);
    const bool lead = comm->rank() == 0;
    if (lead) reportUnusable("eval-policy", unusable, files.size());

    try {
        if (args.has("tune-grid")) {
            // Rank 0 searches; the others take its answer.
            std::string tuned;
            if (lead) {
                const auto tuneFiles = graphFiles(args.get("tune-on").value_or(modelsDir()), "train");
                std::vector<regal::UnusableInput> tuneUnusable;
                const auto tuneGraphs =
                    loadGraphs(tuneFiles, devices, objective, inputs, tuneUnusable, anyDeviceCount, microBatches);
                reportUnusable("eval-policy: --tune-on", tuneUnusable, tuneFiles.size());
                std::cerr << "eval-policy: grid search for BRKGA on " << tuneGraphs.size() << " training graphs\n";
                o.tunedParams = regal::tuneBrkgaGrid(tuneGraphs, o.budget, 1, o.threads,
                                                     [](const std::string& line) { std::cerr << "  " << line << "\n"; });
                std::cerr << "eval-policy: tuned BRKGA " << o.tunedParams.dump() << "\n";
                tuned = o.tunedParams.dump();
            }
            comm->broadcast(tuned, 0);
            o.tunedParams = nlohmann::json::parse(tuned);
        }
    } catch (const DistributedError& e) {
        throw RunFailure("rank " + std::to_string(comm->rank()) + " stops: " + e.what());
    } catch (const std::exception& e) {
        comm->reportFailure(e.what());
        throw;
    }

    std::vector<regal::GraphEvaluation> evals(graphs.size());
    std::vector<int> owner(graphs.size(), 0);
    if (comm->distributed()) {
        owner = shareOutBySize(graphs, comm->worldSize());
        std::string mine;
        try {
            nlohmann::json done = nlohmann::json::array();
            for (size_t i = 0; i < graphs.size(); ++i)
                if (owner[i] == comm->rank()) done.push_back(evaluationToJson(regal::evaluatePolicy(*model, graphs[i], o)));
            mine = done.dump();
        } catch (const std::exception& e) {
            comm->reportFailure(e.what());
            throw;
        }
        std::vector<std::string> all;
        try {
            all = comm->allGather(mine);
        } catch (const DistributedError& e) {
            throw RunFailure("rank " + std::to_string(comm->rank()) + " stops: " + e.what());
        }
        if (!lead) return 0;
        std::vector<size_t> next(all.size(), 0);
        std::vector<nlohmann::json> parsed;
        for (const auto& a : all) parsed.push_back(nlohmann::json::parse(a));
        for (size_t i = 0; i < graphs.size(); ++i) {
            const size_t r = size_t(owner[i]);
            evals[i] = evaluationFromJson(parsed[r].at(next[r]++));
        }
    }
    size_t nameWidth = 24;  // as wide as the longest name, and at least that
    for (const auto& g : graphs) nameWidth = std::max(nameWidth, g.name.size() + 1);
    if (!json)
        std::cout << std::left << std::setw(int(nameWidth)) << "graph" << std::right << std::setw(6) << "nodes" << std::setw(14) << "uniform"
                  << std::setw(14) << "regal" << std::setw(9) << "impr%" << std::setw(8) << "wins" << std::setw(10)
                  << "uniform s" << std::setw(10) << "regal s" << "\n";
    for (size_t i = 0; i < graphs.size(); ++i) {
        if (!comm->distributed()) evals[i] = regal::evaluatePolicy(*model, graphs[i], o);
        const auto& e = evals[i];
        if (json) continue;
        double u = 0, r = 0, impr = 0;
        int wins = 0;
        for (size_t s = 0; s < e.uniform.size(); ++s) {
            u += e.uniform[s] / double(e.uniform.size());
            r += e.regal[s] / double(e.uniform.size());
            impr += 100 * (e.uniform[s] - e.regal[s]) / e.uniform[s] / double(e.uniform.size());
            wins += e.regal[s] < e.uniform[s];
        }
        const double scale = objective == PlacementObjective::Memory ? 1.0 / (1 << 20) : 1e3;  // MiB / ms
        std::cout << std::left << std::setw(int(nameWidth)) << e.name << std::right << std::setw(6) << e.nodes << std::fixed
                  << std::setprecision(4) << std::setw(14) << u * scale << std::setw(14) << r * scale << std::setprecision(2)
                  << std::setw(9) << impr << std::setw(5) << wins << "/" << e.uniform.size() << std::setw(10) << e.uniformS
                  << std::setw(10) << e.regalS << "\n";
        std::cout.flush();
    }
    nlohmann::json summary = regal::summarizeEvaluations(evals);
    if (!o.tunedParams.is_null()) summary["tuned_params"] = o.tunedParams;
    if (json) {
        nlohmann::json j = {{"world_size", comm->worldSize()}, {"objective", objectiveName}, {"devices", devices.name},
                            {"policy", policy},                  {"budget", o.budget},       {"seeds", o.seeds},
                            {"graphs", nlohmann::json::array()}, {"seed_heuristics", o.seedHeuristics},
                            {"seed_engines", o.seedEngines},     {"summary", summary}};
        if (inputs.batch > 0) j["batch"] = inputs.batch;
        if (!inputs.inputShapes.empty()) j["input_shapes"] = inputs.inputShapes;
        j["micro_batches"] = microBatches;
        if (o.uniformMutantShare > 0) j["uniform_mutant_share"] = o.uniformMutantShare;
        j["skipped"] = unusableToJson(unusable);  // the test graphs that could not be used, and why
        for (size_t i = 0; i < evals.size(); ++i) {
            nlohmann::json g = evals[i].toJson();
            g["rank"] = owner[i];
            const auto& meta = graphs[i].graph->metadata;
            if (auto it = meta.find("onnx.input_dims"); it != meta.end()) g["input_dims"] = it->second;
            j["graphs"].push_back(std::move(g));
        }
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    std::cout << std::fixed << std::setprecision(2) << "costs in " << (objective == PlacementObjective::Memory ? "MiB" : "ms")
              << "; budget " << o.budget << ", seeds 1.." << o.seeds << ", policy " << policy
              << (inputs.batch > 0 ? "; batch " + std::to_string(inputs.batch) : "")
              << (inputs.inputShapes.empty() ? "" : "; input shapes " + nlohmann::json(inputs.inputShapes).dump()) << "\n";
    if (o.seedHeuristics || !o.seedEngines.empty()) {
        std::vector<std::string> starts = o.seedEngines;
        if (o.seedHeuristics) starts.insert(starts.begin(), seedHeuristicEngines().begin(), seedHeuristicEngines().end());
        std::string list;
        for (const auto& s : starts) list += (list.empty() ? "" : ", ") + s;
        std::cout << "every BRKGA run started from the solutions of " << list << "\n";
    }
    std::cout << "vs uniform BRKGA:  mean improvement " << summary["mean_improvement_pct"].get<double>() << " %, median "
              << summary["median_improvement_pct"].get<double>() << " %, win rate " << summary["win_rate"].get<double>() << "\n";
    auto figures = [](const nlohmann::json& f) {
        std::ostringstream os;
        os << std::fixed << std::setprecision(2) << "mean improvement " << f["mean_improvement_pct"].get<double>()
           << " %, median " << f["median_improvement_pct"].get<double>() << " %, win rate " << f["win_rate"].get<double>();
        return os.str();
    };
    if (summary.contains("vs_tuned"))
        std::cout << "vs tuned BRKGA:    " << figures(summary["vs_tuned"]) << "  (" << o.tunedParams.dump() << ")\n";
    if (summary.contains("vs_best_baseline")) std::cout << "vs best baseline:  " << figures(summary["vs_best_baseline"]) << "\n";
    if (summary.contains("evaluations_to_uniform_final")) {
        const auto& r = summary["evaluations_to_uniform_final"];
        std::cout << "to uniform's cost: reached in " << 100 * r["reached_rate"].get<double>() << " % of runs, median "
                  << 100 * r["median_budget_fraction"].get<double>() << " % of the budget (never = 200 %), within a third on "
                  << 100 * r["within_third_rate"].get<double>() << " % of graphs\n";
    }
    std::cout << "total time:        " << summary["total_s"].get<double>() << " s\n";
    if (!unusable.empty()) {
        std::cout << "skipped:           " << unusable.size() << " of " << files.size() << " graphs could not be used\n";
        for (const auto& u : unusable) std::cout << "  " << u.file << ": " << u.reason << "\n";
    }
    return 0;
}

}  // namespace graphopt::cli
