#include "tuning/TemplateSpace.h"

#include "tuning/LoopNest.h"

#include <algorithm>
#include <cmath>

namespace graphopt::tuning {

namespace {
const std::vector<int64_t> kVectorWidths = {1, 4, 8, 16};

int64_t roundUp(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

// Register tiles of 1..16 columns that fit the output row (larger tiles spill; the tuner learns
// where, per ISA: AVX-512 has 32 vector registers, AVX2 16).
std::vector<int64_t> regNValues(const TuningTask& t) {
    std::vector<int64_t> v;
    for (int64_t n = 1; n <= std::min<int64_t>(16, t.outW()); ++n) v.push_back(n);
    return v;
}

KnobSpace packedSpace(const TuningTask& t) {
    KnobSpace s;
    const int64_t L = t.lanes;
    if (t.kind == TaskKind::DepthwiseConv2d) {
        std::vector<int64_t> cbn = {L};
        if (roundUp(t.inC, L) >= 2 * L) cbn.push_back(2 * L);
        s.addEnum("c_bn", cbn);
        s.addEnum("reg_n", regNValues(t));
        s.addEnum("unroll_kw", {0, 1});
        if (t.padTop + t.padLeft + t.padBottom + t.padRight > 0) s.addEnum("pad_at", {0, 1});
        s.addEnum("parallel", {0, 1});
        return s;
    }
    // The first conv (RGB) has too few channels to block: one block holds all of them.
    std::vector<int64_t> icbn;
    if (t.inC < 8) {
        icbn = {t.inC};
    } else {
        for (int64_t b : {8, 16, 32, 64})
            if (b <= roundUp(t.inC, 8)) icbn.push_back(b);
    }
    s.addEnum("ic_bn", icbn);
    std::vector<int64_t> ocbn = {L};
    for (int64_t b : {2 * L, 4 * L})
        if (b <= roundUp(t.outC, L)) ocbn.push_back(b);
    s.addEnum("oc_bn", ocbn);
    s.addEnum("reg_n", regNValues(t));
    if (t.kernelW > 1) s.addEnum("unroll_kw", {0, 1});
    s.addEnum("order", {0, 1, 2});
    if (t.padTop + t.padLeft + t.padBottom + t.padRight > 0) s.addEnum("pad_at", {0, 1});
    s.addEnum("parallel", {0, 1, 2});
    return s;
}

bool hasKnob(const KnobSpace& s, const char* name) {
    for (const auto& k : s.knobs())
        if (k.name == name) return true;
    return false;
}
}  // namespace

PackedParams decodePacked(const TuningTask& t, const KnobSpace& space, ConfigIndex config) {
    const KnobIndices k = space.decode(config);
    auto get = [&](const char* name, int64_t fallback) { return hasKnob(space, name) ? space.value(k, name) : fallback; };
    PackedParams p;
    p.lanes = t.lanes;
    if (t.kind == TaskKind::DepthwiseConv2d) {
        p.icBn = p.ocBn = static_cast<int>(get("c_bn", t.lanes));
    } else {
        p.icBn = static_cast<int>(get("ic_bn", 8));
        p.ocBn = static_cast<int>(get("oc_bn", t.lanes));
        p.order = static_cast<int>(get("order", 0));
    }
    p.regN = static_cast<int>(get("reg_n", 1));
    p.unrollKw = get("unroll_kw", 0) != 0;
    p.padAt = static_cast<int>(get("pad_at", 0));
    p.parallel = static_cast<int>(get("parallel", 0));
    return p;
}

nlohmann::json PackedParams::toJson() const {
    return {{"lanes", lanes}, {"ic_bn", icBn},         {"oc_bn", ocBn},     {"reg_n", regN},
            {"unroll_kw", unrollKw}, {"order", order}, {"pad_at", padAt}, {"parallel", parallel}};
}

KnobSpace templateSpace(const TuningTask& task) {
    task.validate();
    if (task.isPacked()) return packedSpace(task);
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
        case TaskKind::Conv3d:
            s.addSplit("tile_co", task.outC, 2, 32);
            s.addSplit("tile_od", task.outD(), 2);
            s.addSplit("tile_oh", task.outH(), 2);
            s.addSplit("tile_ow", task.outW(), 2, 64);
            s.addSplit("tile_ci", task.inC / task.groups, 2);
            s.addEnum("vec", kVectorWidths);
            s.addEnum("unroll_co", {0, 1});
            s.addEnum("unroll_kw", {0, 1});
            s.addEnum("parallel", {0, 1});
            s.addEnum("pad_at", {0, 1, 2});
            break;
        case TaskKind::Dense:
        case TaskKind::BatchMatMul:
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
    if (task.isPacked()) {
        const PackedParams pp = decodePacked(task, space, config);
        ScheduleParams p;
        p.tileC = pp.ocBn;
        p.tileW = pp.regN;
        p.tileR = task.kind == TaskKind::DepthwiseConv2d ? 1 : pp.icBn;
        p.vec = pp.lanes;
        p.unrollC = true;
        p.unrollK = pp.unrollKw;
        p.order = 0;
        p.parallel = true;
        p.padAt = pp.padAt == 0 ? 2 : 1;
        return p;
    }
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
        case TaskKind::Conv3d:
            p.tileC = space.split(k, "tile_co").back();
            p.tileD = space.split(k, "tile_od").back();
            p.tileH = space.split(k, "tile_oh").back();
            p.tileW = space.split(k, "tile_ow").back();
            p.tileR = space.split(k, "tile_ci").back();
            p.unrollC = space.value(k, "unroll_co") != 0;
            p.unrollK = space.value(k, "unroll_kw") != 0;
            p.padAt = static_cast<int>(space.value(k, "pad_at"));
            break;
        case TaskKind::Dense:
        case TaskKind::BatchMatMul:
            p.tileW = space.split(k, "tile_n").back();
            p.tileH = space.split(k, "tile_m").back();
            p.tileR = space.split(k, "tile_k").back();
            p.unrollC = space.value(k, "unroll_m") != 0;
            break;
    }
    return p;
}

std::vector<double> scheduleFeatures(const TuningTask& t, const KnobSpace& space, ConfigIndex config) {
    std::vector<double> f = space.normalized(config);
    const std::vector<double> nest = loopNestFeatures(scheduleLoopNest(t, space, config));
    f.insert(f.end(), nest.begin(), nest.end());
    return f;
}

std::vector<std::string> scheduleFeatureNames(const TuningTask&, const KnobSpace& space) {
    std::vector<std::string> n;
    for (const auto& k : space.knobs()) n.push_back(k.name);
    for (auto& name : loopNestFeatureNames()) n.push_back(std::move(name));
    return n;
}

nlohmann::json ScheduleParams::toJson() const {
    return {{"tile_c", tileC},   {"tile_d", tileD},     {"tile_h", tileH},     {"tile_w", tileW},   {"tile_r", tileR},
            {"vec", vec},        {"unroll_c", unrollC}, {"unroll_k", unrollK}, {"order", order},
            {"parallel", parallel}, {"pad_at", padAt}};
}

}  // namespace graphopt::tuning
