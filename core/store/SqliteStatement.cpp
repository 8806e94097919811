#include "store/SqliteStatement.h"

#include <sqlite3.h>

#include "store/SqliteDatabase.h"

namespace graphopt {

SqliteStatement::SqliteStatement(SqliteDatabase& db, const std::string& sql) : db_(db) {
    int rc = sqlite3_prepare_v3(db.handle(), sql.c_str(), int(sql.size()), SQLITE_PREPARE_PERSISTENT, &stmt_,
                                nullptr);
    if (rc != SQLITE_OK) db.fail("cannot prepare a query", rc);
}

SqliteStatement::~SqliteStatement() { sqlite3_finalize(stmt_); }

SqliteStatement& SqliteStatement::bindInt(int index, int64_t value) {
    if (int rc = sqlite3_bind_int64(stmt_, index, value); rc != SQLITE_OK) db_.fail("bind", rc);
    return *this;
}

SqliteStatement& SqliteStatement::bindDouble(int index, double value) {
    if (int rc = sqlite3_bind_double(stmt_, index, value); rc != SQLITE_OK) db_.fail("bind", rc);
    return *this;
}

SqliteStatement& SqliteStatement::bindText(int index, const std::string& value) {
    if (int rc = sqlite3_bind_text(stmt_, index, value.data(), int(value.size()), SQLITE_TRANSIENT); rc != SQLITE_OK)
        db_.fail("bind", rc);
    return *this;
}

SqliteStatement& SqliteStatement::bindNull(int index) {
    if (int rc = sqlite3_bind_null(stmt_, index); rc != SQLITE_OK) db_.fail("bind", rc);
    return *this;
}

SqliteStatement& SqliteStatement::bindOptionalInt(int index, const std::optional<int64_t>& value) {
    return value ? bindInt(index, *value) : bindNull(index);
}

bool SqliteStatement::step() {
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    sqlite3_reset(stmt_);
    db_.fail("query failed", rc);
}

void SqliteStatement::run() {
    while (step()) {
    }
    reset();
}

void SqliteStatement::reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
}

bool SqliteStatement::isNull(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }
int64_t SqliteStatement::getInt(int column) const { return sqlite3_column_int64(stmt_, column); }
double SqliteStatement::getDouble(int column) const { return sqlite3_column_double(stmt_, column); }

std::string SqliteStatement::getText(int column) const {
    auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
    if (!p) return {};
    return std::string(p, size_t(sqlite3_column_bytes(stmt_, column)));
}

std::optional<int64_t> SqliteStatement::getOptionalInt(int column) const {
    if (isNull(column)) return std::nullopt;
    return getInt(column);
}

std::optional<double> SqliteStatement::getOptionalDouble(int column) const {
    if (isNull(column)) return std::nullopt;
    return getDouble(column);
}

}  // namespace graphopt
