#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <map>
#include <numeric>
#include <unordered_set>

#include "tuning/SimulatedMeasurer.h"
#include "tuning/TemplateSpace.h"
#include "tuning/Tuner.h"
#include "tuning/XgbCostModel.h"

using namespace graphopt::tuning;
using graphopt::Rng;

namespace {

std::vector<double> ranks(const std::vector<double>& v) {
    std::vector<size_t> idx(v.size());
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
    std::vector<double> r(v.size());
    for (size_t i = 0; i < idx.size();) {  // ties share their mean rank
        size_t j = i;
        while (j + 1 < idx.size() && v[idx[j + 1]] == v[idx[i]]) ++j;
        for (size_t t = i; t <= j; ++t) r[idx[t]] = (i + j) / 2.0;
        i = j + 1;
    }
    return r;
}

double spearman(const std::vector<double>& a, const std::vector<double>& b) {
    const auto ra = ranks(a), rb = ranks(b);
    const double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / ra.size();
    const double mb = std::accumulate(rb.begin(), rb.end(), 0.0) / rb.size();
    double sab = 0, saa = 0, sbb = 0;
    for (size_t i = 0; i < ra.size(); ++i) {
        sab += (ra[i] - ma) * (rb[i] - mb);
        saa += (ra[i] - ma) * (ra[i] - ma);
        sbb += (rb[i] - mb) * (rb[i] - mb);
    }
    return sab / std::sqrt(saa * sbb);
}

struct Data {
    std::vector<ConfigIndex> configs;
    std::vector<double> gflops;
};

// Distinct random configurations of the task and their simulated GFLOP/s.
Data sample(const TuningTask& task, const KnobSpace& space, int n, Rng& rng, std::unordered_set<ConfigIndex>& used) {
    SimulatedMeasurer m(3);
    Data d;
    while (static_cast<int>(d.configs.size()) < n) {
        const ConfigIndex c = space.random(rng);
        if (used.insert(c).second) d.configs.push_back(c);
    }
    for (const auto& r : m.measure(task, d.configs)) d.gflops.push_back(r.ok ? r.gflops : 0.0);
    return d;
}

}  // namespace

class CostModelLearns : public ::testing::TestWithParam<XgbObjective> {};

// Trained on 256 measurements of the simulated CPU, the model orders 400 configurations it never
// saw much like the simulation does.
TEST_P(CostModelLearns, RanksHeldOutConfigurations) {
    const std::vector<TuningTask> tasks = {makeConv2d(1, 64, 56, 56, 64, 3, 1, 1), makeConv2d(1, 128, 28, 28, 128, 3, 1, 1),
                                           makeDense(64, 512, 256)};
    double sum = 0;
    for (size_t t = 0; t < tasks.size(); ++t) {
        const KnobSpace space = templateSpace(tasks[t]);
        Rng rng(100 + t);
        std::unordered_set<ConfigIndex> used;
        const Data train = sample(tasks[t], space, 256, rng, used), test = sample(tasks[t], space, 400, rng, used);
        XgbOptions o;
        o.objective = GetParam();
        XgbCostModel model([&](ConfigIndex c) { return scheduleFeatures(tasks[t], space, c); }, o);
        EXPECT_FALSE(model.fitted());
        model.fit(train.configs, train.gflops);
        ASSERT_TRUE(model.fitted());
        const double rho = spearman(model.predict(test.configs), test.gflops);
        std::cout << "  " << model.name() << " " << tasks[t].describe() << ": Spearman " << rho << " on 400 held-out\n";
        EXPECT_GT(rho, 0.75) << tasks[t].describe();
        sum += rho;
    }
    EXPECT_GT(sum / tasks.size(), 0.8);
}

INSTANTIATE_TEST_SUITE_P(Objectives, CostModelLearns, ::testing::Values(XgbObjective::Rank, XgbObjective::Regression),
                         [](const auto& info) { return info.param == XgbObjective::Rank ? "rank" : "regression"; });

