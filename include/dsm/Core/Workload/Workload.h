//===- Workload.h - Layer workloads (DeepSpatialMatrix §II-A) ---*- C++ -*-===//
//
// What one graph operation asks of the hardware, independent of MLIR: the
// primary-computation dimensions N{in, out, ij, kij, mb} with stride and
// timesteps (DeepSpatialMatrix Fig. 2), the auxiliary (special-function) work,
// and the bytes of inputs, weights and outputs. The dsm dialect produces one
// per op through its workload interface; cost models and reports consume them.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_WORKLOAD_WORKLOAD_H
#define DSM_CORE_WORKLOAD_WORKLOAD_H

#include "llvm/ADT/StringRef.h"

#include <array>
#include <cstdint>
#include <optional>

namespace dsm::core {

/// What an operation computes. Primary kinds run on PE arrays; auxiliary kinds
/// on special-function units; data-movement kinds only move or re-view data.
enum class OpKind {
  // Primary computations.
  Convolution,
  FullyConnected, ///< matrix multiplication by a weight
  MatMul,         ///< matrix multiplication of two activations (attention)
  Lstm,
  // Auxiliary computations.
  BiasAdd,
  ResidualAdd,
  Elementwise, ///< other elementwise arithmetic (sub, mul, div, scale)
  ReLU,
  Sigmoid,
  Tanh,
  GELU,
  Clamp,
  HardSigmoid,
  HardSwish,
  Math, ///< one special-function evaluation (exp, erf, sqrt)
  MaxPool,
  AvgPool,
  Softmax,
  BatchNorm,
  LayerNorm,
  RMSNorm,
  Embedding,
  Reduction,
  Opaque, ///< recognised only by its element count (importers)
  // Data movement.
  Concat,
  Reshape,
  Transpose,
  Slice,
};

enum class ComputeClass { Primary, Auxiliary, DataMovement };

ComputeClass getComputeClass(OpKind kind);
llvm::StringRef stringifyOpKind(OpKind kind);
std::optional<OpKind> symbolizeOpKind(llvm::StringRef name);

/// Special-function operations per element for an auxiliary kind, the
/// documented approximation the cost models use (docs/workloads.md).
/// Pooling and reductions charge per input element of the window instead.
double auxOpsPerElement(OpKind kind);

/// The five dimensions along which DeepSpatialMatrix splits work (Fig. 4).
enum class Dim { In = 0, Out, IJ, KIJ, MB };
constexpr int kNumDims = 5;
llvm::StringRef stringifyDim(Dim dim);

/// Sizes along the five dimensions.
using DimSizes = std::array<int64_t, kNumDims>;

/// 2D convolution (any layout): output [batch, outChannels, outH, outW] from
/// input [batch, inChannels, inH, inW] and a kernel of
/// [outChannels, inChannels / groups, kernelH, kernelW]. A 3D convolution
/// adds a depth (inD, outD, kernelD), which is 1 in 2D.
struct ConvShape {
  int64_t batch = 1, inChannels = 1, inH = 1, inW = 1;
  int64_t outChannels = 1, outH = 1, outW = 1;
  int64_t kernelH = 1, kernelW = 1, strideH = 1, strideW = 1, groups = 1;
  int64_t inD = 1, outD = 1, kernelD = 1;
  /// A transposed convolution: each input pixel scatters a kernel-sized
  /// patch into an output that is `stride` times larger (the kernel is
  /// [inChannels, outChannels / groups, kernelH, kernelW]).
  bool transposed = false;
  /// Zero padding before the first row and column (after the last ones is
  /// implied by the output size).
  int64_t padTop = 0, padLeft = 0;
  bool hasBias = false;
};

struct Workload {
  OpKind kind = OpKind::Opaque;

