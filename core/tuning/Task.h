// Tuning tasks: the heavy operators of a graph, reduced to the shapes a kernel depends on.
//
// A task is what AutoTVM calls a workload: two Conv nodes with the same shapes, strides, padding,
// dilation and groups are one task, tuned once; `weight` counts how many nodes use it (the
// network's time in that operator is weight x the kernel's latency).
//
// Data layouts the kernels (Halide templates and the plain reference) agree on, row-major:
//   conv input  [batch][inC][inH][inW], weights [outC][inC/groups][kernelH][kernelW],
//   conv output [batch][outC][outH][outW] (NCHW, no bias: the bias add is elementwise work);
//   conv3d input [batch][inC][inD][inH][inW], weights [outC][inC/groups][kernelD][kernelH][kernelW],
//   output [batch][outC][outD][outH][outW] (NCDHW; video models);
//   dense A [m][k], B [k][n] (weights stored pre-transposed so n is contiguous), Y [m][n];
//   batch_matmul A [batch][m][k], B [batch][k][n], Y [batch][m][n] (attention's Q.K^T and A.V:
//   both operands are activations; B is passed where dense passes its weights).
// FLOPs count a multiply-add as 2, like the rest of the project.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace graphopt {
class Graph;
}

namespace graphopt::tuning {

// How many pieces of size b cover a (a >= 0, b > 0): loop trip counts, tiles, channel blocks.
inline int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

enum class TaskKind { Conv2d, DepthwiseConv2d, Dense, BatchMatMul, Conv3d };
const char* taskKindName(TaskKind k);
TaskKind taskKindFromName(const std::string& name);  // throws std::invalid_argument

// The kernel template a conv task is tuned with (dense has one template).
//   Nchw:   the first template: NCHW activations, vectors over the output width.
//   Packed: activations in NCHW[x]c blocks, weights pre-packed to OIHW[i]o, vectors over the
//           output-channel block, a register tile of output columns x channel vectors
//           (halide/PackedConv.h). Serves groups == 1 and depthwise with multiplier 1.
//   Tiled:  the packed layouts with multi-level tiling (halide/TiledConv.h): the output channels,
//           rows and the input-channel reduction split in cache and register levels, the order
//           of the tile loops, the parallel granularity, where the accumulators live and the
//           unroll of the innermost reduction. Serves groups == 1 conv2d; its space holds every
//           packed configuration whose blocks divide the channel counts (tiledFromPacked).
//           The template real measurements use.
// All are templates of the same task, so tuners can be compared on any of them.
enum class ConvTemplate { Nchw, Packed, Tiled };
const char* convTemplateName(ConvTemplate t);
ConvTemplate convTemplateFromName(const std::string& name);  // throws std::invalid_argument

struct TuningTask {
    TaskKind kind = TaskKind::Conv2d;
    // Conv2d / DepthwiseConv2d
    int64_t batch = 1, inC = 0, inH = 0, inW = 0, outC = 0;
    int64_t kernelH = 1, kernelW = 1, strideH = 1, strideW = 1;
    int64_t padTop = 0, padLeft = 0, padBottom = 0, padRight = 0;
    int64_t dilationH = 1, dilationW = 1, groups = 1;
    // Conv3d only: the depth (time) axis; 2-D convolutions keep these at their neutral values.
    int64_t inD = 1, kernelD = 1, strideD = 1, padFront = 0, padBack = 0, dilationD = 1;
    // Dense: Y[m][n] = A[m][k] * B[k][n]; BatchMatMul: the same for each of `batch` matrices.
    int64_t m = 0, n = 0, k = 0;

    // Template choice (conv only). `lanes` is the packed template's float lanes per vector,
    // 8 (AVX2) or 16 (AVX-512): the channel block and the target the kernel is compiled for.
    ConvTemplate convTemplate = ConvTemplate::Nchw;
    int lanes = 0;

    int weight = 1;                  // nodes of the graph that use this task
    std::vector<std::string> nodes;  // their names, in graph order

