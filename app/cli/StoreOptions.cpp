#include "StoreOptions.h"

#include "store/RunStore.h"

namespace graphopt::cli {

OptionSpec dbOption() {
    return {kDbFlag, "PATH", "", "the run database", {}, "$XDG_DATA_HOME/graphopt-studio/runs.db"};
}

OptionSpec noStoreOption() { return {kNoStoreFlag, "", "", "do not record this run in the run database"}; }

std::string storePathFrom(const Args& args) {
    if (auto db = args.get(kDbFlag)) {
        if (db->empty()) throw UsageError("option --db needs a file name");
        return *db;
    }
    return RunStore::defaultPath();
}

std::string recordingPathFrom(const Args& args) { return args.has(kNoStoreFlag) ? std::string() : storePathFrom(args); }

}  // namespace graphopt::cli