TEST(XgbCostModel, RegressionPredictsTheNormalisedTarget) {
    const TuningTask task = makeConv2d(1, 64, 56, 56, 64, 3, 1, 1);
    const KnobSpace space = templateSpace(task);
    Rng rng(4);
    std::unordered_set<ConfigIndex> used;
    const Data d = sample(task, space, 200, rng, used);
    XgbOptions o;
    o.objective = XgbObjective::Regression;
    XgbCostModel model([&](ConfigIndex c) { return scheduleFeatures(task, space, c); }, o);
    model.fit(d.configs, d.gflops);
    const auto p = model.predict(d.configs);
    const double best = *std::max_element(d.gflops.begin(), d.gflops.end());
    double err = 0;
    for (size_t i = 0; i < p.size(); ++i) err += std::abs(p[i] - d.gflops[i] / best);
    EXPECT_LT(err / p.size(), 0.08);  // targets are in [0, 1]
    EXPECT_EQ(model.name(), "xgb-reg");
}

TEST(XgbCostModel, UnfittedAndFailedOnlyPredictZeros) {
    const KnobSpace space = templateSpace(makeDense(64, 64, 64));
    XgbCostModel model([&](ConfigIndex c) { return space.normalized(c); });
    EXPECT_EQ(model.name(), "xgb-rank");
    EXPECT_EQ(model.predict({1, 2, 3}), (std::vector<double>{0, 0, 0}));
    model.fit({1, 2, 3}, {0, 0, 0});  // nothing succeeded: nothing to learn
    EXPECT_FALSE(model.fitted());
    EXPECT_THROW(model.fit({1, 2}, {1.0}), std::invalid_argument);
}

TEST(XgbCostModel, IsDeterministicAndChecksRowLengths) {
    const TuningTask task = makeDense(64, 512, 256);
    const KnobSpace space = templateSpace(task);
    Rng rng(8);
    std::unordered_set<ConfigIndex> used;
    const Data d = sample(task, space, 120, rng, used);
    auto features = [&](ConfigIndex c) { return scheduleFeatures(task, space, c); };
    XgbCostModel a(features), b(features);
    a.fit(d.configs, d.gflops);
    b.fit(d.configs, d.gflops);
    EXPECT_EQ(a.predict(d.configs), b.predict(d.configs));
    EXPECT_THROW(a.predictFeatures({{1.0, 2.0}}), std::invalid_argument);
}

// A configuration's features are computed once and kept: scoring it again (as the annealing
// explorer does all the time) reuses them and predicts exactly what a model without the cache
// predicts; a full cache is emptied and refilled.
TEST(XgbCostModel, KeepsEachConfigurationsFeaturesAndPredictsTheSameWithoutThem) {
    const TuningTask task = makeConv2d(1, 32, 28, 28, 64, 3, 1, 1);
    const KnobSpace space = templateSpace(task);
    Rng rng(12);
    std::unordered_set<ConfigIndex> used;
    const Data d = sample(task, space, 80, rng, used);
    int calls = 0;
    auto features = [&](ConfigIndex c) {
        ++calls;
        return scheduleFeatures(task, space, c);
    };
    XgbOptions none;
    none.featureCacheSize = 0;
    XgbCostModel cached(features), uncached(features, none);
    cached.fit(d.configs, d.gflops);
    EXPECT_EQ(calls, 80);
    uncached.fit(d.configs, d.gflops);
    EXPECT_EQ(calls, 160);
    // The training configurations again, then new ones twice.
    std::vector<ConfigIndex> fresh = sample(task, space, 40, rng, used).configs;
    const std::vector<double> p1 = cached.predict(d.configs), p2 = cached.predict(fresh), p3 = cached.predict(fresh);
    EXPECT_EQ(calls, 160 + 40);
    EXPECT_EQ(cached.featureCacheStats().computed, 120);
    EXPECT_EQ(cached.featureCacheStats().reused, 80 + 40);
    EXPECT_EQ(p1, uncached.predict(d.configs));
    EXPECT_EQ(p2, uncached.predict(fresh));
    EXPECT_EQ(p3, p2);
    EXPECT_EQ(uncached.featureCacheStats().reused, 0);
    EXPECT_EQ(uncached.featureCacheStats().computed, 80 + 80 + 40);

    XgbOptions small;
    small.featureCacheSize = 50;
    XgbCostModel bounded(features, small);
    bounded.fit(d.configs, d.gflops);  // 80 rows through a cache of 50: emptied at the 51st
    const std::vector<ConfigIndex> last30(d.configs.end() - 30, d.configs.end()), first10(d.configs.begin(), d.configs.begin() + 10);
    EXPECT_EQ(bounded.predict(last30), uncached.predict(last30));
    EXPECT_EQ(bounded.featureCacheStats().computed, 80);
    EXPECT_EQ(bounded.featureCacheStats().reused, 30);
    EXPECT_EQ(bounded.predict(first10), uncached.predict(first10));
    EXPECT_EQ(bounded.featureCacheStats().computed, 90);
}

