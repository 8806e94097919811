// Plain C++: the network is reached through PolicyModel (RegalPolicy.h), built by
// makePolicyModel (RegalNet.cpp); this file lives in graphopt_nn for that reason only.
#include "placement/TrainingRun.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "nn/TorchRuntime.h"
#include "placement/DeviceModel.h"
#include "placement/RegalEngine.h"
#include "run/ResourceLocator.h"

namespace graphopt::regal {

namespace fs = std::filesystem;

const EngineDescription& trainingDescription() {
    static const EngineDescription d{
        "regal-training",
        "REINFORCE training of REGAL's policy on synthetic graphs and the train split of the bundled models",
        {
            ParamSpec::integer("epochs", 10, 1, 100000, "epochs; each visits every training graph once"),
            ParamSpec::integer("samples", 4, 1, 64, "actions sampled per graph and epoch"),
            ParamSpec::integer("batch_graphs", 4, 1, 1024, "graphs per policy update"),
            ParamSpec::integer("seeds_per_graph", 2, 1, 64, "BRKGA seeds cycled through per graph"),
            ParamSpec::number("lr", 3e-3, 1e-7, 1, "Adam learning rate"),
            ParamSpec::number("entropy", 0.01, 0, 10, "entropy bonus coefficient"),
            ParamSpec::integer("hidden", 32, 4, 1024, "hidden units of the graph network"),
            ParamSpec::integer("rounds", 3, 0, 16, "message-passing rounds"),
            ParamSpec::string("sizes", "30,80,160", "node counts of the synthetic training graphs (comma-separated)"),
            ParamSpec::integer("graph_seeds", 2, 1, 100, "synthetic graphs per family and size"),
            ParamSpec::string("models", "", "folder with splits.json whose train split is added; \"none\" for synthetic "
                                            "graphs only [default: the bundled models]"),
            ParamSpec::string("out", "", "the policy file to write (required)"),
            ParamSpec::string("checkpoint", "", "checkpoint written after every epoch [default: OUT.ckpt]"),
            ParamSpec::string("resume", "", "checkpoint to go on from"),
        }};
    return d;
}

namespace {

std::vector<int> parseSizes(const std::string& text) {
    std::vector<int> sizes;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ',')) {
        if (item.empty()) continue;
        int v = 0;
        try {
            size_t used = 0;
            v = std::stoi(item, &used);
            if (used != item.size()) throw std::invalid_argument(item);
        } catch (const std::exception&) {
            throw std::invalid_argument("sizes: '" + item + "' is not a whole number");
        }
        if (v < 10 || v > 10000) throw std::invalid_argument("sizes: node counts must be in 10..10000, not " + item);
        sizes.push_back(v);
    }
    if (sizes.empty()) throw std::invalid_argument("sizes: give at least one node count");
    return sizes;
}

struct Settings {
    TrainOptions options;
    PolicyConfig config;
    TrainingSetOptions set;
    std::string out, checkpoint, resume;
};

