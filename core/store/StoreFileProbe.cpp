#include "store/StoreFileProbe.h"

#include <cstring>
#include <filesystem>
#include <fstream>

#include "store/SqliteDatabase.h"
#include "store/SqliteStatement.h"
#include "store/StoreError.h"
#include "store/StoreSchema.h"

namespace graphopt {

namespace {

const char kUnchanged[] = "; the file was left unchanged (move it away or choose another file with --db)";

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
    throw StoreError(path + ": " + why + kUnchanged);
}

}  // namespace

StoreFileProbe StoreFileProbe::inspect(const std::string& path, int maxVersion) {
    namespace fs = std::filesystem;
    StoreFileProbe probe;
    std::error_code ec;
    auto status = fs::status(path, ec);
    if (ec || !fs::exists(status)) return probe;  // a new database will be created
    probe.exists = true;
    if (fs::is_directory(status)) throw StoreError(path + ": is a directory, not a run database file");
    if (!fs::is_regular_file(status)) refuse(path, "is not a regular file");

    // 1. The header, read as plain bytes: SQLite itself would treat an empty file as an empty
    //    database and happily write a schema into it.
    std::ifstream in(path, std::ios::binary);
    if (!in) throw StoreError(path + ": cannot read the run database (permission denied?)");
    char header[100] = {};
    in.read(header, sizeof header);
    auto got = in.gcount();
    if (got == 0) refuse(path, "the file is empty (0 bytes), not a GraphOpt Studio run database");
    if (got < 100 || std::memcmp(header, "SQLite format 3", 16) != 0)
        refuse(path, "not an SQLite database (its header does not start with \"SQLite format 3\")");

    // 2. Its contents, through a read-only connection.
    try {
        SqliteDatabase db(path, SqliteDatabase::Mode::ReadOnly);
        db.exec("PRAGMA busy_timeout = 10000");
        {
            SqliteStatement check(db, "PRAGMA quick_check");
            std::string first, all;
            while (check.step()) {
                std::string line = check.getText(0);
                if (first.empty()) first = line;
                if (all.size() < 300) all += (all.empty() ? "" : "; ") + line;
            }
            if (first != "ok") refuse(path, "the SQLite database is corrupt (quick_check: " + all + ")");
        }
        probe.schemaVersion = storeSchemaVersion(db);
        int32_t appId = storeApplicationId(db);
        int64_t tables = db.queryInt("SELECT count(*) FROM sqlite_master WHERE type = 'table'");
        bool ours = appId == kStoreApplicationId;
        if (!ours && (appId != 0 || probe.schemaVersion != 0 || tables != 0))
            refuse(path, "an SQLite database of another program, not a GraphOpt Studio run database");
        if (probe.schemaVersion > maxVersion)
            throw StoreError(path + ": the run database has schema version " + std::to_string(probe.schemaVersion) +
                             ", newer than this program understands (" + std::to_string(maxVersion) +
                             "): it was written by a newer GraphOpt Studio; refusing to open it, the file "
                             "was left unchanged (update GraphOpt Studio or choose another file with --db)");
    } catch (const StoreError& e) {
        std::string msg = e.what();
        if (msg.find("left unchanged") != std::string::npos) throw;
        // SQLite could not read it at all (SQLITE_NOTADB, SQLITE_CORRUPT, ...).
        std::string reason = msg.rfind(path + ": ", 0) == 0 ? msg.substr(path.size() + 2) : msg;
        refuse(path, "the SQLite database cannot be read (" + reason + ")");
    }
    return probe;
}

}  // namespace graphopt