  /// N{in, out, ij, kij, mb} (DeepSpatialMatrix §II-A). For convolutions `ij`
  /// counts output pixels; an LSTM's `in` is input + hidden features (each
  /// timestep also reads the previous one) and its `out` the 4 gate
  /// pre-activations per unit; an activation-activation matmul of [B.., M, K] x
  /// [K, N] has in = K, out = N, ij = M, mb = product of batch dims.
  DimSizes dims = {1, 1, 1, 1, 1};
  int64_t strideI = 1, strideJ = 1;
  int64_t timesteps = 1;  ///< N_ts
  int64_t directions = 1; ///< 2 for a bidirectional LSTM
  int64_t groups = 1;     ///< grouped / depthwise convolution
  int64_t window = 1;     ///< N_ws: pooling window or reduction size

  /// Multiply-accumulates of the primary computation.
  int64_t macs = 0;
  /// Elements produced by the operation (auxiliary kinds are charged per
  /// element produced, or per window element for pooling).
  int64_t outputElements = 0;
  /// Special-function operations.
  double auxOps = 0;
  /// Learnable parameters (elements), as torchvision counts them.
  int64_t params = 0;

  int64_t inputBytes = 0;  ///< activations read
  int64_t weightBytes = 0; ///< parameters and statistics read
  int64_t outputBytes = 0; ///< activations written
  int64_t elementBytes = 4;

  /// Set when any count overflowed 64 bits; such a workload is unusable.
  bool overflow = false;

  /// Convolutions: the geometry the counts came from (cost models that need
  /// more than the five dimensions, such as Paleo's data gradient, read it).
  /// A 3D convolution's depth is in it too.
  std::optional<ConvShape> conv;

  int64_t get(Dim d) const { return dims[int(d)]; }
  ComputeClass getComputeClass() const { return core::getComputeClass(kind); }
  bool isPrimary() const { return getComputeClass() == ComputeClass::Primary; }
};

/// Overflow-checked arithmetic for workload counts: once `overflow` is set the
/// result is meaningless and must be reported by the caller.
struct CheckedCount {
  bool overflow = false;
  int64_t mul(int64_t a, int64_t b);
  int64_t add(int64_t a, int64_t b);
  int64_t product(std::initializer_list<int64_t> values);
};

//===----------------------------------------------------------------------===//
// Workloads of the primitive computations. The dialect extracts shapes from
// the IR and calls these, so the formulas are unit-tested without MLIR.
//===----------------------------------------------------------------------===//

/// For a transposed convolution (`shape.transposed`) §II-A's pixels are the
/// input's, where the work happens (in = C, out = O, ij = IH * IW, kij = KH *
/// KW, MACs = N * O * ij * (C / groups) * kij); the output it writes is
/// OH * OW pixels, more than ij.
Workload makeConvWorkload(const ConvShape &shape, int64_t elementBytes);

/// Fully connected layer: `batch` samples of `rows` rows (tokens) each, every
/// row multiplied by an [out, in] weight.
Workload makeFullyConnectedWorkload(int64_t batch, int64_t rows, int64_t in,
                                    int64_t out, bool hasBias,
                                    int64_t elementBytes);

/// Product of two activations: [batch.., m, k] x [batch.., k, n].
Workload makeMatMulWorkload(int64_t batch, int64_t m, int64_t k, int64_t n,
                            int64_t elementBytes);

/// LSTM over `timesteps` with `directions` (1 or 2), ONNX weight layout:
/// W [dirs, 4H, input], R [dirs, 4H, H], B [dirs, 8H].
Workload makeLstmWorkload(int64_t timesteps, int64_t batch, int64_t input,
                          int64_t hidden, int64_t directions, bool hasBias,
                          int64_t elementBytes);

/// An auxiliary or data-movement op charged per output element. `params` and
/// `statistics` are elements of learnable and non-learnable weights it reads.
Workload makeElementwiseWorkload(OpKind kind, int64_t batch,
                                 int64_t outputElements, int64_t inputElements,
                                 int64_t params, int64_t statistics,
                                 int64_t elementBytes);

/// Pooling or reduction: each of `outputElements` reads a `window` of inputs.
Workload makeWindowedWorkload(OpKind kind, int64_t batch, int64_t channels,
                              int64_t outputElements, int64_t inputElements,
                              int64_t window, int64_t elementBytes);

} // namespace dsm::core

#endif // DSM_CORE_WORKLOAD_WORKLOAD_H
