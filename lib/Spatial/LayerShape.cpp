//===- LayerShape.cpp - A layer as the performance model sees it ----------===//

#include "dsm/Core/Spatial/LayerShape.h"

#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <cmath>

using namespace dsm::core;

llvm::StringRef dsm::core::stringifyTrainingPass(TrainingPass pass) {
  switch (pass) {
  case TrainingPass::FWD:
    return "fwd";
  case TrainingPass::BWD:
    return "bwd";
  case TrainingPass::UPD:
    return "upd";
  }
  llvm_unreachable("unknown TrainingPass");
}

double LayerShape::macs() const {
  double result = double(timesteps) * double(directions);
  for (int64_t d : dims)
    result *= double(d);
  return result;
}

DimSet LayerShape::dimsOf(Operand operand) const {
  switch (operand) {
  case Operand::Input:
    return {Dim::In, Dim::IJ, Dim::MB};
  case Operand::Kernel:
    // A second activation carries the minibatch; a weight does not.
    if (!hasWeights)
      return {Dim::Out, Dim::In, Dim::KIJ, Dim::MB};
    return {Dim::Out, Dim::In, Dim::KIJ};
  case Operand::Output:
    return {Dim::Out, Dim::IJ, Dim::MB};
  }
  llvm_unreachable("unknown Operand");
}

PassRoles dsm::core::getPassRoles(TrainingPass pass) {
  switch (pass) {
  case TrainingPass::FWD:
    return {Operand::Input, Operand::Kernel, Operand::Output};
  case TrainingPass::BWD:
    return {Operand::Output, Operand::Kernel, Operand::Input};
  case TrainingPass::UPD:
    return {Operand::Input, Operand::Output, Operand::Kernel};
  }
  llvm_unreachable("unknown TrainingPass");
}

DimSet dsm::core::reductionDims(const LayerShape &layer, TrainingPass pass) {
  return DimSet::all() - layer.dimsOf(getPassRoles(pass).result);
}

double dsm::core::passMacs(const LayerShape &layer, TrainingPass pass) {
  if (!layer.hasPrimary)
    return 0;
  return layer.macs() *
         (pass == TrainingPass::BWD && !layer.hasWeights ? 2 : 1);
}

LayerShape dsm::core::makeLayerShape(const Workload &w, llvm::StringRef name) {
  LayerShape layer;
  layer.name = name.str();
  layer.kind = w.kind;
  layer.dims = w.dims;
  layer.timesteps = std::max<int64_t>(1, w.timesteps);
  layer.directions = std::max<int64_t>(1, w.directions);
  layer.groups = std::max<int64_t>(1, w.groups);
  layer.hasPrimary = w.isPrimary();
  layer.hasWeights = w.kind != OpKind::MatMul && w.params > 0;
  layer.auxOps = w.auxOps;
  layer.params = double(w.params);
  switch (w.kind) {
  case OpKind::Convolution: {
    // The reduction runs over the channels of one group.
    layer.dims[int(Dim::In)] =
        std::max<int64_t>(1, w.get(Dim::In) / layer.groups);
    int64_t outPixels = std::max<int64_t>(1, w.get(Dim::IJ));
    int64_t inPixels = w.inputBytes / std::max<int64_t>(1, w.elementBytes) /
                       std::max<int64_t>(1, w.get(Dim::In) * w.get(Dim::MB));
    layer.inputPixelRatio =
        double(std::max<int64_t>(1, inPixels)) / double(outPixels);
    break;
  }
  case OpKind::Lstm:
    // Timesteps and directions are carried separately: dims describe one step
    // of one direction.
    layer.writtenOutputFraction = 0.25; // writes H of the 4H gates
    break;
  default:
    break;
  }
  if (!layer.hasPrimary) {
    // Auxiliary-only layers: their elements are the "output"; what they read
    // is charged per output element.
    layer.hasWeights = false;
    double outputs = double(std::max<int64_t>(1, w.outputElements));
    layer.auxInputsPerOutput = double(w.inputBytes) /
                               double(std::max<int64_t>(1, w.elementBytes)) /
                               outputs;
  }
  return layer;
}

double dsm::core::operandElements(const LayerShape &layer, Operand operand,
                                  const DimSizes &s) {
  double e = 1;
  DimSet set = layer.dimsOf(operand);
  for (int d = 0; d < kNumDims; ++d)
    if (set.contains(Dim(d)))
      e *= double(s[d]);
  if (operand == Operand::Input) {
    e *= layer.inputPixelRatio;
    if (layer.groups > 1) {
      // Each output channel reads the input channels of its own group.
      double touched =
          std::ceil(double(s[int(Dim::Out)]) * double(layer.groups) /
                    double(layer.dims[int(Dim::Out)]));
      e *= std::clamp(touched, 1.0, double(layer.groups));
    }
  }
  return e;
}

double AuxiliaryKernelTraffic::bytes(TrainingPass pass,
                                     double elementBytes) const {
  switch (pass) {
  case TrainingPass::FWD:
    return (readElements + writtenElements + 2 * dropoutElements) *
               elementBytes +
           maskBytes;
  case TrainingPass::BWD:
    // A unary kernel's derivative reads its saved tensor and the result's
    // error and writes the input's: three tensors to the forward's two.
    return (readElements + 2 * writtenElements + 2 * dropoutElements) *
               elementBytes +
           maskBytes;
  case TrainingPass::UPD:
    return 0;
  }
  return 0;
}

LayerShapeKey dsm::core::layerShapeKey(const LayerShape &s) {
  // What the layer keeps for its backward pass (saved) leaves its
  // configurations alone: not in the key.
  // Every field's bytes, of fixed width: equal for equal shapes (a double
  // by its bits, as exactly as its hexadecimal form), and cheap to build
  // for every layer of every mapping.
  LayerShapeKey key;
  auto put = [&](const auto &value) {
    key.append(
        llvm::StringRef(reinterpret_cast<const char *>(&value), sizeof(value)));
  };
  put(int(s.kind));
  for (int64_t d : s.dims)
    put(d);
  put(s.inputPixelRatio);
  put(s.groups);
  put(s.timesteps);
  put(s.directions);
  put(s.hasWeights);
  put(s.hasPrimary);
  put(s.reducesStatistics);
  put(s.reducesFeatures);
  for (double v : {s.auxOps, s.auxInputsPerOutput, s.params,
                   s.writtenOutputFraction, s.outputPixelRatio,
                   s.auxKernels.readElements, s.auxKernels.writtenElements,
                   s.auxKernels.dropoutElements, s.auxKernels.maskBytes})
    put(v);
  return key;
}