    bool isConv() const {
        return kind == TaskKind::Conv2d || kind == TaskKind::DepthwiseConv2d || kind == TaskKind::Conv3d;
    }
    bool is3d() const { return kind == TaskKind::Conv3d; }
    bool isMatMul() const { return !isConv(); }  // dense or batch_matmul: the matrix-product template
    int64_t matmulBatch() const { return kind == TaskKind::BatchMatMul ? batch : 1; }
    // Packed layouts (the packed and the tiled template).
    bool isPacked() const {
        return isConv() && (convTemplate == ConvTemplate::Packed || convTemplate == ConvTemplate::Tiled);
    }
    bool isTiled() const { return kind == TaskKind::Conv2d && convTemplate == ConvTemplate::Tiled; }
    const char* templateName() const { return isConv() ? convTemplateName(convTemplate) : "dense"; }
    int64_t inputElements() const;   // the first operand: conv input, or A
    int64_t weightElements() const;  // the second: conv weights, or B
    int64_t outD() const;  // 1 for 2-D convolutions
    int64_t outH() const;
    int64_t outW() const;
    int64_t reductionLength() const;  // multiply-adds per output element
    int64_t outputElements() const;
    double flops() const;             // 2 x multiply-adds
    // Canonical text of the shape fields (and of the template when it is not the NCHW one):
    // equal keys = same kernel.
    std::string key() const;
    // One line for humans: "conv2d 1x64x56x56 -> 64 k3x3 s1 p1".
    std::string describe() const;
    nlohmann::json toJson() const;
    static TuningTask fromJson(const nlohmann::json& j);
    // Throws std::invalid_argument when a size is not positive or the output would be empty.
    void validate() const;
};

TuningTask makeConv2d(int64_t batch, int64_t inC, int64_t inH, int64_t inW, int64_t outC, int64_t kernel,
                      int64_t stride, int64_t pad, int64_t groups = 1);
TuningTask makeDense(int64_t m, int64_t n, int64_t k);
TuningTask makeBatchMatMul(int64_t batch, int64_t m, int64_t n, int64_t k);
// A cubic-kernel 3-D convolution with the same stride and padding on every axis.
TuningTask makeConv3d(int64_t batch, int64_t inC, int64_t inD, int64_t inH, int64_t inW, int64_t outC, int64_t kernel,
                      int64_t stride, int64_t pad, int64_t groups = 1);

// Whether the packed template can serve the task; when not, `why` says so.
bool packedTemplateServes(const TuningTask& task, std::string* why = nullptr);
// The task with the packed template at `lanes` (0: the host's widest, hostVectorLanes()) when it
// serves the task, else unchanged (NCHW; dense stays dense).
TuningTask withPackedTemplate(TuningTask task, int lanes = 0);
// The template real measurements use: the tiled template for conv2d it serves, the packed one for
// depthwise, else unchanged.
TuningTask withTiledTemplate(TuningTask task, int lanes = 0);
// withTiledTemplate / withPackedTemplate / the task itself, by template name ("tiled", "packed",
// "nchw"); throws std::invalid_argument for another name.
TuningTask withTemplate(TuningTask task, const std::string& name, int lanes = 0);
// Float lanes of the host's widest vectors the kernels use: 16 with AVX-512F, else 8.
int hostVectorLanes();

// Conv (2-D NCHW, and 3-D NCDHW), Gemm and MatMul nodes with known shapes become tasks: MatMul with a 2-D B is
// dense (A's leading dimensions fold into m), MatMul with batched operands whose batch dimensions
// agree is batch_matmul. Identical tasks merge (weight = uses). Order: first use in node order.
// Nodes whose shapes are unknown or that do not fit a template (1-D conv, a MatMul that
// broadcasts one operand's batch dimensions) are skipped and, when `skipped` is given, named
// there with the reason.
std::vector<TuningTask> extractTasks(const Graph& g, std::vector<std::string>* skipped = nullptr);

}  // namespace graphopt::tuning
