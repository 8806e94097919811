#include "TuningFrames.h"

#include <algorithm>
#include <set>

namespace graphopt::ui {

ScatterPoint TuningFrames::point(int64_t config) const {
    ScatterPoint p;
    p.config = config;
    if (projection_ && projection_->valid()) {
        const auto xy = projection_->project(config);
        p.at = QPointF(xy[0], xy[1]);
    }
    return p;
}

void TuningFrames::addEvent(const ProgressEvent& e) {
    const nlohmann::json& v = e.values;
    const double best = v.value("best_gflops", 0.0);
    convergence_.push_back({double(e.evaluations), e.elapsedS, best});

    BatchFrame f;
    f.batch = int(e.step);
    const nlohmann::json tuner = v.value("tuner", nlohmann::json());
    f.phase = QString::fromStdString(tuner.is_object() ? tuner.value("phase", "random") : "random");
    const nlohmann::json exploration = tuner.is_object() ? tuner.value("exploration", nlohmann::json()) : nlohmann::json();
    if (exploration.is_object() && exploration.contains("candidates")) {
        // A new plan: its candidates, clusters and picks.
        std::set<int64_t> picked;
        for (const auto& r : exploration.value("representatives", nlohmann::json::array())) picked.insert(r["config"].get<int64_t>());
        std::set<int64_t> listed;
        for (const auto& c : exploration["candidates"]) {
            ScatterPoint p = point(c["config"].get<int64_t>());
            p.cluster = c.value("cluster", int64_t{-1});
            if (c.contains("score")) p.predicted = c["score"].get<double>();
            p.representative = picked.count(p.config) != 0;
            listed.insert(p.config);
            f.points.push_back(p);
        }
        // Synthesized representatives are not among the candidates.
        for (const auto& r : exploration.value("representatives", nlohmann::json::array())) {
            const int64_t c = r["config"].get<int64_t>();
            if (listed.count(c)) continue;
            ScatterPoint p = point(c);
            p.cluster = r.value("cluster", int64_t{-1});
            if (r.contains("score")) p.predicted = r["score"].get<double>();
            p.representative = true;
            f.points.push_back(p);
        }
        f.k = exploration.value("k", 0);
        for (const auto& l : exploration.value("kmeans_losses", nlohmann::json::array()))
            f.kmeansLosses.push_back(QPointF(l["k"].get<double>(), l["loss"].get<double>()));
        f.candidates = exploration.value("candidates_total", int(f.points.size()));
        f.visited = exploration.value("visited", 0);
    } else if (f.phase == "model" && !frames_.empty() && !frames_.back().points.empty() && frames_.back().phase == "model") {
        // The batch came from the plan made earlier: the same picture, one batch on.
        const int batch = f.batch;
        f = frames_.back();
        f.batch = batch;
    } else {
        // No plan (random tuner, or the random start of a model-based one): the batch itself.
        for (const auto& c : v.value("batch_configs", nlohmann::json::array())) {
            ScatterPoint p = point(c.get<int64_t>());
            p.representative = true;
            f.points.push_back(p);
        }
        f.candidates = int(f.points.size());
    }
    frames_.push_back(std::move(f));
}

void TuningFrames::addMeasurement(const TuningMeasurement& m) { measured_[m.config] = m; }

const TuningMeasurement* TuningFrames::measured(int64_t config) const {
    auto it = measured_.find(config);
    return it == measured_.end() ? nullptr : &it->second;
}

}  // namespace graphopt::ui
