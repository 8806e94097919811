// Plain C++: the network is reached through PolicyModel (RegalPolicy.h), built by
// makePolicyModel (RegalNet.cpp); this file lives in graphopt_nn for that reason only.
#include "placement/regal/TrainingRun.h"

#include "placement/regal/RegalImitation.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include "graph/GraphError.h"
#include "graph/IsolatedLoader.h"
#include "graph/Loaders.h"
#include "nn/TorchRuntime.h"
#include "placement/PlacementEngines.h"
#include "placement/model/DeviceModel.h"
#include "placement/regal/RegalEngine.h"
#include "run/Elapsed.h"
#include "run/ResourceLocator.h"

namespace graphopt::regal {

namespace fs = std::filesystem;

const EngineDescription& trainingDescription() {
    static const EngineDescription d{
        "regal-training",
        "REINFORCE training of REGAL's policy on synthetic graphs and the train split of the bundled models",
        {
            ParamSpec::integer("epochs", 10, 0, 100000,
                               "REINFORCE epochs; each visits every training graph once (0: imitation only)"),
            ParamSpec::integer("imitate_epochs", 0, 0, 100000,
                               "before REINFORCE: passes of imitation of elite chromosomes (per-node targets from "
                               "long BRKGA runs on the training graphs; 0 = none)"),
            ParamSpec::integer("imitate_budget", 5000, 10, 100000000, "BRKGA evaluations per elite run"),
            ParamSpec::integer("imitate_seeds", 3, 1, 64, "elite runs per training graph (BRKGA seeds 1..N)"),
            ParamSpec::boolean("seed_heuristics", false,
                               "every BRKGA run of training (uniform, policy and elite runs) starts from the heft, "
                               "xla-best and single solutions, as eval-policy --seed-heuristics evaluates"),
            ParamSpec::list("seed_engines",
                            "every BRKGA run of training also starts from these engines' solutions, e.g. "
                            "[\"dp-contiguous\"] (as eval-policy --seed-engines)"),
            ParamSpec::integer("samples", 4, 1, 64, "actions sampled per graph and epoch"),
            ParamSpec::integer("batch_graphs", 4, 1, 1024, "graphs per policy update"),
            ParamSpec::integer("seeds_per_graph", 2, 1, 64, "BRKGA seeds cycled through per graph"),
            ParamSpec::number("lr", 3e-3, 1e-7, 1, "Adam learning rate"),
            ParamSpec::number("entropy", 0.01, 0, 10, "entropy bonus coefficient"),
            ParamSpec::integer("hidden", 32, 4, 1024, "hidden units of the graph network"),
            ParamSpec::integer("rounds", 3, 0, 16, "message-passing rounds"),
            ParamSpec::choice("keep", "best-validation", {"best-validation", "last"},
                              "which epoch's weights the policy file gets: the one with the highest validation win "
                              "rate against uniform BRKGA (ties: the higher mean improvement; later epochs win exact "
                              "ties), or the last one"),
            ParamSpec::choice("heads", "fixed", {"fixed", "per-device"},
                              "fixed: one output per key of the devices' count (the policy serves that count only); "
                              "per-device: one head scores every (node, device) pair from the device's features, so "
                              "the policy serves any device count and a data set may mix them"),
            ParamSpec::string("sizes", "30,80,160", "node counts of the synthetic training graphs (comma-separated)"),
            ParamSpec::integer("graph_seeds", 2, 1, 100, "synthetic graphs per family and size"),
            ParamSpec::string("models", "", "folder with splits.json whose train split is added; \"none\" for synthetic "
                                            "graphs only [default: the bundled models]"),
            ParamSpec::string("dataset", "",
                              "a data set written by bench/regal/regal_dataset: its train/ graphs join the training "
                              "set and its validation/ graphs replace the synthetic validation graphs, each graph "
                              "on its own device setup (memory limits that bind); empty: none"),
            ParamSpec::integer("batch", 0, 0, 1 << 20,
                               "ONNX models of the train split: the value of every symbolic input dimension named "
                               "like 'batch' (0: not given, such dimensions are 1)"),
            ParamSpec::object("input_shapes", "ONNX models of the train split: whole input shapes by input name, e.g. "
                                              "{\"input\": [32, 3, 224, 224]}"),
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

// params.batch and params.input_shapes ({"input": [32, 3, 224, 224]}) as LoadOptions.
LoadOptions modelInputsFrom(const nlohmann::json& p) {
    LoadOptions o;
    o.batch = p.value("batch", int64_t{0});
    if (!p.contains("input_shapes") || p["input_shapes"].is_null()) return o;
    for (auto it = p["input_shapes"].begin(); it != p["input_shapes"].end(); ++it) {
        std::vector<int64_t> dims;
        bool ok = it.value().is_array() && !it.value().empty();
        if (ok)
            for (const auto& d : it.value()) {
                ok = ok && d.is_number_integer() && d.get<int64_t>() >= 0;
                if (ok) dims.push_back(d.get<int64_t>());
            }
        if (!ok || it.key().empty())
            throw std::invalid_argument("train-policy: input_shapes: '" + it.key() + "' must map to a list of whole numbers >= 0, not " +
                                        it.value().dump());
        o.inputShapes[it.key()] = std::move(dims);
    }
    return o;
}

struct Settings {
    TrainOptions options;
    ImitationOptions imitation;
    PolicyConfig config;
    TrainingSetOptions set;
    std::string out, checkpoint, resume;
    bool keepBest = true;  // the best validation epoch's weights go to the policy file, not the last's
};

// Whether epoch report `a` beats the best so far (`winRate`, `improvement`): a higher validation
// win rate, or the same and a mean improvement at least as high (a later epoch wins exact ties).
bool betterValidation(const EpochReport& a, double winRate, double improvement) {
    return a.validationWinRate > winRate || (a.validationWinRate == winRate && a.validationMeanImprovement >= improvement);
}

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
    o.seedHeuristics = p["seed_heuristics"].get<bool>();
    o.seedEngines = p["seed_engines"].get<std::vector<std::string>>();
    for (const std::string& e : o.seedEngines) checkSeedEngine(e);
    ImitationOptions& im = s.imitation;
    im.epochs = p["imitate_epochs"].get<int>();
    im.budget = p["imitate_budget"].get<int64_t>();
    im.seeds = p["imitate_seeds"].get<int>();
    im.seedHeuristics = o.seedHeuristics;
    im.seedEngines = o.seedEngines;
    im.seed = o.seed;
    im.threads = o.threads;
    if (o.epochs + im.epochs < 1)
        throw std::invalid_argument("train-policy: epochs and imitate_epochs are both 0: nothing to train");
    o.samples = p["samples"].get<int>();
    o.batchGraphs = p["batch_graphs"].get<int>();
    o.seedsPerGraph = p["seeds_per_graph"].get<int>();
    o.hyper.learningRate = p["lr"].get<double>();
    o.hyper.entropyCoef = p["entropy"].get<double>();
    im.learningRate = o.hyper.learningRate;
    im.batchGraphs = o.batchGraphs;
    s.config.hidden = p["hidden"].get<int>();
    s.config.rounds = p["rounds"].get<int>();
    s.config.heads = policyHeadsFromName(p["heads"].get<std::string>());
    s.keepBest = p["keep"].get<std::string>() == "best-validation";
    s.set.anyDeviceCount = s.config.heads == PolicyHeads::PerDevice;
    s.set.sizes = parseSizes(p["sizes"].get<std::string>());
    s.set.graphSeeds = p["graph_seeds"].get<int>();
    const std::string models = p.value("models", std::string());
    s.set.modelsDir = models == "none" ? "" : (models.empty() ? modelsDir() : models);
    if (!s.set.modelsDir.empty() && !fs::exists(fs::path(s.set.modelsDir) / "splits.json"))
        throw std::invalid_argument(s.set.modelsDir + ": no splits.json (give another models folder, or none)");
    s.set.datasetDir = p.value("dataset", std::string());
    if (!s.set.datasetDir.empty() && !fs::is_directory(fs::path(s.set.datasetDir) / "train"))
        throw std::invalid_argument(s.set.datasetDir + ": not a data set (no train/ folder; bench/regal/regal_dataset "
                                    "writes one)");
    s.set.modelInputs = modelInputsFrom(p);
    if (s.set.modelsDir.empty() && !s.set.modelInputs.empty())
        throw std::invalid_argument("train-policy: batch and input shapes apply to the models of the train split, and "
                                    "with models none there are none (the synthetic graphs are generated as they are)");
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

}  // namespace

RunResult TrainingResult::toRunResult() const {
    RunResult r;
    if (epochsDone > 0) r.cost = 1.0 - last.validationMeanImprovement;
    r.costs = {{"epochs", epochsDone},
               {"validation_win_rate", last.validationWinRate},
               {"validation_mean_improvement", last.validationMeanImprovement},
               {"best_validation_mean_improvement", bestValidationImprovement},
               {"kept_epoch", keptEpoch},
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
    j["skipped"] = nlohmann::json::array();
    for (const auto& u : skipped) j["skipped"].push_back({{"file", u.file}, {"reason", u.reason}});
    return j;
}

TrainingRun::TrainingRun(RunSpec spec, std::string command, Communicator* comm)
    : spec_(std::move(spec)), command_(std::move(command)), comm_(comm ? comm : &local_) {
    spec_.kind = "training";
    if (spec_.engine.empty()) spec_.engine = "regal";
    if (spec_.engine != "regal") throw std::invalid_argument("train-policy: only REGAL's policy can be trained");
    const Settings s = readSettings(spec_, comm_->rank() == 0);  // validates
    DeviceModel::load(s.options.devices);     // a bad preset or file is refused now
    // Input sizes no model of the train split can take (no symbolic batch dimension, no input of
    // that name, a format without shapes) are refused now, naming every file and why. A model that
    // cannot take them while others can is left out when the run starts, and reported.
    if (!s.set.modelInputs.empty()) {
        const std::vector<std::string> files = splitFiles(s.set.modelsDir, "train");
        std::string unusable;
        size_t usable = 0;
        for (const std::string& file : files) try {
                loadGraphIsolated(s.set.modelsDir + "/" + file, s.set.modelInputs);
                ++usable;
            } catch (const GraphError& e) {
                const UnusableInput u = unusableInput(s.set.modelsDir + "/" + file, e.what());
                unusable += (unusable.empty() ? "" : "; ") + u.file + ": " + u.reason;
            }
        if (!files.empty() && usable == 0)
            throw std::invalid_argument("none of the " + std::to_string(files.size()) +
                                        " models of the train split can be used: " + unusable);
    }
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
    std::vector<UnusableInput> skipped;
    auto train = buildTrainingSet(s.set, devices, objective, &skipped);
    auto validation = buildValidationSet(s.set, devices, objective, &skipped);
    for (const auto& u : skipped) log("skipped " + u.file + ": " + u.reason);
    int64_t datasetGraphs = 0;
    if (!s.set.datasetDir.empty()) {
        for (const PolicyGraph& g : train) datasetGraphs += g.graph->metadata.count(DeviceModel::kGraphDevicesKey) ? 1 : 0;
        log("data set " + s.set.datasetDir + ": " + std::to_string(datasetGraphs) + " training graphs, " +
            std::to_string(validation.size()) + " validation graphs, each on its own devices" +
            (skipped.empty() ? std::string() : ", " + std::to_string(skipped.size()) + " left out (above)"));
    }
    const bool imitate = s.imitation.epochs > 0 && s.resume.empty();
    const auto cancelled = [&] {
        TrainingResult res;
        res.runStatus = RunStatus::Cancelled;
        res.wallS = secondsSince(t0);
        res.skipped = skipped;
        return res;
    };
    // A phase's progress over `total` graphs: "WHAT done on N of TOTAL graphs (T s)", at most one
    // line every half minute, and the last one (unless `quietWhenQuick` and it all took less).
    const auto phaseProgress = [&log](std::string what, size_t total, bool quietWhenQuick) {
        return [&log, what = std::move(what), total, quietWhenQuick, start = std::chrono::steady_clock::now(),
                lastLogS = 0.0, logged = false](size_t done) mutable {
            const double t = secondsSince(start);
            if (done < total ? t - lastLogS < 30 : quietWhenQuick && !logged && t < 30) return;
            lastLogS = t;
            logged = true;
            std::ostringstream line;
            line << what << " done on " << done << " of " << total << " graphs (" << int(t) << " s)";
            log(line.str());
        };
    };
    // The seed engines' solutions first, each graph's computed once on one rank and handed to all
    // (every BRKGA run of the training and of the elite runs starts from them).
    {
        std::vector<std::string> engines = o.seedEngines;
        if (imitate)
            for (const std::string& e : s.imitation.seedEngines)
                if (std::find(engines.begin(), engines.end(), e) == engines.end()) engines.push_back(e);
        const nlohmann::json seedParams =
            brkgaSeedParams(o.seedHeuristics || (imitate && s.imitation.seedHeuristics), engines);
        std::vector<PolicyGraph> all = train;
        all.insert(all.end(), validation.begin(), validation.end());
        std::string names;
        for (const std::string& name : seedEngineNames(seedParams)) names += (names.empty() ? "" : ", ") + name;
        if (!shareSeedSolutions(all, seedParams, o.budget, o.threads, *comm_, cancel,
                                phaseProgress("seed solutions (" + names + ")", all.size(), true)))
            return cancelled();
    }
    // Imitation first (a fresh run only: a checkpoint already holds the imitated weights). The
    // elite runs are shared out among the ranks and their elites exchanged; then each rank
    // imitates the same targets with the same steps, so the weights stay equal (the epoch
    // checksum checks it).
    ImitationReport imitated;
    if (imitate) {
        log("imitation: elite BRKGA runs on " + std::to_string(train.size()) + " training graphs (" +
            std::to_string(s.imitation.seeds) + " seeds x " + std::to_string(s.imitation.budget) + " evaluations" +
            (comm_->distributed() ? ", shared out among " + std::to_string(comm_->worldSize()) + " ranks" : "") + ")");
        const std::vector<PolicyAction> targets = eliteTargets(
            train, s.imitation, *comm_, cancel, phaseProgress("imitation: elite runs", train.size(), false));
        if (targets.size() == train.size())
            imitated = imitateTargets(*model, train, targets, s.imitation, [&](const ImitationReport& r) {
                std::ostringstream line;
                line << "imitation epoch " << r.epoch << "/" << s.imitation.epochs << ": loss " << std::setprecision(4)
                     << r.loss << ", agreement with the elites " << std::fixed << std::setprecision(3) << r.agreement
                     << " (" << std::setprecision(1) << r.seconds << " s)";
                log(line.str());
            }, cancel);
        if (imitated.epoch < s.imitation.epochs) return cancelled();
    }
    PolicyTrainer trainer(*model, o, std::move(train), std::move(validation), comm_);
    TrainingResult res;
    res.worldSize = comm_->worldSize();
    res.skipped = skipped;
    if (imitate && writer) {
        writeJsonAtomically(s.checkpoint, trainer.checkpoint());  // resume goes on after the imitation
        res.checkpointPath = s.checkpoint;
    }
    if (!s.resume.empty()) {
        // Rank 0 reads it; the others take its copy, whatever world size made the checkpoint.
        std::string text;
        if (writer) text = readCheckpoint(s.resume).dump();
        comm_->broadcast(text, 0);
        const nlohmann::json ckpt = nlohmann::json::parse(text);
        trainer.restore(ckpt);
        if (ckpt.contains("last_validation")) {
            res.last.validationWinRate = ckpt["last_validation"].value("win_rate", 0.0);
            res.last.validationMeanImprovement = ckpt["last_validation"].value("mean_improvement", 0.0);
        }
        res.resumedFrom = trainer.epochsDone();
        log("resumed from " + s.resume + " after epoch " + std::to_string(trainer.epochsDone()));
    }

    res.bestValidationImprovement = -1e9;
    // The best validation epoch so far: its weights and figures ride along in every checkpoint, so
    // a resumed run chooses among all its epochs, not only those since the resume.
    nlohmann::json best;
    if (!s.resume.empty()) {
        std::string text;
        if (writer) {
            const nlohmann::json ckpt = readCheckpoint(s.resume);
            if (ckpt.contains("best_validation")) text = ckpt["best_validation"].dump();
        }
        comm_->broadcast(text, 0);
        if (!text.empty()) best = nlohmann::json::parse(text);
    }
    while (trainer.epochsDone() < o.epochs) {
        const EpochReport rep = trainer.runEpoch(cancel);
        if (rep.cancelled) break;
        res.last = rep;
        res.epochsDone = trainer.epochsDone();
        res.evaluations += rep.evaluations;
        res.bestValidationImprovement = std::max(res.bestValidationImprovement, rep.validationMeanImprovement);
        if (best.is_null() || betterValidation(rep, best["win_rate"].get<double>(), best["mean_improvement"].get<double>()))
            best = {{"epoch", rep.epoch},
                    {"win_rate", rep.validationWinRate},
                    {"mean_improvement", rep.validationMeanImprovement},
                    {"parameters", model->parameters()}};
        if (writer) {
            // The last epoch's validation rides along, so a resumed run that has nothing left to
            // train still writes the figures of the weights it writes (not zeros).
            nlohmann::json ckpt = trainer.checkpoint();
            ckpt["last_validation"] = {{"win_rate", rep.validationWinRate},
                                       {"mean_improvement", rep.validationMeanImprovement}};
            ckpt["best_validation"] = best;
            writeJsonAtomically(s.checkpoint, ckpt);
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
    // Chosen by validation: the test split and the test sets are never read here.
    file.training["keep"] = s.keepBest ? "best-validation" : "last";
    if (s.keepBest && best.is_object()) {
        file.parameters = best["parameters"];
        file.training["kept_epoch"] = best["epoch"];
        file.training["kept_validation_win_rate"] = best["win_rate"];
        file.training["kept_validation_mean_improvement"] = best["mean_improvement"];
    } else {
        file.training["kept_epoch"] = trainer.epochsDone();
    }
    res.keptEpoch = file.training["kept_epoch"].get<int>();
    file.training["command"] = command_;
    file.training["epochs_done"] = trainer.epochsDone();
    file.training["sizes"] = s.set.sizes;
    file.training["graph_seeds"] = s.set.graphSeeds;
    file.training["models"] = s.set.modelsDir.empty() ? "none" : "train split of splits.json";
    if (!s.set.datasetDir.empty()) {
        file.training["dataset"] = s.set.datasetDir;
        file.training["dataset_graphs"] = datasetGraphs;
    }
    if (s.set.modelInputs.batch > 0) file.training["batch"] = s.set.modelInputs.batch;
    if (!s.set.modelInputs.inputShapes.empty()) file.training["input_shapes"] = s.set.modelInputs.inputShapes;
    if (s.imitation.epochs > 0) {
        file.training["imitation"] = s.imitation.toJson();
        if (imitate) file.training["imitation"]["final_agreement"] = imitated.agreement;
    }
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
