#include "placement/regal/RegalPolicy.h"

#include "run/ResourceLocator.h"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace graphopt::regal {

const std::vector<BetaChoice>& betaChoices() {
    // Uniform, U-shaped, symmetric around 0.5, and one-sided at two strengths: enough to push a
    // device-affinity key up or down, or to make a priority early or late.
    static const std::vector<BetaChoice> c = {{1, 1}, {0.5, 0.5}, {2, 2}, {4, 1}, {1, 4}, {10, 1}, {1, 10}};
    return c;
}

const std::vector<double>& crossoverChoices() {
    static const std::vector<double> c = {0.5, 0.6, 0.7, 0.8, 0.9};
    return c;
}

int defaultCrossoverChoice() { return 2; }

const std::vector<std::string>& opVocabulary() {
    static const std::vector<std::string> v = {
        "<other>",   "Conv",      "Relu",      "MaxPool",   "AveragePool", "GlobalAveragePool", "Add",
        "Mul",       "Concat",    "Gemm",      "MatMul",    "BatchNormalization", "Sigmoid", "Flatten",
        "Reshape",   "Transpose", "Softmax",   "Clip",      "HardSigmoid", "HardSwish", "Div",
        "Sub",       "Split",     "Slice",     "Gather",    "Constant",    "Identity",  "Dropout",
        "ReduceMean", "Pow",      "Sqrt",      "Erf",       "Pad",         "Sum",       "LayerNormalization"};
    return v;
}

int opIndex(const std::string& op) {
    const auto& v = opVocabulary();
    for (size_t i = 1; i < v.size(); ++i)
        if (v[i] == op) return int(i);
    return 0;
}

namespace {
float lg(double x) { return float(std::log10(1.0 + std::max(0.0, x))); }
}  // namespace

