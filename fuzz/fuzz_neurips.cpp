// libFuzzer target: the NeurIPS 2020 workload loader (loadNeuripsWorkload); what it checks is graphopt::fuzz::checkNeurips (FuzzChecks.h).
#include "FuzzChecks.h"
#include "FuzzSupport.h"

GRAPHOPT_FUZZ_TARGET(".json", graphopt::fuzz::checkNeurips)