// `checkFiles`: whether the checkpoint to resume from must be here (on rank 0; the others get it
// from rank 0).
Settings readSettings(const RunSpec& spec, bool checkFiles = true) {
    const EngineDescription& d = trainingDescription();
    checkParams("train-policy", d.params, spec.params);
    nlohmann::json p = d.defaults();
    for (auto it = spec.params.begin(); it != spec.params.end(); ++it) p[it.key()] = it.value();
    Settings s;
    TrainOptions& o = s.options;
    o.objective = spec.objective.empty() ? "runtime" : spec.objective;
    objectiveFromName(o.objective);  // validates
    o.devices = spec.devices.empty() ? DeviceModel::defaultPresetName() : spec.devices;
    o.seed = spec.seed;
    o.budget = spec.budget > 0 ? spec.budget : 1500;
    if (o.budget < 10) throw std::invalid_argument("train-policy: budget must be >= 10 evaluations");
    o.threads = spec.threads > 0 ? spec.threads : 2;
    o.epochs = p["epochs"].get<int>();
    o.samples = p["samples"].get<int>();
    o.batchGraphs = p["batch_graphs"].get<int>();
    o.seedsPerGraph = p["seeds_per_graph"].get<int>();
    o.hyper.learningRate = p["lr"].get<double>();
    o.hyper.entropyCoef = p["entropy"].get<double>();
    s.config.hidden = p["hidden"].get<int>();
    s.config.rounds = p["rounds"].get<int>();
    s.set.sizes = parseSizes(p["sizes"].get<std::string>());
    s.set.graphSeeds = p["graph_seeds"].get<int>();
    const std::string models = p.value("models", std::string());
    s.set.modelsDir = models == "none" ? "" : (models.empty() ? modelsDir() : models);
    if (!s.set.modelsDir.empty() && !fs::exists(fs::path(s.set.modelsDir) / "splits.json"))
        throw std::invalid_argument(s.set.modelsDir + ": no splits.json (give another models folder, or none)");
    s.set.validationNodes = std::min(120, *std::max_element(s.set.sizes.begin(), s.set.sizes.end()));
    s.out = p.value("out", std::string());
    if (s.out.empty()) throw std::invalid_argument("train-policy: the policy file to write (out) is required");
    s.checkpoint = p.value("checkpoint", std::string());
    if (s.checkpoint.empty()) s.checkpoint = s.out + ".ckpt";
    s.resume = p.value("resume", std::string());
    if (checkFiles && !s.resume.empty() && !fs::exists(s.resume)) throw std::invalid_argument(s.resume + ": checkpoint not found");
    return s;
}

nlohmann::json readCheckpoint(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::invalid_argument(path + ": cannot open checkpoint");
    try {
        return nlohmann::json::parse(in);
    } catch (const std::exception&) {
        throw std::invalid_argument(path + ": checkpoint is not valid JSON (truncated or corrupt?)");
    }
}

// Written whole or not at all: a crash while writing leaves the previous checkpoint.
void writeJsonAtomically(const std::string& path, const nlohmann::json& j) {
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::trunc);
        if (!out) throw std::runtime_error(path + ": cannot write");
        out << j.dump() << "\n";
        if (!out) throw std::runtime_error(path + ": write failed");
    }
    fs::rename(tmp, path);
}

double secondsSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

RunResult TrainingResult::toRunResult() const {
    RunResult r;
    if (epochsDone > 0) r.cost = 1.0 - last.validationMeanImprovement;
    r.costs = {{"epochs", epochsDone},
               {"validation_win_rate", last.validationWinRate},
               {"validation_mean_improvement", last.validationMeanImprovement},
               {"best_validation_mean_improvement", bestValidationImprovement},
               {"mean_reward", last.meanReward},
               {"entropy", last.entropy},
               {"evaluations", evaluations},
               {"wall_s", wallS},
               {"world_size", worldSize},
               {"policy", policyPath},
               {"checkpoint", checkpointPath}};
    return r;
}

nlohmann::json TrainingResult::toJson() const {
    nlohmann::json j = toRunResult().costs;
    j["status"] = runStatusName(runStatus);
    j["resumed_from_epoch"] = resumedFrom;
    return j;
}

TrainingRun::TrainingRun(RunSpec spec, std::string command, Communicator* comm)
    : spec_(std::move(spec)), command_(std::move(command)), comm_(comm ? comm : &local_) {
    spec_.kind = "training";
    if (spec_.engine.empty()) spec_.engine = "regal";
    if (spec_.engine != "regal") throw std::invalid_argument("train-policy: only REGAL's policy can be trained");
    const Settings s = readSettings(spec_, comm_->rank() == 0);  // validates
    DeviceModel::load(s.options.devices);     // a bad preset or file is refused now
    spec_.objective = s.options.objective;
    spec_.devices = s.options.devices;
    spec_.budget = s.options.budget;
    spec_.threads = s.options.threads;
}

std::unique_ptr<RunOutcome> TrainingRun::execute(const RunReporter& reporter, const CancellationToken* cancel) {
    return std::make_unique<TrainingResult>(run(reporter, cancel));
}

