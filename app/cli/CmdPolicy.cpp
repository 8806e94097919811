// graphopt train-policy and graphopt eval-policy: REGAL's policy (core/placement/RegalTraining.h).
//
// train-policy --objective runtime|memory [--devices PRESET] [--epochs N] [--seed S] --out FILE
//              [--resume CHECKPOINT] [--checkpoint FILE] [--budget EVALS] [--samples K]
//              [--batch-graphs G] [--seeds-per-graph S] [--threads T] [--lr X] [--entropy X]
//              [--hidden H] [--rounds R] [--sizes 30,80,160] [--graph-seeds N] [--models DIR|none]
//              [--no-store] [--db PATH]
// eval-policy  --objective runtime|memory [--devices PRESET] --test DIR_OR_FILES [--budget EVALS]
//              [--seeds N] [--threads T] [--policy FILE] [--baselines heft,single,...]
//              [--tuned-params JSON | --tune-grid [--tune-on DIR_OR_FILES]] [--json]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "Args.h"
#include "Commands.h"
#include "StoreOptions.h"
#include "graph/Loaders.h"
#include "nn/TorchRuntime.h"
#include "placement/PlacementEngines.h"
#include "placement/RegalEngine.h"
#include "placement/RegalTraining.h"
#include "store/RunExport.h"
#include "store/RunRecorder.h"

namespace graphopt::cli {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> splitList(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ','))
        if (!item.empty()) out.push_back(item);
    return out;
}

std::string defaultModelsDir() { return (fs::path(regal::policySourceDir()).parent_path() / "models").string(); }

// A directory with splits.json gives its "test" list (or "train" for split == "train"); another
// directory gives every graph file in it; anything else is a file.
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
                    const std::string ext = e.path().extension().string();
                    if (ext == ".onnx" || ext == ".json" || ext == ".pbtxt" || ext == ".dot" || ext == ".gv")
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

std::vector<regal::PolicyGraph> loadGraphs(const std::vector<std::string>& files, const DeviceModel& devices,
                                           PlacementObjective objective) {
    std::vector<regal::PolicyGraph> out;
    for (const auto& f : files) out.push_back(regal::preparePolicyGraph(fs::path(f).filename().string(), loadGraph(f), devices, objective));
    return out;
}

nlohmann::json readJsonFile(const std::string& path, const char* what) {
    std::ifstream in(path);
    if (!in) throw UsageError(path + ": cannot open " + what);
    try {
        return nlohmann::json::parse(in);
    } catch (const std::exception&) {
        throw UsageError(path + ": " + what + " is not valid JSON (truncated or corrupt?)");
    }
}

void writeJsonFile(const std::string& path, const nlohmann::json& j) {
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::trunc);
        if (!out) throw UsageError(path + ": cannot write");
        out << j.dump() << "\n";
        if (!out) throw UsageError(path + ": write failed");
    }
    fs::rename(tmp, path);
}

}  // namespace

