// REGAL's policy network in LibTorch (the only LibTorch file of REGAL; see RegalPolicy.h).
//
//   x_v   = [embedding(op_v), numeric_v]                       (numeric includes device context)
//   h^0_v = ReLU(W_in x_v + b_in)
//   h^{r+1}_v = LayerNorm(h^r_v + ReLU(W_self h^r_v + W_pred mean_{u->v} h^r_u + W_succ mean_{v->w} h^r_w))
//   z_v   = [h^R_v, mean_u h^R_u, numeric_v]     (graph readout on every node; the raw features
//                                                  give the heads linear access to e.g. the
//                                                  weight share before a node, to split graphs)
//   beta logits_v  = W_beta z_v + b_beta   -> (d+1) x |betaChoices|       (heads "fixed")
//   or, heads "per-device", for device key k of node v and for v's priority key:
//     a_vk = ReLU(W_node z_v + W_dev e_k + b_dev + W_pair q_vk)          (e_k: device k's features,
//     beta logits_vk = W_out a_vk + b_out    -> |betaChoices|            q_vk: node v on device k)
//     beta logits_v,prio = W_prio z_v + b_prio
//   cross logits_v = W_cross z_v + b_cross -> |crossoverChoices|
//
// Parameters are plain tensors (no torch::nn modules) in a fixed order, initialized from our own
// seeded generator, and Adam is written out here, so the whole state serializes to JSON and a
// run is deterministic for a seed. One intra-op thread (nn/TorchRuntime.h).
#include <torch/torch.h>

#include <cmath>
#include <stdexcept>

#include "nn/TorchRuntime.h"
#include "placement/regal/RegalEngine.h"

namespace graphopt::regal {

namespace {

constexpr double kAdamBeta1 = 0.9, kAdamBeta2 = 0.999, kAdamEps = 1e-8;

class TorchPolicy final : public PolicyModel {
public:
    TorchPolicy(const PolicyConfig& c, uint64_t seed) : config_(c) {
        nn::setTorchThreads(1);
        const int H = c.hidden, B = int(betaChoices().size()), C = int(crossoverChoices().size());
        const int in = c.opEmbedding + kNumericFeatures;
        Rng rng(seed);
        add("op_embedding.weight", {int(opVocabulary().size()), c.opEmbedding}, rng, 1.0);
        linear("input", in, H, rng);
        for (int r = 0; r < c.rounds; ++r) {
            const std::string p = "round" + std::to_string(r) + ".";
            linear(p + "self", H, H, rng);
            linear(p + "pred", H, H, rng, false);
            linear(p + "succ", H, H, rng, false);
            addConst(p + "norm.weight", {H}, 1.0);
            addConst(p + "norm.bias", {H}, 0.0);
        }
        const int head = 2 * H + kNumericFeatures;
        if (perDevice()) {
            linear("device_head.node", head, H, rng, false);
            linear("device_head.device", kDeviceFeatures, H, rng);
            linear("device_head.pair", kPairFeatures, H, rng, false);
            linear("device_head.out", H, B, rng);
            linear("priority_head", head, B, rng);
        } else {
            linear("beta_head", head, (c.devices + 1) * B, rng);
        }
        linear("cross_head", head, C, rng);
        // Start close to plain BRKGA: small head weights, and a bias that makes Beta(1,1) and
        // rho 0.7 the most likely choices while leaving every choice room to be explored.
        torch::NoGradGuard ng;
        for (const char* name : {"beta_head", "device_head.out", "priority_head"}) {
            if (!has(std::string(name) + ".weight")) continue;
            param(std::string(name) + ".weight").mul_(0.1);
            auto bb = param(std::string(name) + ".bias").view({-1, B});
            bb.zero_();
            bb.select(1, 0).fill_(1.5);
        }
        param("cross_head.weight").mul_(0.1);
        auto cb = param("cross_head.bias");
        cb.zero_();
        cb[defaultCrossoverChoice()].fill_(1.5);
        for (auto& p : params_) {
            adamM_.push_back(torch::zeros_like(p.second));
            adamV_.push_back(torch::zeros_like(p.second));
        }
    }

    const PolicyConfig& config() const override { return config_; }

