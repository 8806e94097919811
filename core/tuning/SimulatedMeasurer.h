// SimulatedMeasurer: an analytic MODEL of a CPU running the templates' kernels. It measures
// nothing; it returns the latency a few rules of thumb predict, so that tests and demos can run
// tuners fast and deterministically without compiling anything.
//
// The model, per configuration (ScheduleParams of TemplateSpace.h):
//  - peak per core = lanes x 2 FLOPs x FMA ports x GHz;
//  - vector use: vec / lanes (scalar code uses one lane), minus the lanes wasted when the tile
//    width is not a multiple of vec;
//  - latency hiding: independent accumulators (unrolled channels/rows x vector registers per
//    vector) against FMA ports x FMA latency; too many for the register file spills (x0.6);
//    order 0 (tile loops inside the reduction) keeps accumulators in memory (x0.55) unless the
//    channels are unrolled and the tile has at most 24 vector accumulators (then all of them
//    count as independent accumulators in registers);
//  - the tile's working set (input window, weights, outputs) against L1 / L2 / L3;
//  - parallel: tiles spread over the cores (load imbalance counted), else one core;
//  - a fixed cost per tile (loop and allocation overhead) and per padding choice (inline
//    selects, per-tile copies, or one extra pass over the input);
//  - a multiplicative noise term in [-noise, +noise] hashed from (seed, task, configuration):
//    the same inputs always give the same latency.
// Its figures are not this machine's; use HalideMeasurer for real ones.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tuning/Measurer.h"

namespace graphopt::tuning {

struct CpuModel {
    int lanes = 8;           // float32 lanes per vector register (AVX2)
    int vectorRegisters = 16;
    int fmaPorts = 2;
    int fmaLatency = 4;      // cycles
    int cores = 2;
    double ghz = 3.0;
    int64_t l1Bytes = 48 << 10, l2Bytes = 2 << 20, l3Bytes = 32 << 20;
    double memGBs = 20;      // bandwidth for a pass over memory
    double tileOverheadS = 40e-9;
    double noise = 0.03;
};

class SimulatedMeasurer : public Measurer {
public:
    explicit SimulatedMeasurer(uint64_t seed = 1, CpuModel cpu = {}) : seed_(seed), cpu_(cpu) {}
    std::string name() const override { return "sim"; }
    std::vector<MeasureResult> measure(const TuningTask& task, const std::vector<ConfigIndex>& configs) override;
    // The model's latency of one configuration (noise included).
    double latency(const TuningTask& task, ConfigIndex config) const;
    // The intermediate quantities the latency is computed from, by name (useful_lanes,
    // accumulators, working_set_bytes, tiles, efficiency, ...; parallel_tiles only when the
    // schedule is parallel): what a cost model must not be given as features.
    std::vector<std::pair<std::string, double>> quantities(const TuningTask& task, ConfigIndex config) const;
    const CpuModel& cpu() const { return cpu_; }

private:
    double evaluate(const TuningTask& task, ConfigIndex config, std::vector<std::pair<std::string, double>>* q) const;
    uint64_t seed_;
    CpuModel cpu_;
};

}  // namespace graphopt::tuning
