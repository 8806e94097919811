// libFuzzer target: the CostGraphDef text loader (loadCostGraphText); what it checks is graphopt::fuzz::checkCostGraph (FuzzChecks.h).
#include "FuzzChecks.h"
#include "FuzzSupport.h"

GRAPHOPT_FUZZ_TARGET(".pbtxt", graphopt::fuzz::checkCostGraph)
