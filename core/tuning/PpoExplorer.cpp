// The PPO agent of PpoExplorer.h: the only LibTorch code of the tuning side (graphopt_nn).
#include "tuning/PpoExplorer.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <unordered_map>

#include "nn/TorchRuntime.h"

namespace graphopt::tuning {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Every Linear of a stack gets U(-1/sqrt(fan_in), 1/sqrt(fan_in)) weights and biases (LibTorch's
// own default range), drawn from the tuner's Rng so that the seed alone fixes the network.
void initFromRng(torch::nn::Sequential& net, Rng& rng) {
    torch::NoGradGuard noGrad;
    for (const auto& child : net->children()) {
        auto* linear = child->as<torch::nn::LinearImpl>();
        if (!linear) continue;
        const double bound = 1.0 / std::sqrt(static_cast<double>(linear->weight.size(1)));
        for (torch::Tensor* t : {&linear->weight, &linear->bias}) {
            float* p = t->data_ptr<float>();
            for (int64_t i = 0; i < t->numel(); ++i) p[i] = static_cast<float>((2 * rng.uniform() - 1) * bound);
        }
    }
}

void fisherYates(std::vector<int64_t>& v, Rng& rng) {
    for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[static_cast<size_t>(rng.below(i))]);
}

}  // namespace

struct PpoExplorer::Agent {
    int knobs;
    torch::nn::Sequential policy, value;
    std::unique_ptr<torch::optim::Adam> optimizer;

    Agent(int k, const PpoParams& p, Rng& rng) : knobs(k) {
        const int h = p.hidden;
        policy = torch::nn::Sequential(torch::nn::Linear(k, h), torch::nn::Tanh(), torch::nn::Linear(h, h),
                                       torch::nn::Tanh(), torch::nn::Linear(h, 3 * k));
        value = torch::nn::Sequential(torch::nn::Linear(k, h), torch::nn::Tanh(), torch::nn::Linear(h, h),
                                      torch::nn::Tanh(), torch::nn::Linear(h, h), torch::nn::Tanh(),
                                      torch::nn::Linear(h, 1));
        initFromRng(policy, rng);
        initFromRng(value, rng);
        std::vector<torch::Tensor> params = policy->parameters();
        for (const auto& t : value->parameters()) params.push_back(t);
        optimizer = std::make_unique<torch::optim::Adam>(params, torch::optim::AdamOptions(p.lr));
    }

    // [n, knobs] states -> [n, knobs, 3] log-probabilities of decrement / stay / increment.
    torch::Tensor logProbs(const torch::Tensor& states) {
        return torch::log_softmax(policy->forward(states).view({states.size(0), knobs, 3}), 2);
    }
    torch::Tensor values(const torch::Tensor& states) { return value->forward(states).view({states.size(0)}); }
};

PpoParams PpoParams::fromJson(const nlohmann::json& j, ParamCollector* collector) {
    PpoParams p;
    if (!j.is_object()) throw std::invalid_argument("ppo: parameters must be a JSON object");
    ParamCollector own;
    ParamCollector& known = collector ? *collector : own;
    try {
        p.episodes = int(integerParam(j, "episodes", p.episodes, 1, 100000, "PPO: parallel episodes per search", known));
        p.steps = int(integerParam(j, "steps", p.steps, 1, 1000000, "PPO: steps per episode at most", known));
        p.stopFraction = numberParam(j, "stop_fraction", p.stopFraction, 1e-6, 1,
                                     "PPO: an episode ends at a step where at least this share of the knobs stays (or is held at a bound)", known);
        p.epochs = int(integerParam(j, "epochs", p.epochs, 0, 1000, "PPO: update epochs per search", known));
        p.minibatch = int(integerParam(j, "minibatch", p.minibatch, 1, 1000000, "PPO: minibatch size", known));
        p.updateSamples = int(integerParam(j, "update_samples", p.updateSamples, 0, 100000000,
                                           "PPO: steps learned from per search (0 = all)", known));
        p.lr = numberParam(j, "lr", p.lr, 1e-9, 10, "PPO: Adam learning rate", known);
        p.gamma = numberParam(j, "gamma", p.gamma, 0, 1, "PPO: discount", known);
        p.lambda = numberParam(j, "lambda", p.lambda, 0, 1, "PPO: GAE lambda", known);
        p.clip = numberParam(j, "clip", p.clip, 1e-9, 1000, "PPO: ratio clip", known);
        p.entropy = numberParam(j, "entropy", p.entropy, 0, 1000, "PPO: entropy bonus", known);
        p.valueCoef = numberParam(j, "value_coef", p.valueCoef, 0, 1000, "PPO: value loss weight", known);
        p.hidden = int(integerParam(j, "hidden", p.hidden, 1, 4096, "PPO: hidden units of the agent", known));
        p.restartFraction = numberParam(j, "restart_fraction", p.restartFraction, 0, 1,
                                        "PPO: share of episodes started from the best candidates so far", known);
        p.candidates = int(integerParam(j, "candidates", p.candidates, 0, 1000000,
                                        "PPO: the best visited configurations returned at most (0 = every one)", known));
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(std::string("ppo: ") + e.what());
    }
    return p;
}

