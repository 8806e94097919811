// The run store's schema and its forward migrations.
//
// The version lives in PRAGMA user_version; PRAGMA application_id marks the file as ours. Each
// migration takes the schema from version v-1 to v and runs inside the caller's transaction, so a
// database is always at exactly one version. To change the schema: add a function for the next
// version in StoreSchema.cpp and append it to the migration table there; never edit an old one.
#pragma once

#include <cstdint>

namespace graphopt {

class SqliteDatabase;

// "GOST" (GraphOpt STudio) in ASCII: written to PRAGMA application_id.
constexpr int32_t kStoreApplicationId = 0x474f5354;

// The highest schema version this program writes and understands.
int latestStoreSchemaVersion();

int storeSchemaVersion(SqliteDatabase& db);
int32_t storeApplicationId(SqliteDatabase& db);

// Migrates from the database's current version up to `target` (<= latest). Must run inside a
// write transaction. Throws StoreError when the database is newer than `target`.
void migrateStoreSchema(SqliteDatabase& db, int target);

}  // namespace graphopt
