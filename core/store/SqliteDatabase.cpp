#include "store/SqliteDatabase.h"

#include <sqlite3.h>

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
    int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
    if (rc != SQLITE_OK) {
        std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
        sqlite3_close(db_);
        db_ = nullptr;
        throw StoreError(path + ": cannot open the run database: " + msg);
    }
    sqlite3_extended_result_codes(db_, 1);
}

SqliteDatabase::~SqliteDatabase() {
    cache_.clear();  // statements must be finalized before the connection closes
    if (db_) sqlite3_close(db_);
}

void SqliteDatabase::exec(const std::string& sql) {
    char* err = nullptr;
    int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
    if (rc != SQLITE_OK) {
        std::string msg = err ? err : sqlite3_errstr(rc);
        sqlite3_free(err);
        throw StoreError(path_ + ": " + msg);
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
    throw StoreError(path_ + ": " + what + ": " + msg);
}

}  // namespace graphopt