nlohmann::json PpoParams::toJson() const {
    return {{"episodes", episodes}, {"steps", steps},       {"stop_fraction", stopFraction},
            {"epochs", epochs},     {"minibatch", minibatch}, {"update_samples", updateSamples},
            {"lr", lr},             {"gamma", gamma},       {"lambda", lambda},
            {"clip", clip},         {"entropy", entropy},   {"value_coef", valueCoef},
            {"hidden", hidden},     {"restart_fraction", restartFraction}, {"candidates", candidates}};
}

nlohmann::json PpoStats::toJson() const {
    return {{"explore", explore},         {"episodes", episodes},
            {"steps", steps},             {"ended_early", endedEarly},
            {"mean_reward", meanReward},  {"mean_final_score", meanFinalScore},
            {"evaluations", evaluations}, {"visited", visited},
            {"candidates", candidates},   {"policy_loss", policyLoss},
            {"value_loss", valueLoss},    {"entropy", entropy},
            {"rollout_s", rolloutS},      {"update_s", updateS}};
}

PpoExplorer::PpoExplorer(PpoParams params) : params_(params) {}
PpoExplorer::~PpoExplorer() = default;

ExploreStats PpoExplorer::lastStats() const {
    ExploreStats s;
    s.steps = static_cast<int>(last_.steps);
    s.evaluations = last_.evaluations;
    return s;
}

double PpoExplorer::totalSeconds() const {
    double s = 0;
    for (const auto& h : history_) s += h.rolloutS + h.updateS;
    return s;
}