    PolicyOutput predict(const PolicyFeatures& f) override {
        check(f);
        torch::NoGradGuard ng;
        auto [beta, cross] = forward(f);
        PolicyOutput out;
        out.n = f.n;
        out.keysPerNode = f.d + 1;
        auto bp = torch::softmax(beta, 2).contiguous();
        auto cp = torch::softmax(cross, 1).contiguous();
        out.betaProbs.assign(bp.data_ptr<float>(), bp.data_ptr<float>() + bp.numel());
        out.crossProbs.assign(cp.data_ptr<float>(), cp.data_ptr<float>() + cp.numel());
        return out;
    }

    UpdateStats reinforce(const std::vector<PolicySample>& batch, const TrainHyper& h) override {
        if (batch.empty()) return {};
        const GradientShare share = gradientShare(batch, int(batch.size()), h);
        UpdateStats st = applyGradient(share.gradient, h);
        st.loss = share.loss;
        st.entropy = share.entropySum / double(batch.size());
        return st;
    }

    GradientShare gradientShare(const std::vector<PolicySample>& samples, int batchSamples, const TrainHyper& h) override {
        GradientShare share;
        share.gradient.assign(parameterCount(), 0.0f);
        if (samples.empty()) return share;
        if (batchSamples < int(samples.size())) throw std::invalid_argument("gradientShare: more samples than the batch has");
        for (auto& p : params_)
            if (p.second.grad().defined()) p.second.grad().zero_();
        torch::Tensor total = torch::zeros({});
        for (const PolicySample& s : samples) {
            check(*s.features);
            const int n = s.features->n, K = s.features->d + 1;
            if (int(s.action.beta.size()) != n * K || int(s.action.cross.size()) != n)
                throw std::invalid_argument("reinforce: the action does not fit the graph");
            auto [beta, cross] = forward(*s.features);
            auto blog = torch::log_softmax(beta, 2), clog = torch::log_softmax(cross, 1);
            auto bIdx = torch::tensor(std::vector<int64_t>(s.action.beta.begin(), s.action.beta.end())).view({n, K, 1});
            auto cIdx = torch::tensor(std::vector<int64_t>(s.action.cross.begin(), s.action.cross.end())).view({n, 1});
            auto logp = blog.gather(2, bIdx).sum() + clog.gather(1, cIdx).sum();
            auto entropy = -(blog.exp() * blog).sum(2).mean() - (clog.exp() * clog).sum(1).mean();
            auto loss = -(s.advantage / double(n)) * logp - h.entropyCoef * entropy;
            total = total + loss / double(batchSamples);
            share.entropySum += entropy.item<double>();
        }
        total.backward();
        share.loss = total.item<double>();
        size_t at = 0;
        for (auto& p : params_) {
            const int64_t k = p.second.numel();
            if (p.second.grad().defined()) {
                auto g = p.second.grad().contiguous();
                std::copy(g.data_ptr<float>(), g.data_ptr<float>() + k, share.gradient.begin() + int64_t(at));
            }
            at += size_t(k);
        }
        return share;
    }

    UpdateStats applyGradient(const std::vector<float>& gradient, const TrainHyper& h) override {
        if (gradient.size() != parameterCount()) throw std::invalid_argument("applyGradient: the gradient does not fit the network");
        UpdateStats st;
        std::vector<torch::Tensor> ps;
        size_t at = 0;
        {
            torch::NoGradGuard ng;
            for (auto& p : params_) {
                const int64_t k = p.second.numel();
                p.second.mutable_grad() = torch::from_blob(const_cast<float*>(gradient.data()) + at, p.second.sizes(), torch::kFloat32).clone();
                at += size_t(k);
                ps.push_back(p.second);
            }
        }
        st.gradNorm = torch::nn::utils::clip_grad_norm_(ps, h.clipNorm);
        ++adamStep_;
        torch::NoGradGuard ng;
        const double c1 = 1 - std::pow(kAdamBeta1, double(adamStep_)), c2 = 1 - std::pow(kAdamBeta2, double(adamStep_));
        for (size_t i = 0; i < params_.size(); ++i) {
            auto& p = params_[i].second;
            const auto& g = p.grad();
            adamM_[i].mul_(kAdamBeta1).add_(g, 1 - kAdamBeta1);
            adamV_[i].mul_(kAdamBeta2).addcmul_(g, g, 1 - kAdamBeta2);
            auto denom = (adamV_[i] / c2).sqrt_().add_(kAdamEps);
            p.addcdiv_(adamM_[i], denom, -h.learningRate / c1);
        }
        return st;
    }