TEST(XgbCostModel, XgboostErrorsBecomeExceptionsWithItsMessage) {
    const KnobSpace space = templateSpace(makeDense(64, 64, 64));
    XgbOptions o;
    o.eta = -1;  // XGBoost refuses a negative learning rate
    XgbCostModel model([&](ConfigIndex c) { return space.normalized(c); }, o);
    try {
        model.fit({1, 2, 3, 4}, {1.0, 2.0, 3.0, 4.0});
        FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
        const std::string msg = e.what();
        EXPECT_EQ(msg.rfind("xgboost: ", 0), 0u) << msg;
        EXPECT_NE(msg.find("learning_rate"), std::string::npos) << msg;
        EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;  // one line
    }
    EXPECT_FALSE(model.fitted());
}

// The simulated CPU must not hand the cost model its answer: no feature may be one of the
// quantities SimulatedMeasurer computes its latency from, by name, nor a monotone function of one
// over the space (|Spearman| >= 0.999 on 400 random configurations, which a renamed copy of a
// quantity, or its log, would show). Knob values themselves are inputs of both and are allowed.
TEST(CostModelFeatures, DoNotLeakTheSimulatorsLatencyFormula) {
    const std::vector<TuningTask> tasks = {
        makeConv2d(1, 64, 56, 56, 64, 3, 1, 1),     makeConv2d(1, 64, 56, 56, 128, 1, 2, 0),
        makeConv2d(1, 32, 28, 28, 32, 3, 2, 1, 32), makeDense(64, 512, 256),
        withPackedTemplate(makeConv2d(1, 64, 56, 56, 64, 3, 1, 1), 16),
        withPackedTemplate(makeConv2d(1, 96, 14, 14, 96, 3, 1, 1, 96), 8)};
    const SimulatedMeasurer sim(1);
    for (const TuningTask& t : tasks) {
        const KnobSpace space = templateSpace(t);
        const auto names = scheduleFeatureNames(t, space);
        Rng rng(21);
        std::vector<ConfigIndex> configs;
        for (int i = 0; i < 400; ++i) configs.push_back(space.random(rng));
        // Every quantity, by name, over the sample (absent in a configuration: NaN, skipped).
        std::map<std::string, std::vector<double>> quantities;
        for (size_t i = 0; i < configs.size(); ++i)
            for (const auto& [name, v] : sim.quantities(t, configs[i])) {
                auto& column = quantities[name];
                column.resize(configs.size(), std::nan(""));
                column[i] = v;
            }
        ASSERT_TRUE(quantities.count("working_set_bytes") && quantities.count("latency_s")) << t.describe();
        for (const auto& [q, values] : quantities)
            for (const auto& f : names) EXPECT_EQ(f.find(q), std::string::npos) << f << " names " << q;
        std::vector<std::vector<double>> features;
        for (ConfigIndex c : configs) features.push_back(scheduleFeatures(t, space, c));
        for (const auto& [q, values] : quantities) {
            std::vector<size_t> rows;
            for (size_t i = 0; i < values.size(); ++i)
                if (!std::isnan(values[i])) rows.push_back(i);
            std::vector<double> qv;
            for (size_t i : rows) qv.push_back(values[i]);
            if (std::adjacent_find(qv.begin(), qv.end(), std::not_equal_to<>()) == qv.end()) continue;  // constant
            auto column = [&](size_t j) {
                std::vector<double> fv;
                for (size_t i : rows) fv.push_back(features[i][j]);
                return fv;
            };
            auto follows = [&](const std::vector<double>& fv) {
                if (std::adjacent_find(fv.begin(), fv.end(), std::not_equal_to<>()) == fv.end()) return false;
                return std::abs(spearman(fv, qv)) >= 0.999;
            };
            // A quantity that one knob decides alone (parallel_speedup: the parallel knob) is that
            // knob's value in disguise, an input of any tuner.
            bool oneKnob = false;
            for (size_t j = 0; j < space.knobCount(); ++j) oneKnob |= follows(column(j));
            if (oneKnob) continue;
            for (size_t j = space.knobCount(); j < names.size(); ++j)
                EXPECT_FALSE(follows(column(j))) << t.describe() << ": feature " << names[j]
                                                 << " follows the simulator's " << q;
        }
    }
}
