// Looks at an existing database file before anything may write to it.
//
// Opening a damaged file read-write can make SQLite "repair" it (roll back a journal, rewrite the
// header), and a zero-length or foreign file would simply be turned into a new run store. So the
// file is checked first, without writing: the 16-byte SQLite header, then a read-only connection
// runs PRAGMA quick_check and reads the schema version and application id. Anything wrong throws
// StoreError naming the file, and the file is left exactly as it was.
#pragma once

#include <string>

namespace graphopt {

struct StoreFileProbe {
    bool exists = false;
    int schemaVersion = 0;  // PRAGMA user_version; 0 for a file without our schema yet

    // Throws StoreError when the file exists and is not a healthy run store this program can use
    // (not SQLite, corrupt, another program's database, or a newer schema than `maxVersion`).
    static StoreFileProbe inspect(const std::string& path, int maxVersion);
};

}  // namespace graphopt
