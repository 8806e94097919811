#include "tuning/DistributedMeasurer.h"

#include <nlohmann/json.hpp>

namespace graphopt::tuning {

namespace {

// This rank's share of a batch: configurations i with i % world == rank, measured locally.
nlohmann::json measureShare(Measurer& local, const TuningTask& task, const std::vector<ConfigIndex>& configs, int rank,
                            int world) {
    std::vector<ConfigIndex> mine;
    for (size_t i = size_t(rank); i < configs.size(); i += size_t(world)) mine.push_back(configs[i]);
    nlohmann::json out = nlohmann::json::array();
    if (mine.empty()) return out;
    for (const MeasureResult& r : local.measure(task, mine)) out.push_back(r.toJson());
    return out;
}

}  // namespace

DistributedMeasurer::DistributedMeasurer(Communicator& comm, Measurer& local) : comm_(comm), local_(local) {}

DistributedMeasurer::~DistributedMeasurer() {
    try {
        finish();
    } catch (...) {
    }
}

void DistributedMeasurer::finish() {
    if (finished_) return;
    finished_ = true;
    if (!comm_.distributed() || !lost_.empty()) return;
    std::string stop = nlohmann::json{{"stop", true}}.dump();
    try {
        comm_.broadcast(stop, 0);
    } catch (const DistributedError& e) {
        lost_ = e.what();
    }
}

std::vector<MeasureResult> DistributedMeasurer::measure(const TuningTask& task, const std::vector<ConfigIndex>& configs) {
    if (!comm_.distributed() || !lost_.empty() || finished_) return local_.measure(task, configs);
    const int world = comm_.worldSize();
    std::vector<MeasureResult> out(configs.size());
    for (size_t i = 0; i < configs.size(); ++i) out[i].config = configs[i];
    auto failOthers = [&](const DistributedError& e) {
        lost_ = e.what();
        for (size_t i = 0; i < configs.size(); ++i)
            if (i % size_t(world) != 0) {
                out[i].ok = false;
                out[i].error = "not measured: " + lost_;
            }
    };
    std::string batch = nlohmann::json{{"task", task.toJson()}, {"configs", configs}}.dump();
    try {
        comm_.broadcast(batch, 0);
    } catch (const DistributedError& e) {
        failOthers(e);
        // Rank 0's own share is still measured.
        std::vector<ConfigIndex> mine;
        for (size_t i = 0; i < configs.size(); i += size_t(world)) mine.push_back(configs[i]);
        const auto own = local_.measure(task, mine);
        for (size_t k = 0; k < own.size(); ++k) out[k * size_t(world)] = own[k];
        return out;
    }
    const nlohmann::json own = measureShare(local_, task, configs, 0, world);
    std::vector<std::string> shares;
    try {
        shares = comm_.allGather(own.dump());
    } catch (const DistributedError& e) {
        failOthers(e);
        for (size_t k = 0; k < own.size(); ++k) out[k * size_t(world)] = MeasureResult::fromJson(own[k]);
        return out;
    }
    for (int r = 0; r < world; ++r) {
        const nlohmann::json share = nlohmann::json::parse(shares[size_t(r)]);
        size_t k = 0;
        for (size_t i = size_t(r); i < configs.size(); i += size_t(world), ++k) {
            if (k < share.size()) {
                out[i] = MeasureResult::fromJson(share[k]);
            } else {
                out[i].ok = false;
                out[i].error = "rank " + std::to_string(r) + " returned fewer results than configurations";
            }
        }
    }
    return out;
}

int64_t serveMeasurements(Communicator& comm, Measurer& local) {
    int64_t measured = 0;
    for (;;) {
        std::string message;
        comm.broadcast(message, 0);
        const nlohmann::json m = nlohmann::json::parse(message);
        if (m.value("stop", false)) return measured;
        const TuningTask task = TuningTask::fromJson(m.at("task"));
        const auto configs = m.at("configs").get<std::vector<ConfigIndex>>();
        nlohmann::json share;
        try {
            share = measureShare(local, task, configs, comm.rank(), comm.worldSize());
        } catch (const std::exception& e) {
            // The local measurer cannot work (no worker binary...): its share fails, with the reason.
            share = nlohmann::json::array();
            for (size_t i = size_t(comm.rank()); i < configs.size(); i += size_t(comm.worldSize())) {
                MeasureResult r;
                r.config = configs[i];
                r.error = "rank " + std::to_string(comm.rank()) + ": " + e.what();
                share.push_back(r.toJson());
            }
        }
        measured += int64_t(share.size());
        comm.allGather(share.dump());
    }
}

}  // namespace graphopt::tuning
