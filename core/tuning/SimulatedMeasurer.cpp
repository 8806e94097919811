#include "tuning/SimulatedMeasurer.h"

#include <algorithm>
#include <cmath>

#include "run/Rng.h"
#include "tuning/TemplateSpace.h"

namespace graphopt::tuning {

namespace {

uint64_t keyHash(const std::string& key) {
    uint64_t h = 1469598103934665603ull;
    for (unsigned char ch : key) h = (h ^ ch) * 1099511628211ull;
    return h;
}

double cacheEfficiency(double bytes, const CpuModel& cpu) {
    if (bytes <= static_cast<double>(cpu.l1Bytes)) return 1.0;
    if (bytes <= static_cast<double>(cpu.l2Bytes)) return 0.75;
    if (bytes <= static_cast<double>(cpu.l3Bytes)) return 0.45;
    return 0.25;
}

}  // namespace

double SimulatedMeasurer::latency(const TuningTask& t, ConfigIndex config) const {
    return evaluate(t, config, nullptr);
}

std::vector<std::pair<std::string, double>> SimulatedMeasurer::quantities(const TuningTask& t,
                                                                          ConfigIndex config) const {
    std::vector<std::pair<std::string, double>> q;
    evaluate(t, config, &q);
    return q;
}

double SimulatedMeasurer::evaluate(const TuningTask& t, ConfigIndex config,
                                   std::vector<std::pair<std::string, double>>* q) const {
    auto note = [q](const char* name, double v) {
        if (q) q->emplace_back(name, v);
    };
    const KnobSpace space = templateSpace(t);
    const ScheduleParams p = decodeSchedule(t, space, config);
    const CpuModel& c = cpu_;

    // Vector lanes doing useful work.
    const double vec = p.vec;
    const double lanesUsed = std::min<double>(vec, c.lanes);
    const double roundedW = std::ceil(static_cast<double>(p.tileW) / vec) * vec;
    double eff = lanesUsed / c.lanes * (static_cast<double>(p.tileW) / roundedW);
    note("useful_lanes", eff);

    // Latency hiding by independent accumulators, and the register file's limit.
    const double regsPerVector = std::max(1.0, vec / c.lanes);
    const bool depthwise = t.kind == TaskKind::DepthwiseConv2d;
    const double rows = depthwise ? 1.0 : (p.unrollC ? static_cast<double>(t.isConv() ? p.tileC : p.tileH) : 1.0);
    double accumulators = rows * regsPerVector;
    // Order 0 with unrolled channels and a small tile: the template unrolls the whole tile, whose
    // accumulators then live in registers (see HalideKernel.cpp); other order-0 kernels keep
    // them in memory.
    const double registerTile = static_cast<double>(p.tileC * p.tileH) * std::ceil(static_cast<double>(p.tileW) / vec);
    const bool registerTiled = t.kind == TaskKind::Conv2d && p.order == 0 && p.unrollC && registerTile <= 24;
    if (registerTiled) accumulators = registerTile * regsPerVector;
    note("register_tile", registerTile);
    note("accumulators", accumulators);
    eff *= std::min(1.0, accumulators / (c.fmaPorts * c.fmaLatency));
    if (accumulators > c.vectorRegisters - 2) eff *= 0.6;
    if (t.kind == TaskKind::Conv2d && p.order == 0 && !registerTiled) eff *= 0.55;
    if (p.unrollK) eff *= 1.08;

    // The tile's working set against the caches.
    double footprint;
    int64_t tiles;
    if (t.isConv()) {
        const double inW = static_cast<double>((p.tileW - 1) * t.strideW + (t.kernelW - 1) * t.dilationW + 1);
        const double inH = static_cast<double>((p.tileH - 1) * t.strideH + (t.kernelH - 1) * t.dilationH + 1);
        const double red = depthwise ? 1.0 : static_cast<double>(p.tileR);
        // Depth (conv3d; 1 for 2-D convolutions): frames of input the tile reads.
        const double inD = static_cast<double>((p.tileD - 1) * t.strideD + (t.kernelD - 1) * t.dilationD + 1);
        footprint = 4.0 * (inW * inH * inD * red + static_cast<double>(p.tileC) * red * t.kernelD * t.kernelH * t.kernelW +
                           static_cast<double>(p.tileW * p.tileH * p.tileD * p.tileC));
        tiles = t.batch * (t.outC / p.tileC) * (t.outD() / p.tileD) * (t.outH() / p.tileH) * (t.outW() / p.tileW);
        if (p.padAt == 0) eff *= 0.8;   // a select on every input load
        if (p.padAt == 1) eff *= 0.95;  // halo copied again for every tile
    } else {
        footprint = 4.0 * static_cast<double>(p.tileH * p.tileR + p.tileR * p.tileW + p.tileH * p.tileW);
        tiles = t.matmulBatch() * (t.m / p.tileH) * (t.n / p.tileW);
    }
    note("working_set_bytes", footprint);
    note("tiles", static_cast<double>(tiles));
    const double cacheEff = cacheEfficiency(footprint, c);
    note("cache_efficiency", cacheEff);
    eff *= cacheEff;
    eff = std::min(eff, 1.0);
    note("efficiency", eff);

    // Parallel tiles, with load imbalance.
    double speedup = 1;
    if (p.parallel) {
        const int64_t parTiles = t.isConv() ? t.batch * (t.outC / p.tileC) * (t.outD() / p.tileD) * (t.outH() / p.tileH)
                                            : t.matmulBatch() * (t.m / p.tileH) * (t.n / p.tileW);
        const double rounds = std::ceil(static_cast<double>(parTiles) / c.cores);
        speedup = static_cast<double>(parTiles) / rounds;
        note("parallel_tiles", static_cast<double>(parTiles));
    }
    note("parallel_speedup", speedup);
    const double peak = c.lanes * 2.0 * c.fmaPorts * c.ghz * 1e9;
    double s = t.flops() / (peak * eff * speedup);
    s += static_cast<double>(tiles) * c.tileOverheadS / speedup;
    if (t.isConv() && p.padAt == 2)
        s += 4.0 * static_cast<double>(t.batch * t.inC * (t.inD + t.padFront + t.padBack) * (t.inH + t.padTop + t.padBottom) *
                                       (t.inW + t.padLeft + t.padRight)) / (c.memGBs * 1e9);

    note("noiseless_latency_s", s);
    const uint64_t h = hashMix(seed_, keyHash(t.key()), config);
    const double u = static_cast<double>(h >> 11) * 0x1.0p-53;  // [0, 1)
    const double latency = s * (1.0 + c.noise * (2.0 * u - 1.0));
    note("latency_s", latency);
    return latency;
}

std::vector<MeasureResult> SimulatedMeasurer::measure(const TuningTask& task, const std::vector<ConfigIndex>& configs) {
    std::vector<MeasureResult> out;
    out.reserve(configs.size());
    for (ConfigIndex cfg : configs) {
        MeasureResult r;
        r.config = cfg;
        r.ok = true;
        r.latencyS = latency(task, cfg);
        r.gflops = task.flops() / r.latencyS * 1e-9;
        r.repeats = 1;
        out.push_back(r);
    }
    return out;
}

}  // namespace graphopt::tuning
