//===- OnnxConversions.cpp - ONNX operators to dsm operations -------------===//
//
// One function per ONNX operator (or family). Each reads its attributes and
// static operands, checks what the dsm op cannot express, builds the op (its
// result type is inferred) and defines the node's outputs. What a dsm op
// cannot express goes to `unsupported` (strict: error; permissive:
// dsm.opaque); operators without a dsm counterpart (Log, Abs, Cast, ...)
// become dsm.opaque with a documented number of operations per element.
//
//===----------------------------------------------------------------------===//

#include "OnnxConversions.h"
#include "GraphImporter.h"
#include "OnnxOperands.h"
#include "OnnxShapes.h"
#include "OnnxTypes.h"

#include "onnx.pb.h"

#include "dsm/Dialect/DsmOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"

#include <cmath>

using namespace mlir;
using namespace dsm::onnx;
using dsm_onnx::TensorProto;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

RankedTensorType typeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

bool isDsmTensor(Value value) {
  return isDsmElementType(typeOf(value).getElementType());
}

/// Whether dsm's data-movement ops take `value` (integer ids, positions and
/// masks included).
bool isDsmDataTensor(Value value) {
  return isDsmDataElementType(typeOf(value).getElementType());
}

FailureOr<Value> input(GraphImporter &imp, const OnnxNode &node, unsigned i) {
  if (!node.hasInput(i))
    return node.emitError() << "missing input " << i;
  return imp.materialize(node, node.getInput(i));
}

/// Inputs 0 .. count-1, all required.
FailureOr<SmallVector<Value>> inputs(GraphImporter &imp, const OnnxNode &node,
                                     unsigned count) {
  SmallVector<Value> values;
  for (unsigned i = 0; i < count; ++i) {
    FailureOr<Value> value = input(imp, node, i);
    if (failed(value))
      return failure();
    values.push_back(*value);
  }
  return values;
}

LogicalResult defineOutput(GraphImporter &imp, const OnnxNode &node,
                           FailureOr<Value> value, unsigned output = 0) {
  if (failed(value))
    return failure();
  if (node.getOutput(output).empty())
    return success();
  return imp.define(node, node.getOutput(output), *value);
}

NamedAttribute attr(GraphImporter &imp, StringRef name, Attribute value) {
  return imp.getBuilder().getNamedAttr(name, value);
}

Attribute i64Array(GraphImporter &imp, ArrayRef<int64_t> values) {
  return imp.getBuilder().getDenseI64ArrayAttr(values);
}

/// Outputs other than the first that something reads.
bool usesExtraOutputs(GraphImporter &imp, const OnnxNode &node) {
  for (unsigned i = 1; i < node.getNumOutputs(); ++i)
    if (!node.getOutput(i).empty() && imp.getUseCount(node.getOutput(i)) > 0)
      return true;
  return false;
}

/// The type of the NumPy broadcast of all present inputs, with element type
/// `element` (default: the first input's).
FailureOr<RankedTensorType> broadcastType(GraphImporter &imp,
                                          const OnnxNode &node,
                                          Type element = nullptr) {
  SmallVector<int64_t> shape;
  bool first = true;
  for (unsigned i = 0; i < node.getNumInputs(); ++i) {
    if (!node.hasInput(i))
      continue;
    ArrayRef<int64_t> next = imp.get(node.getInput(i)).shape;
    if (first) {
      shape.assign(next.begin(), next.end());
      if (!element)
        element = getElementType(imp.getContext(),
                                 imp.get(node.getInput(i)).dataType);
      first = false;
      continue;
    }
    llvm::Expected<SmallVector<int64_t>> result = broadcastShapes(shape, next);
    if (!result)
      return node.emitError() << llvm::toString(result.takeError());
    shape = *result;
  }
  if (!element)
    return node.emitError() << "has an input of unsupported element type";
  return RankedTensorType::get(shape, element);
}

/// Imports an elementwise node with no dsm counterpart as dsm.opaque.
LogicalResult elementwiseOpaque(GraphImporter &imp, const OnnxNode &node,
                                double opsPerElement, const Twine &why,
                                Type element = nullptr) {
  FailureOr<RankedTensorType> type = broadcastType(imp, node, element);
  if (failed(type))
    return failure();
  return imp.opaque(node, opsPerElement, {*type}, why);
}

/// Kernel/pool window attributes shared by Conv, MaxPool and AveragePool:
/// strides, [begin..., end...] padding (auto_pad resolved; [top, left,
/// bottom, right] in 2-D), dilations.
/// A 1-D window is lifted to 2-D over a unit height (kernel, stride and
/// dilation 1, no padding), as the dsm op computes it.
struct Window {
  SmallVector<int64_t> kernel, strides, padding, dilations;
};

FailureOr<Window> readWindow(GraphImporter &imp, const OnnxNode &node,
                             ArrayRef<int64_t> inHW, ArrayRef<int64_t> kernel) {
  Window w;
  w.kernel.assign(kernel.begin(), kernel.end());
  size_t rank = kernel.size();
  FailureOr<SmallVector<int64_t>> strides =
      node.getInts("strides", SmallVector<int64_t>(rank, 1));
  FailureOr<SmallVector<int64_t>> dilations =
      node.getInts("dilations", SmallVector<int64_t>(rank, 1));
  FailureOr<SmallVector<int64_t>> pads =
      node.getInts("pads", SmallVector<int64_t>(2 * rank, 0));
  FailureOr<std::string> autoPad = node.getString("auto_pad", "NOTSET");
  if (failed(strides) || failed(dilations) || failed(pads) || failed(autoPad))
    return failure();
  if (strides->size() != rank || dilations->size() != rank ||
      pads->size() != 2 * rank || inHW.size() != rank)
    return node.emitError() << "strides, dilations and pads must have " << rank
                            << ", " << rank << " and " << 2 * rank << " values";
  for (int64_t s : *strides)
    if (s <= 0)
      return node.emitError() << "strides must be positive";
  for (int64_t d : *dilations)
    if (d <= 0)
      return node.emitError() << "dilations must be positive";
  w.strides = *strides;
  w.dilations = *dilations;
  w.padding = *pads;
  if (*autoPad == "VALID") {
    w.padding.assign(2 * rank, 0);
  } else if (*autoPad == "SAME_UPPER" || *autoPad == "SAME_LOWER") {
    for (size_t i = 0; i < rank; ++i) {
      int64_t out = (inHW[i] + w.strides[i] - 1) / w.strides[i];
      int64_t effective = (w.kernel[i] - 1) * w.dilations[i] + 1;
      int64_t total =
          std::max<int64_t>(0, (out - 1) * w.strides[i] + effective - inHW[i]);
      int64_t small = total / 2, large = total - small;
      bool upper = *autoPad == "SAME_UPPER";
      w.padding[i] = upper ? small : large;
      w.padding[i + rank] = upper ? large : small;
    }
  } else if (*autoPad != "NOTSET") {
    return node.emitError() << "unknown auto_pad '" << *autoPad << "'";
  }
  if (rank == 1) {
    w.kernel.insert(w.kernel.begin(), 1);
    w.strides.insert(w.strides.begin(), 1);
    w.dilations.insert(w.dilations.begin(), 1);
    w.padding = {0, w.padding[0], 0, w.padding[1]};
  }
  return w;
}

/// [N, C, W] as [N, C, 1, W]: a 1-D window's input for the 2-D dsm op.
FailureOr<Value> liftTo2D(GraphImporter &imp, Location loc, Value x) {
  SmallVector<int64_t> shape(typeOf(x).getShape());
  shape.insert(shape.begin() + 2, 1);
  return imp.reshape(loc, x, shape);
}

