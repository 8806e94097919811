// The plain records the run store reads and writes. Events are run/Run.h's ProgressEvent.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "run/Run.h"
#include "run/RunRecords.h"  // RunResult, TuningMeasurement

namespace graphopt {

struct GraphRecord {
    int64_t id = 0;            // assigned by the store
    std::string contentHash;   // identifies the graph whatever its file is called (see describeGraph)
    std::string name;
    std::string sourcePath;
    int64_t nodes = 0;
    int64_t edges = 0;
};

struct RunRecord {
    int64_t id = 0;
    std::string kind, engine, objective;
    nlohmann::json spec = nlohmann::json::object();  // RunSpec::toJson()
    std::optional<int64_t> graphId;
    std::string graphName;     // from the graphs table, "" without a graph
    uint64_t seed = 0;
    std::string startedAt, endedAt;  // ISO-8601 UTC; endedAt "" while running
    RunStatus status = RunStatus::Running;
    std::string error;
    std::string note;
    int64_t ownerPid = 0;
    std::string ownerHost;
};

struct PolicyRecord {
    int64_t id = 0;
    std::string file;
    std::string contentHash;
    std::optional<int64_t> trainingRunId;
    std::string createdAt;
};

// Filters for listing runs; empty strings match everything. `graph` matches a graph's name, its
// source path or a prefix of its content hash.
struct RunFilter {
    std::string graph, engine, kind;
    std::optional<RunStatus> status;
    int64_t limit = 0;  // 0 = all
};

// A run with the figures a list or a comparison shows.
struct RunSummary {
    RunRecord run;
    int64_t eventCount = 0;
    int64_t evaluations = 0;           // the last event's evaluations (or the result's)
    std::optional<double> bestCost;    // the result's cost, else the best event's
    std::optional<double> elapsedS;    // the last event's elapsed time
};

}  // namespace graphopt