PolicyFeatures extractFeatures(const Graph& g, const DeviceModel& devices, const ScheduleProblem& p) {
    PolicyFeatures f;
    f.n = int(g.nodeCount());
    f.d = p.d;
    const int n = f.n, d = p.d;
    if (p.n != n) throw std::invalid_argument("extractFeatures: the problem was compiled from another graph");
    f.op.resize(n);
    f.numeric.assign(size_t(n) * kNumericFeatures, 0.f);

    // Depth from the sources and height to the sinks (longest paths in edges), topological rank.
    const std::vector<int> topo = g.topologicalOrder();
    std::vector<int> depth(n, 0), height(n, 0), rank(n, 0);
    for (int i = 0; i < n; ++i) rank[topo[i]] = i;
    for (int v : topo)
        for (int s : g.successors(v)) depth[s] = std::max(depth[s], depth[v] + 1);
    for (int i = n - 1; i >= 0; --i)
        for (int s : g.successors(topo[i])) height[topo[i]] = std::max(height[topo[i]], height[s] + 1);
    const int maxDepth = std::max(1, *std::max_element(depth.begin(), depth.end()));

    std::vector<double> weightBytes(n, 0.0);
    for (size_t w = 0; w + 1 < p.weightStart.size(); ++w)
        for (int k = p.weightStart[w]; k < p.weightStart[w + 1]; ++k) weightBytes[p.weightNodes[k]] += double(p.weightBytes[w]);

    double totalCost = 0, totalOut = 0, totalWeights = 0;
    for (int v = 0; v < n; ++v) {
        totalCost += p.opCost[size_t(v) * d];
        totalOut += double(p.outBytes[v]);
        totalWeights += weightBytes[v];
    }
    const double latency = d > 1 ? devices.link(0, 1).latencyS : 10e-6;
    const double bandwidth = d > 1 ? devices.link(0, 1).bandwidth : 12e9;

    // Graph-level context, the same on every node.
    double speedMin = 1e30, speedMax = 0, speedMean = 0;
    for (const auto& dev : devices.devices) {
        speedMin = std::min(speedMin, dev.speedFactor);
        speedMax = std::max(speedMax, dev.speedFactor);
        speedMean += dev.speedFactor / devices.deviceCount();
    }
    const float context[kContextFeatures] = {float(d) / 4.f,
                                             float(std::log10(bandwidth) / 11.0),
                                             lg(latency * 1e6) / 2.f,
                                             float(speedMean),
                                             float(speedMax > 0 ? speedMin / speedMax : 1.0),
                                             lg(n) / 4.f,
                                             lg(totalWeights) / 10.f,
                                             lg(totalOut) / 10.f};

    // Shares of the weights, compute and activations before a node in topological order: what a
    // policy needs to cut the graph into balanced contiguous pieces.
    std::vector<float> cumWeights(n), cumCost(n), cumOut(n);
    {
        double w = 0, c = 0, o = 0;
        for (int v : topo) {
            const double wv = weightBytes[v], cv = p.opCost[size_t(v) * d], ov = double(p.outBytes[v]);
            cumWeights[v] = float(totalWeights > 0 ? (w + 0.5 * wv) / totalWeights : 0.0);
            cumCost[v] = float(totalCost > 0 ? (c + 0.5 * cv) / totalCost : 0.0);
            cumOut[v] = float(totalOut > 0 ? (o + 0.5 * ov) / totalOut : 0.0);
            w += wv;
            c += cv;
            o += ov;
        }
    }
    for (int v = 0; v < n; ++v) {
        const Node& node = g.nodes()[v];
        f.op[v] = opIndex(node.op);
        float* x = f.numeric.data() + size_t(v) * kNumericFeatures;
        const double cost = p.opCost[size_t(v) * d];
        const double out = double(p.outBytes[v]);
        const double transfer = latency + out / bandwidth;
        bool graphOutput = g.successors(v).empty();
        for (int t : node.outputs)
            if (t >= 0 && g.tensors()[t].isGraphOutput) graphOutput = true;
        const double indeg = double(g.predecessors(v).size()), outdeg = double(g.successors(v).size());
        x[0] = lg(out) / 8.f;
        x[1] = lg(weightBytes[v]) / 8.f;
        x[2] = lg(double(p.tempBytes[v])) / 8.f;
        x[3] = lg(node.flops) / 10.f;
        x[4] = lg(cost * 1e6) / 3.f;
        x[5] = float(std::clamp(std::log10((transfer + 1e-12) / (cost + 1e-12)), -3.0, 3.0) / 3.0);
        x[6] = lg(indeg) / 1.5f;
        x[7] = lg(outdeg) / 1.5f;
        x[8] = float(depth[v]) / float(maxDepth);
        x[9] = float(height[v]) / float(maxDepth);
        x[10] = n > 1 ? float(rank[v]) / float(n - 1) : 0.f;
        x[11] = g.predecessors(v).empty() ? 1.f : 0.f;
        x[12] = graphOutput ? 1.f : 0.f;
        x[13] = weightBytes[v] > 0 ? 1.f : 0.f;
        x[14] = float(std::clamp(std::log10((cost * n + 1e-15) / (totalCost + 1e-15)), -3.0, 3.0) / 3.0);
        x[15] = float(std::clamp(std::log10((out * n + 1.0) / (totalOut + 1.0)), -3.0, 3.0) / 3.0);
        x[16] = cumWeights[v];
        x[17] = cumCost[v];
        x[18] = cumOut[v];
        std::copy(context, context + kContextFeatures, x + kNodeNumericFeatures);
        for (int s : g.successors(v)) {
            f.edgeSrc.push_back(v);
            f.edgeDst.push_back(s);
        }
    }

    // What tells one device from another, for the per-device head. Per device k: how much slower
    // it runs the whole graph than the fastest device, its memory against the graph's weights and
    // activations, its links, its place in the device list (0 first, 1 last: with identical
    // devices the only thing that tells them apart, and what lets a policy cut a graph into
    // pieces in device order), whether it pays transfers, and 1/d. Per (node, device): whether the
    // node may run there, and how much slower it runs there than on its fastest device.
    f.device.assign(size_t(d) * kDeviceFeatures, 0.f);
    f.pair.assign(size_t(n) * d * kPairFeatures, 0.f);
    std::vector<double> deviceCost(d, 0.0);
    for (int v = 0; v < n; ++v)
        for (int k = 0; k < d; ++k)
            if (!p.constrained || p.allowed(v, k)) deviceCost[k] += p.opCost[size_t(v) * d + k];
    const double fastest = *std::min_element(deviceCost.begin(), deviceCost.end());
    const double need = totalWeights + totalOut;
    for (int k = 0; k < d; ++k) {
        float* e = f.device.data() + size_t(k) * kDeviceFeatures;
        double bw = 0;
        for (int o = 0; o < d; ++o)
            if (o != k) bw += devices.link(k, o).bandwidth / double(d - 1);
        e[0] = float(std::clamp(std::log10((deviceCost[k] + 1e-15) / (fastest + 1e-15)), 0.0, 3.0) / 3.0);
        e[1] = float(std::clamp(std::log10((double(p.capacity[k]) + 1.0) / (need + 1.0)), -2.0, 2.0) / 2.0);
        e[2] = d > 1 ? float(std::log10(std::max(bw, 1.0)) / 11.0) : 0.f;
        e[3] = d > 1 ? float(k) / float(d - 1) : 0.f;
        e[4] = p.paysTransfers.empty() || p.paysTransfers[k] ? 1.f : 0.f;
        e[5] = 1.f / float(d);
    }
    for (int v = 0; v < n; ++v) {
        double best = 1e300;
        for (int k = 0; k < d; ++k)
            if (!p.constrained || p.allowed(v, k)) best = std::min(best, p.opCost[size_t(v) * d + k]);
        for (int k = 0; k < d; ++k) {
            float* q = f.pair.data() + (size_t(v) * d + k) * kPairFeatures;
            const bool allowed = !p.constrained || p.allowed(v, k);
            q[0] = allowed ? 1.f : 0.f;
            q[1] = allowed ? float(std::clamp(std::log10((p.opCost[size_t(v) * d + k] + 1e-15) / (best + 1e-15)), 0.0, 3.0) / 3.0)
                           : 1.f;
        }
    }
    return f;
}