int cmdTrainPolicy(const ArgList& argv) {
    Args args(argv,
              {"objective", "devices", "epochs", "seed", "out", "resume", "checkpoint", "budget", "samples", "batch-graphs",
               "seeds-per-graph", "threads", "lr", "entropy", "hidden", "rounds", "sizes", "graph-seeds", "models", kDbFlag},
              {kNoStoreFlag});
    if (!args.positional().empty()) throw UsageError("unexpected argument '" + args.positional()[0] + "'");
    regal::TrainOptions o;
    o.objective = args.getChoice("objective", "runtime", {"runtime", "memory"});
    o.devices = args.get("devices", "2xgpu-pcie");
    o.epochs = int(args.getInt("epochs", 10, 1, 100000));
    o.seed = args.getSeed("seed", 1);
    o.budget = args.getInt("budget", 1500, 10, int64_t(1) << 30);
    o.samples = int(args.getInt("samples", 4, 1, 64));
    o.batchGraphs = int(args.getInt("batch-graphs", 4, 1, 1024));
    o.seedsPerGraph = int(args.getInt("seeds-per-graph", 2, 1, 64));
    o.threads = int(args.getInt("threads", 2, 1, 256));
    o.hyper.learningRate = args.getDouble("lr", 3e-3, 1e-7, 1);
    o.hyper.entropyCoef = args.getDouble("entropy", 0.01, 0, 10);
    const std::string out = args.require("out");
    const std::string checkpointPath = args.get("checkpoint", out + ".ckpt");
    regal::PolicyConfig config;
    config.hidden = int(args.getInt("hidden", 32, 4, 1024));
    config.rounds = int(args.getInt("rounds", 3, 0, 16));
    regal::TrainingSetOptions set;
    if (args.has("sizes")) {
        set.sizes.clear();
        for (const auto& s : splitList(args.get("sizes", ""))) {
            int v = 0;
            try {
                v = std::stoi(s);
            } catch (const std::exception&) {
                throw UsageError("option --sizes: '" + s + "' is not a number");
            }
            if (v < 10 || v > 10000) throw UsageError("option --sizes: sizes must be in 10..10000");
            set.sizes.push_back(v);
        }
    }
    set.graphSeeds = int(args.getInt("graph-seeds", 2, 1, 100));
    const std::string models = args.get("models", defaultModelsDir());
    set.modelsDir = models == "none" ? "" : models;
    if (!set.modelsDir.empty() && !fs::exists(fs::path(set.modelsDir) / "splits.json"))
        throw UsageError(set.modelsDir + ": no splits.json (give --models DIR or --models none)");
    set.validationNodes = std::min(120, *std::max_element(set.sizes.begin(), set.sizes.end()));
    if (args.has("resume") && !fs::exists(args.get("resume", "")))
        throw UsageError(args.get("resume", "") + ": checkpoint not found");

    const DeviceModel devices = DeviceModel::load(o.devices);
    config.devices = devices.deviceCount();
    const PlacementObjective objective = objectiveFromName(o.objective);
    nn::setTorchThreads(1);
    auto model = regal::makePolicyModel(config, o.seed);
    std::cerr << "train-policy: preparing training graphs\n";
    auto train = regal::buildTrainingSet(set, devices, objective);
    auto validation = regal::buildValidationSet(set, devices, objective);
    regal::PolicyTrainer trainer(*model, devices, o, std::move(train), std::move(validation));
    if (args.has("resume")) {
        const std::string path = args.get("resume", "");
        try {
            trainer.restore(readJsonFile(path, "checkpoint"));
        } catch (const std::invalid_argument& e) {
            throw UsageError(path + ": " + e.what());
        }
        std::cerr << "train-policy: resumed from " << path << " after epoch " << trainer.epochsDone() << "\n";
    }

    RunSpec spec;
    spec.kind = "training";
    spec.engine = "regal";
    spec.objective = o.objective;
    spec.devices = o.devices;
    spec.budget = o.budget;
    spec.seed = o.seed;
    spec.threads = o.threads;
    spec.params = o.toJson();
    spec.params["out"] = out;
    std::unique_ptr<RunRecorder> recorder;
    if (!args.has(kNoStoreFlag)) recorder = std::make_unique<RunRecorder>(storePathFrom(args), spec, std::nullopt, "REGAL policy training");

    const auto t0 = std::chrono::steady_clock::now();
    int64_t evaluations = 0;
    regal::EpochReport last;
    double bestValidation = -1e9;
    while (trainer.epochsDone() < o.epochs) {
        last = trainer.runEpoch();
        evaluations += last.evaluations;
        bestValidation = std::max(bestValidation, last.validationMeanImprovement);
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::fprintf(stderr,
                     "epoch %d/%d  mean reward %+.4f  validation win rate %.2f  mean improvement %+.2f%%  entropy %.3f  "
                     "%.1f s (total %.0f s)\n",
                     last.epoch, o.epochs, last.meanReward, last.validationWinRate, 100 * last.validationMeanImprovement,
                     last.entropy, last.seconds, elapsed);
        if (recorder) {
            ProgressEvent ev;
            ev.step = last.epoch;
            ev.evaluations = evaluations;
            ev.bestCost = -100 * bestValidation;
            ev.elapsedS = elapsed;
            ev.values = {{"mean_reward", last.meanReward},
                         {"validation_win_rate", last.validationWinRate},
                         {"validation_mean_improvement", last.validationMeanImprovement},
                         {"entropy", last.entropy},
                         {"epoch_s", last.seconds}};
            recorder->record(ev);
        }
        writeJsonFile(checkpointPath, trainer.checkpoint());
    }

    regal::PolicyFile file;
    file.objective = o.objective;
    file.devices = o.devices;
    file.config = config;
    file.parameters = model->parameters();
    std::ostringstream cmd;
    cmd << "graphopt train-policy";
    for (const auto& a : argv) cmd << " " << a;
    file.training = o.toJson();
    file.training["command"] = cmd.str();
    file.training["epochs_done"] = trainer.epochsDone();
    file.training["sizes"] = set.sizes;
    file.training["graph_seeds"] = set.graphSeeds;
    file.training["models"] = set.modelsDir.empty() ? "none" : "train split of splits.json";
    file.training["final_validation_win_rate"] = last.validationWinRate;
    file.training["final_validation_mean_improvement"] = last.validationMeanImprovement;
    file.training["torch"] = nn::torchVersion();
    regal::writePolicyFile(out, file);
    const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::cerr << "train-policy: wrote " << out << " (" << std::fixed << std::setprecision(0) << total << " s)\n";
    if (recorder) {
        recorder->finish(runResultFromEngineJson({{"cost", -100 * last.validationMeanImprovement},
                                                  {"validation_win_rate", last.validationWinRate},
                                                  {"mean_reward", last.meanReward},
                                                  {"policy", out},
                                                  {"epochs", trainer.epochsDone()},
                                                  {"wall_s", total}}));
    }
    std::cout << out << "\n";
    return 0;
}

