#include "tuning/XgbCostModel.h"

#include <xgboost/c_api.h>

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "tuning/TemplateSpace.h"
#include "tuning/Tuner.h"
#include "tuning/TunerParams.h"

namespace graphopt::tuning {

namespace {

// XGBoost's messages can run over several lines (parameter help, stack traces); errors here are
// one line, so only the first is kept.
void check(int rc, const char* what) {
    if (rc != 0) {
        const char* msg = XGBGetLastError();
        std::string first = msg && *msg ? msg : "unknown error";
        first = first.substr(0, first.find('\n'));
        throw std::runtime_error(std::string("xgboost: ") + what + " failed: " + first);
    }
}

// XGBoost logs warnings to stderr by default; the CLI's stderr is for one-line errors. Its global
// configuration is per thread (the GUI tunes on worker threads), so each thread sets it once.
void quietOnce() {
    thread_local bool quiet = false;
    if (quiet) return;
    check(XGBSetGlobalConfig("{\"verbosity\": 0}"), "XGBSetGlobalConfig");
    quiet = true;
}

// Owns a DMatrixHandle. (Named apart from KnobProjection.cpp's Matrix: the unity build may put
// both files into one translation unit.)
class XgbMatrix {
public:
    XgbMatrix(const std::vector<float>& data, size_t rows, size_t cols) {
        check(XGDMatrixCreateFromMat_omp(data.data(), rows, cols, -1e30f /* nothing is missing */, &h_, 1),
              "XGDMatrixCreateFromMat");
    }
    ~XgbMatrix() {
        if (h_) XGDMatrixFree(h_);
    }
    XgbMatrix(const XgbMatrix&) = delete;
    XgbMatrix& operator=(const XgbMatrix&) = delete;
    DMatrixHandle get() const { return h_; }

private:
    DMatrixHandle h_ = nullptr;
};

std::string num(double v) {
    std::ostringstream os;
    os.precision(17);
    os << v;
    return os.str();
}

}  // namespace

void XgbOptions::readParams(const nlohmann::json& params, ParamCollector& known) {
    rounds = int(integerParam(params, "rounds", rounds, 1, 10000, "XGBoost boosting rounds per fit", known));
}

XgbCostModel::XgbCostModel(FeatureFn features, XgbOptions options)
    : features_(std::move(features)), options_(options) {
    if (!features_) throw std::invalid_argument("XgbCostModel needs a feature function");
    quietOnce();
}

XgbCostModel::~XgbCostModel() { freeBooster(); }

void XgbCostModel::freeBooster() {
    if (booster_) XGBoosterFree(static_cast<BoosterHandle>(booster_));
    booster_ = nullptr;
}

std::string XgbCostModel::name() const { return options_.objective == XgbObjective::Rank ? "xgb-rank" : "xgb-reg"; }

void XgbCostModel::fit(const std::vector<ConfigIndex>& configs, const std::vector<double>& gflops) {
    if (configs.size() != gflops.size()) throw std::invalid_argument("XgbCostModel::fit: configs and gflops differ in length");
    quietOnce();
    const double best = gflops.empty() ? 0.0 : *std::max_element(gflops.begin(), gflops.end());
    if (!(best > 0)) return;  // nothing succeeded: keep the previous model (or none)

    std::vector<float> data, labels;
    size_t cols = 0;
    for (size_t i = 0; i < configs.size(); ++i) {
        const std::vector<float>& f = featureRow(configs[i]);
        if (i == 0) cols = f.size();
        if (f.size() != cols || cols == 0) throw std::logic_error("XgbCostModel: feature rows of different lengths");
        data.insert(data.end(), f.begin(), f.end());
        labels.push_back(static_cast<float>(std::max(0.0, gflops[i]) / best));
    }
    const XgbMatrix train(data, configs.size(), cols);
    check(XGDMatrixSetFloatInfo(train.get(), "label", labels.data(), labels.size()), "XGDMatrixSetFloatInfo(label)");
    if (options_.objective == XgbObjective::Rank) {
        // One query group: every measurement is compared with every other.
        const unsigned group[] = {static_cast<unsigned>(configs.size())};
        check(XGDMatrixSetUIntInfo(train.get(), "group", group, 1), "XGDMatrixSetUIntInfo(group)");
    }

    BoosterHandle b = nullptr;
    const DMatrixHandle mats[] = {train.get()};
    check(XGBoosterCreate(mats, 1, &b), "XGBoosterCreate");
    try {
        auto set = [&](const char* k, const std::string& v) { check(XGBoosterSetParam(b, k, v.c_str()), "XGBoosterSetParam"); };
        set("booster", "gbtree");
        set("objective", options_.objective == XgbObjective::Rank ? "rank:pairwise" : "reg:squarederror");
        set("max_depth", std::to_string(options_.maxDepth));
        set("eta", num(options_.eta));
        set("gamma", num(options_.gamma));
        set("min_child_weight", num(options_.minChildWeight));
        set("lambda", num(options_.lambda));
        set("nthread", "1");
        set("seed", std::to_string(options_.seed));
        set("tree_method", "exact");
        set("verbosity", "0");
        for (int it = 0; it < options_.rounds; ++it) check(XGBoosterUpdateOneIter(b, it, train.get()), "XGBoosterUpdateOneIter");
    } catch (...) {
        XGBoosterFree(b);
        throw;
    }
    freeBooster();
    booster_ = b;
    featureCount_ = cols;
    ++fits_;
}

const std::vector<float>& XgbCostModel::featureRow(ConfigIndex config) const {
    if (options_.featureCacheSize > 0) {
        if (auto it = featureCache_.find(config); it != featureCache_.end()) {
            ++cacheStats_.reused;
            return it->second;
        }
    }
    const std::vector<double> f = features_(config);
    ++cacheStats_.computed;
    std::vector<float> row(f.begin(), f.end());
    if (options_.featureCacheSize == 0) {
        uncachedRow_ = std::move(row);
        return uncachedRow_;
    }
    if (featureCache_.size() >= options_.featureCacheSize) featureCache_.clear();
    return featureCache_.emplace(config, std::move(row)).first->second;
}

std::vector<double> XgbCostModel::predictRows(const std::vector<float>& data, size_t rows) const {
    const XgbMatrix m(data, rows, featureCount_);
    bst_ulong len = 0;
    const float* out = nullptr;
    check(XGBoosterPredict(static_cast<BoosterHandle>(booster_), m.get(), 0, 0, 0, &len, &out), "XGBoosterPredict");
    if (len != rows) throw std::runtime_error("xgboost: XGBoosterPredict returned " + std::to_string(len) +
                                              " values for " + std::to_string(rows) + " rows");
    return std::vector<double>(out, out + len);  // copied: the buffer belongs to the booster
}

std::vector<double> XgbCostModel::predictFeatures(const std::vector<std::vector<double>>& rows) const {
    if (!booster_ || rows.empty()) return std::vector<double>(rows.size(), 0.0);
    std::vector<float> data;
    data.reserve(rows.size() * featureCount_);
    for (const auto& r : rows) {
        if (r.size() != featureCount_) throw std::invalid_argument("XgbCostModel: a feature row of the wrong length");
        for (double v : r) data.push_back(static_cast<float>(v));
    }
    return predictRows(data, rows.size());
}

std::vector<double> XgbCostModel::predict(const std::vector<ConfigIndex>& configs) const {
    if (!booster_ || configs.empty()) return std::vector<double>(configs.size(), 0.0);
    std::vector<float> data;
    data.reserve(configs.size() * featureCount_);
    for (ConfigIndex c : configs) {
        const std::vector<float>& r = featureRow(c);
        if (r.size() != featureCount_) throw std::invalid_argument("XgbCostModel: a feature row of the wrong length");
        data.insert(data.end(), r.begin(), r.end());
    }
    return predictRows(data, configs.size());
}

FeatureFn contextFeatures(const TunerContext& context) {
    if (context.task) {
        const TuningTask task = *context.task;
        const KnobSpace space = context.space;
        return [task, space](ConfigIndex c) { return scheduleFeatures(task, space, c); };
    }
    const KnobSpace space = context.space;
    return [space](ConfigIndex c) { return space.normalized(c); };
}

std::unique_ptr<XgbCostModel> makeXgbCostModel(const TunerContext& context, XgbOptions options) {
    options.seed = context.seed;
    return std::make_unique<XgbCostModel>(contextFeatures(context), options);
}

}  // namespace graphopt::tuning