const char* policyHeadsName(PolicyHeads h) { return h == PolicyHeads::PerDevice ? "per-device" : "fixed"; }

PolicyHeads policyHeadsFromName(const std::string& name) {
    if (name == "fixed") return PolicyHeads::Fixed;
    if (name == "per-device") return PolicyHeads::PerDevice;
    throw std::invalid_argument("heads must be fixed or per-device, not '" + name + "'");
}

std::string PolicyConfig::devicesServed() const {
    return heads == PolicyHeads::PerDevice ? "any number of devices" : std::to_string(devices) + " devices";
}

nlohmann::json PolicyConfig::toJson() const {
    nlohmann::json j = {{"devices", devices}, {"hidden", hidden}, {"rounds", rounds}, {"op_embedding", opEmbedding},
                        {"beta_choices", betaChoices().size()}, {"crossover_choices", crossoverChoices().size()},
                        {"ops", opVocabulary().size()}, {"numeric_features", kNumericFeatures}};
    if (heads == PolicyHeads::PerDevice) {
        j["heads"] = policyHeadsName(heads);
        j["device_features"] = kDeviceFeatures;
        j["pair_features"] = kPairFeatures;
    }
    return j;
}

PolicyConfig PolicyConfig::fromJson(const nlohmann::json& j) {
    if (!j.is_object()) throw std::invalid_argument("'config' must be an object");
    auto intIn = [&](const char* key, int lo, int hi) {
        if (!j.contains(key) || !j[key].is_number_integer()) throw std::invalid_argument(std::string("config.") + key + " is missing");
        // Compared as 64 bits: get<int>() would wrap 2^32 + 1 to 1 and let it pass.
        const int64_t v = j[key].is_number_unsigned() && j[key].get<uint64_t>() > uint64_t(INT64_MAX) ? INT64_MAX
                                                                                                       : j[key].get<int64_t>();
        if (v < lo || v > hi) throw std::invalid_argument(std::string("config.") + key + " is out of range");
        return int(v);
    };
    PolicyConfig c;
    c.devices = intIn("devices", 1, 64);
    c.hidden = intIn("hidden", 1, 4096);
    c.rounds = intIn("rounds", 0, 64);
    c.opEmbedding = intIn("op_embedding", 1, 1024);
    if (intIn("beta_choices", 1, 1000) != int(betaChoices().size()) ||
        intIn("crossover_choices", 1, 1000) != int(crossoverChoices().size()) ||
        intIn("ops", 1, 100000) != int(opVocabulary().size()) ||
        intIn("numeric_features", 1, 100000) != kNumericFeatures)
        throw std::invalid_argument("the policy was made for another feature or action set (retrain it)");
    if (j.contains("heads")) {
        if (!j["heads"].is_string()) throw std::invalid_argument("config.heads must be fixed or per-device");
        c.heads = policyHeadsFromName(j["heads"].get<std::string>());
    }
    if (c.heads == PolicyHeads::PerDevice &&
        (intIn("device_features", 1, 1000) != kDeviceFeatures || intIn("pair_features", 1, 1000) != kPairFeatures))
        throw std::invalid_argument("the policy was made for another device feature set (retrain it)");
    return c;
}

