// Errors from the run store. The message names the database file and says what to do, e.g.
// "/home/u/runs.db: not an SQLite database (bad header); the file was left unchanged".
#pragma once

#include <stdexcept>
#include <string>

namespace graphopt {

class StoreError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A write the database refused for lack of room or an I/O error (SQLITE_FULL, SQLITE_IOERR: a
// full file system, a file size limit). SQLite rolled the transaction back, so what was committed
// before is intact; the CLI reports it in one line and exits 1 (a run that failed), not 2.
class StoreWriteError : public StoreError {
public:
    using StoreError::StoreError;
};

}  // namespace graphopt
