//===- LayerFormation.cpp - Grouping graph ops into layers ----------------===//

#include "dsm/Passes/Common/LayerFormation.h"
#include "dsm/Dialect/DsmOps.h"
#include "dsm/Support/LayerName.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

#include <cmath>

using namespace mlir;
using namespace dsm;

/// Values that are neither activations nor parameters: constants.
static bool isConstant(Value value) {
  Operation *def = value.getDefiningOp();
  return def && def->hasTrait<OpTrait::ConstantLike>();
}

static bool isWeight(Value value) { return value.getDefiningOp<WeightOp>(); }

static bool isActivation(Value value) {
  return !isWeight(value) && !isConstant(value);
}

static int64_t elementsOf(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.hasStaticShape() ? type.getNumElements() : 0;
}

/// What each layer keeps for its backward pass (core::SavedActivations), as
/// an autograd framework keeps it, by operation kind: a layer with weights
/// its primary input (for the weights' gradient), a product of two
/// activations both; ReLU, sigmoid, tanh and softmax their output; GELU,
/// normalizations, max pooling and special functions their input; a product
/// or quotient each operand whose partner needs a gradient (a weight, or
/// computed from one: the rotary tables of a Llama need none); with `dropout`,
/// a one-byte mask per element of each residual branch and of the
/// attention's probabilities, whose dropped copy the attention keeps too.
/// A tensor is counted once, by the first layer (in program order) keeping
/// it; the function's inputs are not counted. (docs/performance-model.md,
/// "Activation memory".)
static void countSavedActivations(func::FuncOp func,
                                  std::vector<FormedLayer> &layers,
                                  bool dropout) {
  // The values a gradient reaches: the weights and what is computed from
  // them (the ops are in program order). An op none reaches has no backward
  // work, and keeps nothing.
  llvm::DenseSet<Value> needsGradient;
  for (Operation &op : func.getBody().getOps())
    if (llvm::any_of(op.getOperands(), [&](Value v) {
          return isWeight(v) || needsGradient.contains(v);
        }))
      needsGradient.insert(op.result_begin(), op.result_end());
  llvm::DenseSet<Value> counted;
  for (FormedLayer &layer : layers) {
    core::SavedActivations &saved = layer.shape.saved;
    // Counts `value` into `into` unless some layer counted it already.
    auto keep = [&](Value value, double &into) {
      if (!isActivation(value) || !value.getDefiningOp() ||
          !counted.insert(value).second)
        return false;
      into += double(elementsOf(value));
      return true;
    };
    for (Operation *op : layer.ops) {
      if (op->getNumResults() == 0 || !needsGradient.contains(op->getResult(0)))
        continue;
      auto workloadOp = cast<WorkloadOpInterface>(op);
      core::OpKind kind = workloadOp.getWorkload().kind;
      if (op == layer.primary) {
        keep(op->getOperand(0), saved.inputs);
        if (kind == core::OpKind::MatMul)
          keep(op->getOperand(1), saved.kernels);
        if (kind == core::OpKind::Lstm)
          for (Value result : op->getResults())
            keep(result, saved.outputs);
        continue;
      }
      switch (kind) {
      case core::OpKind::ReLU:
      case core::OpKind::Sigmoid:
      case core::OpKind::Tanh:
      case core::OpKind::Clamp:
      case core::OpKind::HardSigmoid:
        keep(op->getResult(0), saved.outputs);
        break;
      case core::OpKind::Softmax: {
        // Attention's probabilities (read by a product of activations).
        Value probabilities = op->getResult(0);
        bool attention = llvm::any_of(probabilities.getUsers(), [](auto *u) {
          auto user = dyn_cast<WorkloadOpInterface>(u);
          return user && user.getWorkload().kind == core::OpKind::MatMul;
        });
        const bool kept =
            keep(probabilities, attention ? saved.attention : saved.outputs);
        if (attention && dropout && kept) {
          saved.attention += double(elementsOf(probabilities));
          saved.attentionMasks += double(elementsOf(probabilities));
        }
        break;
      }
      case core::OpKind::GELU:
      case core::OpKind::HardSwish:
      case core::OpKind::LayerNorm:
      case core::OpKind::RMSNorm:
      case core::OpKind::BatchNorm:
      case core::OpKind::MaxPool:
      case core::OpKind::Math:
        keep(op->getOperand(0), saved.outputs);
        break;
      case core::OpKind::Elementwise:
        if (!isa<MulOp, DivOp>(op) || op->getNumOperands() != 2)
          break;
        for (unsigned i = 0; i < 2; ++i)
          if (needsGradient.contains(op->getOperand(1 - i)) ||
              isWeight(op->getOperand(1 - i)))
            keep(op->getOperand(i), saved.outputs);
        break;
      case core::OpKind::ResidualAdd: {
        // Dropout on the residual branch: the sum of two whole tensors.
        Value sum = op->getResult(0);
        if (dropout && llvm::all_of(op->getOperands(), [&](Value v) {
              return isActivation(v) && v.getType() == sum.getType();
            }))
          saved.masks += double(elementsOf(sum));
        break;
      }
      default:
        break;
      }
    }
  }
}

