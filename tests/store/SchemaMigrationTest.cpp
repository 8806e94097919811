// Forward migrations from an empty database and from every earlier schema version, with the data
// written at that version kept; a newer schema refused and left byte-for-byte unchanged.
#include <functional>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "StoreTestSupport.h"
#include "store/RunStore.h"
#include "store/SqliteDatabase.h"
#include "store/SqliteTransaction.h"
#include "store/StoreError.h"
#include "store/StoreSchema.h"

using namespace graphopt;
using namespace graphopt::testing;

namespace {

// Data as a program at schema version `version` wrote it, with that version's columns only.
// When adding schema version N, add the writer for N here (seedAt[N]).
void seedVersion1(SqliteDatabase& db) {
    db.exec(R"sql(
INSERT INTO graphs (id, content_hash, name, source_path, nodes, edges, created_at)
    VALUES (1, 'aaaa', 'resnet18', '/m/resnet18.onnx', 69, 80, '2026-01-01T00:00:00.000Z');
INSERT INTO runs (id, kind, engine, objective, spec_json, graph_id, seed, started_at, ended_at, status)
    VALUES (1, 'placement', 'brkga', 'runtime', '{"engine":"brkga"}', 1, 3, '2026-01-01T00:00:01.000Z',
            '2026-01-01T00:00:02.000Z', 'finished');
INSERT INTO events (run_id, step, evaluations, best_cost, elapsed_s, values_json)
    VALUES (1, 0, 64, 2.5, 0.1, '{}'), (1, 1, 128, 2.25, 0.2, '{"p":[1,2]}');
INSERT INTO results (run_id, cost, costs_json) VALUES (1, 2.25, '{"runtime_s":2.25}');
INSERT INTO tuning_measurements (run_id, task, config_json, latency_s) VALUES (1, 't', '{}', 0.5);
)sql");
}

// Version 2 added runs.note (and indexes): the same rows, as a v2 program wrote them.
void seedVersion2(SqliteDatabase& db) {
    seedVersion1(db);
    db.exec("UPDATE runs SET note = '' WHERE id = 1");
}

const std::vector<std::function<void(SqliteDatabase&)>> seedAt = {nullptr, seedVersion1, seedVersion2};

void expectSeededDataIntact(RunStore& store, int seededVersion) {
    if (seededVersion < 1) {
        EXPECT_TRUE(store.listRuns().empty());
        return;
    }
    RunSummary s = store.run(1);
    EXPECT_EQ(s.run.engine, "brkga");
    EXPECT_EQ(s.run.status, RunStatus::Finished);
    EXPECT_EQ(s.run.graphName, "resnet18");
    EXPECT_EQ(s.run.note, "");  // v2 column, default for old rows
    EXPECT_EQ(s.eventCount, 2);
    EXPECT_EQ(store.events(1).at(1).values["p"], nlohmann::json({1, 2}));
    EXPECT_EQ(store.result(1)->cost, 2.25);
    const auto ms = store.measurements(1);
    ASSERT_EQ(ms.size(), 1u);
    EXPECT_TRUE(ms[0].ok);
    EXPECT_EQ(ms[0].latencyS, 0.5);
    EXPECT_EQ(ms[0].batch, 0);  // v3 columns, NULL for old rows
    EXPECT_EQ(ms[0].config, -1);
}

bool hasIndex(RunStore& store, const std::string& name) {
    return store.database().queryInt("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = '" + name +
                                     "'") == 1;
}

}  // namespace

TEST(SchemaMigration, EveryVersionHasASeedWriter) {
    // A new schema version needs its seed writer above, so the next migration is tested from it.
    EXPECT_EQ(int(seedAt.size()), latestStoreSchemaVersion());
}

TEST(SchemaMigration, FromANonexistentFile) {
    TempDir dir;
    RunStore store(dir.file("new.db"));
    EXPECT_EQ(store.schemaVersion(), latestStoreSchemaVersion());
    EXPECT_EQ(storeApplicationId(store.database()), kStoreApplicationId);
    EXPECT_TRUE(hasIndex(store, "runs_by_engine"));
}

class MigrationFromVersion : public ::testing::TestWithParam<int> {};

TEST_P(MigrationFromVersion, ReachesTheLatestAndKeepsTheData) {
    const int from = GetParam();
    TempDir dir;
    const std::string path = dir.file("runs.db");
    {
        RunStore old(path, from);  // version 0: an empty SQLite database (header, no tables)
        ASSERT_EQ(old.schemaVersion(), from);
        if (from >= 1) {
            SqliteTransaction tx(old.database());
            seedAt[size_t(from)](old.database());
            tx.commit();
        }
    }
    RunStore store(path);
    EXPECT_EQ(store.schemaVersion(), latestStoreSchemaVersion());
    expectSeededDataIntact(store, from);
    EXPECT_TRUE(hasIndex(store, "measurements_by_run"));
    EXPECT_EQ(store.database().queryInt("PRAGMA foreign_key_check"), 0);
    // And the migrated database takes new runs.
    int64_t id = store.beginRun(sampleSpec(), std::nullopt, "after migration");
    EXPECT_EQ(store.run(id).run.note, "after migration");
}

INSTANTIATE_TEST_SUITE_P(AllEarlierVersions, MigrationFromVersion,
                         ::testing::Range(0, latestStoreSchemaVersion()),
                         [](const auto& info) { return "v" + std::to_string(info.param); });

TEST(SchemaMigration, OpeningTheLatestAgainChangesNothing) {
    TempDir dir;
    const std::string path = dir.file("runs.db");
    { RunStore(path).beginRun(sampleSpec(), std::nullopt); }
    RunStore again(path);
    EXPECT_EQ(again.schemaVersion(), latestStoreSchemaVersion());
    EXPECT_EQ(again.listRuns().size(), 1u);
}

TEST(SchemaMigration, NewerSchemaIsRefusedAndNeverRewritten) {
    TempDir dir;
    const std::string path = dir.file("future.db");
    {
        RunStore store(path);
        store.beginRun(sampleSpec(), std::nullopt);
        store.database().exec("PRAGMA user_version = " + std::to_string(latestStoreSchemaVersion() + 1));
    }
    // Closing the last connection checkpointed the WAL: the main file holds everything.
    ASSERT_FALSE(std::filesystem::exists(path + "-wal"));
    const std::string before = readBytes(path);
    try {
        RunStore store(path);
        FAIL() << "opened a newer database";
    } catch (const StoreError& e) {
        std::string msg = e.what();
        EXPECT_EQ(msg.rfind(path + ":", 0), 0u) << msg;
        EXPECT_NE(msg.find("newer"), std::string::npos) << msg;
        EXPECT_NE(msg.find("schema version " + std::to_string(latestStoreSchemaVersion() + 1)), std::string::npos)
            << msg;
    }
    EXPECT_EQ(readBytes(path), before);
}

TEST(SchemaMigration, MigrateRefusesNewerEvenPastTheProbe) {
    // The probe refuses first; migrateStoreSchema checks again inside the write transaction in
    // case another process upgraded the file in between.
    TempDir dir;
    const std::string path = dir.file("runs.db");
    { RunStore store(path); }
    SqliteDatabase db(path, SqliteDatabase::Mode::ReadWrite);
    db.exec("PRAGMA user_version = 99");
    SqliteTransaction tx(db);
    EXPECT_THROW(migrateStoreSchema(db, latestStoreSchemaVersion()), StoreError);
}