std::vector<ScoredConfig> PpoExplorer::explore(const ExploreRequest& request, Rng& rng) {
    if (!request.space || !request.score) throw std::invalid_argument("ppo: the request needs a space and a score");
    const KnobSpace& space = *request.space;
    const int K = static_cast<int>(space.knobCount());
    if (K == 0) return {};
    nn::setTorchThreads(1);
    if (!agent_) agent_ = std::make_unique<Agent>(K, params_, rng);
    if (agent_->knobs != K) throw std::invalid_argument("ppo: the agent was built for another knob space");

    PpoStats st;
    st.explore = static_cast<int>(history_.size()) + 1;
    const auto rollout0 = Clock::now();

    // The cost model is fixed during one explore(), so each configuration is scored once.
    std::unordered_map<ConfigIndex, double> scores;
    std::vector<ConfigIndex> toScore;
    auto scoreAll = [&](const std::vector<ConfigIndex>& configs) {
        toScore.clear();
        for (ConfigIndex c : configs)
            if (scores.emplace(c, 0.0).second) toScore.push_back(c);
        if (toScore.empty()) return;
        const std::vector<double> s = request.score(toScore);
        if (s.size() != toScore.size()) throw std::runtime_error("ppo: the cost model returned the wrong count");
        for (size_t i = 0; i < s.size(); ++i) scores[toScore[i]] = s[i];
        st.evaluations += static_cast<int64_t>(toScore.size());
    };

    // Starts: the request's (best measured configurations) and the previous explore's best
    // candidates, alternately, for `restartFraction` of the episodes; random configurations after.
    const int B = params_.episodes;
    const int restartWanted = static_cast<int>(std::lround(B * params_.restartFraction));
    std::vector<ConfigIndex> cur;
    cur.reserve(B);
    for (size_t i = 0; static_cast<int>(cur.size()) < restartWanted; ++i) {
        if (i >= request.starts.size() && i >= previousBest_.size()) break;
        if (i < request.starts.size() && request.starts[i] < space.size()) cur.push_back(request.starts[i]);
        if (i < previousBest_.size() && static_cast<int>(cur.size()) < restartWanted) cur.push_back(previousBest_[i]);
    }
    while (static_cast<int>(cur.size()) < B) cur.push_back(space.random(rng));
    scoreAll(cur);

    // The rollout, one row per step taken.
    std::vector<float> states;      // [n][K]
    std::vector<int64_t> actions;   // [n][K], 0 decrement, 1 stay, 2 increment
    std::vector<float> oldLogp, rewards;
    std::vector<std::vector<int64_t>> episodeSteps(B);
    std::vector<int> active(B);
    std::iota(active.begin(), active.end(), 0);
    const double stopKnobs = params_.stopFraction * K;
    std::vector<ConfigIndex> next;
    std::vector<uint8_t> stopped;
    {
        torch::NoGradGuard noGrad;
        for (int step = 0; step < params_.steps && !active.empty(); ++step) {
            const int64_t n = static_cast<int64_t>(active.size());
            torch::Tensor s = torch::empty({n, K});
            float* sp = s.data_ptr<float>();
            for (int64_t j = 0; j < n; ++j) {
                const auto norm = space.normalized(cur[active[j]]);
                for (int k = 0; k < K; ++k) sp[j * K + k] = static_cast<float>(norm[k]);
            }
            const torch::Tensor lp = agent_->logProbs(s).contiguous();
            const auto a = lp.accessor<float, 3>();
            next.assign(n, 0);
            stopped.assign(n, 0);
            for (int64_t j = 0; j < n; ++j) {
                KnobIndices idx = space.decode(cur[active[j]]);
                double logp = 0;
                int unchanged = 0;
                for (int k = 0; k < K; ++k) {
                    const double u = rng.uniform(), p0 = std::exp(a[j][k][0]), p1 = std::exp(a[j][k][1]);
                    const int act = u < p0 ? 0 : u < p0 + p1 ? 1 : 2;
                    logp += a[j][k][act];
                    actions.push_back(act);
                    const int v = idx[k] + act - 1;
                    if (act != 1 && v >= 0 && static_cast<size_t>(v) < space.knob(k).size())
                        idx[k] = v;
                    else
                        ++unchanged;  // stayed, or pushed against a bound
                }
                next[j] = space.encode(idx);
                stopped[j] = unchanged >= stopKnobs;
                states.insert(states.end(), sp + j * K, sp + (j + 1) * K);
                oldLogp.push_back(static_cast<float>(logp));
            }
            scoreAll(next);
            std::vector<int> still;
            for (int64_t j = 0; j < n; ++j) {
                const int e = active[j];
                episodeSteps[e].push_back(static_cast<int64_t>(rewards.size()));
                rewards.push_back(static_cast<float>(scores.at(next[j])));
                cur[e] = next[j];
                if (stopped[j])
                    ++st.endedEarly;
                else
                    still.push_back(e);
            }
            active.swap(still);
        }
    }
    const int64_t N = static_cast<int64_t>(rewards.size());
    st.episodes = B;
    st.steps = N;
    st.visited = static_cast<int64_t>(scores.size());
    if (N) st.meanReward = std::accumulate(rewards.begin(), rewards.end(), 0.0) / static_cast<double>(N);
    for (int e = 0; e < B; ++e) st.meanFinalScore += scores.at(cur[e]) / B;
    st.rolloutS = since(rollout0);

    // PPO update. Episode ends (stop rule or step limit) are truncations, bootstrapped with the
    // value of the last state: stopping is how exploration ends, not an outcome to seek or avoid.
    const auto update0 = Clock::now();
    const auto [rMin, rMax] = std::minmax_element(rewards.begin(), rewards.end());
    if (N > 0 && params_.epochs > 0 && *rMax > *rMin) {  // nothing to learn while every score is equal
        const torch::Tensor S = torch::from_blob(states.data(), {N, K}, torch::kFloat);
        std::vector<float> finalStates(static_cast<size_t>(B) * K);
        for (int e = 0; e < B; ++e) {
            const auto norm = space.normalized(cur[e]);
            for (int k = 0; k < K; ++k) finalStates[static_cast<size_t>(e) * K + k] = static_cast<float>(norm[k]);
        }
        std::vector<float> v(N), vFinal(B);
        {
            torch::NoGradGuard noGrad;
            const torch::Tensor vs = agent_->values(S).contiguous();
            std::copy(vs.data_ptr<float>(), vs.data_ptr<float>() + N, v.begin());
            const torch::Tensor vf =
                agent_->values(torch::from_blob(finalStates.data(), {B, K}, torch::kFloat)).contiguous();
            std::copy(vf.data_ptr<float>(), vf.data_ptr<float>() + B, vFinal.begin());
        }
        std::vector<float> adv(N), ret(N);
        for (int e = 0; e < B; ++e) {
            const auto& steps = episodeSteps[e];
            double gae = 0;
            for (size_t i = steps.size(); i-- > 0;) {
                const int64_t t = steps[i];
                const double vNext = i + 1 < steps.size() ? v[steps[i + 1]] : vFinal[e];
                const double delta = rewards[t] + params_.gamma * vNext - v[t];
                gae = delta + params_.gamma * params_.lambda * gae;
                adv[t] = static_cast<float>(gae);
                ret[t] = static_cast<float>(gae + v[t]);
            }
        }
        // The steps learnt from: all of them, or a uniform sample.
        std::vector<int64_t> sample(N);
        std::iota(sample.begin(), sample.end(), 0);
        if (params_.updateSamples > 0 && N > params_.updateSamples) {
            for (int64_t i = 0; i < params_.updateSamples; ++i)
                std::swap(sample[i], sample[i + static_cast<int64_t>(rng.below(static_cast<uint64_t>(N - i)))]);
            sample.resize(params_.updateSamples);
        }
        double mean = 0, var = 0;
        for (int64_t t : sample) mean += adv[t];
        mean /= static_cast<double>(sample.size());
        for (int64_t t : sample) var += (adv[t] - mean) * (adv[t] - mean);
        const double sd = std::sqrt(var / static_cast<double>(sample.size())) + 1e-8;
        for (int64_t t : sample) adv[t] = static_cast<float>((adv[t] - mean) / sd);

        const torch::Tensor A = torch::from_blob(actions.data(), {N, K}, torch::kLong);
        const torch::Tensor L = torch::from_blob(oldLogp.data(), {N}, torch::kFloat);
        const torch::Tensor Adv = torch::from_blob(adv.data(), {N}, torch::kFloat);
        const torch::Tensor R = torch::from_blob(ret.data(), {N}, torch::kFloat);
        for (int epoch = 0; epoch < params_.epochs; ++epoch) {
            fisherYates(sample, rng);
            double pl = 0, vl = 0, en = 0;
            int batches = 0;
            for (size_t b0 = 0; b0 < sample.size(); b0 += params_.minibatch) {
                const size_t b1 = std::min(sample.size(), b0 + static_cast<size_t>(params_.minibatch));
                const torch::Tensor idx =
                    torch::from_blob(sample.data() + b0, {static_cast<int64_t>(b1 - b0)}, torch::kLong);
                const torch::Tensor s = S.index_select(0, idx);
                const torch::Tensor logp = agent_->logProbs(s);
                const torch::Tensor chosen = logp.gather(2, A.index_select(0, idx).unsqueeze(2)).squeeze(2).sum(1);
                const torch::Tensor ratio = torch::exp(chosen - L.index_select(0, idx));
                const torch::Tensor a = Adv.index_select(0, idx);
                const torch::Tensor policyLoss =
                    -torch::minimum(ratio * a, torch::clamp(ratio, 1 - params_.clip, 1 + params_.clip) * a).mean();
                const torch::Tensor valueLoss = (agent_->values(s) - R.index_select(0, idx)).pow(2).mean();
                const torch::Tensor entropy = -(logp.exp() * logp).sum(2).mean();  // per knob
                const torch::Tensor loss =
                    policyLoss + params_.valueCoef * valueLoss - params_.entropy * entropy;
                agent_->optimizer->zero_grad();
                loss.backward();
                agent_->optimizer->step();
                pl += policyLoss.item<double>();
                vl += valueLoss.item<double>();
                en += entropy.item<double>();
                ++batches;
            }
            if (batches) {
                st.policyLoss = pl / batches;
                st.valueLoss = vl / batches;
                st.entropy = en / batches;
            }
        }
    }
    st.updateS = since(update0);

    // The visited set: every configuration scored this time, unmeasured, best score first (the
    // best `candidates` of it when that is set).
    std::vector<ScoredConfig> all;
    all.reserve(scores.size());
    for (const auto& [c, s] : scores)
        if (!request.measured || !request.measured(c)) all.push_back({c, s});
    std::sort(all.begin(), all.end(), [](const ScoredConfig& a, const ScoredConfig& b) {
        return a.score != b.score ? a.score > b.score : a.config < b.config;
    });
    if (params_.candidates > 0 && all.size() > static_cast<size_t>(params_.candidates)) all.resize(params_.candidates);
    previousBest_.clear();
    for (size_t i = 0; i < all.size() && static_cast<int>(previousBest_.size()) < restartWanted; ++i)
        previousBest_.push_back(all[i].config);
    st.candidates = static_cast<int>(all.size());
    last_ = st;
    history_.push_back(st);
    return all;
}

}  // namespace graphopt::tuning
