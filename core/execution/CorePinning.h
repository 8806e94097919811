// Pinning the calling thread to one CPU core, for the workers that stand for this machine's cores
// (the executor's, PlacementExecutor.h, and the calibration's, CoreCalibration.h).
#pragma once

namespace graphopt::exec {

// The calling thread runs only on core `core % cores` of this machine.
void pinThisThreadToCore(int core);
// The calling thread may run on every core again.
void unpinThisThread();

}  // namespace graphopt::exec
