// libFuzzer target: tuner parameters (makeTuner with --tuner-params); what it checks is graphopt::fuzz::checkTunerParams (FuzzChecks.h).
#include "FuzzChecks.h"
#include "FuzzSupport.h"

GRAPHOPT_FUZZ_TARGET(".json", graphopt::fuzz::checkTunerParams)
