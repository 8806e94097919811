#include "tuning/TemplateSpace.h"

#include "tuning/LoopNest.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

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


// The tiled template's knobs (TemplateSpace.h). The first four knobs' order is the mixed-radix
// digit order; knobs that only one choice would fill are left out, as in the packed space.
KnobSpace tiledSpace(const TuningTask& t) {
    KnobSpace s;
    const bool firstConv = t.inC < 8;
    s.addSplit("tile_oc", ceilDiv(t.outC, t.lanes), 3, 4);
    if (!firstConv) s.addSplit("tile_ic", ceilDiv(t.inC, 8), 3, 8);
    s.addSplit("tile_oh", t.outH(), 3, 4);
    s.addEnum("reg_n", regNValues(t));
    if (t.kernelW > 1) s.addEnum("unroll_kw", {0, 1});
    s.addEnum("order", {0, 1, 2});
    if (t.padTop + t.padLeft + t.padBottom + t.padRight > 0) s.addEnum("pad_at", {0, 1});
    if (!firstConv) s.addEnum("unroll_ic", {1, 2, 4});
    s.addEnum("outer_order", {0, 1});
    s.addEnum("inner_order", {0, 1});
    s.addEnum("parallel", {0, 1});
    s.addEnum("accum", {0, 1});
    return s;
}

bool hasKnob(const KnobSpace& s, const char* name) {
    for (const auto& k : s.knobs())
        if (k.name == name) return true;
    return false;
}
}  // namespace

TiledParams decodeTiled(const TuningTask& t, const KnobSpace& space, ConfigIndex config) {
    if (!t.isTiled()) throw std::invalid_argument("not a tiled-template task: " + t.describe());
    const KnobIndices k = space.decode(config);
    auto get = [&](const char* name, int64_t fallback) { return hasKnob(space, name) ? space.value(k, name) : fallback; };
    TiledParams q;
    PackedParams& p = q.packed;
    p.lanes = t.lanes;
    const std::vector<int64_t>& oc = space.split(k, "tile_oc");
    q.cbOuter = static_cast<int>(oc[0]);
    q.cbInner = static_cast<int>(oc[1]);
    p.ocBn = static_cast<int>(oc[2]) * t.lanes;
    if (hasKnob(space, "tile_ic")) {
        const std::vector<int64_t>& ic = space.split(k, "tile_ic");
        q.icOuter = static_cast<int>(ic[0]);
        q.icInner = static_cast<int>(ic[1]);
        p.icBn = static_cast<int>(ic[2]) * 8;
    } else {
        p.icBn = static_cast<int>(t.inC);
    }
    const std::vector<int64_t>& oh = space.split(k, "tile_oh");
    q.yOuter = static_cast<int>(oh[0]);
    q.yMid = static_cast<int>(oh[1]);
    q.yReg = static_cast<int>(oh[2]);
    p.regN = static_cast<int>(get("reg_n", 1));
    p.unrollKw = get("unroll_kw", 0) != 0;
    p.order = static_cast<int>(get("order", 0));
    p.padAt = static_cast<int>(get("pad_at", 0));
    q.unrollIc = static_cast<int>(get("unroll_ic", 1));
    q.outerOrder = static_cast<int>(get("outer_order", 0));
    q.innerOrder = static_cast<int>(get("inner_order", 0));
    q.parallel = static_cast<int>(get("parallel", 0));
    q.accum = static_cast<int>(get("accum", 0));
    return q;
}

bool tiledUnrollsRows(const TuningTask& t, const TiledParams& q) {
    const int64_t columns = std::min<int64_t>(q.packed.regN, t.outW());
    const int64_t vectors = q.packed.ocBn / std::max(1, q.packed.lanes);
    return q.yReg > 1 && int64_t(q.yReg) * columns * vectors <= kMaxUnrolledAccumulators;
}

