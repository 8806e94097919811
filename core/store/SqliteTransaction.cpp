#include "store/SqliteTransaction.h"

#include "store/SqliteDatabase.h"

namespace graphopt {

SqliteTransaction::SqliteTransaction(SqliteDatabase& db) : db_(db) {
    if (db_.inTransaction()) return;
    db_.exec("BEGIN IMMEDIATE");
    owner_ = true;
}

SqliteTransaction::~SqliteTransaction() {
    if (owner_ && !done_) {
        try {
            db_.exec("ROLLBACK");
        } catch (...) {
            // SQLite may already have rolled back (e.g. after an I/O error); nothing more to do.
        }
    }
}

void SqliteTransaction::commit() {
    if (owner_ && !done_) db_.exec("COMMIT");
    done_ = true;
}

}  // namespace graphopt
