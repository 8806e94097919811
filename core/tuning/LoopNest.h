// The loop nest a configuration's schedule runs, read from the schedule itself (the splits,
// reorders and annotations core/tuning/halide applies), and the cost-model features derived from
// it in the manner of AutoTVM's "itervar" features: per loop, its extent and annotation, and per
// buffer the loop touches, how many bytes the loop (with everything inside it) touches, the
// buffer's stride under that loop, and the reuse (iterations per touched element).
//
// The nest is the one of the kernel's main statement, the multiply-accumulate of the reduction
// update, outer to inner: the output's loops down to the level where the accumulator tile is
// computed, then the update's loops. Accesses are affine: each buffer dimension's index is a sum
// of loop variables times coefficients (a fused parallel loop is kept as its two loops, both
// marked parallel). The touch count of a loop is the product over the buffer's dimensions of the
// index range the loops at and inside it span (at most the iterations they make).
//
// These are features a real tuner can compute for any schedule without running it; none of them
// is a quantity of SimulatedMeasurer's latency formula (checked by name and by rank correlation in
// tests/tuning/CostModelTest.cpp), so the simulated CPU does not hand the cost model its answer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tuning/KnobSpace.h"
#include "tuning/Task.h"

namespace graphopt::tuning {

enum class LoopAnnotation { Serial, Parallel, Vectorized, Unrolled };

struct Loop {
    std::string var;
    int64_t extent = 1;
    LoopAnnotation annotation = LoopAnnotation::Serial;
};

struct BufferAccess {
    std::string buffer;                       // "in", "w" or "out"
    std::vector<int64_t> dimStride;           // elements between neighbours of each dimension
    std::vector<std::vector<int64_t>> coeff;  // [dimension][loop]: the loop variable's coefficient
};

struct LoopNest {
    std::vector<Loop> loops;  // outer to inner
    std::vector<BufferAccess> accesses;
    int64_t elementBytes = 4;
    std::string describe() const;  // "n y:par cb xo | kh kw ic x:unroll ..." for messages and tests
};

// The nest of a configuration of the task's template (NCHW conv, depthwise, conv3d, dense and
// batch_matmul, packed conv and packed depthwise).
LoopNest scheduleLoopNest(const TuningTask& task, const KnobSpace& space, ConfigIndex config);

// The loop slots the features describe, counted from the innermost loop (a nest with fewer
// loops leaves the outer slots at zero; every template's nest has at most this many: conv3d's
// has 15). Slots a nest leaves at zero are constant columns, which the exact tree method of the
// cost model never splits on, so adding slots did not change the 2-D templates' models.
constexpr size_t kLoopFeatureSlots = 16;

// Per slot s (0 = innermost): L{s}_log2_extent, L{s}_parallel, L{s}_vectorized, L{s}_unrolled,
// and for each of the buffers in, w, out: L{s}_{b}_log2_touch_bytes, L{s}_{b}_log2_stride,
// L{s}_{b}_log2_reuse.
std::vector<double> loopNestFeatures(const LoopNest& nest);
std::vector<std::string> loopNestFeatureNames();

}  // namespace graphopt::tuning