/// Whether a kernel of its own ends at `kind`: a normalization or softmax
/// (a reduction over features) or pooling writes its result, where an
/// element-wise computation may hand it on in registers.
static bool endsKernel(core::OpKind kind) {
  switch (kind) {
  case core::OpKind::Softmax:
  case core::OpKind::LayerNorm:
  case core::OpKind::RMSNorm:
  case core::OpKind::BatchNorm:
  case core::OpKind::MaxPool:
  case core::OpKind::AvgPool:
  case core::OpKind::Reduction:
  case core::OpKind::Embedding:
  case core::OpKind::Opaque:
    return true;
  default:
    return false;
  }
}

/// What each layer's fused auxiliary computations move through external
/// memory where each runs as a kernel of its own
/// (core::AuxiliaryKernelTraffic): a kernel reads the activations it does not
/// take in registers from an element-wise computation whose only reader it is,
/// and writes its result unless it hands it on so. Data movement (reshapes,
/// transposes, slices) is a view and moves nothing. An auxiliary-only layer's
/// first computation is the layer's own traffic, which the performance model
/// counts already. With `dropout`, the attention's probabilities go through a
/// dropout kernel of their own, and each dropped element of them and of the
/// residual branches leaves a one-byte mask.
static void countAuxiliaryKernels(std::vector<FormedLayer> &layers,
                                  const DenseMap<Operation *, int> &layerOf,
                                  bool dropout) {
  for (auto [index, layer] : llvm::enumerate(layers)) {
    core::AuxiliaryKernelTraffic &traffic = layer.shape.auxKernels;
    llvm::DenseSet<Value> inRegisters;
    for (auto [position, op] : llvm::enumerate(layer.ops)) {
      if (op == layer.primary || (!layer.primary && position == 0))
        continue;
      core::OpKind kind = cast<WorkloadOpInterface>(op).getWorkload().kind;
      if (core::getComputeClass(kind) == core::ComputeClass::DataMovement)
        continue;
      for (Value operand : op->getOperands())
        if (isActivation(operand) && !inRegisters.contains(operand))
          traffic.readElements += double(elementsOf(operand));
      for (Value result : op->getResults()) {
        Operation *reader =
            result.hasOneUse() ? *result.getUsers().begin() : nullptr;
        auto readerLayer = reader ? layerOf.find(reader) : layerOf.end();
        bool handedOn =
            !endsKernel(kind) && readerLayer != layerOf.end() &&
            readerLayer->second == int(index) && reader != layer.primary &&
            core::getComputeClass(
                cast<WorkloadOpInterface>(reader).getWorkload().kind) !=
                core::ComputeClass::DataMovement;
        if (handedOn)
          inRegisters.insert(result);
        else
          traffic.writtenElements += double(elementsOf(result));
      }
      if (!dropout)
        continue;
      Value result = op->getResult(0);
      if (kind == core::OpKind::Softmax &&
          llvm::any_of(result.getUsers(), [](Operation *user) {
            auto reader = dyn_cast<WorkloadOpInterface>(user);
            return reader && reader.getWorkload().kind == core::OpKind::MatMul;
          })) {
        traffic.dropoutElements += double(elementsOf(result));
        traffic.maskBytes += double(elementsOf(result));
      } else if (kind == core::OpKind::ResidualAdd &&
                 llvm::all_of(op->getOperands(), [&](Value v) {
                   return isActivation(v) && v.getType() == result.getType();
                 })) {
        traffic.maskBytes += double(elementsOf(result));
      }
    }
  }
}

