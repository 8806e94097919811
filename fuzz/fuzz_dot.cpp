// libFuzzer target: the DOT loader (loadDot); what it checks is graphopt::fuzz::checkDot (FuzzChecks.h).
#include "FuzzChecks.h"
#include "FuzzSupport.h"

GRAPHOPT_FUZZ_TARGET(".dot", graphopt::fuzz::checkDot)
