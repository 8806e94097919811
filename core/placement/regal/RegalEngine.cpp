// The "regal" engine (see RegalEngine.h). Plain C++: the network is reached through PolicyModel.
#include "placement/regal/RegalEngine.h"

#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <stdexcept>

#include "placement/PlacementEngines.h"

namespace graphopt {
namespace regal {

std::unique_ptr<PolicyModel> loadPolicyModel(const std::string& path, PolicyFile* file) {
    PolicyFile f = readPolicyFile(path);
    auto model = makePolicyModel(f.config, 1);
    try {
        model->setParameters(f.parameters);
    } catch (const std::exception& e) {
        throw std::invalid_argument(path + ": bad policy file (" + e.what() + ")");
    }
    if (file) *file = std::move(f);
    return model;
}

PolicyExplanation explainPolicy(const Graph& g, const DeviceModel& devices, const std::string& objective,
                                const std::string& policyPath) {
    PolicyExplanation out;
    out.policyPath = policyPath.empty() ? findDefaultPolicy(objective, devices.name) : policyPath;
    PolicyFile file;
    auto model = loadPolicyModel(out.policyPath, &file);
    if (!model->config().servesDevices(devices.deviceCount()))
        throw std::invalid_argument(out.policyPath + ": made for " + model->config().devicesServed() + ", not " +
                                    std::to_string(devices.deviceCount()));
    ScheduleOptions options;
    options.objective = objectiveFromName(objective);
    const ScheduleProblem problem(g, devices, options);
    out.probabilities = model->predict(extractFeatures(g, devices, problem));
    out.action = greedyAction(out.probabilities);
    out.keysPerNode = out.probabilities.keysPerNode;
    return out;
}

}  // namespace regal

namespace {

// Loaded policies, by path and modification time: the GUI places many times with the same one. A model is used by one
// run at a time (the mutex), which costs nothing next to the search it feeds.
struct PolicyCache {
    std::mutex mutex;
    std::map<std::string, std::shared_ptr<regal::PolicyModel>> models;
};
PolicyCache& cache() {
    static PolicyCache c;
    return c;
}

SearchOutcome regalEngine(const SearchContext& ctx) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::string objective = objectiveName(ctx.problem->options.objective);
    std::string path = ctx.params.value("policy", "");
    if (path.empty()) path = regal::findDefaultPolicy(objective, ctx.devices.name);
    const std::string mode = ctx.params.value("action", "greedy");
    if (mode != "greedy" && mode != "sample") throw std::invalid_argument("params.action must be greedy or sample");
    const bool sampled = mode == "sample";
    regal::PolicyAction action;
    {
        PolicyCache& c = cache();
        std::lock_guard lock(c.mutex);
        // Keyed by path and modification time: a retrained or deleted file is noticed.
        std::error_code ec;
        const auto mtime = std::filesystem::last_write_time(path, ec);
        const std::string key = path + "@" + (ec ? "?" : std::to_string(mtime.time_since_epoch().count()));
        auto it = c.models.find(key);
        if (ec || it == c.models.end()) it = c.models.insert_or_assign(key, regal::loadPolicyModel(path)).first;
        const regal::PolicyFeatures f = regal::extractFeatures(ctx.graph, ctx.devices, *ctx.problem);
        const regal::PolicyOutput probs = it->second->predict(f);
        Rng rng = Rng::stream(ctx.seed, regal::kActionStream, 0);
        action = sampled ? regal::sampleAction(probs, rng) : regal::greedyAction(probs);
    }
    const double inferenceS = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    SearchOutcome out = brkgaEngine(ctx, regal::biasFromAction(action, ctx.deviceCount() + 1));
    out.info["policy"] = path;
    out.info["inference_s"] = inferenceS;
    out.info["action"] = mode;
    return out;
}

}  // namespace

void registerRegalEngine() {
    EngineDescription d;
    d.name = "regal";
    d.summary = "REGAL: BRKGA whose mutants and crossover are steered per node by the trained graph neural network";
    d.params = brkgaParams();
    d.steps = true;
    d.params.push_back(ParamSpec::string("policy", "",
                                         "policy file [default: the shipped policy for the objective and devices]"));
    d.params.push_back(ParamSpec::number("uniform_mutant_share", 0, 0, 1,
                                         "share of the policy-drawn chromosomes (generation 0 and mutants) drawn "
                                         "uniform instead, so a policy that points into a poor basin cannot hold "
                                         "the whole search there"));
    d.params.push_back(ParamSpec::choice("action", "greedy", {"greedy", "sample"},
                                         "greedy: the most probable choice per node; sample: drawn from the policy"));
    registerPlacementEngine(std::move(d), regalEngine);
}

}  // namespace graphopt
