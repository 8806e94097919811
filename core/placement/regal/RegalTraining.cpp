#include "placement/regal/RegalTraining.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numeric>
#include <optional>
#include <sstream>
#include <stdexcept>

#include <time.h>

#include "graph/GraphError.h"
#include "graph/IsolatedLoader.h"
#include "graph/Loaders.h"
#include "graph/SyntheticGenerator.h"
#include "placement/PlacementEngines.h"
#include "placement/search/SearchContext.h"
#include "run/Elapsed.h"

namespace graphopt::regal {

namespace {

// CPU seconds of this process so far (all its threads: BRKGA's workers too).
double processCpuS() {
    timespec ts{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// Every rank appends the CPU seconds of its part of a phase to what it sends; the epoch's CPU
// grows by all of them, its critical path by the slowest rank's.
void addPhaseCpu(const std::vector<std::string>& gathered, std::vector<size_t>& offset, EpochReport& rep) {
    double slowest = 0;
    for (size_t r = 0; r < gathered.size(); ++r) {
        const double cpu = readDoubles(gathered[r], offset[r], 1)[0];
        rep.cpuS += cpu;
        slowest = std::max(slowest, cpu);
    }
    rep.criticalCpuS += slowest;
}


// What one BRKGA run on the graph costs, roughly: a decoding visits every node and edge.
double brkgaWork(const PolicyGraph& g) { return double(g.features.n + g.features.edgeSrc.size()); }

double costOf(const PolicyGraph& g, const std::vector<double>& keys) {
    ScheduleSimulator sim(g.problem);
    return sim.evaluate(keys).cost;
}

}  // namespace

PolicyGraph preparePolicyGraph(std::string name, Graph g, const DeviceModel& devices, PlacementObjective objective,
                               int microBatches) {
    PolicyGraph pg;
    pg.name = std::move(name);
    auto graph = std::make_shared<Graph>(std::move(g));
    ScheduleOptions so;
    so.objective = objective;
    so.microBatches = microBatches;
    pg.devices = std::make_shared<const DeviceModel>(devices);
    pg.problem = std::make_shared<ScheduleProblem>(*graph, *pg.devices, so);
    pg.features = extractFeatures(*graph, *pg.devices, *pg.problem);
    pg.graph = std::move(graph);
    return pg;
}

SearchContext contextFor(const PolicyGraph& g, int64_t budget, uint64_t seed, int threads,
                         const nlohmann::json& params) {
    return SearchContext{*g.graph, *g.devices, g.problem, budget, seed, std::max(1, threads), params, {}, nullptr,
                         std::chrono::steady_clock::now(), {}, g.seedSolutions};
}

double runBrkga(const PolicyGraph& g, const KeyBias& bias, int64_t budget, uint64_t seed,
                int threads, const nlohmann::json& params, std::vector<CurvePoint>* curve) {
    SearchContext ctx = contextFor(g, budget, seed, threads, params);
    if (curve) {
        curve->clear();
        ctx.progress = [curve](const ProgressEvent& e) { curve->push_back({e.evaluations, e.bestCost}); };
    }
    const SearchOutcome out = brkgaEngine(ctx, bias);
    return costOf(g, out.keys);
}

nlohmann::json brkgaSeedParams(bool seedHeuristics, const std::vector<std::string>& seedEngines) {
    nlohmann::json p = nlohmann::json::object();
    if (seedHeuristics) p["seed_heuristics"] = true;
    if (!seedEngines.empty()) p["seed_engines"] = seedEngines;
    return p;
}

int64_t evaluationsToReach(const std::vector<CurvePoint>& curve, double target) {
    const double slack = 1e-12 * std::abs(target);
    for (const CurvePoint& p : curve)
        if (p.bestCost <= target + slack) return p.evaluations;
    return -1;
}

std::vector<std::string> splitFiles(const std::string& modelsDir, const std::string& split) {
    const std::string path = modelsDir + "/splits.json";
    std::ifstream in(path);
    if (!in) throw std::invalid_argument(path + ": cannot open the train/test split");
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(in);
        return j.at(split).get<std::vector<std::string>>();
    } catch (const std::exception& e) {
        throw std::invalid_argument(path + ": bad split file (" + e.what() + ")");
    }
}

UnusableInput unusableInput(const std::string& file, const std::string& message) {
    const std::string prefix = file + ": ";
    return {file, message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : message};
}

std::string deviceCountMismatch(const DeviceModel& own, const DeviceModel& policyDevices, bool anyDeviceCount) {
    if (anyDeviceCount || own.deviceCount() == policyDevices.deviceCount()) return "";
    return "its device setup has " + std::to_string(own.deviceCount()) + " devices, the policy places on " +
           std::to_string(policyDevices.deviceCount());
}

namespace {

namespace fs = std::filesystem;

// DIR/SPLIT/*.json of a data set, in name order, each on its own device setup. A graph this
// policy cannot place (another device count than a fixed policy's, no device setup) is put in
// `unusable` with the reason and left out when `unusable` is given, else it is an error.
std::vector<PolicyGraph> datasetGraphs(const std::string& dir, const std::string& split, const DeviceModel& devices,
                                       PlacementObjective objective, bool anyDeviceCount,
                                       std::vector<UnusableInput>* unusable) {
    const fs::path folder = fs::path(dir) / split;
    if (!fs::is_directory(folder)) throw std::invalid_argument(folder.string() + ": no such data set folder");
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(folder))
        if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    std::vector<PolicyGraph> out;
    for (const fs::path& f : files) {
        Graph g = loadGraph(f.string());
        const std::optional<DeviceModel> own = DeviceModel::fromGraph(g);
        std::string why;
        if (!own)
            why = "a data set graph without its device setup (metadata '" + std::string(DeviceModel::kGraphDevicesKey) +
                  "')";
        else
            why = deviceCountMismatch(*own, devices, anyDeviceCount);
        if (!why.empty()) {
            if (!unusable) throw std::invalid_argument(f.string() + ": " + why);
            unusable->push_back({f.string(), why});
            continue;
        }
        out.push_back(preparePolicyGraph(split + "/" + f.filename().string(), std::move(g), *own, objective));
    }
    return out;
}

}  // namespace

std::vector<PolicyGraph> buildTrainingSet(const TrainingSetOptions& o, const DeviceModel& devices, PlacementObjective objective,
                                          std::vector<UnusableInput>* unusable) {
    std::vector<PolicyGraph> out;
    for (GraphFamily fam : allGraphFamilies())
        for (int size : o.sizes)
            for (int s = 1; s <= o.graphSeeds; ++s) {
                GeneratorOptions go{fam, size, uint64_t(s)};
                out.push_back(preparePolicyGraph(std::string(graphFamilyName(fam)) + "-" + std::to_string(size) + "-s" +
                                                     std::to_string(s),
                                                 generateGraph(go), devices, objective));
            }
    if (!o.modelsDir.empty())
        for (const std::string& file : splitFiles(o.modelsDir, "train")) try {
                out.push_back(preparePolicyGraph(file, loadGraphIsolated(o.modelsDir + "/" + file, o.modelInputs), devices, objective));
            } catch (const GraphError& e) {
                if (!unusable) throw;
                unusable->push_back(unusableInput(o.modelsDir + "/" + file, e.what()));
            }
    if (!o.datasetDir.empty())
        for (PolicyGraph& g : datasetGraphs(o.datasetDir, "train", devices, objective, o.anyDeviceCount, unusable))
            out.push_back(std::move(g));
    return out;
}

std::vector<PolicyGraph> buildValidationSet(const TrainingSetOptions& o, const DeviceModel& devices, PlacementObjective objective,
                                            std::vector<UnusableInput>* unusable) {
    if (!o.datasetDir.empty()) {
        std::vector<UnusableInput> left;
        std::vector<PolicyGraph> out =
            datasetGraphs(o.datasetDir, "validation", devices, objective, o.anyDeviceCount, unusable ? &left : nullptr);
        if (out.empty())
            throw std::invalid_argument(o.datasetDir + "/validation: the data set has no validation graphs" +
                                        (left.empty() ? std::string()
                                                      : " this policy can place (" + std::to_string(left.size()) +
                                                            " left out, the first: " + left[0].file + ": " + left[0].reason + ")"));
        if (unusable) unusable->insert(unusable->end(), left.begin(), left.end());
        return out;
    }
    std::vector<PolicyGraph> out;
    for (GraphFamily fam : allGraphFamilies()) {
        GeneratorOptions go{fam, o.validationNodes, 1001};  // training uses seeds 1..graphSeeds
        out.push_back(preparePolicyGraph(std::string("val-") + graphFamilyName(fam), generateGraph(go), devices, objective));
    }
    return out;
}

nlohmann::json TrainOptions::toJson() const {
    nlohmann::json j = {{"objective", objective},         {"devices", devices},       {"epochs", epochs},
            {"seed", seed},                   {"budget", budget},         {"samples", samples},
            {"batch_graphs", batchGraphs},    {"seeds_per_graph", seedsPerGraph},
            {"baseline_decay", baselineDecay}, {"learning_rate", hyper.learningRate},
            {"entropy_coef", hyper.entropyCoef}, {"clip_norm", hyper.clipNorm}};
    if (seedHeuristics) j["seed_heuristics"] = true;
    if (!seedEngines.empty()) j["seed_engines"] = seedEngines;
    return j;
}

PolicyTrainer::PolicyTrainer(PolicyModel& model, TrainOptions options, std::vector<PolicyGraph> train,
                             std::vector<PolicyGraph> validation, Communicator* comm)
    : model_(model), o_(std::move(options)), train_(std::move(train)),
      validation_(std::move(validation)), comm_(comm ? comm : &local_) {
    if (train_.empty()) throw std::invalid_argument("no training graphs");
    if (o_.samples < 1 || o_.batchGraphs < 1 || o_.seedsPerGraph < 1 || o_.budget < 1)
        throw std::invalid_argument("samples, batch graphs, seeds per graph and budget must be >= 1");
}

double PolicyTrainer::uniformCost(const PolicyGraph& g, uint64_t seed, int64_t& evaluations) {
    const std::string key = g.name + "#" + std::to_string(seed);
    auto it = uniformCache_.find(key);
    if (it != uniformCache_.end()) return it->second;
    const double c = runBrkga(g, {}, o_.budget, seed, o_.threads, runParams());
    evaluations += o_.budget;
    uniformCache_[key] = c;
    return c;
}

std::vector<int> shareOutByWork(const std::vector<double>& work, int ranks) {
    std::vector<int> owner(work.size(), 0);
    if (ranks == 1) return owner;
    std::vector<size_t> byWork(work.size());
    std::iota(byWork.begin(), byWork.end(), size_t(0));
    std::stable_sort(byWork.begin(), byWork.end(), [&](size_t a, size_t b) { return work[a] > work[b]; });
    std::vector<double> load(size_t(ranks), 0.0);
    for (size_t i : byWork) {
        const int r = int(std::min_element(load.begin(), load.end()) - load.begin());
        owner[i] = r;
        load[size_t(r)] += work[i];
    }
    return owner;
}

size_t shareOutGraphs(const std::vector<PolicyGraph>& graphs, Communicator& comm, const CancellationToken* cancel,
                      int perRank, const std::function<std::string(size_t)>& work,
                      const std::function<void(size_t, const std::string&)>& use,
                      const std::function<void(size_t done)>& onRound) {
    const size_t round = size_t(std::max(1, perRank)) * size_t(comm.worldSize());
    for (size_t first = 0; first < graphs.size(); first += round) {
        const size_t last = std::min(graphs.size(), first + round);
        std::vector<double> sizes;
        for (size_t i = first; i < last; ++i) sizes.push_back(brkgaWork(graphs[i]));
        const std::vector<int> owner = shareOutByWork(sizes, comm.worldSize());
        // Mine: a cancellation flag, then per graph of mine (in order) its result's length and bytes.
        const bool stop = cancel && cancel->isCancelled();
        std::string mine(1, stop ? '1' : '0');
        if (!stop)
            for (size_t i = first; i < last; ++i) {
                if (owner[i - first] != comm.rank()) continue;
                const std::string result = work(i);
                appendDoubles(mine, {double(result.size())});
                mine += result;
            }
        const std::vector<std::string> all = comm.allGather(mine);
        for (const std::string& part : all)
            if (part.empty() || part[0] == '1') return first;
        std::vector<size_t> offset(all.size(), 1);
        for (size_t i = first; i < last; ++i) {
            const size_t r = size_t(owner[i - first]);
            const size_t length = size_t(readDoubles(all[r], offset[r], 1)[0]);
            if (offset[r] + length > all[r].size())
                throw DistributedError("rank " + std::to_string(r) + " sent a result shorter than it said", int(r));
            use(i, all[r].substr(offset[r], length));
            offset[r] += length;
        }
        if (onRound) onRound(last);
    }
    return graphs.size();
}

bool shareSeedSolutions(const std::vector<PolicyGraph>& graphs, const nlohmann::json& params, int64_t budget,
                        int threads, Communicator& comm, const CancellationToken* cancel,
                        const std::function<void(size_t done)>& onRound) {
    std::vector<std::string> names;
    for (const std::string& name : seedEngineNames(params))
        if (describePlacementEngine(name).deterministic) names.push_back(name);
    if (names.empty()) return true;
    // A result: {engine: {"keys", "evaluations", "info"}}; JSON numbers give the doubles back exactly.
    const auto work = [&](size_t i) {
        const PolicyGraph& g = graphs[i];
        const SearchContext ctx = contextFor(g, budget, 1, threads, nlohmann::json::object());
        nlohmann::json j = nlohmann::json::object();
        for (const std::string& name : names) {
            const SearchOutcome out = g.seedSolutions->get(name, true, ctx, [&] { return findPlacementEngine(name)(ctx); });
            j[name] = {{"keys", out.keys}, {"evaluations", out.evaluations}, {"info", out.info}};
        }
        return j.dump();
    };
    const auto use = [&](size_t i, const std::string& result) {
        const nlohmann::json j = nlohmann::json::parse(result);
        for (const auto& [name, o] : j.items()) {
            SearchOutcome out;
            out.keys = o.at("keys").get<std::vector<double>>();
            out.evaluations = o.at("evaluations").get<int64_t>();
            out.info = o.at("info");
            graphs[i].seedSolutions->keep(name, std::move(out));
        }
    };
    return shareOutGraphs(graphs, comm, cancel, 4, work, use, onRound) == graphs.size();
}

bool PolicyTrainer::agreeToStop(const CancellationToken* cancel) {
    const bool mine = cancel && cancel->isCancelled();
    if (!comm_->distributed()) return mine;
    for (const std::string& flag : comm_->allGather(mine ? "1" : "0"))
        if (flag == "1") return true;
    return false;
}

std::string PolicyTrainer::weightChecksum() const {
    std::ostringstream s;
    s << std::hex << fnv1a(model_.optimizerState().dump(), fnv1a(model_.parameters().dump()));
    return s.str();
}

void PolicyTrainer::checkSameWeights(int epoch) {
    if (!comm_->distributed()) return;
    const std::vector<std::string> sums = comm_->allGather(weightChecksum());
    for (size_t r = 1; r < sums.size(); ++r)
        if (sums[r] != sums[0])
            throw DistributedError("the ranks' weights differ after epoch " + std::to_string(epoch) + ": rank 0 has checksum " +
                                       sums[0] + ", rank " + std::to_string(r) + " has " + sums[r],
                                   int(r));
}

EpochReport PolicyTrainer::runEpoch(const CancellationToken* cancel) {
    const auto t0 = std::chrono::steady_clock::now();
    EpochReport rep;
    rep.epoch = epochsDone_ + 1;
    const uint64_t e = uint64_t(rep.epoch);
    const int me = comm_->rank();
    Rng rng = Rng::stream(o_.seed, 0x5EED0000ull + e, 0);

    std::vector<int> order(train_.size());
    std::iota(order.begin(), order.end(), 0);
    for (int i = int(order.size()) - 1; i > 0; --i) std::swap(order[i], order[rng.index(i + 1)]);
    auto seedAt = [&](size_t pos) { return 1 + (e + uint64_t(pos)) % uint64_t(o_.seedsPerGraph); };
    auto cached = [&](const PolicyGraph& g, uint64_t seed) { return uniformCache_.count(g.name + "#" + std::to_string(seed)) > 0; };

    double rewardSum = 0, entropySum = 0;
    int rewardCount = 0, updates = 0;
    const size_t B = size_t(o_.batchGraphs), S = size_t(o_.samples);
    for (size_t first = 0; first < order.size(); first += B) {
        const size_t last = std::min(order.size(), first + B);
        if (agreeToStop(cancel)) {
            rep.cancelled = true;
            rep.seconds = secondsSince(t0);
            return rep;
        }
        // The batch's BRKGA runs, shared out one by one (a graph's uniform run when not cached,
        // and each of its samples): finer than whole graphs, so the ranks finish together.
        struct Rollout {
            size_t pos;
            int sample;  // -1: the uniform run
        };
        std::vector<Rollout> runs;
        std::vector<double> work;
        for (size_t pos = first; pos < last; ++pos) {
            const PolicyGraph& g = train_[order[pos]];
            if (!cached(g, seedAt(pos))) runs.push_back({pos, -1});
            for (size_t k = 0; k < S; ++k) runs.push_back({pos, int(k)});
            while (work.size() < runs.size()) work.push_back(brkgaWork(g));
        }
        const std::vector<int> owner = shareOutByWork(work, comm_->worldSize());

        // A graph's actions, drawn from its own stream: the same whichever rank draws them.
        std::map<size_t, std::vector<PolicyAction>> actions;
        auto actionsOf = [&](size_t pos) -> std::vector<PolicyAction>& {
            auto it = actions.find(pos);
            if (it != actions.end()) return it->second;
            const PolicyGraph& g = train_[order[pos]];
            const PolicyOutput probs = model_.predict(g.features);
            Rng actionRng = Rng::stream(o_.seed, 0x5EED0000ull + e, 1 + uint64_t(pos));
            std::vector<PolicyAction>& a = actions[pos];
            for (size_t k = 0; k < S; ++k) a.push_back(sampleAction(probs, actionRng));
            return a;
        };

        // This rank's runs: their costs, in the order of `runs`. All samples of a graph share one
        // BRKGA seed, so their rewards differ by the action only.
        double cpu0 = processCpuS();
        std::vector<double> mine;
        for (size_t i = 0; i < runs.size(); ++i) {
            if (owner[i] != me) continue;
            if (!comm_->distributed() && cancel && cancel->isCancelled()) {
                rep.cancelled = true;
                rep.seconds = secondsSince(t0);
                return rep;
            }
            const PolicyGraph& g = train_[order[runs[i].pos]];
            const uint64_t seed = seedAt(runs[i].pos);
            if (runs[i].sample < 0) {
                mine.push_back(runBrkga(g, {}, o_.budget, seed, o_.threads, runParams()));
            } else {
                const PolicyAction& a = actionsOf(runs[i].pos)[size_t(runs[i].sample)];
                mine.push_back(runBrkga(g, biasFromAction(a, g.features.d + 1), o_.budget, seed, o_.threads, runParams()));
            }
        }
        mine.push_back(processCpuS() - cpu0);
        std::string packed;
        appendDoubles(packed, mine);
        const std::vector<std::string> gathered = comm_->allGather(packed);

        // Every rank: the batch's costs in order, then the rewards and advantages exactly as one
        // process computes them.
        std::vector<size_t> offset(gathered.size(), 0);
        std::map<size_t, std::vector<double>> costs;  // pos -> per sample
        for (size_t i = 0; i < runs.size(); ++i) {
            const size_t r = size_t(owner[i]);
            const double c = readDoubles(gathered[r], offset[r], 1)[0];
            rep.evaluations += o_.budget;
            const PolicyGraph& g = train_[order[runs[i].pos]];
            if (runs[i].sample < 0)
                uniformCache_[g.name + "#" + std::to_string(seedAt(runs[i].pos))] = c;
            else
                costs[runs[i].pos].push_back(c);
        }
        addPhaseCpu(gathered, offset, rep);
        std::map<size_t, std::vector<double>> advantages;  // pos -> per sample
        for (size_t pos = first; pos < last; ++pos) {
            const PolicyGraph& g = train_[order[pos]];
            const double u = uniformCache_.at(g.name + "#" + std::to_string(seedAt(pos)));
            std::vector<double> rewards;
            for (double c : costs.at(pos)) rewards.push_back(u > 0 ? (u - c) / u : 0.0);
            const double sum = std::accumulate(rewards.begin(), rewards.end(), 0.0);
            const double mean = sum / double(rewards.size());
            auto b = baseline_.find(g.name);
            const double base = b == baseline_.end() ? mean : b->second;
            for (size_t k = 0; k < rewards.size(); ++k) {
                // Baseline: the mean reward of the graph's other samples (same graph, same seed), or
                // with one sample the graph's moving average.
                const double others = rewards.size() > 1 ? (sum - rewards[k]) / double(rewards.size() - 1) : base;
                const double adv = rewards[k] - others;
                advantageMeanSquare_ =
                    advantageMeanSquare_ == 0 ? adv * adv + 1e-8 : 0.95 * advantageMeanSquare_ + 0.05 * adv * adv;
                advantages[pos].push_back(adv / std::max(0.005, std::sqrt(advantageMeanSquare_)));
                rewardSum += rewards[k];
                ++rewardCount;
            }
            baseline_[g.name] = b == baseline_.end() ? mean : o_.baselineDecay * base + (1 - o_.baselineDecay) * mean;
        }

        // Gradient shares of this rank's graphs: [loss, entropy sum] + the gradient, each.
        const int batchSamples = int((last - first) * S);
        const size_t P = model_.parameterCount();
        std::vector<double> gradientWork;
        for (size_t pos = first; pos < last; ++pos) gradientWork.push_back(brkgaWork(train_[order[pos]]));
        const std::vector<int> gradientOwner = shareOutByWork(gradientWork, comm_->worldSize());
        cpu0 = processCpuS();
        std::string shares;
        for (size_t pos = first; pos < last; ++pos) {
            if (gradientOwner[pos - first] != me) continue;
            const PolicyGraph& g = train_[order[pos]];
            std::vector<PolicyAction>& acts = actionsOf(pos);
            std::vector<PolicySample> samples;
            for (size_t k = 0; k < acts.size(); ++k) samples.push_back({&g.features, std::move(acts[k]), advantages[pos][k]});
            const GradientShare share = model_.gradientShare(samples, batchSamples, o_.hyper);
            appendDoubles(shares, {share.loss, share.entropySum});
            appendFloats(shares, share.gradient);
        }
        appendDoubles(shares, {processCpuS() - cpu0});
        const std::vector<std::string> all = comm_->allGather(shares);
        std::fill(offset.begin(), offset.end(), size_t(0));
        std::vector<double> total(P, 0.0);
        double batchEntropy = 0;
        for (size_t pos = first; pos < last; ++pos) {  // in the batch's order, whoever computed it
            const int r = gradientOwner[pos - first];
            const std::vector<double> stats = readDoubles(all[size_t(r)], offset[size_t(r)], 2);
            const std::vector<float> grad = readFloats(all[size_t(r)], offset[size_t(r)], P);
            batchEntropy += stats[1];
            for (size_t i = 0; i < P; ++i) total[i] += double(grad[i]);
        }
        addPhaseCpu(all, offset, rep);
        model_.applyGradient(std::vector<float>(total.begin(), total.end()), o_.hyper);
        entropySum += batchEntropy / double(batchSamples);
        ++updates;
    }
    rep.meanReward = rewardCount ? rewardSum / rewardCount : 0;
    rep.entropy = updates ? entropySum / updates : 0;

    // Validation: the greedy policy, BRKGA seed 1, against uniform BRKGA.
    if (!validation_.empty()) {
        std::vector<double> work;
        for (const PolicyGraph& g : validation_) work.push_back(brkgaWork(g) * (cached(g, 1) ? 1 : 2));
        const std::vector<int> owner = shareOutByWork(work, comm_->worldSize());
        const double cpu0 = processCpuS();
        std::string mine;
        for (size_t i = 0; i < validation_.size(); ++i) {
            if (owner[i] != me) continue;
            const PolicyGraph& g = validation_[i];
            int64_t fresh = 0;
            const double u = uniformCost(g, 1, fresh);
            const PolicyAction a = greedyAction(model_.predict(g.features));
            const double c = runBrkga(g, biasFromAction(a, g.features.d + 1), o_.budget, 1, o_.threads, runParams());
            appendDoubles(mine, {u, c, double(fresh + o_.budget)});
        }
        appendDoubles(mine, {processCpuS() - cpu0});
        const std::vector<std::string> results = comm_->allGather(mine);
        std::vector<size_t> offset(results.size(), 0);
        int wins = 0;
        double impr = 0;
        for (size_t i = 0; i < validation_.size(); ++i) {
            const int r = owner[i];
            const std::vector<double> v = readDoubles(results[size_t(r)], offset[size_t(r)], 3);
            const double u = v[0], c = v[1];
            uniformCache_[validation_[i].name + "#1"] = u;
            rep.evaluations += int64_t(v[2]);
            if (c < u) ++wins;
            impr += u > 0 ? (u - c) / u : 0;
        }
        addPhaseCpu(results, offset, rep);
        rep.validationWinRate = double(wins) / double(validation_.size());
        rep.validationMeanImprovement = impr / double(validation_.size());
    }
    ++epochsDone_;
    checkSameWeights(epochsDone_);
    rep.seconds = secondsSince(t0);
    return rep;
}

nlohmann::json PolicyTrainer::checkpoint() const {
    return {{"format", "graphopt-regal-checkpoint"},
            {"version", 1},
            {"options", o_.toJson()},
            {"config", model_.config().toJson()},
            {"epochs_done", epochsDone_},
            {"baseline", baseline_},
            {"advantage_mean_square", advantageMeanSquare_},
            {"uniform_cache", uniformCache_},
            {"parameters", model_.parameters()},
            {"optimizer", model_.optimizerState()}};
}

void PolicyTrainer::restore(const nlohmann::json& j) {
    if (!j.is_object() || j.value("format", "") != "graphopt-regal-checkpoint")
        throw std::invalid_argument("not a training checkpoint");
    nlohmann::json mine = o_.toJson(), theirs = j.value("options", nlohmann::json::object());
    mine.erase("epochs");
    theirs.erase("epochs");
    if (mine != theirs)
        throw std::invalid_argument("the checkpoint was made with other training options: " + theirs.dump());
    if (j.value("config", nlohmann::json()) != model_.config().toJson())
        throw std::invalid_argument("the checkpoint holds another network configuration");
    try {
        model_.setParameters(j.at("parameters"));
        model_.setOptimizerState(j.at("optimizer"));
        epochsDone_ = j.at("epochs_done").get<int>();
        baseline_ = j.at("baseline").get<std::map<std::string, double>>();
        advantageMeanSquare_ = j.at("advantage_mean_square").get<double>();
        uniformCache_ = j.at("uniform_cache").get<std::map<std::string, double>>();
    } catch (const std::invalid_argument&) {
        throw;
    } catch (const std::exception& e) {
        throw std::invalid_argument(std::string("bad checkpoint (") + e.what() + ")");
    }
}

nlohmann::json GraphEvaluation::toJson() const {
    nlohmann::json j = {{"graph", name},         {"nodes", nodes},         {"uniform_cost", uniform},
                        {"regal_cost", regal},   {"uniform_s", uniformS},  {"regal_s", regalS},
                        {"inference_s", inferenceS}};
    double impr = 0;
    for (size_t s = 0; s < uniform.size(); ++s) impr += (uniform[s] - regal[s]) / uniform[s];
    j["improvement_pct"] = uniform.empty() ? 0.0 : 100.0 * impr / double(uniform.size());
    if (!tuned.empty()) {
        j["tuned_cost"] = tuned;
        j["tuned_s"] = tunedS;
    }
    if (!baselines.empty()) j["baselines"] = baselines;
    nlohmann::json reach = nlohmann::json::array();  // null: never within the budget
    for (int64_t e : regalEvaluationsToUniform) reach.push_back(e < 0 ? nlohmann::json() : nlohmann::json(e));
    j["regal_evaluations_to_uniform_final"] = std::move(reach);
    j["budget"] = budget;
    return j;
}

GraphEvaluation evaluatePolicy(PolicyModel& model, const PolicyGraph& g, const EvalOptions& o) {
    GraphEvaluation ev;
    ev.name = g.name;
    ev.nodes = g.features.n;
    ev.budget = o.budget;
    std::vector<CurvePoint> regalCurve;
    const nlohmann::json params = brkgaSeedParams(o.seedHeuristics, o.seedEngines);
    nlohmann::json regalParams = params;
    if (o.uniformMutantShare > 0) regalParams["uniform_mutant_share"] = o.uniformMutantShare;
    nlohmann::json tuned = o.tunedParams;
    if (tuned.is_object()) tuned.update(params);
    for (int s = 1; s <= o.seeds; ++s) {
        auto t0 = std::chrono::steady_clock::now();
        ev.uniform.push_back(runBrkga(g, {}, o.budget, uint64_t(s), o.threads, params));
        ev.uniformS += secondsSince(t0);
        // REGAL's time includes feature extraction and inference, as in the engine.
        t0 = std::chrono::steady_clock::now();
        const PolicyFeatures f = extractFeatures(*g.graph, *g.devices, *g.problem);
        const PolicyOutput probs = model.predict(f);
        Rng rng = Rng::stream(uint64_t(s), kActionStream, 0);
        const PolicyAction a = o.sampleActions ? sampleAction(probs, rng) : greedyAction(probs);
        ev.inferenceS += secondsSince(t0);
        ev.regal.push_back(runBrkga(g, biasFromAction(a, f.d + 1), o.budget, uint64_t(s), o.threads, regalParams, &regalCurve));
        ev.regalS += secondsSince(t0);
        ev.regalEvaluationsToUniform.push_back(evaluationsToReach(regalCurve, ev.uniform.back()));
        if (!o.tunedParams.is_null()) {
            t0 = std::chrono::steady_clock::now();
            ev.tuned.push_back(runBrkga(g, {}, o.budget, uint64_t(s), o.threads, tuned));
            ev.tunedS += secondsSince(t0);
        }
    }
    for (const std::string& name : o.baselines) {
        // A deterministic baseline that also seeded BRKGA (seed_engines) ran with the same empty
        // parameters on the same problem: its kept solution is the baseline's, not run again.
        const SearchContext ctx = contextFor(g, o.budget, 1, o.threads, nlohmann::json::object());
        const auto run = [&] { return findPlacementEngine(name)(ctx); };
        const SearchOutcome out = describePlacementEngine(name).deterministic && g.seedSolutions
                                      ? g.seedSolutions->get(name, true, ctx, run)
                                      : run();
        ev.baselines[name] = costOf(g, out.keys);
    }
    return ev;
}

namespace {
double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}
// Improvement of REGAL over `other` (per graph, mean over seeds) and win rate over (graph, seed).
void compare(const std::vector<GraphEvaluation>& evals, const std::function<double(const GraphEvaluation&, size_t)>& other,
             const std::string& prefix, nlohmann::json& out) {
    std::vector<double> per;
    int wins = 0, pairs = 0;
    for (const auto& e : evals) {
        double sum = 0;
        for (size_t s = 0; s < e.regal.size(); ++s) {
            const double o = other(e, s);
            sum += (o - e.regal[s]) / o;
            wins += e.regal[s] < o ? 1 : 0;
            ++pairs;
        }
        per.push_back(100.0 * sum / double(std::max<size_t>(1, e.regal.size())));
    }
    const nlohmann::json figures = {
        {"mean_improvement_pct", per.empty() ? 0.0 : std::accumulate(per.begin(), per.end(), 0.0) / double(per.size())},
        {"median_improvement_pct", median(per)},
        {"win_rate", pairs ? double(wins) / double(pairs) : 0.0}};
    // Against uniform BRKGA (no prefix): the three keys at the top. Against another: an object
    // named after the prefix, and the flat prefixed keys readers of older output know.
    if (!prefix.empty()) out[prefix.substr(0, prefix.size() - 1)] = figures;
    for (auto it = figures.begin(); it != figures.end(); ++it) out[prefix + it.key()] = it.value();
}
}  // namespace

