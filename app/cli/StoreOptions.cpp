#include "StoreOptions.h"

#include "store/RunStore.h"

namespace graphopt::cli {

std::string storePathFrom(const Args& args) {
    if (auto db = args.get(kDbFlag)) {
        if (db->empty()) throw UsageError("option --db needs a file name");
        return *db;
    }
    return RunStore::defaultPath();
}

}  // namespace graphopt::cli
