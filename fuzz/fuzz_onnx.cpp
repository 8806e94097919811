// libFuzzer target: the ONNX loader (loadOnnx); what it checks is graphopt::fuzz::checkOnnx (FuzzChecks.h).
#include "FuzzChecks.h"
#include "FuzzSupport.h"

GRAPHOPT_FUZZ_TARGET(".onnx", graphopt::fuzz::checkOnnx)
