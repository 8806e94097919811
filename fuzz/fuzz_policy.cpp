// libFuzzer target: REGAL policy files (regal::loadPolicyModel); what it checks is graphopt::fuzz::checkPolicy (FuzzChecks.h).
#include "FuzzChecks.h"
#include "FuzzSupport.h"

GRAPHOPT_FUZZ_TARGET(".json", graphopt::fuzz::checkPolicy)
