// BEGIN IMMEDIATE ... COMMIT, rolled back when destroyed without commit(). IMMEDIATE takes the
// write lock up front, so two processes never deadlock upgrading read locks (the busy timeout
// makes the second one wait). Nested use joins the outer transaction.
#pragma once

namespace graphopt {

class SqliteDatabase;

class SqliteTransaction {
public:
    explicit SqliteTransaction(SqliteDatabase& db);
    ~SqliteTransaction();
    SqliteTransaction(const SqliteTransaction&) = delete;
    SqliteTransaction& operator=(const SqliteTransaction&) = delete;

    void commit();

private:
    SqliteDatabase& db_;
    bool owner_ = false;  // false when joined an outer transaction
    bool done_ = false;
};

}  // namespace graphopt
