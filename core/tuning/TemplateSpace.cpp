#include "tuning/TemplateSpace.h"

#include <cmath>

namespace graphopt::tuning {

namespace {
const std::vector<int64_t> kVectorWidths = {1, 4, 8, 16};
}

KnobSpace templateSpace(const TuningTask& task) {
    task.validate();
    KnobSpace s;
    switch (task.kind) {
        case TaskKind::Conv2d:
            s.addSplit("tile_co", task.outC, 2, 32);
            s.addSplit("tile_oh", task.outH(), 2);
            s.addSplit("tile_ow", task.outW(), 2, 64);
            s.addSplit("tile_ci", task.inC / task.groups, 2);
            s.addEnum("vec", kVectorWidths);
            s.addEnum("unroll_co", {0, 1});
            s.addEnum("unroll_kw", {0, 1});
            s.addEnum("order", {0, 1});
            s.addEnum("parallel", {0, 1});
            s.addEnum("pad_at", {0, 1, 2});
            break;
        case TaskKind::DepthwiseConv2d:
            s.addSplit("tile_c", task.outC, 2, 32);
            s.addSplit("tile_oh", task.outH(), 2);
            s.addSplit("tile_ow", task.outW(), 2, 64);
            s.addEnum("vec", kVectorWidths);
            s.addEnum("unroll_k", {0, 1});
            s.addEnum("parallel", {0, 1});
            s.addEnum("pad_at", {0, 1, 2});
            break;
        case TaskKind::Dense:
            s.addSplit("tile_n", task.n, 2, 64);
            s.addSplit("tile_m", task.m, 2, 16);
            s.addSplit("tile_k", task.k, 2);
            s.addEnum("vec", kVectorWidths);
            s.addEnum("unroll_m", {0, 1});
            s.addEnum("parallel", {0, 1});
            break;
    }
    return s;
}

ScheduleParams decodeSchedule(const TuningTask& task, const KnobSpace& space, ConfigIndex config) {
    const KnobIndices k = space.decode(config);
    ScheduleParams p;
    p.vec = static_cast<int>(space.value(k, "vec"));
    p.parallel = space.value(k, "parallel") != 0;
    switch (task.kind) {
        case TaskKind::Conv2d:
            p.tileC = space.split(k, "tile_co").back();
            p.tileH = space.split(k, "tile_oh").back();
            p.tileW = space.split(k, "tile_ow").back();
            p.tileR = space.split(k, "tile_ci").back();
            p.unrollC = space.value(k, "unroll_co") != 0;
            p.unrollK = space.value(k, "unroll_kw") != 0;
            p.order = static_cast<int>(space.value(k, "order"));
            p.padAt = static_cast<int>(space.value(k, "pad_at"));
            break;
        case TaskKind::DepthwiseConv2d:
            p.tileC = space.split(k, "tile_c").back();
            p.tileH = space.split(k, "tile_oh").back();
            p.tileW = space.split(k, "tile_ow").back();
            p.unrollK = space.value(k, "unroll_k") != 0;
            p.padAt = static_cast<int>(space.value(k, "pad_at"));
            break;
        case TaskKind::Dense:
            p.tileW = space.split(k, "tile_n").back();
            p.tileH = space.split(k, "tile_m").back();
            p.tileR = space.split(k, "tile_k").back();
            p.unrollC = space.value(k, "unroll_m") != 0;
            break;
    }
    return p;
}

namespace {
const char* kDerivedNames[] = {"log2_tile_c", "log2_tile_h", "log2_tile_w", "log2_tile_r", "log2_vec",
                               "unroll_c",    "unroll_k",    "order",       "parallel",    "pad_at",
                               "log2_working_set_bytes", "log2_accumulators", "useful_lanes",
                               "log2_unroll_product", "log2_tiles"};
}

std::vector<double> scheduleFeatures(const TuningTask& t, const KnobSpace& space, ConfigIndex config) {
    std::vector<double> f = space.normalized(config);
    const ScheduleParams p = decodeSchedule(t, space, config);
    const double vec = p.vec;
    const double vectors = std::ceil(static_cast<double>(p.tileW) / vec);
    double bytes;
    if (t.isConv()) {
        const double inW = static_cast<double>((p.tileW - 1) * t.strideW + (t.kernelW - 1) * t.dilationW + 1);
        const double inH = static_cast<double>((p.tileH - 1) * t.strideH + (t.kernelH - 1) * t.dilationH + 1);
        const double red = t.kind == TaskKind::DepthwiseConv2d ? 1.0 : static_cast<double>(p.tileR);
        bytes = 4.0 * (inW * inH * red + static_cast<double>(p.tileC) * red * t.kernelH * t.kernelW +
                       static_cast<double>(p.tileW * p.tileH * p.tileC));
    } else {
        bytes = 4.0 * static_cast<double>(p.tileH * p.tileR + p.tileR * p.tileW + p.tileH * p.tileW);
    }
    const double acc = static_cast<double>(t.isConv() ? p.tileC * p.tileH : p.tileH) * vectors;
    // Statements the unrolling replicates: unrolled channels (dense: rows) times the unrolled
    // kernel width (depthwise: the whole window).
    double unrolled = 1;
    if (p.unrollC) unrolled *= static_cast<double>(t.kind == TaskKind::Dense ? p.tileH : p.tileC);
    if (p.unrollK)
        unrolled *= static_cast<double>(t.kind == TaskKind::DepthwiseConv2d ? t.kernelH * t.kernelW : t.kernelW);
    // Output tiles (the work the parallel loop shares out).
    const double tiles = t.isConv() ? static_cast<double>(t.outC / p.tileC) * static_cast<double>(t.outH() / p.tileH) *
                                          static_cast<double>(t.outW() / p.tileW)
                                    : static_cast<double>(t.m / p.tileH) * static_cast<double>(t.n / p.tileW);
    for (double v : {std::log2(double(p.tileC)), std::log2(double(p.tileH)), std::log2(double(p.tileW)),
                     std::log2(double(p.tileR)), std::log2(vec), double(p.unrollC), double(p.unrollK),
                     double(p.order), double(p.parallel), double(p.padAt), std::log2(bytes), std::log2(acc),
                     static_cast<double>(p.tileW) / (vectors * vec), std::log2(unrolled), std::log2(tiles)})
        f.push_back(v);
    return f;
}

std::vector<std::string> scheduleFeatureNames(const TuningTask&, const KnobSpace& space) {
    std::vector<std::string> n;
    for (const auto& k : space.knobs()) n.push_back(k.name);
    for (const char* d : kDerivedNames) n.emplace_back(d);
    return n;
}

nlohmann::json ScheduleParams::toJson() const {
    return {{"tile_c", tileC},   {"tile_h", tileH},     {"tile_w", tileW},   {"tile_r", tileR},
            {"vec", vec},        {"unroll_c", unrollC}, {"unroll_k", unrollK}, {"order", order},
            {"parallel", parallel}, {"pad_at", padAt}};
}

}  // namespace graphopt::tuning
