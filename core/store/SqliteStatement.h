// One prepared statement: bind by 1-based index, step, read columns by 0-based index.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

struct sqlite3_stmt;

namespace graphopt {

class SqliteDatabase;

class SqliteStatement {
public:
    SqliteStatement(SqliteDatabase& db, const std::string& sql);
    ~SqliteStatement();
    SqliteStatement(const SqliteStatement&) = delete;
    SqliteStatement& operator=(const SqliteStatement&) = delete;

    SqliteStatement& bindInt(int index, int64_t value);
    SqliteStatement& bindDouble(int index, double value);
    SqliteStatement& bindText(int index, const std::string& value);
    SqliteStatement& bindNull(int index);
    SqliteStatement& bindOptionalInt(int index, const std::optional<int64_t>& value);

    // Advances to the next row: true when a row is available, false when done.
    bool step();
    // Steps to completion (for statements without rows), then resets.
    void run();
    // Ready for new bindings; previous bindings are cleared.
    void reset();

    bool isNull(int column) const;
    int64_t getInt(int column) const;
    double getDouble(int column) const;
    std::string getText(int column) const;
    std::optional<int64_t> getOptionalInt(int column) const;
    std::optional<double> getOptionalDouble(int column) const;

private:
    SqliteDatabase& db_;
    sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace graphopt