nlohmann::json summarizeEvaluations(const std::vector<GraphEvaluation>& evals) {
    nlohmann::json s = nlohmann::json::object();
    compare(evals, [](const GraphEvaluation& e, size_t k) { return e.uniform[k]; }, "", s);
    if (!evals.empty() && !evals[0].tuned.empty())
        compare(evals, [](const GraphEvaluation& e, size_t k) { return e.tuned[k]; }, "vs_tuned_", s);
    if (!evals.empty() && !evals[0].baselines.empty()) {
        compare(evals,
                [](const GraphEvaluation& e, size_t) {
                    double best = std::numeric_limits<double>::infinity();
                    for (const auto& [n, c] : e.baselines) best = std::min(best, c);
                    return best;
                },
                "vs_best_baseline_", s);
    }
    {
        std::vector<double> fractions;
        int reached = 0, pairs = 0, withinThird = 0, graphs = 0;
        for (const auto& e : evals) {
            if (e.regalEvaluationsToUniform.empty() || e.budget <= 0) continue;
            std::vector<double> own;
            for (int64_t n : e.regalEvaluationsToUniform) {
                own.push_back(n < 0 ? 2.0 : double(n) / double(e.budget));
                reached += n >= 0 ? 1 : 0;
                ++pairs;
            }
            fractions.insert(fractions.end(), own.begin(), own.end());
            withinThird += median(own) <= 1.0 / 3.0 ? 1 : 0;
            ++graphs;
        }
        if (pairs)
            s["evaluations_to_uniform_final"] = {{"reached_rate", double(reached) / double(pairs)},
                                                 {"median_budget_fraction", median(fractions)},
                                                 {"within_third_rate", double(withinThird) / double(graphs)}};
    }
    double total = 0;
    for (const auto& e : evals) total += e.uniformS + e.regalS + e.tunedS;
    s["graphs"] = evals.size();
    s["total_s"] = total;
    return s;
}