int cmdEvalPolicy(const ArgList& argv) {
    Args args(argv,
              {"objective", "devices", "test", "budget", "seeds", "threads", "policy", "baselines", "tuned-params", "tune-on", "action"},
              {"json", "tune-grid"});
    if (!args.positional().empty()) throw UsageError("unexpected argument '" + args.positional()[0] + "'");
    const std::string objectiveName = args.getChoice("objective", "runtime", {"runtime", "memory"});
    const std::string devicesName = args.get("devices", "2xgpu-pcie");
    regal::EvalOptions o;
    o.budget = args.getInt("budget", 5000, 1, int64_t(1) << 30);
    o.seeds = int(args.getInt("seeds", 3, 1, 100));
    o.threads = int(args.getInt("threads", 2, 1, 256));
    o.sampleActions = args.getChoice("action", "greedy", {"greedy", "sample"}) == "sample";
    if (args.has("baselines")) {
        o.baselines = splitList(args.get("baselines", ""));
        for (const auto& b : o.baselines) findPlacementEngine(b);  // fail early on a bad name
    }
    if (args.has("tuned-params")) {
        try {
            o.tunedParams = nlohmann::json::parse(args.get("tuned-params", ""));
        } catch (const std::exception&) {
            throw UsageError("option --tuned-params: not valid JSON");
        }
        if (!o.tunedParams.is_object()) throw UsageError("option --tuned-params: must be a JSON object");
    }
    const std::string testSpec = args.require("test");
    const DeviceModel devices = DeviceModel::load(devicesName);
    const PlacementObjective objective = objectiveFromName(objectiveName);
    const std::string policy =
        args.has("policy") ? args.get("policy", "") : regal::findDefaultPolicy(objectiveName, devices.name, regal::policySourceDir());
    regal::PolicyFile meta;
    auto model = regal::loadPolicyModel(policy, &meta);
    if (meta.config.devices != devices.deviceCount())
        throw UsageError(policy + ": the policy is for " + std::to_string(meta.config.devices) + " devices, " + devices.name +
                         " has " + std::to_string(devices.deviceCount()));
    const auto files = graphFiles(testSpec, "test");
    const auto graphs = loadGraphs(files, devices, objective);
    const bool json = args.has("json");

    if (args.has("tune-grid")) {
        const auto tuneFiles = graphFiles(args.get("tune-on", defaultModelsDir()), "train");
        const auto tuneGraphs = loadGraphs(tuneFiles, devices, objective);
        std::cerr << "eval-policy: grid search for BRKGA on " << tuneGraphs.size() << " training graphs\n";
        o.tunedParams = regal::tuneBrkgaGrid(tuneGraphs, devices, o.budget, 1, o.threads,
                                             [](const std::string& line) { std::cerr << "  " << line << "\n"; });
        std::cerr << "eval-policy: tuned BRKGA " << o.tunedParams.dump() << "\n";
    }

    std::vector<regal::GraphEvaluation> evals;
    if (!json)
        std::cout << std::left << std::setw(24) << "graph" << std::right << std::setw(6) << "nodes" << std::setw(14) << "uniform"
                  << std::setw(14) << "regal" << std::setw(9) << "impr%" << std::setw(8) << "wins" << std::setw(10)
                  << "uniform s" << std::setw(10) << "regal s" << "\n";
    for (const auto& g : graphs) {
        evals.push_back(regal::evaluatePolicy(*model, g, devices, o));
        const auto& e = evals.back();
        if (json) continue;
        double u = 0, r = 0, impr = 0;
        int wins = 0;
        for (size_t s = 0; s < e.uniform.size(); ++s) {
            u += e.uniform[s] / double(e.uniform.size());
            r += e.regal[s] / double(e.uniform.size());
            impr += 100 * (e.uniform[s] - e.regal[s]) / e.uniform[s] / double(e.uniform.size());
            wins += e.regal[s] < e.uniform[s];
        }
        const double scale = objective == PlacementObjective::Runtime ? 1e3 : 1.0 / (1 << 20);  // ms / MiB
        std::cout << std::left << std::setw(24) << e.name << std::right << std::setw(6) << e.nodes << std::fixed
                  << std::setprecision(4) << std::setw(14) << u * scale << std::setw(14) << r * scale << std::setprecision(2)
                  << std::setw(9) << impr << std::setw(5) << wins << "/" << e.uniform.size() << std::setw(10) << e.uniformS
                  << std::setw(10) << e.regalS << "\n";
        std::cout.flush();
    }
    nlohmann::json summary = regal::summarizeEvaluations(evals);
    if (!o.tunedParams.is_null()) summary["tuned_params"] = o.tunedParams;
    if (json) {
        nlohmann::json j = {{"objective", objectiveName}, {"devices", devices.name}, {"policy", policy},
                            {"budget", o.budget},         {"seeds", o.seeds},        {"graphs", nlohmann::json::array()},
                            {"summary", summary}};
        for (const auto& e : evals) j["graphs"].push_back(e.toJson());
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    std::cout << std::fixed << std::setprecision(2) << "costs in " << (objective == PlacementObjective::Runtime ? "ms" : "MiB")
              << "; budget " << o.budget << ", seeds 1.." << o.seeds << ", policy " << policy << "\n";
    std::cout << "vs uniform BRKGA:  mean improvement " << summary["mean_improvement_pct"].get<double>() << " %, median "
              << summary["median_improvement_pct"].get<double>() << " %, win rate " << summary["win_rate"].get<double>() << "\n";
    if (summary.contains("vs_tuned_win_rate"))
        std::cout << "vs tuned BRKGA:    mean improvement " << summary["vs_tuned_mean_improvement_pct"].get<double>()
                  << " %, median " << summary["vs_tuned_median_improvement_pct"].get<double>() << " %, win rate "
                  << summary["vs_tuned_win_rate"].get<double>() << "  (" << o.tunedParams.dump() << ")\n";
    if (summary.contains("vs_best_baseline_win_rate"))
        std::cout << "vs best baseline:  mean improvement " << summary["vs_best_baseline_mean_improvement_pct"].get<double>()
                  << " %, median " << summary["vs_best_baseline_median_improvement_pct"].get<double>() << " %, win rate "
                  << summary["vs_best_baseline_win_rate"].get<double>() << "\n";
    std::cout << "total time:        " << summary["total_s"].get<double>() << " s\n";
    return 0;
}

}  // namespace graphopt::cli
