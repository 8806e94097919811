#include "tuning/halide/PackedLayout.h"

#include <algorithm>

namespace graphopt::tuning {

PackedShape packedShape(const TuningTask& t, const PackedParams& p) {
    PackedShape s;
    s.icBlocks = ceilDiv(t.inC, p.icBn);
    s.ocBlocks = ceilDiv(t.outC, p.ocBn);
    s.inH = p.padAt == 0 ? t.inH + t.padTop + t.padBottom : t.inH;
    s.inW = p.padAt == 0 ? t.inW + t.padLeft + t.padRight : t.inW;
    s.inputSize = t.batch * s.icBlocks * s.inH * s.inW * p.icBn;
    if (t.kind == TaskKind::DepthwiseConv2d)
        s.weightSize = s.icBlocks * t.kernelH * t.kernelW * p.icBn;
    else
        s.weightSize = s.ocBlocks * s.icBlocks * t.kernelH * t.kernelW * p.icBn * p.ocBn;
    s.outputSize = t.batch * s.ocBlocks * t.outH() * t.outW() * p.ocBn;
    return s;
}

std::vector<float> packInput(const TuningTask& t, const PackedParams& p, const float* nchw) {
    const PackedShape s = packedShape(t, p);
    std::vector<float> out(static_cast<size_t>(s.inputSize), 0.0f);
    const int64_t y0 = p.padAt == 0 ? t.padTop : 0, x0 = p.padAt == 0 ? t.padLeft : 0;
    for (int64_t n = 0; n < t.batch; ++n)
        for (int64_t c = 0; c < t.inC; ++c) {
            const int64_t cb = c / p.icBn, ci = c % p.icBn;
            for (int64_t y = 0; y < t.inH; ++y)
                for (int64_t x = 0; x < t.inW; ++x)
                    out[(((n * s.icBlocks + cb) * s.inH + y + y0) * s.inW + x + x0) * p.icBn + ci] =
                        nchw[((n * t.inC + c) * t.inH + y) * t.inW + x];
        }
    return out;
}

std::vector<float> packWeights(const TuningTask& t, const PackedParams& p, const float* oihw) {
    const PackedShape s = packedShape(t, p);
    std::vector<float> out(static_cast<size_t>(s.weightSize), 0.0f);
    const int64_t KH = t.kernelH, KW = t.kernelW;
    if (t.kind == TaskKind::DepthwiseConv2d) {
        for (int64_t c = 0; c < t.inC; ++c)
            for (int64_t ky = 0; ky < KH; ++ky)
                for (int64_t kx = 0; kx < KW; ++kx)
                    out[(((c / p.icBn) * KH + ky) * KW + kx) * p.icBn + c % p.icBn] = oihw[(c * KH + ky) * KW + kx];
        return out;
    }
    for (int64_t o = 0; o < t.outC; ++o)
        for (int64_t i = 0; i < t.inC; ++i)
            for (int64_t ky = 0; ky < KH; ++ky)
                for (int64_t kx = 0; kx < KW; ++kx) {
                    const int64_t ob = o / p.ocBn, oi = o % p.ocBn, ib = i / p.icBn, ii = i % p.icBn;
                    out[(((((ob * s.icBlocks + ib) * KH + ky) * KW + kx) * p.icBn + ii) * p.ocBn) + oi] =
                        oihw[((o * t.inC + i) * KH + ky) * KW + kx];
                }
    return out;
}

void unpackOutput(const TuningTask& t, const PackedParams& p, const float* packed, float* nchw) {
    const PackedShape s = packedShape(t, p);
    const int64_t OH = t.outH(), OW = t.outW();
    for (int64_t n = 0; n < t.batch; ++n)
        for (int64_t k = 0; k < t.outC; ++k)
            for (int64_t y = 0; y < OH; ++y)
                for (int64_t x = 0; x < OW; ++x)
                    nchw[((n * t.outC + k) * OH + y) * OW + x] =
                        packed[(((n * s.ocBlocks + k / p.ocBn) * OH + y) * OW + x) * p.ocBn + k % p.ocBn];
}

int64_t blockedSize(int64_t c, int64_t h, int64_t w, int block) {
    return block == 0 ? c * h * w : ceilDiv(c, block) * block * h * w;
}

void repackActivation(int64_t c, int64_t h, int64_t w, int from, int to, const float* src, float* dst) {
    const int64_t hw = h * w;
    if (to == 0) {  // to plain NCHW: each channel's pixels are a stride-`from` gather
        for (int64_t ch = 0; ch < c; ++ch) {
            const float* s = from == 0 ? src + ch * hw : src + (ch / from) * hw * from + ch % from;
            const int64_t stride = from == 0 ? 1 : from;
            for (int64_t px = 0; px < hw; ++px) dst[ch * hw + px] = s[px * stride];
        }
        return;
    }
    // To blocks: write the destination in memory order, pixel by pixel, each pixel's block of
    // channels copied in runs that are contiguous in the source (whole runs of `from` channels).
    float* d = dst;
    for (int64_t cb = 0; cb < ceilDiv(c, to); ++cb)
        for (int64_t px = 0; px < hw; ++px)
            for (int64_t ci = 0; ci < to;) {
                const int64_t ch = cb * to + ci;
                if (ch >= c) {  // padding channels of the last block
                    *d++ = 0.0f;
                    ++ci;
                } else if (from == 0) {
                    *d++ = src[ch * hw + px];
                    ++ci;
                } else {
                    const int64_t run = std::min<int64_t>({to - ci, from - ch % from, c - ch});
                    const float* s = src + ((ch / from) * hw + px) * from + ch % from;
                    std::copy(s, s + run, d);
                    d += run;
                    ci += run;
                }
            }
}

}  // namespace graphopt::tuning
