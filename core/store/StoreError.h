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

}  // namespace graphopt
