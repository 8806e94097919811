#include "tuning/Measurer.h"

namespace graphopt::tuning {

nlohmann::json MeasureResult::toJson() const {
    nlohmann::json j = {{"config", config}, {"ok", ok}, {"latency_s", latencyS}, {"gflops", gflops},
                        {"compile_s", compileS}, {"repeats", repeats}};
    if (!error.empty()) j["error"] = error;
    return j;
}

MeasureResult MeasureResult::fromJson(const nlohmann::json& j) {
    MeasureResult r;
    r.config = j.at("config").get<ConfigIndex>();
    r.ok = j.value("ok", false);
    r.latencyS = j.value("latency_s", 0.0);
    r.gflops = j.value("gflops", 0.0);
    r.compileS = j.value("compile_s", 0.0);
    r.repeats = j.value("repeats", 0);
    r.error = j.value("error", "");
    return r;
}

}  // namespace graphopt::tuning
