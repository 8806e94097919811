// The database options shared by every command that reads or records runs:
//   --db PATH    the run database (default: RunStore::defaultPath(), in the XDG data folder)
//   --no-store   (commands that run an engine) do not record this run
#pragma once

#include <string>

#include "Args.h"

namespace graphopt::cli {

inline const char kDbFlag[] = "db";
inline const char kNoStoreFlag[] = "no-store";

// --db when given, else the default database path (its folder is created).
std::string storePathFrom(const Args& args);

}  // namespace graphopt::cli
