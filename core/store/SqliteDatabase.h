// A thin RAII owner of one sqlite3 connection. Every failure becomes a StoreError whose message
// starts with the database path. A connection is used by one thread at a time.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

struct sqlite3;

namespace graphopt {

class SqliteStatement;

class SqliteDatabase {
public:
    enum class Mode { ReadOnly, ReadWrite, ReadWriteCreate };

    SqliteDatabase(const std::string& path, Mode mode);
    ~SqliteDatabase();
    SqliteDatabase(const SqliteDatabase&) = delete;
    SqliteDatabase& operator=(const SqliteDatabase&) = delete;

    const std::string& path() const { return path_; }
    sqlite3* handle() const { return db_; }

    // Runs one or more statements that return no rows we need.
    void exec(const std::string& sql);
    // A statement prepared once per connection and reused (reset before it is handed out).
    SqliteStatement& cached(const std::string& sql);
    // The first column of the first row of a query returning one integer (0 when no row).
    int64_t queryInt(const std::string& sql);
    // The same for a text value ("" when no row).
    std::string queryText(const std::string& sql);

    int64_t lastInsertId() const;
    int64_t changes() const;
    bool inTransaction() const;

    // Throws StoreError "PATH: WHAT: sqlite's message".
    [[noreturn]] void fail(const std::string& what, int rc) const;

private:
    std::string path_;
    sqlite3* db_ = nullptr;
    std::map<std::string, std::unique_ptr<SqliteStatement>> cache_;
};

}  // namespace graphopt