nlohmann::json tuneBrkgaGrid(const std::vector<PolicyGraph>& graphs, int64_t budget, int seeds,
                             int threads, const std::function<void(const std::string&)>& log) {
    if (graphs.empty()) throw std::invalid_argument("no graphs to tune BRKGA on");
    std::vector<std::vector<double>> reference(graphs.size());
    for (size_t i = 0; i < graphs.size(); ++i)
        for (int s = 1; s <= seeds; ++s) reference[i].push_back(runBrkga(graphs[i], {}, budget, uint64_t(s), threads));
    nlohmann::json best;
    double bestScore = std::numeric_limits<double>::infinity();
    for (int pop : {50, 100, 200})
        for (double pe : {0.1, 0.2})
            for (double pm : {0.1, 0.2})
                for (double rho : {0.6, 0.7, 0.8}) {
                    const nlohmann::json params = {{"population", pop}, {"elite_fraction", pe}, {"mutant_fraction", pm}, {"rho_e", rho}};
                    double score = 0;
                    for (size_t i = 0; i < graphs.size(); ++i)
                        for (int s = 1; s <= seeds; ++s)
                            score += runBrkga(graphs[i], {}, budget, uint64_t(s), threads, params) / reference[i][s - 1];
                    score /= double(graphs.size() * size_t(seeds));
                    if (log) log(params.dump() + " relative cost " + std::to_string(score));
                    if (score < bestScore) {
                        bestScore = score;
                        best = params;
                    }
                }
    best["relative_cost"] = bestScore;
    return best;
}

}  // namespace graphopt::regal
