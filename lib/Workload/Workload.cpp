//===- Workload.cpp - Layer workloads (DeepSpatialMatrix §II-A) -----------===//

#include "dsm/Core/Workload/Workload.h"

#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/ErrorHandling.h"

using namespace dsm::core;

ComputeClass dsm::core::getComputeClass(OpKind kind) {
  switch (kind) {
  case OpKind::Convolution:
  case OpKind::FullyConnected:
  case OpKind::MatMul:
  case OpKind::Lstm:
    return ComputeClass::Primary;
  case OpKind::Concat:
  case OpKind::Reshape:
  case OpKind::Transpose:
  case OpKind::Slice:
    return ComputeClass::DataMovement;
  default:
    return ComputeClass::Auxiliary;
  }
}

llvm::StringRef dsm::core::stringifyOpKind(OpKind kind) {
  switch (kind) {
  case OpKind::Convolution:
    return "conv";
  case OpKind::FullyConnected:
    return "fc";
  case OpKind::MatMul:
    return "matmul";
  case OpKind::Lstm:
    return "lstm";
  case OpKind::BiasAdd:
    return "bias_add";
  case OpKind::ResidualAdd:
    return "residual_add";
  case OpKind::Elementwise:
    return "elementwise";
  case OpKind::ReLU:
    return "relu";
  case OpKind::Sigmoid:
    return "sigmoid";
  case OpKind::Tanh:
    return "tanh";
  case OpKind::GELU:
    return "gelu";
  case OpKind::Clamp:
    return "clamp";
  case OpKind::HardSigmoid:
    return "hard_sigmoid";
  case OpKind::HardSwish:
    return "hard_swish";
  case OpKind::Math:
    return "math";
  case OpKind::MaxPool:
    return "max_pool";
  case OpKind::AvgPool:
    return "avg_pool";
  case OpKind::Softmax:
    return "softmax";
  case OpKind::BatchNorm:
    return "batch_norm";
  case OpKind::LayerNorm:
    return "layer_norm";
  case OpKind::RMSNorm:
    return "rms_norm";
  case OpKind::Embedding:
    return "embedding";
  case OpKind::Reduction:
    return "reduction";
  case OpKind::Opaque:
    return "opaque";
  case OpKind::Concat:
    return "concat";
  case OpKind::Reshape:
    return "reshape";
  case OpKind::Transpose:
    return "transpose";
  case OpKind::Slice:
    return "slice";
  }
  llvm_unreachable("unknown OpKind");
}

std::optional<OpKind> dsm::core::symbolizeOpKind(llvm::StringRef name) {
  for (int k = 0; k <= int(OpKind::Slice); ++k)
    if (stringifyOpKind(OpKind(k)) == name)
      return OpKind(k);
  return std::nullopt;
}

double dsm::core::auxOpsPerElement(OpKind kind) {
  switch (kind) {
  // One operation: a compare, an add or a multiply per element.
  case OpKind::BiasAdd:
  case OpKind::ResidualAdd:
  case OpKind::Elementwise:
  case OpKind::ReLU:
  case OpKind::Clamp:
  case OpKind::MaxPool: // per window element
  case OpKind::AvgPool: // per window element
  case OpKind::Reduction:
  case OpKind::Opaque:
  case OpKind::Math: // one special-function evaluation
    return 1;
  // Piecewise-linear approximations.
  case OpKind::HardSigmoid:
    return 2;
  case OpKind::HardSwish:
    return 3;
  // Scale and shift with precomputed statistics (inference form); training
  // statistics are accounted by the cost model as partial-sum reductions.
  case OpKind::BatchNorm:
    return 2;
  // Transcendentals evaluated on the special-function unit: exp plus a few
  // arithmetic operations.
  case OpKind::Sigmoid:
  case OpKind::Tanh:
    return 4;
  case OpKind::GELU:
    return 8;
  // exp, running sum and a division per element.
  case OpKind::Softmax:
    return 3;
  // mean, variance, normalise, scale, shift.
  case OpKind::LayerNorm:
    return 5;
  // mean square, normalise, scale (layer_norm's accounting without the
  // centring and the shift).
  case OpKind::RMSNorm:
    return 3;
  // Table lookups move data but compute nothing.
  case OpKind::Embedding:
  default:
    return 0;
  }
}

