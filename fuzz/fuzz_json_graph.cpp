// libFuzzer target: the native JSON graph loader (loadJson); what it checks is graphopt::fuzz::checkJsonGraph (FuzzChecks.h).
#include "FuzzChecks.h"
#include "FuzzSupport.h"

GRAPHOPT_FUZZ_TARGET(".json", graphopt::fuzz::checkJsonGraph)
