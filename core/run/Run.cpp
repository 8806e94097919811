#include "run/Run.h"

#include <stdexcept>

namespace graphopt {

const char* runStatusName(RunStatus s) {
    switch (s) {
        case RunStatus::Running: return "running";
        case RunStatus::Finished: return "finished";
        case RunStatus::Cancelled: return "cancelled";
        case RunStatus::Failed: return "failed";
        case RunStatus::Interrupted: return "interrupted";
    }
    return "failed";
}

RunStatus runStatusFromName(const std::string& s) {
    for (RunStatus r : {RunStatus::Running, RunStatus::Finished, RunStatus::Cancelled, RunStatus::Failed,
                        RunStatus::Interrupted})
        if (s == runStatusName(r)) return r;
    throw std::invalid_argument("unknown run status '" + s + "'");
}

nlohmann::json RunSpec::toJson() const {
    nlohmann::json j = {{"engine", engine}, {"kind", kind},       {"objective", objective}, {"devices", devices},
                        {"budget", budget}, {"seed", seed},       {"threads", threads},     {"params", params}};
    if (!inputDims.empty()) j["input_dims"] = inputDims;
    return j;
}

RunSpec RunSpec::fromJson(const nlohmann::json& j) {
    RunSpec s;
    s.engine = j.value("engine", "");
    s.kind = j.value("kind", "");
    s.objective = j.value("objective", "");
    s.devices = j.value("devices", "");
    s.budget = j.value("budget", int64_t{0});
    s.seed = j.value("seed", uint64_t{1});
    s.threads = j.value("threads", 0);
    s.params = j.value("params", nlohmann::json::object());
    s.inputDims = j.value("input_dims", "");
    return s;
}

}  // namespace graphopt