FailureOr<std::vector<FormedLayer>> dsm::formLayers(func::FuncOp func) {
  std::vector<FormedLayer> layers;
  DenseMap<Operation *, int> layerOf;
  DenseMap<Value, int> producerOf; // value -> layer defining it
  llvm::StringMap<unsigned> perKind;
  llvm::StringMap<unsigned> namesUsed; // layer names must be unique
  // Per layer: whether it reads activations (the network's inputs or other
  // layers' results), or is computed from parameters and constants alone.
  std::vector<bool> readsActivations;
  InputDependence inputs(func.getBody());

  for (Operation &op : func.getBody().getOps()) {
    if (isa<WeightOp, func::ReturnOp>(op) ||
        op.hasTrait<OpTrait::ConstantLike>())
      continue;
    auto workloadOp = dyn_cast<WorkloadOpInterface>(op);
    if (!workloadOp)
      return op.emitOpError()
             << "is not a dsm graph operation; import the model into the dsm "
                "dialect before mapping it";
    core::Workload workload = workloadOp.getWorkloadGiven(inputs);
    std::string name =
        getLayerName(&op, perKind[op.getName().getStringRef()]++);

    // A primary computation opens a layer; an auxiliary one joins the latest
    // layer when it reads that layer's results, else opens its own. A layer
    // computed from parameters and constants alone (a position embedding,
    // without a minibatch) takes in no work on other layers' activations:
    // the add that puts it on the batched token embedding is a layer of its
    // own, so that a layer's outputs have the layer's minibatch, which a
    // pipeline's microbatches divide.
    int target = -1;
    if (!workload.isPrimary() && !layers.empty()) {
      int last = int(layers.size()) - 1;
      bool readsOtherLayers = llvm::any_of(op.getOperands(), [&](Value v) {
        return isActivation(v) && producerOf.lookup(v) != last + 1;
      });
      bool joins = readsActivations[last] || !readsOtherLayers;
      for (Value operand : op.getOperands())
        if (joins && isActivation(operand) &&
            producerOf.lookup(operand) == last + 1)
          target = last;
    }
    if (target < 0) {
      FormedLayer layer;
      unsigned seen = namesUsed[name]++;
      layer.name = seen ? name + "#" + std::to_string(seen + 1) : name;
      layer.shape = core::makeLayerShape(workload, layer.name);
      layer.shape.auxInputsPerOutput = 0;
      if (workload.isPrimary())
        layer.primary = &op;
      else
        layer.shape.auxOps = 0; // added below with the other fused work
      layers.push_back(std::move(layer));
      readsActivations.push_back(false);
      target = int(layers.size()) - 1;
    }
    FormedLayer &layer = layers[target];
    core::LayerShape &shape = layer.shape;
    if (&op != layer.primary) {
      shape.auxOps += workload.auxOps;
      if (workload.kind == core::OpKind::BatchNorm)
        shape.reducesStatistics = true;
      if (workload.kind == core::OpKind::Softmax ||
          workload.kind == core::OpKind::LayerNorm ||
          workload.kind == core::OpKind::RMSNorm)
        shape.reducesFeatures = true;
    }
    layer.ops.push_back(&op);
    layerOf[&op] = target;
    readsActivations[target] =
        readsActivations[target] ||
        llvm::any_of(op.getOperands(), [&](Value v) {
          return isActivation(v) && producerOf.lookup(v) != target + 1;
        });

    // Inputs, weights and the activations auxiliary work reads besides the
    // primary input.
    for (auto [index, operand] : llvm::enumerate(op.getOperands())) {
      if (isWeight(operand)) {
        if (!llvm::is_contained(layer.weights, operand))
          layer.weights.push_back(operand);
        continue;
      }
      if (!isActivation(operand) || producerOf.lookup(operand) == target + 1)
        continue;
      if (!llvm::is_contained(layer.inputs, operand))
        layer.inputs.push_back(operand);
      // The primary computation's Input and Kernel (operands 0 and 1; the
      // Kernel is an activation in a product of two activations, attention's
      // scores and context) are fetched as such, not again as auxiliary
      // inputs.
      bool primaryOperand = &op == layer.primary && index < 2;
      bool auxOnlyFirst = !layer.primary && layer.ops.size() == 1;
      if (!primaryOperand && !auxOnlyFirst) {
        double outputs = double(shape.get(core::Dim::Out)) *
                         double(shape.get(core::Dim::IJ)) *
                         double(shape.get(core::Dim::MB)) *
                         double(shape.timesteps * shape.directions);
        shape.auxInputsPerOutput += double(elementsOf(operand)) / outputs;
      }
    }
    if (!layer.primary && layer.ops.size() == 1) {
      // An auxiliary-only layer reads all its inputs per output element.
      double outputs = double(std::max<int64_t>(1, workload.outputElements));
      shape.auxInputsPerOutput =
          double(workload.inputBytes) /
          double(std::max<int64_t>(1, workload.elementBytes)) / outputs;
    }
    for (Value result : op.getResults())
      producerOf[result] = target + 1;
  }

  // Parameters and outputs. A weight read by several layers is each one's
  // (each fetches it and computes its share of the gradient); held once, it
  // is counted once by the workload report and memory placement.
  for (FormedLayer &layer : layers) {
    double params = 0;
    for (Operation *op : layer.ops)
      for (Value param : cast<WorkloadOpInterface>(op).getParameterOperands())
        if (isWeight(param) && !llvm::is_contained(layer.parameters, param)) {
          params += double(elementsOf(param));
          layer.parameters.push_back(param);
        }
    layer.shape.params = params;
    layer.shape.hasWeights =
        layer.primary && layer.shape.kind != core::OpKind::MatMul && params > 0;
    for (Operation *op : layer.ops)
      for (Value result : op->getResults())
        if (llvm::any_of(result.getUsers(), [&](Operation *user) {
              auto it = layerOf.find(user);
              return it == layerOf.end() || &layers[it->second] != &layer;
            }))
          layer.outputs.push_back(result);
    if (layer.outputs.empty())
      return emitError(layer.ops.back()->getLoc())
             << "layer '" << layer.name
             << "' is dead: nothing reads or returns its result, so it has "
                "no place in the step; remove it or return its result";
    // A fused pooling: the layer stores fewer output pixels than its primary
    // computation produces (the pre-pool output stays in the scratchpad); a
    // transposed convolution stores more (each input pixel scatters a
    // patch).
    core::LayerShape &shape = layer.shape;
    if (layer.primary && shape.kind == core::OpKind::Convolution &&
        layer.outputs.size() == 1) {
      double perPixel =
          double(shape.get(core::Dim::Out)) * double(shape.get(core::Dim::MB));
      double pixels = double(elementsOf(layer.outputs.front())) / perPixel;
      if (pixels >= 1 && std::round(pixels) != double(shape.get(core::Dim::IJ)))
        shape.outputPixelRatio =
            std::round(pixels) / double(shape.get(core::Dim::IJ));
    }
  }
  FloatAttr dropout =
      DsmDialect::DropoutAttrHelper(func.getContext()).getAttr(func);
  bool dropsOut = dropout && dropout.getValueAsDouble() > 0;
  countSavedActivations(func, layers, dropsOut);
  countAuxiliaryKernels(layers, layerOf, dropsOut);
  return layers;
}
