// A placement executed for real (`graphopt execute`): one worker thread per device, pinned to its
// own core, runs the device's operators with libtorch on one intra-op thread, in the order the
// schedule simulator would (ScheduleSimulator.h: the highest-priority op whose inputs are present
// on the device runs next; a worker with none waits). A tensor that another device produced is
// copied into the consumer's own tensor when it is first needed: the copy is the transfer, made by
// the receiving core.
//
// Memory per worker follows the simulator's accounting rules, on the bytes of the tensors it holds:
// a node's output from its start until its last consumer on the device has run and every other
// device has copied it (graph outputs to the end), a received copy until its last consumer there,
// graph inputs and weights on every device that reads them (weights for the whole run, inputs
// until their last consumer there). Tensors are released when their accounting ends.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "execution/TorchProgram.h"

namespace graphopt::exec {

struct ExecutionPlan {
    std::vector<int> deviceOf;   // per node, device index in [0, devices)
    std::vector<int> priority;   // the nodes, highest priority first (a topological order)
    int devices = 1;
    std::vector<int> cores;      // per device, the CPU core its worker is pinned to (-1: not pinned)
    bool countWeights = true;
};

struct DeviceExecution {
    double busyS = 0;        // running operators
    double copyS = 0;        // copying tensors received from other devices
    int ops = 0;
    int copies = 0;
    int64_t copyBytes = 0;
    int64_t peakBytes = 0;   // the most the worker's tensors held at once (rules above)
    int core = -1;           // where the worker ran (sched_getcpu at its end)
};

struct ExecutionReport {
    double makespanS = 0;               // from the common start to the last operator's end
    std::vector<DeviceExecution> devices;
    std::vector<double> startS, endS;   // per node
    std::map<int, std::vector<float>> outputs;  // graph output tensor -> values
};

// `warmup` runs and then `runs` timed runs of the whole plan, on the same worker threads (a runtime
// keeps its threads; a new thread's first ops pay its set-up, which the warm-up absorbs); one
// report per timed run. Throws std::invalid_argument when the plan does not fit the program's
// graph (sizes, a device out of range, an order that is not a permutation), std::runtime_error
// when a call fails on a worker.
std::vector<ExecutionReport> executePlacement(TorchProgram& program, const ExecutionPlan& plan, int runs = 1, int warmup = 1);

}  // namespace graphopt::exec
