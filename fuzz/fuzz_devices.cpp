// libFuzzer target: device model files (DeviceModel::loadFile); what it checks is graphopt::fuzz::checkDevices (FuzzChecks.h).
#include "FuzzChecks.h"
#include "FuzzSupport.h"

GRAPHOPT_FUZZ_TARGET(".json", graphopt::fuzz::checkDevices)