namespace {

// One choice per key (among the Beta pairs) and per node (among the crossover probabilities), in
// that order; choose(probs, count) picks an index from one distribution.
template <class Choose>
PolicyAction chooseAction(const PolicyOutput& out, Choose choose) {
    const int B = int(betaChoices().size()), C = int(crossoverChoices().size());
    PolicyAction a;
    const size_t keys = size_t(out.n) * out.keysPerNode;
    a.beta.resize(keys);
    a.cross.resize(out.n);
    for (size_t k = 0; k < keys; ++k) a.beta[k] = choose(out.betaProbs.data() + k * B, B);
    for (int v = 0; v < out.n; ++v) a.cross[v] = choose(out.crossProbs.data() + size_t(v) * C, C);
    return a;
}

}  // namespace

PolicyAction sampleAction(const PolicyOutput& out, Rng& rng) {
    return chooseAction(out, [&](const float* probs, int count) {
        double u = rng.uniform(), acc = 0;
        for (int i = 0; i < count; ++i) {
            acc += probs[i];
            if (u < acc) return i;
        }
        return count - 1;
    });
}

PolicyAction greedyAction(const PolicyOutput& out) {
    return chooseAction(out, [](const float* p, int count) { return int(std::max_element(p, p + count) - p); });
}

double actionLogProb(const PolicyOutput& out, const PolicyAction& a) {
    const int B = int(betaChoices().size()), C = int(crossoverChoices().size());
    double lp = 0;
    for (size_t k = 0; k < a.beta.size(); ++k) lp += std::log(double(out.betaProbs[k * B + a.beta[k]]));
    for (size_t v = 0; v < a.cross.size(); ++v) lp += std::log(double(out.crossProbs[v * C + a.cross[v]]));
    return lp;
}

KeyBias biasFromAction(const PolicyAction& a, int keysPerNode) {
    std::vector<double> alpha(a.beta.size()), beta(a.beta.size()), cross(a.cross.size());
    for (size_t k = 0; k < a.beta.size(); ++k) {
        alpha[k] = betaChoices()[a.beta[k]].alpha;
        beta[k] = betaChoices()[a.beta[k]].beta;
    }
    for (size_t v = 0; v < a.cross.size(); ++v) cross[v] = crossoverChoices()[a.cross[v]];
    return KeyBias::perNode(keysPerNode, alpha, beta, cross);
}