nlohmann::json TiledParams::toJson() const {
    nlohmann::json j = packed.toJson();
    j.erase("parallel");
    j["cb"] = {cbOuter, cbInner};
    j["y"] = {yOuter, yMid, yReg};
    j["icb"] = {icOuter, icInner};
    j["unroll_ic"] = unrollIc;
    j["outer_order"] = outerOrder;
    j["inner_order"] = innerOrder;
    j["parallel"] = parallel;
    j["accum"] = accum;
    return j;
}

bool tiledFromPacked(const TuningTask& packedTask, ConfigIndex packedConfig, ConfigIndex* tiledConfig) {
    if (packedTask.convTemplate != ConvTemplate::Packed || packedTask.kind != TaskKind::Conv2d)
        throw std::invalid_argument("tiledFromPacked needs a conv2d task with the packed template");
    const PackedParams p = decodePacked(packedTask, templateSpace(packedTask), packedConfig);
    TuningTask tiled = packedTask;
    tiled.convTemplate = ConvTemplate::Tiled;
    const KnobSpace space = templateSpace(tiled);
    const int64_t L = packedTask.lanes, ocVectors = ceilDiv(packedTask.outC, L);
    const int64_t ocv = p.ocBn / L;
    if (ocVectors % ocv) return false;
    const int64_t kb = ocVectors / ocv, oh = packedTask.outH();
    // Packed parallel 0: rows in parallel, every block inside; 1: blocks x rows fused (blocks
    // outer); 2: blocks in parallel, rows inside. The tiled loops [cb_o, y_o] or [y_o, cb_o]
    // carry them, the cache tile loops have extent 1 except cb_i for parallel 0.
    std::vector<int64_t> ocSplit = p.parallel == 0 ? std::vector<int64_t>{1, kb, ocv} : std::vector<int64_t>{kb, 1, ocv};
    KnobIndices k(space.knobCount(), 0);
    auto setSplit = [&](const char* name, const std::vector<int64_t>& factors) {
        const int i = space.knobIndex(name);
        const auto& e = space.knob(i).entities;
        const auto it = std::find(e.begin(), e.end(), factors);
        if (it == e.end()) return false;
        k[i] = static_cast<int>(it - e.begin());
        return true;
    };
    auto setEnum = [&](const char* name, int64_t value) {
        if (!hasKnob(space, name)) return true;
        return setSplit(name, {value});
    };
    bool ok = setSplit("tile_oc", ocSplit) && setSplit("tile_oh", {oh, 1, 1});
    if (hasKnob(space, "tile_ic")) {
        const int64_t units = ceilDiv(packedTask.inC, 8), u = p.icBn / 8;
        if (units % u) return false;
        ok = ok && setSplit("tile_ic", {1, units / u, u});
    }
    ok = ok && setEnum("reg_n", p.regN) && setEnum("unroll_kw", p.unrollKw ? 1 : 0) && setEnum("order", p.order) &&
         setEnum("pad_at", p.padAt) && setEnum("unroll_ic", 1) && setEnum("outer_order", p.parallel == 0 ? 1 : 0) &&
         setEnum("inner_order", 0) && setEnum("parallel", p.parallel == 1 ? 1 : 0) && setEnum("accum", 0);
    if (!ok) return false;
    *tiledConfig = space.encode(k);
    return true;
}

PackedParams decodePacked(const TuningTask& t, const KnobSpace& space, ConfigIndex config) {
    if (t.isTiled()) return decodeTiled(t, space, config).packed;
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
    if (task.isTiled()) return tiledSpace(task);
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
            // Any column tile up to the whole row: a batch-1 dense layer is a GEMV that streams
            // B row by row, and a full-width tile reads it in order (1000's divisors up to 64 were
            // 40 and 50, which leave lanes of the 16-lane vectors idle).
            s.addSplit("tile_n", task.n, 2);
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
        if (task.isTiled()) p.tileH = decodeTiled(task, space, config).yReg;
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
