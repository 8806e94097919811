#include "store/StoreSchema.h"

#include <functional>
#include <string>
#include <vector>

#include "store/SqliteDatabase.h"
#include "store/StoreError.h"

namespace graphopt {

namespace {

// Version 1: everything the engines record.
//  - Times are ISO-8601 UTC text ("2026-11-30T03:04:05.123Z"): sortable and readable in sqlite3.
//  - Seeds are uint64 stored as int64 with the same bits.
//  - owner_* identify the process that writes a running run, so a later open can tell a dead
//    writer (run -> interrupted) from a live one in another process (left alone).
void migrateTo1(SqliteDatabase& db) {
    db.exec(R"sql(
CREATE TABLE graphs (
    id INTEGER PRIMARY KEY,
    content_hash TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    source_path TEXT NOT NULL DEFAULT '',
    nodes INTEGER NOT NULL,
    edges INTEGER NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    engine TEXT NOT NULL,
    objective TEXT NOT NULL DEFAULT '',
    spec_json TEXT NOT NULL,
    graph_id INTEGER REFERENCES graphs(id),
    seed INTEGER NOT NULL,
    started_at TEXT NOT NULL,
    ended_at TEXT,
    status TEXT NOT NULL
        CHECK (status IN ('running', 'finished', 'cancelled', 'failed', 'interrupted')),
    error TEXT NOT NULL DEFAULT '',
    owner_pid INTEGER,
    owner_host TEXT,
    owner_boot_id TEXT,
    owner_start_ticks INTEGER
);
CREATE INDEX runs_by_status ON runs(status);
CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    step INTEGER NOT NULL,
    evaluations INTEGER NOT NULL,
    best_cost REAL,
    elapsed_s REAL NOT NULL,
    values_json TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX events_by_run ON events(run_id);
CREATE TABLE results (
    run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    cost REAL,
    costs_json TEXT NOT NULL DEFAULT '{}',
    placement_json TEXT NOT NULL DEFAULT 'null',
    schedule_json TEXT NOT NULL DEFAULT 'null'
);
CREATE TABLE tuning_measurements (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    task TEXT NOT NULL,
    config_json TEXT NOT NULL,
    latency_s REAL,
    gflops REAL,
    error TEXT NOT NULL DEFAULT '',
    cluster_id INTEGER
);
CREATE TABLE policies (
    id INTEGER PRIMARY KEY,
    file TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    training_run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
    created_at TEXT NOT NULL
);
)sql");
}

// Version 2: a free-text note per run (the GUI lets a user label runs for comparison), and
// indexes for what v1 scanned: `runs list --graph/--engine`, and the cascade from a deleted run
// to its tuning measurements (without an index SQLite scans the whole table per deleted run).
void migrateTo2(SqliteDatabase& db) {
    db.exec(R"sql(
ALTER TABLE runs ADD COLUMN note TEXT NOT NULL DEFAULT '';
CREATE INDEX runs_by_graph ON runs(graph_id);
CREATE INDEX runs_by_engine ON runs(engine);
CREATE INDEX measurements_by_run ON tuning_measurements(run_id);
CREATE INDEX policies_by_run ON policies(training_run_id);
)sql");
}

// Version 3: tuning measurements keep what the tuning view replays and compares: the batch each
// was proposed in, when it finished (seconds since the run started), its compile time and the
// timed repeats behind its latency. Rows written before have NULL there.
void migrateTo3(SqliteDatabase& db) {
    db.exec(R"sql(
ALTER TABLE tuning_measurements ADD COLUMN batch INTEGER;
ALTER TABLE tuning_measurements ADD COLUMN elapsed_s REAL;
ALTER TABLE tuning_measurements ADD COLUMN compile_s REAL;
ALTER TABLE tuning_measurements ADD COLUMN repeats INTEGER;
)sql");
}

// kMigrations[i] takes the schema from version i to version i + 1.
const std::vector<std::function<void(SqliteDatabase&)>> kMigrations = {migrateTo1, migrateTo2, migrateTo3};

}  // namespace

int latestStoreSchemaVersion() { return int(kMigrations.size()); }

int storeSchemaVersion(SqliteDatabase& db) { return int(db.queryInt("PRAGMA user_version")); }

int32_t storeApplicationId(SqliteDatabase& db) { return int32_t(db.queryInt("PRAGMA application_id")); }

void migrateStoreSchema(SqliteDatabase& db, int target) {
    if (target > latestStoreSchemaVersion()) target = latestStoreSchemaVersion();
    int version = storeSchemaVersion(db);
    if (version > target)
        throw StoreError(db.path() + ": the run database has schema version " + std::to_string(version) +
                         ", newer than this program understands (" + std::to_string(target) +
                         "); it was written by a newer GraphOpt Studio and was left unchanged");
    if (version == target) return;
    if (!db.inTransaction()) throw StoreError(db.path() + ": schema migration must run inside a transaction");
    for (int v = version; v < target; ++v) kMigrations[size_t(v)](db);
    db.exec("PRAGMA application_id = " + std::to_string(kStoreApplicationId));
    db.exec("PRAGMA user_version = " + std::to_string(target));
}

}  // namespace graphopt