    size_t parameterCount() const override {
        size_t n = 0;
        for (const auto& p : params_) n += size_t(p.second.numel());
        return n;
    }

    nlohmann::json parameters() const override { return toJson(params_, nullptr); }
    void setParameters(const nlohmann::json& j) override { fromJson(j, nullptr); }

    nlohmann::json optimizerState() const override {
        return {{"step", adamStep_}, {"m", toJson(params_, &adamM_)}, {"v", toJson(params_, &adamV_)}};
    }
    void setOptimizerState(const nlohmann::json& j) override {
        if (!j.is_object() || !j.contains("step") || !j.contains("m") || !j.contains("v"))
            throw std::invalid_argument("optimizer state must have step, m and v");
        fromJson(j["m"], &adamM_);
        fromJson(j["v"], &adamV_);
        adamStep_ = j["step"].get<int64_t>();
    }

private:
    bool perDevice() const { return config_.heads == PolicyHeads::PerDevice; }
    bool has(const std::string& name) const {
        for (const auto& p : params_)
            if (p.first == name) return true;
        return false;
    }
    torch::Tensor& param(const std::string& name) {
        for (auto& p : params_)
            if (p.first == name) return p.second;
        throw std::logic_error("no parameter " + name);
    }
    void add(const std::string& name, std::vector<int64_t> shape, Rng& rng, double bound) {
        auto t = torch::empty(shape, torch::kFloat32);
        float* x = t.data_ptr<float>();
        for (int64_t i = 0; i < t.numel(); ++i) x[i] = float((2 * rng.uniform() - 1) * bound);
        params_.emplace_back(name, t.set_requires_grad(true));
    }
    void addConst(const std::string& name, std::vector<int64_t> shape, double value) {
        params_.emplace_back(name, torch::full(shape, value, torch::kFloat32).set_requires_grad(true));
    }
    void linear(const std::string& name, int in, int out, Rng& rng, bool bias = true) {
        const double bound = std::sqrt(6.0 / double(in + out));  // Glorot uniform
        add(name + ".weight", {out, in}, rng, bound);
        if (bias) addConst(name + ".bias", {out}, 0.0);
    }
    torch::Tensor lin(const torch::Tensor& x, const std::string& name, bool bias = true) {
        auto y = x.matmul(param(name + ".weight").t());
        return bias ? y + param(name + ".bias") : y;
    }

    void check(const PolicyFeatures& f) const {
        if (!config_.servesDevices(f.d))
            throw std::invalid_argument("the policy was trained for " + std::to_string(config_.devices) +
                                        " devices, the device model has " + std::to_string(f.d));
        if (f.n < 1 || int(f.op.size()) != f.n || f.numeric.size() != size_t(f.n) * kNumericFeatures ||
            f.edgeSrc.size() != f.edgeDst.size())
            throw std::invalid_argument("policy features are inconsistent");
        if (perDevice() && (f.device.size() != size_t(f.d) * kDeviceFeatures ||
                            f.pair.size() != size_t(f.n) * f.d * kPairFeatures))
            throw std::invalid_argument("policy features are inconsistent (device features)");
    }