llvm::StringRef dsm::core::stringifyDim(Dim dim) {
  switch (dim) {
  case Dim::In:
    return "in";
  case Dim::Out:
    return "out";
  case Dim::IJ:
    return "ij";
  case Dim::KIJ:
    return "kij";
  case Dim::MB:
    return "mb";
  }
  llvm_unreachable("unknown Dim");
}

int64_t CheckedCount::mul(int64_t a, int64_t b) {
  if (std::optional<int64_t> r = llvm::checkedMul(a, b))
    return *r;
  overflow = true;
  return 0;
}

int64_t CheckedCount::add(int64_t a, int64_t b) {
  if (std::optional<int64_t> r = llvm::checkedAdd(a, b))
    return *r;
  overflow = true;
  return 0;
}

int64_t CheckedCount::product(std::initializer_list<int64_t> values) {
  int64_t result = 1;
  for (int64_t v : values)
    result = mul(result, v);
  return result;
}

//===----------------------------------------------------------------------===//
// Workloads of the primitive computations
//===----------------------------------------------------------------------===//

static void setDims(Workload &w, int64_t in, int64_t out, int64_t ij,
                    int64_t kij, int64_t mb) {
  w.dims = {in, out, ij, kij, mb};
}

Workload dsm::core::makeConvWorkload(const ConvShape &s, int64_t elementBytes) {
  CheckedCount c;
  Workload w;
  w.kind = OpKind::Convolution;
  w.elementBytes = elementBytes;
  w.groups = s.groups;
  w.strideI = s.strideH;
  w.strideJ = s.strideW;
  // A 3D convolution's depth multiplies the pixels and the window (§II-A's
  // N_ij and N_kij count positions, whatever their dimensionality). The
  // pixels are where the work is: the output's, or a transposed
  // convolution's input (each scatters a kernel-sized patch).
  int64_t ij = s.transposed ? c.product({s.inD, s.inH, s.inW})
                            : c.product({s.outD, s.outH, s.outW});
  int64_t kij = c.product({s.kernelD, s.kernelH, s.kernelW});
  int64_t inPerGroup = s.groups > 0 ? s.inChannels / s.groups : 0;
  setDims(w, s.inChannels, s.outChannels, ij, kij, s.batch);
  w.macs = c.product({s.batch, s.outChannels, ij, inPerGroup, kij});
  w.outputElements =
      c.product({s.batch, s.outChannels, s.outD, s.outH, s.outW});
  int64_t kernel = c.product({s.outChannels, inPerGroup, kij});
  w.params = c.add(kernel, s.hasBias ? s.outChannels : 0);
  // The bias add runs on the special-function units.
  w.auxOps = s.hasBias ? double(w.outputElements) : 0;
  w.inputBytes =
      c.product({s.batch, s.inChannels, s.inD, s.inH, s.inW, elementBytes});
  w.weightBytes = c.mul(w.params, elementBytes);
  w.outputBytes = c.mul(w.outputElements, elementBytes);
  w.overflow = c.overflow;
  w.conv = s;
  return w;
}

Workload dsm::core::makeFullyConnectedWorkload(int64_t batch, int64_t rows,
                                               int64_t in, int64_t out,
                                               bool hasBias,
                                               int64_t elementBytes) {
  CheckedCount c;
  Workload w;
  w.kind = OpKind::FullyConnected;
  w.elementBytes = elementBytes;
  setDims(w, in, out, rows, 1, batch);
  w.macs = c.product({batch, rows, in, out});
  w.outputElements = c.product({batch, rows, out});
  w.params = c.add(c.mul(in, out), hasBias ? out : 0);
  w.auxOps = hasBias ? double(w.outputElements) : 0;
  w.inputBytes = c.product({batch, rows, in, elementBytes});
  w.weightBytes = c.mul(w.params, elementBytes);
  w.outputBytes = c.mul(w.outputElements, elementBytes);
  w.overflow = c.overflow;
  return w;
}

