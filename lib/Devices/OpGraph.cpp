//===- OpGraph.cpp - Operations to place on devices -----------------------===//

#include "dsm/Core/Devices/OpGraph.h"
#include "dsm/Core/Support/NodeError.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

using namespace dsm::core;
using namespace dsm::core::devices;

namespace {
/// The thesis's costs: FLOPs of the forward, backward (data and weight
/// gradients) and update passes at the workload's minibatch.
Op makeThesisOp(std::string name, const Workload &workload) {
  Op op;
  op.name = std::move(name);
  double macFlops = 2.0 * double(workload.macs);
  op.forwardFlops = macFlops + workload.auxOps;
  switch (workload.getComputeClass()) {
  case ComputeClass::Primary:
    // Data gradient and weight gradient (for a matmul of two activations:
    // the gradients of both operands), each as many MACs as the forward.
    op.backwardFlops = 2.0 * macFlops + workload.auxOps;
    break;
  case ComputeClass::Auxiliary:
    op.backwardFlops = workload.auxOps;
    break;
  case ComputeClass::DataMovement:
    op.backwardFlops = 0;
    break;
  }
  op.updateFlops = 2.0 * double(workload.params);
  op.weightBytes = workload.weightBytes;
  op.outputBytes = workload.outputBytes;
  return op;
}

/// Paleo's GEMM formula for a convolution of `in` [n, h, w, c] padded by
/// (padH, padW) on each side with a [kh, kw, c, o] filter into [n, oh, ow, o]
/// (FlopsProfiler._profile_conv2d_gemm): FLOPs and the three arrays. A data
/// gradient reads a dilated input: `holes` of it are zeros, each input
/// element is moved once more (2 FLOPs per element that is not a hole).
void paleoConvGemm(double n, double h, double w, double c, double padH,
                   double padW, double kh, double kw, double o, double oh,
                   double ow, double holes, double elementBytes, double &flops,
                   llvm::SmallVectorImpl<double> &traffic) {
  flops = 2.0 * kh * kw * c * oh * ow * o * n;
  if (holes > 0)
    flops += 2.0 * n * h * w * c * (1.0 - holes);
  traffic.assign({n * (h + 2 * padH) * (w + 2 * padW) * c * elementBytes,
                  kh * kw * c * o * elementBytes,
                  n * oh * ow * o * elementBytes});
}

/// Paleo's costs (Exprimo's simulator) of `workload` at minibatch `batch`.
Op makePaleoOp(std::string name, const Workload &workload, int64_t batch,
               bool hasProducers) {
  Op op;
  op.name = std::move(name);
  op.weightBytes = workload.weightBytes;
  int64_t mb = std::max<int64_t>(workload.get(Dim::MB), 1);
  if (batch <= 0)
    batch = mb;
  // Every count but the weights is proportional to the minibatch.
  double scale = double(batch) / double(mb);
  int64_t perSample = workload.outputBytes / mb;
  if (llvm::MulOverflow(perSample, batch, op.outputBytes))
    op.outputBytes = std::numeric_limits<int64_t>::max(); // verify() rejects
  double e = double(workload.elementBytes);

  switch (workload.kind) {
  case OpKind::Convolution: {
    if (!workload.conv)
      break;
    const ConvShape &s = *workload.conv;
    double n = double(batch);
    if (s.inD != 1 || s.outD != 1 || s.kernelD != 1 || s.transposed) {
      // Paleo profiles 2D convolutions only: a 3D or transposed one is
      // charged its MACs forward and twice them backward (data and weight
      // gradients), and the bytes it reads and writes.
      double macs = double(workload.macs) * scale;
      op.forwardFlops = 2.0 * macs;
      op.backwardFlops = hasProducers ? 4.0 * macs : 2.0 * macs;
      op.forwardTraffic = {double(workload.inputBytes) * scale,
                           double(workload.weightBytes),
                           double(workload.outputBytes) * scale};
      op.backwardTraffic = op.forwardTraffic;
      break;
    }
    double cg = double(s.groups > 0 ? s.inChannels / s.groups : 0);
    paleoConvGemm(n, double(s.inH), double(s.inW), cg, double(s.padTop),
                  double(s.padLeft), double(s.kernelH), double(s.kernelW),
                  double(s.outChannels), double(s.outH), double(s.outW), 0, e,
                  op.forwardFlops, op.forwardTraffic);
    if (!hasProducers)
      break; // Paleo: no backprop into the network input
    // Conv2d.gradients(wrt='inputs'): the output gradient dilated by the
    // stride, padded as TensorFlow's Conv2DBackpropInput, convolved with the
    // transposed filter.
    auto dilated = [](int64_t out, int64_t stride, int64_t in, int64_t kernel,
                      int64_t pad, int64_t &size, int64_t &padding) {
      size = (out - 1) * stride + 1;
      int64_t before = kernel - 1 - pad;
      int64_t after = in + kernel - 1 - size - before;
      if (std::abs(before - after) == 1)
        ++size;
      padding = std::min(before, after);
    };
    int64_t eh, ew, ph, pw;
    dilated(s.outH, s.strideH, s.inH, s.kernelH, s.padTop, eh, ph);
    dilated(s.outW, s.strideW, s.inW, s.kernelW, s.padLeft, ew, pw);
    double holes = double(eh * ew - s.outH * s.outW) / double(eh * ew);
    double dh = double(eh + 2 * ph - s.kernelH + 1);
    double dw = double(ew + 2 * pw - s.kernelW + 1);
    paleoConvGemm(n, double(eh), double(ew), double(s.outChannels), double(ph),
                  double(pw), double(s.kernelH), double(s.kernelW), cg, dh, dw,
                  holes, e, op.backwardFlops, op.backwardTraffic);
    break;
  }
  case OpKind::FullyConnected: {
    double rows = double(batch) * double(workload.get(Dim::IJ));
    double in = double(workload.get(Dim::In));
    double out = double(workload.get(Dim::Out));
    op.forwardFlops = op.backwardFlops = 2.0 * rows * in * out;
    op.forwardTraffic = {rows * in * e, in * out * e, rows * out * e};
    op.backwardTraffic = {rows * out * e, in * out * e, rows * in * e};
    break;
  }
  case OpKind::MaxPool:
  case OpKind::AvgPool:
  case OpKind::Opaque: {
    // Pooling: 2 FLOPs per window element; dropout (opaque): its auxiliary
    // operations. Both read the input and write the output, forward and back.
    double outputs = double(workload.outputElements) * scale;
    op.forwardFlops = workload.kind == OpKind::Opaque
                          ? workload.auxOps * scale
                          : 2.0 * double(workload.window) * outputs;
    op.backwardFlops = op.forwardFlops;
    op.forwardTraffic = {double(workload.inputBytes) * scale,
                         double(workload.outputBytes) * scale};
    op.backwardTraffic = op.forwardTraffic;
    break;
  }
  default:
    break; // Paleo profiles nothing else (activations, adds, concats...)
  }
  return op;
}
} // namespace

