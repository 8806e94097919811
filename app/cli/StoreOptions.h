// The database options shared by every command that reads or records runs:
//   --db PATH    the run database (default: RunStore::defaultPath(), in the XDG data folder)
//   --no-store   (commands that run an engine) do not record this run
#pragma once

#include <string>

#include "Args.h"

namespace graphopt::cli {

inline const char kDbFlag[] = "db";
inline const char kNoStoreFlag[] = "no-store";

OptionSpec dbOption();
OptionSpec noStoreOption();

// --db when given, else the default database path (its folder is created).
std::string storePathFrom(const Args& args);
// Where a run is recorded: "" with --no-store, else storePathFrom(args).
std::string recordingPathFrom(const Args& args);

}  // namespace graphopt::cli
