// libFuzzer target: the PipeDream profile loader (loadPipeDreamProfile, inference and training); what it checks is graphopt::fuzz::checkPipeDream (FuzzChecks.h).
#include "FuzzChecks.h"
#include "FuzzSupport.h"

GRAPHOPT_FUZZ_TARGET(".txt", graphopt::fuzz::checkPipeDream)