Workload dsm::core::makeMatMulWorkload(int64_t batch, int64_t m, int64_t k,
                                       int64_t n, int64_t elementBytes) {
  CheckedCount c;
  Workload w;
  w.kind = OpKind::MatMul;
  w.elementBytes = elementBytes;
  setDims(w, k, n, m, 1, batch);
  w.macs = c.product({batch, m, k, n});
  w.outputElements = c.product({batch, m, n});
  // Both operands are activations: nothing is a parameter.
  w.inputBytes = c.mul(
      c.add(c.product({batch, m, k}), c.product({batch, k, n})), elementBytes);
  w.outputBytes = c.mul(w.outputElements, elementBytes);
  w.overflow = c.overflow;
  return w;
}

Workload dsm::core::makeLstmWorkload(int64_t timesteps, int64_t batch,
                                     int64_t input, int64_t hidden,
                                     int64_t directions, bool hasBias,
                                     int64_t elementBytes) {
  CheckedCount c;
  Workload w;
  w.kind = OpKind::Lstm;
  w.elementBytes = elementBytes;
  w.timesteps = timesteps;
  w.directions = directions;
  int64_t gates = c.mul(4, hidden);
  // Each timestep reads the layer input and its own previous output.
  setDims(w, c.add(input, hidden), gates, 1, 1, batch);
  w.macs =
      c.product({timesteps, batch, directions, gates, c.add(input, hidden)});
  w.outputElements = c.product({timesteps, batch, directions, hidden});
  w.params = c.mul(directions, c.add(c.mul(gates, c.add(input, hidden)),
                                     hasBias ? c.mul(2, gates) : 0));
  // Per unit and step: 3 sigmoids and 2 tanh, 3 products and a sum on the
  // gate pre-activations, plus the bias adds.
  double perUnit = 3 * auxOpsPerElement(OpKind::Sigmoid) +
                   2 * auxOpsPerElement(OpKind::Tanh) + 4 + (hasBias ? 4 : 0);
  w.auxOps = perUnit * double(w.outputElements);
  w.inputBytes = c.product({timesteps, batch, input, elementBytes});
  w.weightBytes = c.mul(w.params, elementBytes);
  w.outputBytes = c.mul(w.outputElements, elementBytes);
  w.overflow = c.overflow;
  return w;
}

Workload dsm::core::makeElementwiseWorkload(OpKind kind, int64_t batch,
                                            int64_t outputElements,
                                            int64_t inputElements,
                                            int64_t params, int64_t statistics,
                                            int64_t elementBytes) {
  CheckedCount c;
  Workload w;
  w.kind = kind;
  w.elementBytes = elementBytes;
  int64_t perSample = batch > 0 ? outputElements / batch : outputElements;
  setDims(w, 1, perSample, 1, 1, batch);
  w.outputElements = outputElements;
  w.auxOps = auxOpsPerElement(kind) * double(outputElements);
  w.params = params;
  w.inputBytes = c.mul(inputElements, elementBytes);
  w.weightBytes = c.mul(c.add(params, statistics), elementBytes);
  w.outputBytes = c.mul(outputElements, elementBytes);
  w.overflow = c.overflow;
  return w;
}

Workload dsm::core::makeWindowedWorkload(OpKind kind, int64_t batch,
                                         int64_t channels,
                                         int64_t outputElements,
                                         int64_t inputElements, int64_t window,
                                         int64_t elementBytes) {
  CheckedCount c;
  Workload w;
  w.kind = kind;
  w.elementBytes = elementBytes;
  w.window = window;
  int64_t perChannel =
      batch > 0 && channels > 0 ? outputElements / (batch * channels) : 1;
  setDims(w, channels, channels, perChannel, window, batch);
  w.outputElements = outputElements;
  w.auxOps = auxOpsPerElement(kind) * double(c.mul(outputElements, window));
  w.inputBytes = c.mul(inputElements, elementBytes);
  w.outputBytes = c.mul(outputElements, elementBytes);
  w.overflow = c.overflow;
  return w;
}
