// A run as JSON or CSV, for `graphopt runs show/export` and the GUI's export action.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "run/Run.h"
#include "store/StoreRecords.h"

namespace graphopt {

class RunStore;

nlohmann::json runSummaryToJson(const RunSummary& summary);
nlohmann::json progressEventToJson(const ProgressEvent& event);
nlohmann::json runResultToJson(const RunResult& result);

// {"run": summary, "graph": ..., "events": [...], "result": ... or null, "measurements": [...]}
nlohmann::json exportRunJson(RunStore& store, int64_t runId);

// One table: header "record,step,evaluations,best_cost,elapsed_s,json", one row per event
// (record "event", engine values in json), then one per tuning measurement ("measurement") and
// the result ("result": cost in best_cost, wall time in elapsed_s, costs/placement/schedule in
// json). Numbers round-trip (17 significant digits).
std::string exportRunCsv(RunStore& store, int64_t runId);

}  // namespace graphopt