    std::pair<torch::Tensor, torch::Tensor> forward(const PolicyFeatures& f) {
        const int n = f.n, H = config_.hidden;
        auto ops = torch::tensor(std::vector<int64_t>(f.op.begin(), f.op.end()));
        auto numeric = torch::from_blob(const_cast<float*>(f.numeric.data()), {n, kNumericFeatures}, torch::kFloat32);
        auto x = torch::cat({param("op_embedding.weight").index_select(0, ops), numeric}, 1);
        auto h = torch::relu(lin(x, "input"));
        auto src = torch::tensor(std::vector<int64_t>(f.edgeSrc.begin(), f.edgeSrc.end()), torch::kInt64);
        auto dst = torch::tensor(std::vector<int64_t>(f.edgeDst.begin(), f.edgeDst.end()), torch::kInt64);
        const bool edges = !f.edgeSrc.empty();
        torch::Tensor invIn, invOut;
        if (edges) {
            auto ones = torch::ones({int64_t(f.edgeSrc.size()), 1});
            invIn = 1.0 / torch::zeros({n, 1}).index_add(0, dst, ones).clamp_min(1.0);
            invOut = 1.0 / torch::zeros({n, 1}).index_add(0, src, ones).clamp_min(1.0);
        }
        for (int r = 0; r < config_.rounds; ++r) {
            const std::string p = "round" + std::to_string(r) + ".";
            auto m = lin(h, p + "self");
            if (edges) {
                auto fromPred = torch::zeros({n, H}).index_add(0, dst, h.index_select(0, src)) * invIn;
                auto fromSucc = torch::zeros({n, H}).index_add(0, src, h.index_select(0, dst)) * invOut;
                m = m + lin(fromPred, p + "pred", false) + lin(fromSucc, p + "succ", false);
            }
            h = torch::layer_norm(h + torch::relu(m), {H}, param(p + "norm.weight"), param(p + "norm.bias"));
        }
        auto z = torch::cat({h, h.mean(0, true).expand({n, H}), numeric}, 1);
        const int64_t B = int64_t(betaChoices().size());
        torch::Tensor beta;
        if (perDevice()) {
            const int d = f.d;
            auto dev = torch::from_blob(const_cast<float*>(f.device.data()), {d, kDeviceFeatures}, torch::kFloat32);
            auto pair = torch::from_blob(const_cast<float*>(f.pair.data()), {n, d, kPairFeatures}, torch::kFloat32);
            auto a = torch::relu(lin(z, "device_head.node", false).unsqueeze(1) + lin(dev, "device_head.device").unsqueeze(0) +
                                 lin(pair, "device_head.pair", false));
            auto deviceKeys = lin(a, "device_head.out");                    // n x d x B
            auto priorityKey = lin(z, "priority_head").view({n, 1, B});     // n x 1 x B
            beta = torch::cat({deviceKeys, priorityKey}, 1);
        } else {
            beta = lin(z, "beta_head").view({n, config_.devices + 1, B});
        }
        auto cross = lin(z, "cross_head");
        return {beta, cross};
    }

    static nlohmann::json toJson(const std::vector<std::pair<std::string, torch::Tensor>>& params,
                                 const std::vector<torch::Tensor>* values) {
        nlohmann::json j = nlohmann::json::object();
        for (size_t i = 0; i < params.size(); ++i) {
            auto t = (values ? (*values)[i] : params[i].second).detach().contiguous();
            const float* x = t.data_ptr<float>();
            j[params[i].first] = {{"shape", t.sizes().vec()}, {"data", std::vector<float>(x, x + t.numel())}};
        }
        return j;
    }

    void fromJson(const nlohmann::json& j, std::vector<torch::Tensor>* values) {
        if (!j.is_object()) throw std::invalid_argument("parameters must be an object");
        if (j.size() != params_.size()) throw std::invalid_argument("parameters do not match the network (count differs)");
        std::vector<std::vector<float>> data(params_.size());
        for (size_t i = 0; i < params_.size(); ++i) {
            const auto& [name, t] = params_[i];
            if (!j.contains(name)) throw std::invalid_argument("parameter '" + name + "' is missing");
            const auto& e = j[name];
            try {
                if (e.at("shape").get<std::vector<int64_t>>() != t.sizes().vec())
                    throw std::invalid_argument("wrong shape");
                data[i] = e.at("data").get<std::vector<float>>();
            } catch (const std::exception& ex) {
                throw std::invalid_argument("parameter '" + name + "': " + ex.what());
            }
            if (int64_t(data[i].size()) != t.numel()) throw std::invalid_argument("parameter '" + name + "' has the wrong size");
            for (float v : data[i])
                if (!std::isfinite(v)) throw std::invalid_argument("parameter '" + name + "' is not finite");
        }
        torch::NoGradGuard ng;
        for (size_t i = 0; i < params_.size(); ++i) {
            auto& t = values ? (*values)[i] : params_[i].second;
            std::copy(data[i].begin(), data[i].end(), t.data_ptr<float>());
        }
    }

    PolicyConfig config_;
    std::vector<std::pair<std::string, torch::Tensor>> params_;
    std::vector<torch::Tensor> adamM_, adamV_;
    int64_t adamStep_ = 0;
};

}  // namespace

std::unique_ptr<PolicyModel> makePolicyModel(const PolicyConfig& config, uint64_t seed) {
    return std::make_unique<TorchPolicy>(config, seed);
}

}  // namespace graphopt::regal