Op devices::makeOpFromWorkload(std::string name, const Workload &workload,
                               const Conventions &conventions,
                               bool hasProducers) {
  if (conventions.paleoOpTimes)
    return makePaleoOp(std::move(name), workload, conventions.batch,
                       hasProducers);
  return makeThesisOp(std::move(name), workload);
}

int32_t OpGraph::addOp(Op op) {
  int32_t id = int32_t(ops.size());
  llvm::SmallVector<int32_t, 2> distinct;
  for (int32_t input : op.inputs) {
    if (llvm::is_contained(distinct, input))
      continue;
    distinct.push_back(input);
    if (input >= 0 && input < id)
      consumers[input].push_back(id);
  }
  ops.push_back(std::move(op));
  distinctInputs.push_back(std::move(distinct));
  consumers.emplace_back();
  return id;
}

llvm::Error OpGraph::verify(int64_t batches) const {
  if (ops.empty())
    return makeNodeError(-1, "the graph has no operations to place");
  if (batches < 1)
    return makeNodeError(-1, "batches must be at least 1, got ", batches);
  int64_t total = 0;
  auto addChecked = [&](int64_t bytes) {
    int64_t scaled;
    if (llvm::MulOverflow(bytes, batches, scaled))
      return false;
    return !llvm::AddOverflow(total, scaled, total);
  };
  for (auto [id, op] : llvm::enumerate(ops)) {
    for (int32_t input : op.inputs)
      if (input < 0 || input >= int32_t(id))
        return makeNodeError(int64_t(id), "'", op.name, "' reads op ", input,
                             ", which is not an earlier op of the graph");
    for (double flops : {op.forwardFlops, op.backwardFlops, op.updateFlops})
      if (!std::isfinite(flops) || flops < 0)
        return makeNodeError(int64_t(id), "'", op.name,
                             "' has an invalid FLOP count ", flops);
    for (double bytes :
         llvm::concat<const double>(op.forwardTraffic, op.backwardTraffic))
      if (!std::isfinite(bytes) || bytes < 0)
        return makeNodeError(int64_t(id), "'", op.name,
                             "' has an invalid memory traffic ", bytes);
    if (op.weightBytes < 0 || op.outputBytes < 0)
      return makeNodeError(int64_t(id), "'", op.name, "' has a negative size");
    // Weights once, and per batch the output, a copy on every other device
    // and a gradient: bounded by four copies.
    int64_t perBatch;
    if (llvm::MulOverflow(op.outputBytes, int64_t(4), perBatch) ||
        !addChecked(perBatch) ||
        llvm::AddOverflow(total, op.weightBytes, total))
      return makeNodeError(int64_t(id), "'", op.name,
                           "' makes the memory of the graph overflow 64 bits");
  }
  return llvm::Error::success();
}