std::vector<std::pair<std::string, std::vector<int64_t>>> parameterShapes(const PolicyConfig& c) {
    const int64_t H = c.hidden, B = int64_t(betaChoices().size()), C = int64_t(crossoverChoices().size());
    const int64_t head = 2 * H + kNumericFeatures;
    std::vector<std::pair<std::string, std::vector<int64_t>>> p = {
        {"op_embedding.weight", {int64_t(opVocabulary().size()), c.opEmbedding}},
        {"input.weight", {H, c.opEmbedding + kNumericFeatures}},
        {"input.bias", {H}},
    };
    for (int r = 0; r < c.rounds; ++r) {
        const std::string prefix = "round" + std::to_string(r) + ".";
        p.push_back({prefix + "self.weight", {H, H}});
        p.push_back({prefix + "self.bias", {H}});
        p.push_back({prefix + "pred.weight", {H, H}});
        p.push_back({prefix + "succ.weight", {H, H}});
        p.push_back({prefix + "norm.weight", {H}});
        p.push_back({prefix + "norm.bias", {H}});
    }
    if (c.heads == PolicyHeads::PerDevice) {
        p.push_back({"device_head.node.weight", {H, head}});
        p.push_back({"device_head.device.weight", {H, kDeviceFeatures}});
        p.push_back({"device_head.device.bias", {H}});
        p.push_back({"device_head.pair.weight", {H, kPairFeatures}});
        p.push_back({"device_head.out.weight", {B, H}});
        p.push_back({"device_head.out.bias", {B}});
        p.push_back({"priority_head.weight", {B, head}});
        p.push_back({"priority_head.bias", {B}});
    } else {
        p.push_back({"beta_head.weight", {(c.devices + 1) * B, head}});
        p.push_back({"beta_head.bias", {(c.devices + 1) * B}});
    }
    p.push_back({"cross_head.weight", {C, head}});
    p.push_back({"cross_head.bias", {C}});
    return p;
}

namespace {
// Every parameter the config implies is in the file with its shape and as many numbers: checked
// before a network is built, so a few bytes of config cannot make the program allocate gigabytes
// (hidden 4096 with 64 rounds is 3.2 billion floats) for parameters the file does not have.
void checkParameterShapes(const PolicyConfig& config, const nlohmann::json& params) {
    const auto shapes = parameterShapes(config);
    if (params.size() != shapes.size())
        throw std::invalid_argument("'parameters' has " + std::to_string(params.size()) + " entries; the config needs " +
                                    std::to_string(shapes.size()));
    for (const auto& [name, shape] : shapes) {
        auto it = params.find(name);
        if (it == params.end()) throw std::invalid_argument("parameter '" + name + "' is missing");
        if (!it->is_object() || !it->contains("shape") || !it->contains("data") || !(*it)["data"].is_array())
            throw std::invalid_argument("parameter '" + name + "' needs a shape and a data array");
        const nlohmann::json& s = (*it)["shape"];
        bool same = s.is_array() && s.size() == shape.size();
        for (size_t i = 0; same && i < shape.size(); ++i)
            same = s[i].is_number_integer() && !s[i].is_number_unsigned() ? s[i].get<int64_t>() == shape[i]
                                                                        : s[i].is_number_unsigned() && s[i].get<uint64_t>() == uint64_t(shape[i]);
        if (!same) throw std::invalid_argument("parameter '" + name + "' has the wrong shape for the config");
        int64_t count = 1;
        for (int64_t d : shape) count *= d;
        if (int64_t((*it)["data"].size()) != count)
            throw std::invalid_argument("parameter '" + name + "' has " + std::to_string((*it)["data"].size()) +
                                        " values; its shape needs " + std::to_string(count));
    }
}
}  // namespace