/// The 2-D dsm op's [N, C, 1, W] result of a 1-D window as [N, C, W].
FailureOr<Value> lowerTo1D(GraphImporter &imp, Location loc,
                           FailureOr<Value> y) {
  if (failed(y))
    return failure();
  SmallVector<int64_t> shape(typeOf(*y).getShape());
  shape.erase(shape.begin() + 2);
  return imp.reshape(loc, *y, shape);
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

template <typename OpTy>
LogicalResult convertUnary(GraphImporter &imp, const OnnxNode &node) {
  FailureOr<Value> x = input(imp, node, 0);
  if (failed(x))
    return failure();
  if (!isDsmTensor(*x))
    return imp.unsupported(
        node,
        "element type " + getDataTypeName(imp.get(node.getInput(0)).dataType) +
            " is not supported by dsm ops",
        {typeOf(*x)});
  return defineOutput(imp, node, imp.create<OpTy>(node.getLoc(), {*x}));
}

template <typename OpTy>
LogicalResult convertBinary(GraphImporter &imp, const OnnxNode &node) {
  FailureOr<Value> lhs = input(imp, node, 0);
  if (failed(lhs))
    return failure();
  FailureOr<Value> rhs = input(imp, node, 1);
  if (failed(rhs))
    return failure();
  if (!isDsmTensor(*lhs) ||
      typeOf(*lhs).getElementType() != typeOf(*rhs).getElementType())
    // Arithmetic on integer activations (index computations at run time).
    return elementwiseOpaque(imp, node, 1.0,
                             "arithmetic on element types dsm ops do not take");
  return defineOutput(imp, node, imp.create<OpTy>(node.getLoc(), {*lhs, *rhs}));
}

/// The chain of `dsm.add` over `node`'s inputs from left to right, handed to
/// `use` with their element type; inputs of element types dsm ops do not
/// take make the node opaque elementwise work of `opaqueOps` operations per
/// element.
LogicalResult addInputs(GraphImporter &imp, const OnnxNode &node,
                        unsigned opaqueOps,
                        llvm::function_ref<LogicalResult(Value, Type)> use) {
  unsigned count = node.getNumInputs();
  FailureOr<SmallVector<Value>> values = inputs(imp, node, count);
  if (failed(values))
    return failure();
  Type element = typeOf(values->front()).getElementType();
  for (Value value : *values)
    if (!isDsmTensor(value) || typeOf(value).getElementType() != element)
      return elementwiseOpaque(imp, node, opaqueOps,
                               "arithmetic on element types dsm ops do not "
                               "take");
  FailureOr<Value> sum = values->front();
  for (Value value : ArrayRef(*values).drop_front()) {
    sum = imp.create<dsm::AddOp>(node.getLoc(), {*sum, value});
    if (failed(sum))
      return failure();
  }
  return use(*sum, element);
}

/// Sum, a variadic Add: a chain of `dsm.add` from left to right (each
/// broadcasting as Add does, so the chain's shape is the inputs'
/// multidirectional broadcast); a single input is the input itself.
LogicalResult convertSum(GraphImporter &imp, const OnnxNode &node) {
  unsigned count = node.getNumInputs();
  if (count == 1) {
    if (!node.hasInput(0))
      return node.emitError() << "missing input 0";
    imp.setOutcome(dsm::ImportSummary::Outcome::Dropped);
    return imp.defineAlias(node, node.getOutput(0), node.getInput(0));
  }
  return addInputs(imp, node, /*opaqueOps=*/count - 1, [&](Value sum, Type) {
    return defineOutput(imp, node, sum);
  });
}

/// Mean, a variadic average: Sum's chain of `dsm.add`, then a `dsm.mul` by
/// 1/n (n - 1 additions and one multiplication per element); a single input
/// is the input itself.
LogicalResult convertMean(GraphImporter &imp, const OnnxNode &node) {
  unsigned count = node.getNumInputs();
  if (count == 1)
    return convertSum(imp, node);
  return addInputs(imp, node, /*opaqueOps=*/count,
                   [&](Value sum, Type element) {
                     return defineOutput(
                         imp, node,
                         imp.create<dsm::MulOp>(
                             node.getLoc(),
                             {sum, imp.scalarConstant(element, 1.0 / count)}));
                   });
}

/// Operations per element of elementwise operators without a dsm op (the
/// costs of docs/workloads.md: special functions 4, simple arithmetic 1).
double opaqueOpsPerElement(StringRef opType) {
  return llvm::StringSwitch<double>(opType)
      .Cases({"Log", "Sin", "Cos", "Softplus", "Elu", "Selu", "Pow"}, 4.0)
      .Case("Softsign", 2.0)
      .Default(1.0);
}

LogicalResult convertOpaqueElementwise(GraphImporter &imp,
                                       const OnnxNode &node) {
  StringRef op = node.getOpType();
  Type element;
  if (llvm::is_contained({"Equal", "Less", "Greater", "LessOrEqual",
                          "GreaterOrEqual", "Not", "And", "Or", "Xor", "IsNaN",
                          "IsInf"},
                         op))
    element = imp.getBuilder().getI1Type();
  if (op == "Where") {
    if (!node.hasInput(1))
      return node.emitError() << "missing input 1";
    element =
        getElementType(imp.getContext(), imp.get(node.getInput(1)).dataType);
  }
  return elementwiseOpaque(imp, node, opaqueOpsPerElement(op),
                           "no dsm operation computes " + op, element);
}

/// Max and Min of any number of inputs (variadic since opset 8): n - 1
/// comparisons per element of the inputs' broadcast; a single input is the
/// input itself.
LogicalResult convertMaxMin(GraphImporter &imp, const OnnxNode &node) {
  unsigned count = node.getNumInputs();
  if (count == 1)
    return convertSum(imp, node);
  return elementwiseOpaque(imp, node, count - 1,
                           "no dsm operation computes " + node.getOpType());
}

/// Neg: a dsm.mul by -1, as the MLIR front ends import a negation (an affine
/// function).
LogicalResult convertNeg(GraphImporter &imp, const OnnxNode &node) {
  FailureOr<Value> x = input(imp, node, 0);
  if (failed(x))
    return failure();
  if (!isDsmTensor(*x))
    return convertOpaqueElementwise(imp, node);
  Type element = typeOf(*x).getElementType();
  return defineOutput(
      imp, node,
      imp.create<dsm::MulOp>(node.getLoc(),
                             {*x, imp.scalarConstant(element, -1.0)}));
}

LogicalResult convertPow(GraphImporter &imp, const OnnxNode &node) {
  const HostTensor *exponent =
      node.hasInput(1) ? imp.getContents(node.getInput(1)) : nullptr;
  if (exponent && exponent->getNumElements() == 1 &&
      exponent->getRank() <= int64_t(imp.get(node.getInput(0)).shape.size())) {
    double e = exponent->getFloat(0);
    FailureOr<Value> x = input(imp, node, 0);
    if (failed(x))
      return failure();
    if (e == 1.0) {
      imp.setOutcome(dsm::ImportSummary::Outcome::Dropped);
      return imp.defineAlias(node, node.getOutput(0), node.getInput(0));
    }
    if (e == 2.0 && isDsmTensor(*x))
      return defineOutput(imp, node,
                          imp.create<dsm::MulOp>(node.getLoc(), {*x, *x}));
  }
  return convertOpaqueElementwise(imp, node);
}

LogicalResult convertClip(GraphImporter &imp, const OnnxNode &node) {
  double lo = -INFINITY, hi = INFINITY;
  if (imp.getOpset() < 11) {
    FailureOr<double> min = node.getFloat("min", -INFINITY);
    FailureOr<double> max = node.getFloat("max", INFINITY);
    if (failed(min) || failed(max))
      return failure();
    lo = *min, hi = *max;
  } else {
    FailureOr<std::optional<double>> min = getStaticScalar(imp, node, 1, "min");
    FailureOr<std::optional<double>> max = getStaticScalar(imp, node, 2, "max");
    if (failed(min) || failed(max))
      return failure();
    lo = min->value_or(-INFINITY), hi = max->value_or(INFINITY);
  }
  FailureOr<Value> x = input(imp, node, 0);
  if (failed(x))
    return failure();
  if (!isDsmTensor(*x))
    return elementwiseOpaque(imp, node, 1.0, "clip of a non-dsm element type");
  OpBuilder &b = imp.getBuilder();
  return defineOutput(
      imp, node,
      imp.create<dsm::ClampOp>(node.getLoc(), {*x},
                               {attr(imp, "min", b.getF64FloatAttr(lo)),
                                attr(imp, "max", b.getF64FloatAttr(hi))}));
}

LogicalResult convertHardSigmoid(GraphImporter &imp, const OnnxNode &node) {
  FailureOr<double> alpha = node.getFloat("alpha", 0.2);
  FailureOr<double> beta = node.getFloat("beta", 0.5);
  FailureOr<Value> x = input(imp, node, 0);
  if (failed(alpha) || failed(beta) || failed(x))
    return failure();
  if (!isDsmTensor(*x))
    return elementwiseOpaque(imp, node, 2.0, "hard sigmoid of a non-dsm type");
  // dsm.hard_sigmoid is PyTorch's: clamp(x / 6 + 1 / 2, 0, 1).
  if (std::fabs(*alpha - 1.0 / 6.0) < 1e-6 && std::fabs(*beta - 0.5) < 1e-6)
    return defineOutput(imp, node,
                        imp.create<dsm::HardSigmoidOp>(node.getLoc(), {*x}));
  // Otherwise spell it out: clamp(alpha * x + beta, 0, 1).
  Type element = typeOf(*x).getElementType();
  FailureOr<Value> scaled = imp.create<dsm::MulOp>(
      node.getLoc(), {*x, imp.scalarConstant(element, *alpha)});
  if (failed(scaled))
    return failure();
  FailureOr<Value> shifted = imp.create<dsm::AddOp>(
      node.getLoc(), {*scaled, imp.scalarConstant(element, *beta)});
  if (failed(shifted))
    return failure();
  OpBuilder &b = imp.getBuilder();
  return defineOutput(
      imp, node,
      imp.create<dsm::ClampOp>(node.getLoc(), {*shifted},
                               {attr(imp, "min", b.getF64FloatAttr(0.0)),
                                attr(imp, "max", b.getF64FloatAttr(1.0))}));
}

//===----------------------------------------------------------------------===//
// Primary computations
//===----------------------------------------------------------------------===//

/// A dsm convolution's window attributes, each left out at its default.
SmallVector<NamedAttribute> convAttrs(GraphImporter &imp,
                                      ArrayRef<int64_t> strides,
                                      ArrayRef<int64_t> padding,
                                      ArrayRef<int64_t> dilations,
                                      int64_t group) {
  auto all = [](ArrayRef<int64_t> values, int64_t v) {
    return llvm::all_of(values, [&](int64_t x) { return x == v; });
  };
  SmallVector<NamedAttribute> attrs;
  if (!all(strides, 1))
    attrs.push_back(attr(imp, "strides", i64Array(imp, strides)));
  if (!all(padding, 0))
    attrs.push_back(attr(imp, "padding", i64Array(imp, padding)));
  if (!all(dilations, 1))
    attrs.push_back(attr(imp, "dilations", i64Array(imp, dilations)));
  if (group != 1)
    attrs.push_back(
        attr(imp, "groups", imp.getBuilder().getI64IntegerAttr(group)));
  return attrs;
}

/// A convolution's operands: `x`, `w` and the bias input when there is one.
FailureOr<SmallVector<Value>>
withOptionalBias(GraphImporter &imp, const OnnxNode &node, Value x, Value w) {
  SmallVector<Value> operands{x, w};
  if (node.hasInput(2)) {
    FailureOr<Value> bias = input(imp, node, 2);
    if (failed(bias))
      return failure();
    operands.push_back(*bias);
  }
  return operands;
}

LogicalResult convertConv(GraphImporter &imp, const OnnxNode &node) {
  FailureOr<Value> x = input(imp, node, 0);
  if (failed(x))
    return failure();
  // The weight's shape decides how it is declared (read before it is).
  if (!node.hasInput(1) || !imp.isDefined(node.getInput(1)))
    return input(imp, node, 1);
  auto xType = typeOf(*x);
  ArrayRef<int64_t> wShape = imp.get(node.getInput(1)).shape;
  if (xType.getRank() < 3 || xType.getRank() > 5 ||
      int64_t(wShape.size()) != xType.getRank())
    return imp.unsupported(node, "only 1-D, 2-D and 3-D convolutions (rank-3, "
                                 "rank-4 or rank-5 input and weight) are "
                                 "supported");
  bool threeD = xType.getRank() == 5;
  // A 1-D convolution is the 2-D one over a unit height: its weight is
  // declared [O, C / group, 1, K].
  bool oneD = xType.getRank() == 3;
  FailureOr<Value> w;
  if (!oneD) {
    w = input(imp, node, 1);
  } else if (imp.isParameter(node.getInput(1))) {
    w = imp.materializeParameter(node, node.getInput(1),
                                 {wShape[0], wShape[1], 1, wShape[2]},
                                 /*transposed=*/false);
  } else {
    return imp.unsupported(node, "a 1-D convolution's weight must be an "
                                 "initializer");
  }
  if (failed(w))
    return failure();
  FailureOr<int64_t> group = node.getInt("group", 1);
  FailureOr<SmallVector<int64_t>> kernelShape =
      node.getInts("kernel_shape", wShape.drop_front(2));
  if (failed(group) || failed(kernelShape))
    return failure();
  if (ArrayRef<int64_t>(*kernelShape) != wShape.drop_front(2))
    return node.emitError()
           << "kernel_shape " << formatShape(*kernelShape)
           << " does not match the weight " << formatShape(wShape);
  FailureOr<Window> window =
      readWindow(imp, node, xType.getShape().drop_front(2), *kernelShape);
  if (failed(window))
    return failure();
  if (oneD && failed(x = liftTo2D(imp, node.getLoc(), *x)))
    return failure();
  FailureOr<SmallVector<Value>> operands = withOptionalBias(imp, node, *x, *w);
  if (failed(operands))
    return failure();
  SmallVector<NamedAttribute> attrs = convAttrs(
      imp, window->strides, window->padding, window->dilations, *group);
  if (threeD)
    return defineOutput(
        imp, node, imp.create<dsm::Conv3DOp>(node.getLoc(), *operands, attrs));
  FailureOr<Value> y =
      imp.create<dsm::Conv2DOp>(node.getLoc(), *operands, attrs);
  return defineOutput(imp, node, oneD ? lowerTo1D(imp, node.getLoc(), y) : y);
}

/// ConvTranspose (2-D): dsm.conv_transpose2d, whose weight [C, O / group,
/// KH, KW] is ONNX's. Pads are [top, left, bottom, right] as for Conv;
/// SAME_UPPER/SAME_LOWER give an output `stride` times the input.
LogicalResult convertConvTranspose(GraphImporter &imp, const OnnxNode &node) {
  FailureOr<Value> x = input(imp, node, 0);
  FailureOr<Value> w =
      succeeded(x) ? input(imp, node, 1) : FailureOr<Value>(failure());
  if (failed(w))
    return failure();
  auto xType = typeOf(*x);
  ArrayRef<int64_t> wShape = typeOf(*w).getShape();
  if (xType.getRank() != 4 || wShape.size() != 4)
    return imp.unsupported(node, "only 2-D transposed convolutions (rank-4 "
                                 "input and weight) are supported");
  if (node.hasAttr("output_shape"))
    return imp.unsupported(node, "an explicit output_shape is not supported "
                                 "(give pads and output_padding)");
  FailureOr<int64_t> group = node.getInt("group", 1);
  FailureOr<SmallVector<int64_t>> strides =
      node.getInts("strides", ArrayRef<int64_t>{1, 1});
  FailureOr<SmallVector<int64_t>> dilations =
      node.getInts("dilations", ArrayRef<int64_t>{1, 1});
  FailureOr<SmallVector<int64_t>> pads =
      node.getInts("pads", ArrayRef<int64_t>{0, 0, 0, 0});
  FailureOr<SmallVector<int64_t>> outputPadding =
      node.getInts("output_padding", ArrayRef<int64_t>{0, 0});
  FailureOr<std::string> autoPad = node.getString("auto_pad", "NOTSET");
  if (failed(group) || failed(strides) || failed(dilations) || failed(pads) ||
      failed(outputPadding) || failed(autoPad))
    return failure();
  if (strides->size() != 2 || dilations->size() != 2 || pads->size() != 4 ||
      outputPadding->size() != 2)
    return node.emitError() << "strides, dilations, output_padding and pads "
                               "must have 2, 2, 2 and 4 values";
  if (*autoPad == "VALID") {
    pads->assign(4, 0);
  } else if (*autoPad == "SAME_UPPER" || *autoPad == "SAME_LOWER") {
    for (int i = 0; i < 2; ++i) {
      int64_t in = xType.getDimSize(2 + i);
      int64_t total = (*strides)[i] * (in - 1) + (*outputPadding)[i] +
                      ((wShape[2 + i] - 1) * (*dilations)[i] + 1) -
                      in * (*strides)[i];
      total = std::max<int64_t>(total, 0);
      int64_t half = total / 2;
      bool upper = *autoPad == "SAME_UPPER";
      (*pads)[i] = upper ? total - half : half;
      (*pads)[i + 2] = upper ? half : total - half;
    }
  } else if (*autoPad != "NOTSET") {
    return node.emitError() << "unknown auto_pad '" << *autoPad << "'";
  }
  FailureOr<SmallVector<Value>> operands = withOptionalBias(imp, node, *x, *w);
  if (failed(operands))
    return failure();
  SmallVector<NamedAttribute> attrs =
      convAttrs(imp, *strides, *pads, *dilations, *group);
  if (llvm::any_of(*outputPadding, [](int64_t v) { return v != 0; }))
    attrs.push_back(attr(imp, "output_padding", i64Array(imp, *outputPadding)));
  return defineOutput(
      imp, node,
      imp.create<dsm::ConvTranspose2DOp>(node.getLoc(), *operands, attrs));
}

/// dsm.fully_connected of `x` by `weight` ([out, in]). A following bias Add
/// is taken over by the graph fusions (dsm/Import/GraphFusion.h).
LogicalResult buildFullyConnected(GraphImporter &imp, const OnnxNode &node,
                                  Value x, Value weight) {
  return defineOutput(
      imp, node, imp.create<dsm::FullyConnectedOp>(node.getLoc(), {x, weight}));
}

/// If `value` is `transpose(weight, [1, 0])` of a declared weight, the weight.
Value transposedWeight(Value value) {
  auto transpose = value.getDefiningOp<dsm::TransposeOp>();
  if (!transpose || transpose.getPermutation() != ArrayRef<int64_t>{1, 0})
    return nullptr;
  if (!transpose.getInput().getDefiningOp<dsm::WeightOp>())
    return nullptr;
  return transpose.getInput();
}

LogicalResult convertMatMul(GraphImporter &imp, const OnnxNode &node) {
  FailureOr<Value> a = input(imp, node, 0);
  if (failed(a))
    return failure();
  // Present: importNode checks the inputs getRequiredInputCount names.
  StringRef bName = node.getInput(1);
  auto aType = typeOf(*a);
  ArrayRef<int64_t> bShape = imp.get(bName).shape;
  auto resultType = [&]() -> Type {
    if (aType.getRank() < 1 || bShape.empty())
      return nullptr;
    SmallVector<int64_t> shape(aType.getShape().drop_back());
    if (bShape.size() >= 2)
      shape.push_back(bShape.back());
    return RankedTensorType::get(shape, aType.getElementType());
  };

  // By a weight matrix: a fully connected layer. ONNX stores it [in, out];
  // dsm declares it [out, in].
  if (imp.isParameter(bName) && bShape.size() == 2) {
    if (aType.getRank() < 2)
      return imp.unsupported(node,
                             "a fully connected layer needs a rank >= 2 "
                             "input ([batch, ..., in])",
                             {resultType()});
    FailureOr<Value> weight =
        imp.materializeParameter(node, bName, bShape, /*transposed=*/true);
    if (failed(weight))
      return failure();
    return buildFullyConnected(imp, node, *a, *weight);
  }
  FailureOr<Value> b = input(imp, node, 1);
  if (failed(b))
    return failure();
  if (Value weight = transposedWeight(*b); weight && aType.getRank() >= 2)
    return buildFullyConnected(imp, node, *a, weight);

  // Two activations (attention).
  auto bType = typeOf(*b);
  if (aType.getRank() < 2 || aType.getRank() != bType.getRank() ||
      aType.getShape().drop_back(2) != bType.getShape().drop_back(2))
    return imp.unsupported(node,
                           "dsm.matmul needs operands of equal rank >= 2 with "
                           "equal batch dimensions, got " +
                               formatShape(aType.getShape()) + " and " +
                               formatShape(bType.getShape()),
                           {resultType()});
  // rhs = transpose(src, P) where P moves src's last dimension to the
  // contraction position (K^T in attention): rhs is transpose(src, Q)
  // transposed, with Q = P with its last two entries swapped, so multiply by
  // transpose(src, Q) (often no transpose at all) with transpose_rhs.
  Value rhs = *b;
  bool transposeRhs = false;
  auto transpose = b->getDefiningOp<dsm::TransposeOp>();
  int64_t r = bType.getRank();
  if (transpose && imp.getUseCount(bName) == 1 &&
      transpose.getPermutation()[r - 2] == r - 1) {
    SmallVector<int64_t> q(transpose.getPermutation());
    std::swap(q[r - 1], q[r - 2]);
    FailureOr<Value> source =
        imp.transpose(transpose.getLoc(), transpose.getInput(), q);
    if (failed(source))
      return failure();
    rhs = *source;
    transposeRhs = true;
  }
  SmallVector<NamedAttribute> attrs;
  if (transposeRhs)
    attrs.push_back(attr(imp, "transpose_rhs", imp.getBuilder().getUnitAttr()));
  return defineOutput(
      imp, node, imp.create<dsm::MatMulOp>(node.getLoc(), {*a, rhs}, attrs));
}

LogicalResult convertGemm(GraphImporter &imp, const OnnxNode &node) {
  FailureOr<double> alpha = node.getFloat("alpha", 1.0);
  FailureOr<double> beta = node.getFloat("beta", 1.0);
  FailureOr<int64_t> transA = node.getInt("transA", 0);
  FailureOr<int64_t> transB = node.getInt("transB", 0);
  if (failed(alpha) || failed(beta) || failed(transA) || failed(transB))
    return failure();
  FailureOr<Value> a = input(imp, node, 0);
  if (failed(a))
    return failure();
  // Present: importNode checks the inputs getRequiredInputCount names.
  StringRef bName = node.getInput(1);
  ArrayRef<int64_t> bShape = imp.get(bName).shape;
  if (typeOf(*a).getRank() != 2 || bShape.size() != 2)
    return node.emitError() << "A and B must be matrices";
  Location loc = node.getLoc();
  if (*transA) {
    a = imp.transpose(loc, *a, {1, 0});
    if (failed(a))
      return failure();
  }
  Value product;
  int64_t features = *transB ? bShape[0] : bShape[1];
  // The bias: C of [N] with beta 1 becomes the layer's bias.
  bool cIsBias = false;
  if (node.hasInput(2) && *beta == 1.0 && imp.isParameter(node.getInput(2))) {
    ArrayRef<int64_t> cShape = imp.get(node.getInput(2)).shape;
    cIsBias = cShape.size() == 1 && cShape[0] == features;
  }
  if (imp.isParameter(bName)) {
    FailureOr<Value> weight =
        imp.materializeParameter(node, bName, bShape, /*transposed=*/!*transB);
    if (failed(weight))
      return failure();
    SmallVector<Value> operands{*a, *weight};
    if (cIsBias) {
      FailureOr<Value> bias = input(imp, node, 2);
      if (failed(bias))
        return failure();
      operands.push_back(*bias);
    }
    FailureOr<Value> fc = imp.create<dsm::FullyConnectedOp>(loc, operands);
    if (failed(fc))
      return failure();
    product = *fc;
  } else {
    FailureOr<Value> b = input(imp, node, 1);
    if (failed(b))
      return failure();
    SmallVector<NamedAttribute> attrs;
    if (*transB)
      attrs.push_back(
          attr(imp, "transpose_rhs", imp.getBuilder().getUnitAttr()));
    FailureOr<Value> mm = imp.create<dsm::MatMulOp>(loc, {*a, *b}, attrs);
    if (failed(mm))
      return failure();
    product = *mm;
    cIsBias = false;
  }
  Type element = typeOf(product).getElementType();
  if (*alpha != 1.0) {
    FailureOr<Value> scaled = imp.create<dsm::MulOp>(
        loc, {product, imp.scalarConstant(element, *alpha)});
    if (failed(scaled))
      return failure();
    product = *scaled;
  }
  if (node.hasInput(2) && !cIsBias && *beta != 0.0) {
    FailureOr<Value> c = input(imp, node, 2);
    if (failed(c))
      return failure();
    Value addend = *c;
    if (*beta != 1.0) {
      FailureOr<Value> scaled = imp.create<dsm::MulOp>(
          loc, {addend, imp.scalarConstant(element, *beta)});
      if (failed(scaled))
        return failure();
      addend = *scaled;
    }
    FailureOr<Value> sum = imp.create<dsm::AddOp>(loc, {product, addend});
    if (failed(sum))
      return failure();
    product = *sum;
  }
  return defineOutput(imp, node, product);
}

LogicalResult convertLstm(GraphImporter &imp, const OnnxNode &node) {
  FailureOr<std::string> direction = node.getString("direction", "forward");
  FailureOr<int64_t> layout = node.getInt("layout", 0);
  FailureOr<int64_t> inputForget = node.getInt("input_forget", 0);
  FailureOr<SmallVector<std::string>> activations =
      node.getStrings("activations", ArrayRef<std::string>());
  if (failed(direction) || failed(layout) || failed(inputForget) ||
      failed(activations))
    return failure();
  if (*direction != "forward" && *direction != "reverse" &&
      *direction != "bidirectional")
    return node.emitError() << "unknown direction '" << *direction << "'";
  int64_t directions = *direction == "bidirectional" ? 2 : 1;
  if (*layout != 0)
    return imp.unsupported(node,
                           "batch-major LSTM (layout = 1) is not supported");
  if (*inputForget != 0)
    return imp.unsupported(node,
                           "coupled input-forget gates are not supported");
  if (!activations->empty()) {
    for (size_t i = 0; i < activations->size(); ++i) {
      StringRef expected = i % 3 == 0 ? "Sigmoid" : "Tanh";
      if ((*activations)[i] != expected)
        return imp.unsupported(node, "only the default activations (Sigmoid, "
                                     "Tanh, Tanh) are supported");
    }
  }
  if (node.hasInput(7))
    return imp.unsupported(node, "peephole connections are not supported");

  SmallVector<Value> operands;
  for (unsigned i = 0; i < 4; ++i) {
    if (i == 3 && !node.hasInput(3))
      break;
    FailureOr<Value> value = input(imp, node, i);
    if (failed(value))
      return failure();
    operands.push_back(*value);
  }
  int64_t hidden = typeOf(operands[2]).getRank() == 3
                       ? typeOf(operands[2]).getDimSize(2)
                       : -1;
  FailureOr<int64_t> hiddenSize = node.getInt("hidden_size", hidden);
  if (failed(hiddenSize))
    return failure();
  if (*hiddenSize != hidden)
    return node.emitError() << "hidden_size " << *hiddenSize
                            << " does not match the recurrence weights "
                            << formatShape(typeOf(operands[2]).getShape());
  SmallVector<NamedAttribute> attrs;
  if (directions == 2)
    attrs.push_back(attr(imp, "bidirectional", imp.getBuilder().getUnitAttr()));
  Location loc = node.getLoc();
  FailureOr<Value> lstm = imp.create<dsm::LstmOp>(loc, operands, attrs);
  if (failed(lstm))
    return failure();
  if (*direction == "reverse")
    lstm->getDefiningOp()->setAttr("onnx.direction",
                                   imp.getBuilder().getStringAttr("reverse"));
  // dsm.lstm gives [T, N, D * H]; ONNX's Y is [T, D, N, H].
  ArrayRef<int64_t> shape = typeOf(*lstm).getShape();
  int64_t t = shape[0], n = shape[1];
  if (!node.getOutput(0).empty() && imp.getUseCount(node.getOutput(0)) > 0) {
    FailureOr<Value> y =
        directions == 1 ? imp.reshape(loc, *lstm, {t, 1, n, hidden})
                        : imp.reshape(loc, *lstm, {t, n, directions, hidden});
    if (succeeded(y) && directions == 2)
      y = imp.transpose(loc, *y, {0, 2, 1, 3});
    if (failed(defineOutput(imp, node, y)))
      return failure();
  }
  // Y_h [D, N, H]: the output of the last step of each direction.
  if (node.getNumOutputs() > 1 && !node.getOutput(1).empty() &&
      imp.getUseCount(node.getOutput(1)) > 0) {
    SmallVector<Value> finals;
    for (int64_t d = 0; d < directions; ++d) {
      bool backward = d == 1 || *direction == "reverse";
      int64_t step = backward ? 0 : t - 1;
      FailureOr<Value> last = imp.create<dsm::SliceOp>(
          loc, {*lstm},
          {attr(imp, "offsets", i64Array(imp, {step, 0, d * hidden})),
           attr(imp, "sizes",
                i64Array(imp, {1, -1, d + 1 == directions ? -1 : hidden}))});
      if (failed(last))
        return failure();
      finals.push_back(*last);
    }
    FailureOr<Value> yh = finals.front();
    if (directions == 2)
      yh = imp.create<dsm::ConcatOp>(
          loc, finals,
          {attr(imp, "axis", imp.getBuilder().getI64IntegerAttr(0))});
    if (failed(defineOutput(imp, node, yh, 1)))
      return failure();
  }
  // Y_c [D, N, H]: the final cell state is computed inside dsm.lstm but is
  // not one of its results; it is read out opaquely (no extra work).
  if (node.getNumOutputs() > 2 && !node.getOutput(2).empty() &&
      imp.getUseCount(node.getOutput(2)) > 0) {
    auto type = RankedTensorType::get({directions, n, hidden},
                                      typeOf(*lstm).getElementType());
    Value yc = imp.createOpaque(node, {*lstm}, type, 0.0,
                                "final cell state Y_c (computed by dsm.lstm)");
    if (failed(defineOutput(imp, node, yc, 2)))
      return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling and normalization
//===----------------------------------------------------------------------===//

template <typename OpTy>
LogicalResult convertPool(GraphImporter &imp, const OnnxNode &node) {
  FailureOr<Value> x = input(imp, node, 0);
  if (failed(x))
    return failure();
  int64_t rank = typeOf(*x).getRank();
  if (rank < 3 || rank > 5)
    return imp.unsupported(node, "only 1-D, 2-D and 3-D pooling (rank-3 to "
                                 "rank-5 input) is supported");
  if (usesExtraOutputs(imp, node))
    return imp.unsupported(node, "pooling indices are not supported");
  FailureOr<SmallVector<int64_t>> kernel = node.getInts("kernel_shape");
  FailureOr<int64_t> ceilMode = node.getInt("ceil_mode", 0);
  if (failed(kernel) || failed(ceilMode))
    return failure();
  if (int64_t(kernel->size()) != rank - 2)
    return node.emitError()
           << "kernel_shape must have " << rank - 2 << " values";
  FailureOr<Window> window =
      readWindow(imp, node, typeOf(*x).getShape().drop_front(2), *kernel);
  if (failed(window))
    return failure();
  // A 1-D pool is the 2-D one over a unit height.
  bool oneD = rank == 3;
  if (oneD && failed(x = liftTo2D(imp, node.getLoc(), *x)))
    return failure();
  size_t dims = window->kernel.size();
  if (llvm::any_of(window->dilations, [](int64_t d) { return d != 1; }))
    return imp.unsupported(node, "dilated pooling is not supported");
  for (size_t i = 0; i < 2 * dims; ++i)
    if (window->padding[i] * 2 > window->kernel[i % dims])
      return imp.unsupported(node, "padding " + formatShape(window->padding) +
                                       " exceeds half the kernel " +
                                       formatShape(window->kernel));
  // The op's default strides and padding are the 2-D ones: a 3-D window
  // always states its own.
  SmallVector<NamedAttribute> attrs{
      attr(imp, "kernel", i64Array(imp, window->kernel))};
  if (dims == 3 || window->strides != SmallVector<int64_t>{1, 1})
    attrs.push_back(attr(imp, "strides", i64Array(imp, window->strides)));
  if (dims == 3 || window->padding != SmallVector<int64_t>{0, 0, 0, 0})
    attrs.push_back(attr(imp, "padding", i64Array(imp, window->padding)));
  if (*ceilMode)
    attrs.push_back(attr(imp, "ceil_mode", imp.getBuilder().getUnitAttr()));
  FailureOr<Value> y = imp.create<OpTy>(node.getLoc(), {*x}, attrs);
  return defineOutput(imp, node, oneD ? lowerTo1D(imp, node.getLoc(), y) : y);
}

FailureOr<Value> buildReduce(GraphImporter &imp, Location loc, Value x,
                             dsm::ReduceKind kind, ArrayRef<int64_t> axes,
                             bool keepDims) {
  SmallVector<NamedAttribute> attrs{
      attr(imp, "kind", dsm::ReduceKindAttr::get(imp.getContext(), kind)),
      attr(imp, "axes", i64Array(imp, axes))};
  if (keepDims)
    attrs.push_back(attr(imp, "keep_dims", imp.getBuilder().getUnitAttr()));
  return imp.create<dsm::ReduceOp>(loc, {x}, attrs);
}

LogicalResult convertGlobalPool(GraphImporter &imp, const OnnxNode &node) {
  FailureOr<Value> x = input(imp, node, 0);
  if (failed(x))
    return failure();
  int64_t rank = typeOf(*x).getRank();
  if (rank < 3)
    return node.emitError() << "input must have rank >= 3";
  bool average = node.getOpType() == "GlobalAveragePool";
  if (average && rank == 4)
    return defineOutput(imp, node,
                        imp.create<dsm::GlobalAvgPoolOp>(node.getLoc(), {*x}));
  SmallVector<int64_t> axes;
  for (int64_t d = 2; d < rank; ++d)
    axes.push_back(d);
  return defineOutput(
      imp, node,
      buildReduce(imp, node.getLoc(), *x,
                  average ? dsm::ReduceKind::Mean : dsm::ReduceKind::Max, axes,
                  /*keepDims=*/true));
}

LogicalResult convertBatchNorm(GraphImporter &imp, const OnnxNode &node) {
  FailureOr<double> epsilon = node.getFloat("epsilon", 1e-5);
  FailureOr<int64_t> training = node.getInt("training_mode", 0);
  FailureOr<int64_t> spatial = node.getInt("spatial", 1);
  if (failed(epsilon) || failed(training) || failed(spatial))
    return failure();
  if (*training || usesExtraOutputs(imp, node))
    return imp.unsupported(node, "training-mode batch normalization is not "
                                 "supported");
  if (!*spatial)
    return imp.unsupported(node, "non-spatial batch normalization is not "
                                 "supported");
  FailureOr<SmallVector<Value>> operands = inputs(imp, node, 5);
  if (failed(operands))
    return failure();
  SmallVector<NamedAttribute> attrs;
  if (*epsilon != 1e-5)
    attrs.push_back(
        attr(imp, "epsilon", imp.getBuilder().getF64FloatAttr(*epsilon)));
  return defineOutput(
      imp, node, imp.create<dsm::BatchNormOp>(node.getLoc(), *operands, attrs));
}

LogicalResult convertLayerNorm(GraphImporter &imp, const OnnxNode &node) {
  FailureOr<double> epsilon = node.getFloat("epsilon", 1e-5);
  FailureOr<int64_t> axis = node.getInt("axis", -1);
  if (failed(epsilon) || failed(axis))
    return failure();
  if (usesExtraOutputs(imp, node))
    return imp.unsupported(node, "the mean and inverse standard deviation "
                                 "outputs are not supported");
  if (!node.hasInput(2))
    return imp.unsupported(node, "layer normalization without an offset (B) "
                                 "is not supported");
  FailureOr<SmallVector<Value>> operands = inputs(imp, node, 3);
  if (failed(operands))
    return failure();
  SmallVector<NamedAttribute> attrs{
      attr(imp, "epsilon", imp.getBuilder().getF64FloatAttr(*epsilon))};
  if (*axis != -1)
    attrs.push_back(
        attr(imp, "axis", imp.getBuilder().getI64IntegerAttr(*axis)));
  return defineOutput(
      imp, node, imp.create<dsm::LayerNormOp>(node.getLoc(), *operands, attrs));
}

LogicalResult convertSoftmax(GraphImporter &imp, const OnnxNode &node) {
  bool modern = imp.getOpset() >= 13;
  FailureOr<int64_t> axisAttr = node.getInt("axis", modern ? -1 : 1);
  FailureOr<Value> x = input(imp, node, 0);
  if (failed(axisAttr) || failed(x))
    return failure();
  int64_t rank = typeOf(*x).getRank();
  std::optional<int64_t> axis = normalizeAxis(*axisAttr, rank);
  if (!axis)
    return node.emitError() << "axis " << *axisAttr << " is out of range";
  // Before opset 13 Softmax normalizes over all dimensions from `axis` on.
  if (!modern && *axis != rank - 1)
    return imp.unsupported(node,
                           "opset < 13 Softmax over several dimensions "
                           "is not supported",
                           {typeOf(*x)});
  if (!isDsmTensor(*x))
    return imp.unsupported(node, "softmax of a non-dsm element type",
                           {typeOf(*x)});
  SmallVector<NamedAttribute> attrs;
  if (*axis != rank - 1)
    attrs.push_back(
        attr(imp, "axis", imp.getBuilder().getI64IntegerAttr(*axis)));
  return defineOutput(imp, node,
                      imp.create<dsm::SoftmaxOp>(node.getLoc(), {*x}, attrs));
}

LogicalResult convertReduce(GraphImporter &imp, const OnnxNode &node) {
  StringRef op = node.getOpType();
  dsm::ReduceKind kind = llvm::StringSwitch<dsm::ReduceKind>(op)
                             .Case("ReduceSum", dsm::ReduceKind::Sum)
                             .Case("ReduceMax", dsm::ReduceKind::Max)
                             .Case("ReduceMin", dsm::ReduceKind::Min)
                             .Default(dsm::ReduceKind::Mean);
  auto axes = getIntsOperand(imp, node, 1, "axes", op == "ReduceSum" ? 13 : 18);
  FailureOr<int64_t> keepDims = node.getInt("keepdims", 1);
  FailureOr<int64_t> noopEmpty = node.getInt("noop_with_empty_axes", 0);
  FailureOr<Value> x = input(imp, node, 0);
  if (failed(axes) || failed(keepDims) || failed(noopEmpty) || failed(x))
    return failure();
  SmallVector<int64_t> list = axes->value_or(SmallVector<int64_t>());
  if (list.empty()) {
    if (*noopEmpty) {
      imp.setOutcome(dsm::ImportSummary::Outcome::Dropped);
      return imp.defineAlias(node, node.getOutput(0), node.getInput(0));
    }
    for (int64_t d = 0; d < typeOf(*x).getRank(); ++d)
      list.push_back(d);
  }
  return defineOutput(
      imp, node, buildReduce(imp, node.getLoc(), *x, kind, list, *keepDims));
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

/// Reshape-like nodes: the static result shape is computed by the caller.
LogicalResult defineReshape(GraphImporter &imp, const OnnxNode &node,
                            ArrayRef<int64_t> shape) {
  FailureOr<Value> x = input(imp, node, 0);
  if (failed(x))
    return failure();
  if (!isDsmDataTensor(*x))
    return imp.opaque(
        node, 0.0, {RankedTensorType::get(shape, typeOf(*x).getElementType())},
        "reshape of an element type dsm ops do not take");
  return defineOutput(imp, node, imp.reshape(node.getLoc(), *x, shape));
}

LogicalResult convertReshape(GraphImporter &imp, const OnnxNode &node) {
  FailureOr<SmallVector<int64_t>> requested =
      getStaticInts(imp, node, 1, "shape");
  FailureOr<int64_t> allowZero = node.getInt("allowzero", 0);
  if (failed(requested) || failed(allowZero))
    return failure();
  if (!node.hasInput(0))
    return node.emitError() << "missing input 0";
  llvm::Expected<SmallVector<int64_t>> shape = inferReshape(
      imp.get(node.getInput(0)).shape, *requested, *allowZero != 0);
  if (!shape)
    return node.emitError() << llvm::toString(shape.takeError());
  return defineReshape(imp, node, *shape);
}

LogicalResult convertFlatten(GraphImporter &imp, const OnnxNode &node) {
  FailureOr<int64_t> axis = node.getInt("axis", 1);
  if (failed(axis) || !node.hasInput(0))
    return failure();
  llvm::Expected<SmallVector<int64_t>> shape =
      flattenShape(imp.get(node.getInput(0)).shape, *axis);
  if (!shape)
    return node.emitError() << llvm::toString(shape.takeError());
  return defineReshape(imp, node, *shape);
}

LogicalResult convertSqueeze(GraphImporter &imp, const OnnxNode &node) {
  auto axes = getIntsOperand(imp, node, 1, "axes", 13);
  if (failed(axes) || !node.hasInput(0))
    return failure();
  ArrayRef<int64_t> in = imp.get(node.getInput(0)).shape;
  bool squeeze = node.getOpType() == "Squeeze";
  if (!squeeze && !*axes)
    return node.emitError() << "missing axes";
  llvm::Expected<SmallVector<int64_t>> shape =
      squeeze ? squeezeShape(in, axes->value_or(SmallVector<int64_t>()))
              : unsqueezeShape(in, **axes);
  if (!shape)
    return node.emitError() << llvm::toString(shape.takeError());
  return defineReshape(imp, node, *shape);
}

LogicalResult convertTranspose(GraphImporter &imp, const OnnxNode &node) {
  FailureOr<Value> x = input(imp, node, 0);
  if (failed(x))
    return failure();
  int64_t rank = typeOf(*x).getRank();
  SmallVector<int64_t> reversed;
  for (int64_t i = rank - 1; i >= 0; --i)
    reversed.push_back(i);
  FailureOr<SmallVector<int64_t>> perm =
      node.getInts("perm", ArrayRef(reversed));
  if (failed(perm))
    return failure();
  SmallVector<int64_t> shape;
  SmallVector<bool> seen(rank, false);
  if (int64_t(perm->size()) != rank)
    return node.emitError()
           << "perm " << formatShape(*perm) << " does not match rank " << rank;
  for (int64_t p : *perm) {
    if (p < 0 || p >= rank || seen[p])
      return node.emitError()
             << "perm " << formatShape(*perm) << " is not a permutation";
    seen[p] = true;
    shape.push_back(typeOf(*x).getDimSize(p));
  }
  if (!isDsmDataTensor(*x))
    return imp.opaque(
        node, 0.0, {RankedTensorType::get(shape, typeOf(*x).getElementType())},
        "transpose of an element type dsm ops do not take");
  return defineOutput(imp, node, imp.transpose(node.getLoc(), *x, *perm));
}

LogicalResult convertConcat(GraphImporter &imp, const OnnxNode &node) {
  FailureOr<int64_t> axisAttr = node.getInt("axis");
  if (failed(axisAttr))
    return failure();
  SmallVector<Value> operands;
  for (unsigned i = 0; i < node.getNumInputs(); ++i) {
    if (!node.hasInput(i))
      continue;
    // Empty tensors contribute nothing.
    if (getNumElements(imp.get(node.getInput(i)).shape) == 0)
      continue;
    FailureOr<Value> value = input(imp, node, i);
    if (failed(value))
      return failure();
    operands.push_back(*value);
  }
  if (operands.empty())
    return node.emitError() << "has no non-empty input";
  int64_t rank = typeOf(operands[0]).getRank();
  std::optional<int64_t> axis = normalizeAxis(*axisAttr, rank);
  if (!axis)
    return node.emitError() << "axis " << *axisAttr << " is out of range";
  if (operands.size() == 1) {
    imp.setOutcome(dsm::ImportSummary::Outcome::Dropped);
    return defineOutput(imp, node, operands[0]);
  }
  if (!llvm::all_of(operands, isDsmDataTensor) ||
      llvm::any_of(operands, [&](Value v) {
        return typeOf(v).getElementType() !=
               typeOf(operands[0]).getElementType();
      })) {
    SmallVector<int64_t> shape(typeOf(operands[0]).getShape());
    shape[*axis] = 0;
    for (Value v : operands)
      shape[*axis] += typeOf(v).getDimSize(*axis);
    return imp.opaque(
        node, 0.0,
        {RankedTensorType::get(shape, typeOf(operands[0]).getElementType())},
        "concatenation of an element type dsm ops do not take");
  }
  return defineOutput(
      imp, node,
      imp.create<dsm::ConcatOp>(
          node.getLoc(), operands,
          {attr(imp, "axis", imp.getBuilder().getI64IntegerAttr(*axis))}));
}

/// dsm.slice of `x` taking `ranges` (unit steps): -1 sizes for slices that
/// run to the end keep it re-batchable; no op when nothing is cut.
FailureOr<Value> buildSlice(GraphImporter &imp, Location loc, Value x,
                            ArrayRef<SliceRange> ranges) {
  ArrayRef<int64_t> shape = typeOf(x).getShape();
  SmallVector<int64_t> offsets, sizes;
  bool whole = true;
  for (auto [dim, range] : llvm::zip(shape, ranges)) {
    offsets.push_back(range.start);
    sizes.push_back(range.start + range.count == dim ? -1 : range.count);
    whole &= range.start == 0 && range.count == dim;
  }
  if (whole)
    return x;
  return imp.create<dsm::SliceOp>(loc, {x},
                                  {attr(imp, "offsets", i64Array(imp, offsets)),
                                   attr(imp, "sizes", i64Array(imp, sizes))});
}

LogicalResult convertSlice(GraphImporter &imp, const OnnxNode &node) {
  FailureOr<SliceOperands> bounds = getSliceOperands(imp, node);
  if (failed(bounds))
    return failure();
  auto &[starts, ends, axes, steps] = *bounds;
  FailureOr<Value> x = input(imp, node, 0);
  if (failed(x))
    return failure();
  llvm::Expected<SmallVector<SliceRange>> ranges =
      resolveSlice(typeOf(*x).getShape(), starts, ends, axes, steps);
  if (!ranges)
    return node.emitError() << llvm::toString(ranges.takeError());
  SmallVector<int64_t> shape;
  bool unitSteps = true;
  for (const SliceRange &r : *ranges) {
    shape.push_back(r.count);
    unitSteps &= r.step == 1 || r.count <= 1;
    if (r.count == 0)
      return imp.unsupported(node, "the slice is empty");
  }
  auto resultType = RankedTensorType::get(shape, typeOf(*x).getElementType());
  if (!unitSteps || !isDsmDataTensor(*x))
    return imp.opaque(node, 0.0, {resultType},
                      unitSteps ? "slice of an element type dsm ops do not take"
                                : "strided or reversed slice");
  return defineOutput(imp, node, buildSlice(imp, node.getLoc(), *x, *ranges));
}

LogicalResult convertSplit(GraphImporter &imp, const OnnxNode &node) {
  FailureOr<int64_t> axisAttr = node.getInt("axis", 0);
  FailureOr<Value> x = input(imp, node, 0);
  if (failed(axisAttr) || failed(x))
    return failure();
  ArrayRef<int64_t> shape = typeOf(*x).getShape();
  std::optional<int64_t> axis = normalizeAxis(*axisAttr, shape.size());
  if (!axis)
    return node.emitError() << "axis " << *axisAttr << " is out of range";
  auto split = getIntsOperand(imp, node, 1, "split", 13);
  if (failed(split))
    return failure();
  int64_t outputs = node.getNumOutputs();
  SmallVector<int64_t> sizes;
  if (*split) {
    sizes = **split;
  } else {
    int64_t dim = shape[*axis];
    int64_t chunk = (dim + outputs - 1) / std::max<int64_t>(outputs, 1);
    if (imp.getOpset() < 18 && dim % outputs != 0)
      return node.emitError()
             << "cannot split " << dim << " into " << outputs << " equal parts";
    for (int64_t start = 0; start < dim; start += chunk)
      sizes.push_back(std::min(chunk, dim - start));
  }
  int64_t total = 0;
  for (int64_t s : sizes)
    total += s;
  if (int64_t(sizes.size()) != outputs || total != shape[*axis])
    return node.emitError()
           << "split sizes " << formatShape(sizes)
           << " do not divide dimension " << *axis << " (" << shape[*axis]
           << ") into " << outputs << " outputs";
  if (!isDsmDataTensor(*x))
    return imp.unsupported(node, "split of a non-dsm element type");
  int64_t start = 0;
  for (int64_t i = 0; i < outputs; ++i) {
    SmallVector<SliceRange> ranges;
    for (int64_t d = 0; d < int64_t(shape.size()); ++d)
      ranges.push_back(d == *axis ? SliceRange{start, 1, sizes[i]}
                                  : SliceRange{0, 1, shape[d]});
    start += sizes[i];
    if (node.getOutput(i).empty() || sizes[i] == 0)
      continue;
    if (failed(defineOutput(imp, node,
                            buildSlice(imp, node.getLoc(), *x, ranges), i)))
      return failure();
  }
  return success();
}

LogicalResult convertGather(GraphImporter &imp, const OnnxNode &node) {
  // Present: importNode checks the inputs getRequiredInputCount names.
  FailureOr<int64_t> axisAttr = node.getInt("axis", 0);
  if (failed(axisAttr))
    return failure();
  StringRef dataName = node.getInput(0), indicesName = node.getInput(1);
  ArrayRef<int64_t> dataShape = imp.get(dataName).shape;
  ArrayRef<int64_t> indicesShape = imp.get(indicesName).shape;
  std::optional<int64_t> axis = normalizeAxis(*axisAttr, dataShape.size());
  if (!axis)
    return node.emitError() << "axis " << *axisAttr << " is out of range";
  if (isFloatDataType(imp.get(indicesName).dataType))
    return node.emitError() << "indices must be integers";
  SmallVector<int64_t> resultShape(dataShape.take_front(*axis));
  llvm::append_range(resultShape, indicesShape);
  llvm::append_range(resultShape, dataShape.drop_front(*axis + 1));

  // Rows of a parameter table: an embedding lookup.
  if (imp.isParameter(dataName)) {
    if (*axis != 0 || dataShape.size() != 2)
      return imp.unsupported(node, "only row lookups (axis 0) in a 2-D table "
                                   "are supported");
    FailureOr<Value> indices = input(imp, node, 1);
    FailureOr<Value> table = input(imp, node, 0);
    if (failed(indices) || failed(table))
      return failure();
    return defineOutput(
        imp, node,
        imp.create<dsm::EmbeddingOp>(node.getLoc(), {*indices, *table}));
  }
  FailureOr<Value> data = input(imp, node, 0);
  if (failed(data))
    return failure();
  auto resultType =
      RankedTensorType::get(resultShape, typeOf(*data).getElementType());
  // Static indices that select one position or a contiguous run: a slice.
  const HostTensor *indices = imp.getContents(indicesName);
  if (indices && indices->getRank() <= 1 && indices->getNumElements() > 0 &&
      isDsmDataTensor(*data)) {
    int64_t extent = dataShape[*axis];
    SmallVector<int64_t> positions;
    for (int64_t i = 0; i < indices->getNumElements(); ++i) {
      int64_t p = indices->getInt(i);
      if (p < 0)
        p += extent;
      if (p < 0 || p >= extent)
        return node.emitError()
               << "index " << indices->getInt(i)
               << " is out of range for a dimension of " << extent;
      positions.push_back(p);
    }
    bool contiguous = true;
    for (size_t i = 1; i < positions.size(); ++i)
      contiguous &= positions[i] == positions[i - 1] + 1;
    if (contiguous) {
      SmallVector<SliceRange> ranges;
      for (int64_t d = 0; d < int64_t(dataShape.size()); ++d)
        ranges.push_back(d == *axis ? SliceRange{positions.front(), 1,
                                                 int64_t(positions.size())}
                                    : SliceRange{0, 1, dataShape[d]});
      FailureOr<Value> slice = buildSlice(imp, node.getLoc(), *data, ranges);
      if (failed(slice))
        return failure();
      return defineOutput(imp, node,
                          imp.reshape(node.getLoc(), *slice, resultShape));
    }
  }
  return imp.opaque(node, 0.0, {resultType}, "gather of activations");
}

LogicalResult convertExpand(GraphImporter &imp, const OnnxNode &node) {
  FailureOr<SmallVector<int64_t>> target = getStaticInts(imp, node, 1, "shape");
  FailureOr<Value> x = input(imp, node, 0);
  if (failed(target) || failed(x))
    return failure();
  llvm::Expected<SmallVector<int64_t>> shape =
      broadcastShapes(typeOf(*x).getShape(), *target);
  if (!shape)
    return node.emitError() << llvm::toString(shape.takeError());
  if (ArrayRef<int64_t>(*shape) == typeOf(*x).getShape()) {
    imp.setOutcome(dsm::ImportSummary::Outcome::Dropped);
    return imp.defineAlias(node, node.getOutput(0), node.getInput(0));
  }
  return imp.opaque(
      node, 0.0, {RankedTensorType::get(*shape, typeOf(*x).getElementType())},
      "broadcast copy");
}

/// Resize has no dsm operation: a dsm.opaque of the output shape (static
/// `sizes`, or the input times static `scales` rounded down, over `axes`),
/// charged per output element with the input elements it interpolates:
/// nearest 0 (a copy), linear 2^k, cubic 4^k over the k resized axes.
LogicalResult convertResize(GraphImporter &imp, const OnnxNode &node) {
  FailureOr<Value> x = input(imp, node, 0);
  FailureOr<std::string> mode = node.getString("mode", "nearest");
  FailureOr<std::string> policy =
      node.getString("keep_aspect_ratio_policy", "stretch");
  if (failed(x) || failed(mode) || failed(policy))
    return failure();
  RankedTensorType type = typeOf(*x);
  int64_t rank = type.getRank();
  auto all = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  FailureOr<SmallVector<int64_t>> axes = node.getInts("axes", all);
  if (failed(axes))
    return failure();
  for (int64_t &axis : *axes) {
    if (axis < -rank || axis >= rank)
      return node.emitError()
             << "axis " << axis << " is out of range for rank " << rank;
    axis = axis < 0 ? axis + rank : axis;
  }
  double taps;
  if (*mode == "nearest")
    taps = 1;
  else if (*mode == "linear")
    taps = 2;
  else if (*mode == "cubic")
    taps = 4;
  else
    return node.emitError() << "unknown mode '" << *mode << "'";
  if (*policy != "stretch")
    return imp.unsupported(node, "keep_aspect_ratio_policy '" + *policy +
                                     "' is not supported");
  // Opset 10: (X, scales); from 11: (X, roi, scales, sizes), either of the
  // last two possibly empty.
  unsigned scalesIndex = imp.getOpset() < 11 ? 1 : 2, sizesIndex = 3;
  auto present = [&](unsigned index) {
    if (!node.hasInput(index))
      return false;
    const HostTensor *contents = imp.getContents(node.getInput(index));
    return !contents || contents->getNumElements() > 0;
  };
  SmallVector<int64_t> shape(type.getShape());
  if (present(sizesIndex)) {
    FailureOr<SmallVector<int64_t>> sizes =
        getStaticInts(imp, node, sizesIndex, "sizes");
    if (failed(sizes))
      return failure();
    if (sizes->size() != axes->size())
      return node.emitError() << "sizes has " << sizes->size() << " values for "
                              << axes->size() << " axes";
    for (auto [axis, size] : llvm::zip_equal(*axes, *sizes))
      shape[axis] = size;
  } else if (present(scalesIndex)) {
    const HostTensor *scales = imp.getContents(node.getInput(scalesIndex));
    if (!scales || !scales->isFloat())
      return node.emitError() << "its scales ('" << node.getInput(scalesIndex)
                              << "') must be statically known floats";
    if (scales->getNumElements() != int64_t(axes->size()))
      return node.emitError() << "scales has " << scales->getNumElements()
                              << " values for " << axes->size() << " axes";
    for (auto [i, axis] : llvm::enumerate(*axes)) {
      double scale = scales->getFloat(int64_t(i));
      double size = std::floor(double(shape[axis]) * scale);
      // Checked before the cast: a huge, negative or NaN scale is an error,
      // not an out-of-range conversion.
      if (!(size >= 0 && size < 0x1p62))
        return node.emitError()
               << "scale " << scale << " for axis " << axis << " of "
               << formatShape(type.getShape()) << " gives no size in [0, 2^62)";
      shape[axis] = int64_t(size);
    }
  } else {
    return node.emitError() << "needs static scales or sizes";
  }
  for (int64_t size : shape)
    if (size <= 0)
      return node.emitError() << "resizes " << formatShape(type.getShape())
                              << " to " << formatShape(shape);
  double ops = 0;
  if (taps > 1) {
    ops = 1;
    for (int64_t axis : *axes)
      if (shape[axis] != type.getDimSize(axis))
        ops *= taps;
  }
  return imp.opaque(node, ops,
                    {RankedTensorType::get(shape, type.getElementType())},
                    "resize (" + *mode + ")");
}

//===----------------------------------------------------------------------===//
// No-ops
//===----------------------------------------------------------------------===//

LogicalResult convertIdentity(GraphImporter &imp, const OnnxNode &node) {
  if (node.getOpType() == "Dropout") {
    if (usesExtraOutputs(imp, node))
      return imp.unsupported(node, "the dropout mask is not supported");
    if (imp.getOpset() >= 12 && node.hasInput(2)) {
      const HostTensor *training = imp.getContents(node.getInput(2));
      if (!training || training->getInt(0) != 0)
        return imp.unsupported(node, "training-mode dropout is not supported");
    }
  }
  if (!node.hasInput(0))
    return node.emitError() << "missing input 0";
  imp.setOutcome(dsm::ImportSummary::Outcome::Dropped);
  return imp.defineAlias(node, node.getOutput(0), node.getInput(0));
}

LogicalResult convertCast(GraphImporter &imp, const OnnxNode &node) {
  FailureOr<int64_t> to = node.getInt("to");
  if (failed(to) || !node.hasInput(0))
    return failure();
  Type element = getElementType(imp.getContext(), *to);
  if (!element)
    return node.emitError() << "cannot cast to " << getDataTypeName(*to);
  if (imp.get(node.getInput(0)).dataType == *to) {
    imp.setOutcome(dsm::ImportSummary::Outcome::Dropped);
    return imp.defineAlias(node, node.getOutput(0), node.getInput(0));
  }
  return elementwiseOpaque(imp, node, 1.0, "element type conversion", element);
}

LogicalResult convertDynamic(GraphImporter &imp, const OnnxNode &node) {
  return imp.unsupported(node, "its result shape depends on values that are "
                               "not statically known");
}

const llvm::StringMap<ConversionFn> &conversionTable() {
  static const llvm::StringMap<ConversionFn> table = {
      // Primary computations.
      {"Conv", convertConv},
      {"ConvTranspose", convertConvTranspose},
      {"Gemm", convertGemm},
      {"MatMul", convertMatMul},
      {"LSTM", convertLstm},
      // Elementwise.
      {"Add", convertBinary<dsm::AddOp>},
      {"Sum", convertSum},
      {"Sub", convertBinary<dsm::SubOp>},
      {"Mul", convertBinary<dsm::MulOp>},
      {"Div", convertBinary<dsm::DivOp>},
      {"Relu", convertUnary<dsm::ReluOp>},
      {"Sigmoid", convertUnary<dsm::SigmoidOp>},
      {"Tanh", convertUnary<dsm::TanhOp>},
      {"Gelu", convertUnary<dsm::GeluOp>},
      {"HardSwish", convertUnary<dsm::HardSwishOp>},
      {"HardSigmoid", convertHardSigmoid},
      {"Clip", convertClip},
      {"Pow", convertPow},
      // The pieces composite functions are spelled with (--dsm-fuse-graph
      // recognises the composites).
      {"Erf", convertUnary<dsm::ErfOp>},
      {"Sqrt", convertUnary<dsm::SqrtOp>},
      {"Exp", convertUnary<dsm::ExpOp>},
      // A negation is a dsm.mul by -1.
      {"Neg", convertNeg},
      // Elementwise without a dsm op: dsm.opaque.
      {"Log", convertOpaqueElementwise},
      {"Reciprocal", convertOpaqueElementwise},
      {"Abs", convertOpaqueElementwise},
      {"Floor", convertOpaqueElementwise},
      {"Ceil", convertOpaqueElementwise},
      {"Sin", convertOpaqueElementwise},
      {"Cos", convertOpaqueElementwise},
      {"Softplus", convertOpaqueElementwise},
      {"Softsign", convertOpaqueElementwise},
      {"Elu", convertOpaqueElementwise},
      {"Selu", convertOpaqueElementwise},
      {"LeakyRelu", convertOpaqueElementwise},
      {"PRelu", convertOpaqueElementwise},
      {"Min", convertMaxMin},
      {"Max", convertMaxMin},
      {"Mean", convertMean},
      {"Equal", convertOpaqueElementwise},
      {"Less", convertOpaqueElementwise},
      {"Greater", convertOpaqueElementwise},
      {"LessOrEqual", convertOpaqueElementwise},
      {"GreaterOrEqual", convertOpaqueElementwise},
      {"Not", convertOpaqueElementwise},
      {"And", convertOpaqueElementwise},
      {"Or", convertOpaqueElementwise},
      {"Where", convertOpaqueElementwise},
      // A triangle of activations (a constant one folds): a select per
      // element.
      {"Trilu", convertOpaqueElementwise},
      {"Cast", convertCast},
      // Pooling, normalization, reductions.
      {"MaxPool", convertPool<dsm::MaxPoolOp>},
      {"AveragePool", convertPool<dsm::AvgPoolOp>},
      {"GlobalAveragePool", convertGlobalPool},
      {"GlobalMaxPool", convertGlobalPool},
      {"BatchNormalization", convertBatchNorm},
      {"LayerNormalization", convertLayerNorm},
      {"Softmax", convertSoftmax},
      {"ReduceMean", convertReduce},
      {"ReduceSum", convertReduce},
      {"ReduceMax", convertReduce},
      {"ReduceMin", convertReduce},
      // Data movement.
      {"Reshape", convertReshape},
      {"Flatten", convertFlatten},
      {"Squeeze", convertSqueeze},
      {"Unsqueeze", convertSqueeze},
      {"Transpose", convertTranspose},
      {"Concat", convertConcat},
      {"Slice", convertSlice},
      {"Split", convertSplit},
      {"Gather", convertGather},
      {"Expand", convertExpand},
      {"Resize", convertResize},
      // No-ops.
      {"Identity", convertIdentity},
      {"Dropout", convertIdentity},
      // Folded when their inputs are static; otherwise shapes are dynamic.
      {"Shape", convertDynamic},
      {"Size", convertDynamic},
      {"Constant", convertDynamic},
      {"ConstantOfShape", convertDynamic},
      {"Range", convertDynamic},
  };
  return table;
}

} // namespace

ConversionFn dsm::onnx::lookupConversion(StringRef opType) {
  return conversionTable().lookup(opType);
}

unsigned dsm::onnx::getRequiredInputCount(StringRef opType, int64_t opset,
                                          unsigned numInputs) {
  if (llvm::is_contained({"Concat", "Sum", "Min", "Max", "Mean"}, opType))
    return std::max(numInputs, 1u);
  return llvm::StringSwitch<unsigned>(opType)
      .Case("BatchNormalization", 5)
      .Cases({"LSTM", "Where", "Range"}, 3)
      .Case("Slice", opset >= 10 ? 3 : 1)
      .Case("Unsqueeze", opset >= 13 ? 2 : 1)
      .Cases({"Conv",
              "ConvTranspose",
              "Gemm",
              "MatMul",
              "Add",
              "Sub",
              "Mul",
              "Div",
              "Pow",
              "Mod",
              "Equal",
              "Less",
              "Greater",
              "LessOrEqual",
              "GreaterOrEqual",
              "And",
              "Or",
              "Xor",
              "PRelu",
              "LayerNormalization",
              "Reshape",
              "Gather",
              "Expand"},
             2)
      .Case("Constant", 0)
      .Default(lookupConversion(opType) ? 1 : 0);
}
