#include "store/SqliteDatabase.h"

#include <sqlite3.h>

#include <cstdio>

#include "store/SqliteStatement.h"
#include "store/StoreError.h"

namespace graphopt {

SqliteDatabase::SqliteDatabase(const std::string& path, Mode mode) : path_(path) {
    int flags = SQLITE_OPEN_NOMUTEX;  // one thread per connection; no need for SQLite's mutex
    switch (mode) {
        case Mode::ReadOnly: flags |= SQLITE_OPEN_READONLY; break;
        case Mode::ReadWrite: flags |= SQLITE_OPEN_READWRITE; break;
        case Mode::ReadWriteCreate: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE; break;
    }
    auto connect = [&](const std::string& name, int extra) {
        int rc = sqlite3_open_v2(name.c_str(), &db_, flags | extra, nullptr);
        if (rc != SQLITE_OK) {
            std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
            sqlite3_close(db_);
            db_ = nullptr;
            throw StoreError(path + ": cannot open the run database: " + msg);
        }
        sqlite3_extended_result_codes(db_, 1);
    };
    connect(path, 0);
    if (mode != Mode::ReadOnly) return;
    // A WAL database on a read-only medium (a read-only mount) cannot be read the usual way: its
    // -shm file can be neither opened for writing nor created. Nobody can write such a file, so
    // it is read as immutable (no locks, no -shm). A clean close checkpoints and removes the WAL;
    // only the last commits of a writer killed before the medium became read-only, still in a
    // -wal file beside it, would not be seen.
    int rc = sqlite3_exec(db_, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr);
    if ((rc & 0xff) != SQLITE_CANTOPEN) return;
    sqlite3_close(db_);
    db_ = nullptr;
    std::string uri = "file:";
    for (unsigned char c : path) {
        if (c == '%' || c == '?' || c == '#' || c < 0x20 || c >= 0x7f) {
            char hex[4];
            std::snprintf(hex, sizeof hex, "%%%02X", c);
            uri += hex;
        } else {
            uri += char(c);
        }
    }
    connect(uri + "?immutable=1", SQLITE_OPEN_URI);
}

SqliteDatabase::~SqliteDatabase() {
    cache_.clear();  // statements must be finalized before the connection closes
    if (db_) sqlite3_close(db_);
}

namespace {

// A full disk or an I/O error while writing, as opposed to a refusal (busy, constraint, corrupt).
bool isWriteFailure(int rc) {
    const int primary = rc & 0xff;
    return primary == SQLITE_FULL || primary == SQLITE_IOERR;
}

[[noreturn]] void throwStoreError(const std::string& path, const std::string& what, int rc) {
    if (isWriteFailure(rc)) throw StoreWriteError(path + ": cannot write the run database: " + what);
    throw StoreError(path + ": " + what);
}

}  // namespace

void SqliteDatabase::exec(const std::string& sql) {
    char* err = nullptr;
    int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
    if (rc != SQLITE_OK) {
        std::string msg = err ? err : sqlite3_errstr(rc);
        sqlite3_free(err);
        throwStoreError(path_, msg, rc);
    }
}

SqliteStatement& SqliteDatabase::cached(const std::string& sql) {
    auto it = cache_.find(sql);
    if (it == cache_.end()) it = cache_.emplace(sql, std::make_unique<SqliteStatement>(*this, sql)).first;
    it->second->reset();
    return *it->second;
}

int64_t SqliteDatabase::queryInt(const std::string& sql) {
    SqliteStatement st(*this, sql);
    return st.step() ? st.getInt(0) : 0;
}

std::string SqliteDatabase::queryText(const std::string& sql) {
    SqliteStatement st(*this, sql);
    return st.step() ? st.getText(0) : std::string();
}

int64_t SqliteDatabase::lastInsertId() const { return sqlite3_last_insert_rowid(db_); }
int64_t SqliteDatabase::changes() const { return sqlite3_changes64(db_); }
bool SqliteDatabase::inTransaction() const { return sqlite3_get_autocommit(db_) == 0; }

void SqliteDatabase::fail(const std::string& what, int rc) const {
    std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    throwStoreError(path_, what + ": " + msg, rc);
}

}  // namespace graphopt