PolicyFile readPolicyFile(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::exists(path, ec)) throw std::invalid_argument(path + ": policy file not found");
    if (fs::is_directory(path, ec)) throw std::invalid_argument(path + ": is a directory, not a policy file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::invalid_argument(path + ": cannot open policy file");
    std::stringstream ss;
    ss << in.rdbuf();
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(ss.str());
    } catch (const std::exception&) {
        throw std::invalid_argument(path + ": not a policy file (not valid JSON; truncated or corrupt?)");
    }
    // (Not j.value(): it throws a json type_error when the key holds another type.)
    if (!j.is_object() || !j.contains("format") || j["format"] != "graphopt-regal-policy")
        throw std::invalid_argument(path + ": not a policy file (no \"format\": \"graphopt-regal-policy\")");
    if (!j.contains("version") || !j["version"].is_number_integer() || j["version"] != 1)
        throw std::invalid_argument(path + ": unsupported policy file version");
    PolicyFile f;
    try {
        f.objective = j.at("objective").get<std::string>();
        f.devices = j.at("devices").get<std::string>();
        f.config = PolicyConfig::fromJson(j.at("config"));
        f.parameters = j.at("parameters");
        if (!f.parameters.is_object()) throw std::invalid_argument("'parameters' must be an object");
        checkParameterShapes(f.config, f.parameters);
        f.training = j.contains("training") ? j["training"] : nlohmann::json::object();
    } catch (const std::exception& e) {
        throw std::invalid_argument(path + ": bad policy file (" + e.what() + ")");
    }
    if (f.objective != "runtime" && f.objective != "memory" && f.objective != "throughput")
        throw std::invalid_argument(path + ": bad policy file (objective must be runtime, memory or throughput)");
    return f;
}

void writePolicyFile(const std::string& path, const PolicyFile& f) {
    nlohmann::json j = {{"format", "graphopt-regal-policy"}, {"version", 1},        {"objective", f.objective},
                        {"devices", f.devices},              {"config", f.config.toJson()},
                        {"training", f.training},            {"parameters", f.parameters}};
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) throw std::invalid_argument(path + ": cannot write policy file");
        out << j.dump() << "\n";
        if (!out) throw std::invalid_argument(path + ": write failed");
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) throw std::invalid_argument(path + ": cannot write policy file (" + ec.message() + ")");
}

std::string policyFileName(const std::string& objective, const std::string& devices) {
    return "regal-" + objective + "-" + devices + ".json";
}

std::string findDefaultPolicy(const std::string& objective, const std::string& devices) {
    namespace fs = std::filesystem;
    const std::string file = policyFileName(objective, devices), any = policyFileName(objective, kAnyDevices);
    std::vector<std::string> names = {file};
    // A data set's graph brings its preset with less memory ("4xv100-16gb-nvlink, memory 59 % of
    // the graph's": regal::withMemoryShare); the preset's policy was trained on such setups.
    if (const size_t cut = devices.find(kMemoryShareSuffix); cut != std::string::npos && cut > 0)
        names.push_back(policyFileName(objective, devices.substr(0, cut)));
    names.push_back(any);
    std::string looked;
    std::error_code ec;
    for (const std::string& name : names)
        for (const auto& dir : policySearchDirs()) {
            const fs::path p = fs::path(dir) / name;
            if (fs::is_regular_file(p, ec)) return p.string();
            if (name == file) looked += (looked.empty() ? "" : ", ") + dir;
        }
    std::string others;
    for (size_t i = 1; i < names.size(); ++i) others += (i > 1 ? ", " : "") + names[i];
    throw std::invalid_argument("no shipped REGAL policy " + file + " (nor " + others + ") for objective '" + objective +
                                "' and devices '" + devices + "' (looked in " + looked +
                                "; train one with graphopt train-policy or pass --policy FILE)");
}

}  // namespace graphopt::regal