TrainingResult TrainingRun::run(const RunReporter& reporter, const CancellationToken* cancel) {
    const auto t0 = std::chrono::steady_clock::now();
    auto log = [this](const std::string& line) {
        if (log_) log_(line);
    };
    const Settings s = readSettings(spec_, comm_->rank() == 0);
    const TrainOptions& o = s.options;
    const bool writer = comm_->rank() == 0;
    const DeviceModel devices = DeviceModel::load(o.devices);
    PolicyConfig config = s.config;
    config.devices = devices.deviceCount();
    const PlacementObjective objective = objectiveFromName(o.objective);
    nn::setTorchThreads(1);
    nn::setBlasThreads(1);  // OpenBLAS's spinning threads would take the core BRKGA or another rank needs
    auto model = makePolicyModel(config, o.seed);
    log("preparing training graphs");
    auto train = buildTrainingSet(s.set, devices, objective);
    auto validation = buildValidationSet(s.set, devices, objective);
    PolicyTrainer trainer(*model, devices, o, std::move(train), std::move(validation), comm_);
    TrainingResult res;
    res.worldSize = comm_->worldSize();
    if (!s.resume.empty()) {
        // Rank 0 reads it; the others take its copy, whatever world size made the checkpoint.
        std::string text;
        if (writer) text = readCheckpoint(s.resume).dump();
        comm_->broadcast(text, 0);
        trainer.restore(nlohmann::json::parse(text));
        res.resumedFrom = trainer.epochsDone();
        log("resumed from " + s.resume + " after epoch " + std::to_string(trainer.epochsDone()));
    }

    res.bestValidationImprovement = -1e9;
    while (trainer.epochsDone() < o.epochs) {
        const EpochReport rep = trainer.runEpoch(cancel);
        if (rep.cancelled) break;
        res.last = rep;
        res.epochsDone = trainer.epochsDone();
        res.evaluations += rep.evaluations;
        res.bestValidationImprovement = std::max(res.bestValidationImprovement, rep.validationMeanImprovement);
        if (writer) {
            writeJsonAtomically(s.checkpoint, trainer.checkpoint());
            res.checkpointPath = s.checkpoint;
        }
        ProgressEvent ev;
        ev.step = rep.epoch;
        ev.evaluations = res.evaluations;
        ev.bestCost = 1.0 - res.bestValidationImprovement;
        ev.elapsedS = secondsSince(t0);
        ev.values = {{"mean_reward", rep.meanReward},
                     {"validation_win_rate", rep.validationWinRate},
                     {"validation_mean_improvement", rep.validationMeanImprovement},
                     {"entropy", rep.entropy},
                     {"epoch_s", rep.seconds},
                     {"epoch_cpu_s", rep.cpuS},
                     {"epoch_critical_cpu_s", rep.criticalCpuS}};
        reporter.report(ev);
        reporter.commit();  // the epoch is in the store before the next one starts
    }
    res.epochsDone = trainer.epochsDone();
    if (res.bestValidationImprovement < -1e8) res.bestValidationImprovement = 0;
    if (trainer.epochsDone() < o.epochs) {
        res.runStatus = RunStatus::Cancelled;
        res.wallS = secondsSince(t0);
        return res;
    }

    PolicyFile file;
    file.objective = o.objective;
    file.devices = o.devices;
    file.config = config;
    file.parameters = model->parameters();
    file.training = o.toJson();
    file.training["command"] = command_;
    file.training["epochs_done"] = trainer.epochsDone();
    file.training["sizes"] = s.set.sizes;
    file.training["graph_seeds"] = s.set.graphSeeds;
    file.training["models"] = s.set.modelsDir.empty() ? "none" : "train split of splits.json";
    file.training["final_validation_win_rate"] = res.last.validationWinRate;
    file.training["final_validation_mean_improvement"] = res.last.validationMeanImprovement;
    file.training["torch"] = nn::torchVersion();
    file.training["world_size"] = comm_->worldSize();
    if (writer) {
        writePolicyFile(s.out, file);
        res.policyPath = s.out;
    }
    res.runStatus = RunStatus::Finished;
    res.wallS = secondsSince(t0);
    return res;
}

}  // namespace graphopt::regal
