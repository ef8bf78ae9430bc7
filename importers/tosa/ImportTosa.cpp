//===- ImportTosa.cpp - --dsm-import-tosa ---------------------------------===//
//
// Imports TOSA as MLIR 22 spells it (zero points as operands, acc_type,
// !tosa.shape operands) into the dsm dialect. TOSA ops map mostly one to one;
// elementwise chains (GELU written with tosa.erf, hard swish from clamp and
// multiply, batch normalization decomposed) are composed and classified by
// the shared importer.
//
//===----------------------------------------------------------------------===//

#include "dsm/Import/Importer.h"
#include "dsm/Import/Passes.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Matchers.h"

#include <limits>

namespace dsm {
#define GEN_PASS_DEF_DSMIMPORTTOSA
#include "dsm/Import/Passes.h.inc"
} // namespace dsm

using namespace mlir;
using namespace dsm;
using core::ScalarOpcode;

/// The values of a !tosa.shape constant.
static std::optional<SmallVector<int64_t>> constShape(Value value) {
  Attribute attr;
  if (!value || !matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  auto elements = dyn_cast<DenseIntElementsAttr>(attr);
  if (!elements)
    return std::nullopt;
  SmallVector<int64_t> values;
  for (const APInt &v : elements.getValues<APInt>())
    values.push_back(v.getSExtValue());
  return values;
}

static bool hasUnitShape(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.hasStaticShape() && type.getNumElements() == 1;
}

/// [top, bottom, left, right] (TOSA) as [top, left, bottom, right] (dsm).
static SmallVector<int64_t> dsmPadding(ArrayRef<int64_t> pad) {
  return {pad[0], pad[2], pad[1], pad[3]};
}

namespace {
class TosaImporter : public Importer {
public:
  using Importer::Importer;

protected:
  FailureOr<bool> handle(Operation *op) override;
  bool isLazy(Operation *op) override;
  FailureOr<Value> materialize(OpResult result) override;
  Value getViewSource(Operation *op) override;
  std::optional<ElementwiseView> getElementwise(Operation *op) override;
  std::optional<SmallVector<ViewOperand>>
  retarget(const ElementwiseView &producer, const ElementwiseView &consumer,
           unsigned index) override;
  bool isFullSize(const ElementwiseView &view, unsigned index) override;
  SmallVector<int64_t> getAlignedShape(const ElementwiseView &view,
                                       unsigned index) override;
  FailureOr<Value> getViewOperand(const ElementwiseView &view, unsigned index,
                                  Type elementType, StringRef role) override;
  std::optional<ReduceView> getReduce(Operation *op) override;
  SmallVector<Value> getOpaqueInputs(Operation *op) override;
  double estimateOpsPerElement(Operation *op) override;

private:
  FailureOr<bool> importConvolution(Operation *op, Value input, Value weight,
                                    Value bias, ArrayRef<int64_t> pad,
                                    ArrayRef<int64_t> stride,
                                    ArrayRef<int64_t> dilation, bool depthwise);
  /// Why a convolution reading `weight` and `bias` cannot be imported: both
  /// must be constants (a zero bias aside).
  std::optional<StringRef> checkConvParameters(Value weight, Value bias) {
    if (!getConstantRoot(weight))
      return StringRef("the weight is not a constant");
    if (!isZero(bias) && !getConstantRoot(bias))
      return StringRef("the bias is not a constant");
    return std::nullopt;
  }
  /// The convolution's weight declared with `kernelShape`, and its bias:
  /// TOSA convolutions always have one, a zero one is no bias (null).
  FailureOr<std::pair<Value, Value>>
  declareConvParameters(Value weight, ArrayRef<int64_t> kernelShape, Value bias,
                        int64_t outChannels, Type elementType) {
    FailureOr<Value> declared =
        getWeight(weight, kernelShape, elementType, "weight");
    if (failed(declared))
      return failure();
    if (isZero(bias))
      return std::make_pair(*declared, Value());
    FailureOr<Value> declaredBias =
        getWeight(bias, {outChannels}, elementType, "bias");
    if (failed(declaredBias))
      return failure();
    return std::make_pair(*declared, *declaredBias);
  }
  bool isZero(Value bias) {
    std::optional<double> splat = getSplatValue(bias);
    return splat && *splat == 0;
  }
  /// tosa.transpose_conv2d (NHWC, weight [O, KH, KW, C], out_pad [top,
  /// bottom, left, right]): dsm.conv_transpose2d, whose padding is the
  /// negated out_pad and whose output_padding is a positive bottom/right.
  FailureOr<bool> importTransposeConv(tosa::TransposeConv2DOp op);
  FailureOr<bool> importPool(Operation *op, Value input,
                             ArrayRef<int64_t> kernel, ArrayRef<int64_t> stride,
                             ArrayRef<int64_t> pad, bool max);
  FailureOr<bool> importMatMul(tosa::MatMulOp op);
  FailureOr<bool> importGather(tosa::GatherOp op);
  /// The activation feeding a convolution with a zero tosa.pad folded into
  /// `padding` ([top, left, bottom, right]).
  Value foldPad(Value input, SmallVector<int64_t> &padding, double neutral);
};
} // namespace

//===----------------------------------------------------------------------===//
// Lazy producers
//===----------------------------------------------------------------------===//

bool TosaImporter::isLazy(Operation *op) {
  if (op->hasTrait<OpTrait::ConstantLike>() ||
      isa<tosa::ReshapeOp, tosa::TransposeOp, tosa::SliceOp, tosa::PadOp,
          tosa::IdentityOp, tosa::CastOp, tosa::RescaleOp, tosa::ConcatOp,
          tosa::TileOp, tosa::ReverseOp>(op))
    return true;
  // Computed from constants only.
  return isConstantExpression(op);
}

Value TosaImporter::getViewSource(Operation *op) {
  if (isa<tosa::ReshapeOp, tosa::TransposeOp, tosa::IdentityOp, tosa::CastOp>(
          op))
    return op->getOperand(0);
  return nullptr;
}

FailureOr<Value> TosaImporter::materialize(OpResult result) {
  Operation *op = result.getOwner();
  Location loc = op->getLoc();
  if (op->hasTrait<OpTrait::ConstantLike>())
    return materializeConstant(result);
  if (isConstantExpression(op))
    return materializeConstantExpression(result);
  // Integer data (a mask, positions) cast to a float: converted, 1
  // operation per element.
  if (isa<tosa::CastOp>(op) && isIntegerData(op->getOperand(0)) &&
      isa_and_present<FloatType>(getDsmElementType(result.getType()))) {
    FailureOr<Value> input = getActivation(op->getOperand(0));
    if (failed(input))
      return failure();
    setOutcome(op, Outcome::Opaque, "dsm.opaque");
    return convertIntegerData(op, *input, getDsmElementType(result.getType()));
  }
  // Pass-through: dsm keeps the producer's element type.
  if (isa<tosa::IdentityOp, tosa::CastOp, tosa::RescaleOp>(op)) {
    setOutcome(op, Outcome::Dropped, "pass-through");
    return getActivation(op->getOperand(0));
  }
  FailureOr<Value> input = getActivation(op->getOperand(0));
  if (failed(input))
    return failure();
  auto inType = cast<RankedTensorType>(input->getType());
  if (auto reshapeOp = dyn_cast<tosa::ReshapeOp>(op)) {
    std::optional<SmallVector<int64_t>> shape =
        constShape(reshapeOp.getShape());
    if (!shape)
      return keepDataMovement(result, {*input}, "reshape to a computed shape");
    int64_t known = 1;
    for (int64_t d : *shape)
      if (d >= 0)
        known *= d;
    for (int64_t &d : *shape)
      if (d < 0)
        d = known ? inType.getNumElements() / known : 0;
    setImported(op, ReshapeOp::getOperationName());
    return reshape(loc, *input, *shape);
  }
  if (auto transposeOp = dyn_cast<tosa::TransposeOp>(op)) {
    SmallVector<int64_t> permutation(transposeOp.getPerms().begin(),
                                     transposeOp.getPerms().end());
    setImported(op, TransposeOp::getOperationName());
    return transpose(loc, *input, permutation);
  }
  if (auto slice = dyn_cast<tosa::SliceOp>(op)) {
    std::optional<SmallVector<int64_t>> start = constShape(slice.getStart());
    std::optional<SmallVector<int64_t>> size = constShape(slice.getSize());
    if (!start || !size)
      return keepDataMovement(result, {*input}, "slice with computed bounds");
    for (auto [d, s] : llvm::enumerate(*size)) {
      if (s < 0)
        s = inType.getDimSize(d) - (*start)[d];
      // A slice over the whole batch stays re-batchable.
      if (d == 0 && (*start)[d] == 0 && s == inType.getDimSize(0))
        s = -1;
    }
    FailureOr<SliceOp> sliced = create<SliceOp>(
        loc, result.getType(), *input, builder.getDenseI64ArrayAttr(*start),
        builder.getDenseI64ArrayAttr(*size));
    if (failed(sliced))
      return failure();
    setImported(op, SliceOp::getOperationName());
    return sliced->getResult();
  }
  if (auto concat = dyn_cast<tosa::ConcatOp>(op)) {
    FailureOr<SmallVector<Value>> inputs = getActivations(concat.getInput1());
    if (failed(inputs))
      return failure();
    FailureOr<ConcatOp> joined =
        create<ConcatOp>(loc, result.getType(), *inputs,
                         builder.getI64IntegerAttr(concat.getAxis()));
    if (failed(joined))
      return failure();
    setImported(op, ConcatOp::getOperationName());
    return joined->getResult();
  }
  if (isa<tosa::PadOp>(op))
    return keepDataMovement(result, {*input},
                            "padding not folded into a convolution or pooling");
  return keepDataMovement(result, {*input},
                          "data movement without a dsm counterpart");
}

//===----------------------------------------------------------------------===//
// Elementwise views
//===----------------------------------------------------------------------===//

std::optional<ElementwiseView> TosaImporter::getElementwise(Operation *op) {
  if (op->getNumResults() != 1 ||
      !isa<RankedTensorType>(op->getResult(0).getType()) ||
      !isa_and_nonnull<tosa::TosaDialect>(op->getDialect()))
    return std::nullopt;
  ElementwiseView view;
  view.op = op;
  core::ScalarFunction &f = view.function;
  auto input = [&](Value value) {
    view.operands.push_back({value, AffineMap()});
    return f.input(view.operands.size() - 1);
  };
  using O = ScalarOpcode;
  auto binary = [&](O opcode) {
    int a = input(op->getOperand(0)), b = input(op->getOperand(1));
    f.setResult(f.operation(opcode, {a, b}));
  };
  auto unary = [&](O opcode) {
    f.setResult(f.operation(opcode, {input(op->getOperand(0))},
                            op->getName().getStringRef()));
  };
  if (isa<tosa::AddOp>(op))
    binary(O::Add);
  else if (isa<tosa::SubOp>(op))
    binary(O::Sub);
  else if (isa<tosa::MulOp>(op))
    binary(O::Mul); // the shift only applies to i32
  else if (isa<tosa::IntDivOp>(op))
    binary(O::Div);
  else if (isa<tosa::MaximumOp>(op))
    binary(O::Max);
  else if (isa<tosa::MinimumOp>(op))
    binary(O::Min);
  else if (isa<tosa::PowOp>(op))
    binary(O::Pow);
  else if (isa<tosa::GreaterOp>(op))
    binary(O::CmpGT);
  else if (isa<tosa::GreaterEqualOp>(op))
    binary(O::CmpGE);
  else if (isa<tosa::EqualOp>(op))
    binary(O::CmpEQ);
  else if (isa<tosa::AbsOp>(op))
    unary(O::Abs);
  else if (isa<tosa::ExpOp>(op))
    unary(O::Exp);
  else if (isa<tosa::LogOp>(op))
    unary(O::Log);
  else if (isa<tosa::NegateOp>(op))
    unary(O::Neg);
  else if (isa<tosa::ReciprocalOp>(op))
    unary(O::Reciprocal);
  else if (isa<tosa::RsqrtOp>(op))
    unary(O::Rsqrt);
  else if (isa<tosa::SigmoidOp>(op))
    unary(O::Sigmoid);
  else if (isa<tosa::TanhOp>(op))
    unary(O::Tanh);
  else if (isa<tosa::ErfOp>(op))
    unary(O::Erf);
  else if (isa<tosa::FloorOp>(op))
    unary(O::Floor);
  else if (isa<tosa::CeilOp>(op))
    unary(O::Ceil);
  else if (isa<tosa::CastOp>(op))
    unary(O::Convert);
  else if (isa<tosa::SinOp, tosa::CosOp, tosa::TableOp, tosa::ClzOp,
               tosa::BitwiseNotOp, tosa::LogicalNotOp>(op))
    unary(O::Unknown);
  else if (isa<tosa::BitwiseAndOp, tosa::BitwiseOrOp, tosa::BitwiseXorOp,
               tosa::LogicalAndOp, tosa::LogicalOrOp, tosa::LogicalXorOp,
               tosa::LogicalLeftShiftOp, tosa::LogicalRightShiftOp,
               tosa::ArithmeticRightShiftOp>(op)) {
    int a = input(op->getOperand(0)), b = input(op->getOperand(1));
    f.setResult(f.operation(O::Unknown, {a, b}, op->getName().getStringRef()));
  } else if (auto select = dyn_cast<tosa::SelectOp>(op)) {
    int c = input(select.getInput1()), t = input(select.getInput2()),
        e = input(select.getInput3());
    f.setResult(f.operation(O::Select, {c, t, e}));
  } else if (auto clamp = dyn_cast<tosa::ClampOp>(op)) {
    auto bound = [](Attribute attr) -> std::optional<double> {
      if (auto fa = dyn_cast<FloatAttr>(attr))
        return fa.getValueAsDouble();
      if (auto ia = dyn_cast<IntegerAttr>(attr))
        return double(ia.getValue().getSExtValue());
      return std::nullopt;
    };
    std::optional<double> lo = bound(clamp.getMinValAttr()),
                          hi = bound(clamp.getMaxValAttr());
    if (!lo || !hi)
      return std::nullopt;
    // The largest float stands for no upper bound.
    double top = *hi >= std::numeric_limits<float>::max()
                     ? std::numeric_limits<double>::infinity()
                     : *hi;
    double bottom = *lo <= -std::numeric_limits<float>::max()
                        ? -std::numeric_limits<double>::infinity()
                        : *lo;
    int x = input(clamp.getInput());
    int low = f.operation(O::Max, {x, f.constant(bottom)});
    f.setResult(f.operation(O::Min, {low, f.constant(top)}));
  } else {
    return std::nullopt;
  }
  // Single-element constants are scalars broadcast by TOSA.
  for (auto [index, operand] : llvm::enumerate(view.operands))
    if (hasUnitShape(operand.value))
      if (std::optional<double> splat = getSplatValue(operand.value))
        f.bind(index, *splat);
  return view;
}

std::optional<SmallVector<ViewOperand>>
TosaImporter::retarget(const ElementwiseView &producer,
                       const ElementwiseView &consumer, unsigned index) {
  // TOSA broadcasts between equal ranks: what broadcast to the producer's
  // result broadcasts to the consumer's.
  auto rank = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getRank();
  };
  for (const ViewOperand &operand : producer.operands)
    if (rank(operand.value) != rank(consumer.op->getResult(0)))
      return std::nullopt;
  return SmallVector<ViewOperand>(producer.operands);
}

bool TosaImporter::isFullSize(const ElementwiseView &view, unsigned index) {
  return view.operands[index].value.getType() ==
             view.op->getResult(0).getType() ||
         cast<RankedTensorType>(view.operands[index].value.getType())
                 .getShape() ==
             cast<RankedTensorType>(view.op->getResult(0).getType()).getShape();
}

SmallVector<int64_t> TosaImporter::getAlignedShape(const ElementwiseView &view,
                                                   unsigned index) {
  auto type = cast<RankedTensorType>(view.operands[index].value.getType());
  return SmallVector<int64_t>(type.getShape());
}

FailureOr<Value> TosaImporter::getViewOperand(const ElementwiseView &view,
                                              unsigned index, Type elementType,
                                              StringRef role) {
  Value value = view.operands[index].value;
  // Integer constants (a mask, positions) are data, never parameters.
  if (getConstantRoot(value) && !isIntegerData(value)) {
    ArrayRef<int64_t> shape =
        cast<RankedTensorType>(value.getType()).getShape();
    // Leading unit dimensions are implied by broadcasting.
    while (shape.size() > 1 && shape.front() == 1)
      shape = shape.drop_front();
    return getWeight(
        value, shape,
        elementType ? elementType : getDsmElementType(value.getType()), role);
  }
  return getActivation(value);
}

std::optional<ReduceView> TosaImporter::getReduce(Operation *op) {
  ReduceView view;
  if (auto sum = dyn_cast<tosa::ReduceSumOp>(op)) {
    view.kind = ReduceKind::Sum;
    view.axes = {int64_t(sum.getAxis())};
  } else if (auto max = dyn_cast<tosa::ReduceMaxOp>(op)) {
    view.kind = ReduceKind::Max;
    view.axes = {int64_t(max.getAxis())};
  } else if (auto min = dyn_cast<tosa::ReduceMinOp>(op)) {
    view.kind = ReduceKind::Min;
    view.axes = {int64_t(min.getAxis())};
  } else {
    return std::nullopt;
  }
  view.input = op->getOperand(0);
  view.keepDims = true;
  return view;
}

SmallVector<Value> TosaImporter::getOpaqueInputs(Operation *op) {
  SmallVector<Value> inputs;
  for (Value operand : op->getOperands())
    if (isa<RankedTensorType>(operand.getType()) && !getSplatValue(operand))
      inputs.push_back(operand);
  return inputs;
}

double TosaImporter::estimateOpsPerElement(Operation *op) {
  // A multiply and an add per weight an output element reads.
  auto weightElements = [](Value weight, int64_t outChannels) {
    auto type = cast<RankedTensorType>(weight.getType());
    return type.hasStaticShape() && outChannels > 0
               ? double(type.getNumElements()) / double(outChannels)
               : 1.0;
  };
  if (auto conv = dyn_cast<tosa::Conv2DOp>(op))
    return 2 * weightElements(conv.getWeight(),
                              conv.getWeight().getType().getDimSize(0));
  if (auto conv = dyn_cast<tosa::TransposeConv2DOp>(op))
    return 2 * weightElements(conv.getWeight(),
                              conv.getWeight().getType().getDimSize(0));
  if (auto conv = dyn_cast<tosa::DepthwiseConv2DOp>(op)) {
    auto type = conv.getWeight().getType();
    return 2.0 * type.getDimSize(0) * type.getDimSize(1);
  }
  if (auto matmul = dyn_cast<tosa::MatMulOp>(op))
    return 2.0 * matmul.getA().getType().getDimSize(2);
  return 1.0;
}

//===----------------------------------------------------------------------===//
// Handlers
//===----------------------------------------------------------------------===//

Value TosaImporter::foldPad(Value input, SmallVector<int64_t> &padding,
                            double neutral) {
  auto pad = input.getDefiningOp<tosa::PadOp>();
  if (!pad)
    return input;
  std::optional<SmallVector<int64_t>> amounts = constShape(pad.getPadding());
  std::optional<double> value = getSplatValue(pad.getPadConst());
  if (!amounts || amounts->size() != 8 || !value ||
      !(neutral < 0 ? *value <= neutral : *value == neutral))
    return input;
  // NHWC: [n_lo, n_hi, h_lo, h_hi, w_lo, w_hi, c_lo, c_hi].
  const SmallVector<int64_t> &a = *amounts;
  if (a[0] || a[1] || a[6] || a[7])
    return input;
  padding[0] += a[2];
  padding[1] += a[4];
  padding[2] += a[3];
  padding[3] += a[5];
  setOutcome(pad, Outcome::Folded, "into padding");
  return pad.getInput1();
}

FailureOr<bool> TosaImporter::importConvolution(
    Operation *op, Value input, Value weight, Value bias, ArrayRef<int64_t> pad,
    ArrayRef<int64_t> stride, ArrayRef<int64_t> dilation, bool depthwise) {
  Location loc = op->getLoc();
  if (std::optional<StringRef> why = checkConvParameters(weight, bias))
    return reject(*why);
  // tosa.conv3d: NDHWC, weight [O, KD, KH, KW, I], pad [front, back, top,
  // bottom, left, right]; a preceding tosa.pad is left as its own op.
  bool threeD = cast<RankedTensorType>(weight.getType()).getRank() == 5;
  SmallVector<int64_t> padding =
      threeD
          ? SmallVector<int64_t>{pad[0], pad[2], pad[4], pad[1], pad[3], pad[5]}
          : dsmPadding(pad);
  Value source = threeD ? input : foldPad(input, padding, 0.0);
  FailureOr<TypedActivation> activation = getTypedActivation(loc, source);
  if (failed(activation))
    return failure();
  Type elementType = activation->elementType;
  auto weightType = cast<RankedTensorType>(weight.getType());
  int64_t groups = 1;
  SmallVector<int64_t> kernelShape(weightType.getShape());
  KernelLayout layout = KernelLayout::OHWI;
  int64_t outChannels = weightType.getDimSize(0);
  if (depthwise) {
    // [KH, KW, C, M]: C groups of M outputs each.
    groups = weightType.getDimSize(2);
    outChannels = groups * weightType.getDimSize(3);
    kernelShape = {weightType.getDimSize(0), weightType.getDimSize(1), 1,
                   outChannels};
    layout = KernelLayout::HWIO;
  }
  FailureOr<std::pair<Value, Value>> parameters = declareConvParameters(
      weight, kernelShape, bias, outChannels, elementType);
  if (failed(parameters))
    return failure();
  auto build = [&](auto opType) -> FailureOr<Value> {
    using OpTy = decltype(opType);
    FailureOr<OpTy> conv = create<OpTy>(
        loc, op->getResult(0).getType(), activation->value, parameters->first,
        parameters->second, builder.getDenseI64ArrayAttr(stride),
        builder.getDenseI64ArrayAttr(padding),
        builder.getDenseI64ArrayAttr(dilation),
        builder.getI64IntegerAttr(groups),
        DataLayoutAttr::get(getContext(), dsm::DataLayout::NHWC),
        KernelLayoutAttr::get(getContext(), layout));
    if (failed(conv))
      return failure();
    setImported(op, OpTy::getOperationName());
    return conv->getResult();
  };
  FailureOr<Value> result = threeD ? build(Conv3DOp()) : build(Conv2DOp());
  if (failed(result))
    return failure();
  map(op->getResult(0), *result);
  return true;
}

FailureOr<bool> TosaImporter::importTransposeConv(tosa::TransposeConv2DOp op) {
  Location loc = op.getLoc();
  Value weight = op.getWeight(), bias = op.getBias();
  if (std::optional<StringRef> why = checkConvParameters(weight, bias))
    return reject(*why);
  ArrayRef<int64_t> outPad = op.getOutPad(), stride = op.getStride();
  // Output rows: (IH - 1) * stride + top + bottom + KH. A negative out_pad
  // is a padding cut from the output; a positive one at the bottom or right
  // (below the stride) is output_padding; extra rows at the top or left
  // have no dsm.conv_transpose2d counterpart.
  SmallVector<int64_t> padding(4, 0), outputPadding(2, 0);
  for (int i = 0; i < 2; ++i) {
    int64_t before = outPad[2 * i], after = outPad[2 * i + 1];
    if (before > 0 || after >= stride[i])
      return reject("out_pad adds rows before the output or a whole stride "
                    "after it");
    padding[i] = -before;
    if (after < 0)
      padding[i + 2] = -after;
    else
      outputPadding[i] = after;
  }
  FailureOr<TypedActivation> activation =
      getTypedActivation(loc, op.getInput());
  if (failed(activation))
    return failure();
  Type elementType = activation->elementType;
  // Declared [C, O, KH, KW], dsm.conv_transpose2d's order (a declaration
  // only counts the elements).
  auto weightType = cast<RankedTensorType>(weight.getType());
  int64_t outChannels = weightType.getDimSize(0);
  FailureOr<std::pair<Value, Value>> parameters = declareConvParameters(
      weight,
      {weightType.getDimSize(3), outChannels, weightType.getDimSize(1),
       weightType.getDimSize(2)},
      bias, outChannels, elementType);
  if (failed(parameters))
    return failure();
  return finishImport(
      op,
      create<ConvTranspose2DOp>(
          loc, op.getResult().getType(), activation->value, parameters->first,
          parameters->second, builder.getDenseI64ArrayAttr(stride),
          builder.getDenseI64ArrayAttr(padding),
          builder.getDenseI64ArrayAttr(outputPadding),
          builder.getDenseI64ArrayAttr({1, 1}), builder.getI64IntegerAttr(1),
          DataLayoutAttr::get(getContext(), dsm::DataLayout::NHWC)));
}

FailureOr<bool> TosaImporter::importPool(Operation *op, Value input,
                                         ArrayRef<int64_t> kernel,
                                         ArrayRef<int64_t> stride,
                                         ArrayRef<int64_t> pad, bool max) {
  Location loc = op->getLoc();
  SmallVector<int64_t> padding = dsmPadding(pad);
  for (int i = 0; i < 2; ++i)
    if (padding[i] * 2 > kernel[i] || padding[i + 2] * 2 > kernel[i])
      return reject("padding of more than half the window");
  FailureOr<Value> activation = getActivation(input);
  if (failed(activation))
    return failure();
  auto shape = cast<RankedTensorType>(activation->getType()).getShape();
  auto layout = DataLayoutAttr::get(getContext(), dsm::DataLayout::NHWC);
  bool global = kernel[0] == shape[1] && kernel[1] == shape[2] &&
                llvm::all_of(padding, [](int64_t p) { return p == 0; });
  PoolKind kind = max      ? PoolKind::Max
                  : global ? PoolKind::GlobalAverage
                           : PoolKind::Average;
  FailureOr<Value> result =
      createPool(loc, op->getResult(0).getType(), kind, *activation, kernel,
                 stride, padding, /*ceilMode=*/false, layout);
  if (failed(result))
    return failure();
  map(op->getResult(0), *result);
  setImported(op, result->getDefiningOp()->getName().getStringRef());
  return true;
}

FailureOr<bool> TosaImporter::importMatMul(tosa::MatMulOp op) {
  Location loc = op.getLoc();
  Value a = op.getA(), b = op.getB();
  auto bType = cast<RankedTensorType>(b.getType());
  Type expected = op.getResult().getType();
  if (getConstantRoot(a) && getConstantRoot(b))
    return reject("product of two constants");
  // A constant [1, C, W] right operand is a fully connected layer's weight.
  if (getConstantRoot(b) && bType.getDimSize(0) == 1) {
    FailureOr<Value> input = getActivation(a);
    if (failed(input))
      return failure();
    FailureOr<Type> elementType = requireDsmElementType(loc, *input);
    if (failed(elementType))
      return failure();
    FailureOr<Value> weight = getWeight(
        b, {bType.getDimSize(2), bType.getDimSize(1)}, *elementType, "weight");
    if (failed(weight))
      return failure();
    return finishImport(
        op, create<FullyConnectedOp>(loc, expected, *input, *weight, Value()));
  }
  auto operand = [&](Value value) -> FailureOr<Value> {
    if (getConstantRoot(value)) {
      auto type = cast<RankedTensorType>(value.getType());
      return getWeight(value, type.getShape(), type.getElementType(),
                       "constant");
    }
    return getActivation(value);
  };
  FailureOr<Value> lhs = operand(a);
  FailureOr<Value> rhs =
      succeeded(lhs) ? operand(b) : FailureOr<Value>(failure());
  if (failed(rhs))
    return failure();
  return finishImport(op,
                      create<MatMulOp>(loc, expected, *lhs, *rhs, UnitAttr()));
}

FailureOr<bool> TosaImporter::importGather(tosa::GatherOp op) {
  // A constant [1, K, C] table gathered by [1, W] ids is an embedding.
  auto values = cast<RankedTensorType>(op.getValues().getType());
  if (!getConstantRoot(op.getValues()) || values.getDimSize(0) != 1)
    return reject("only gathers from a constant table are embeddings");
  FailureOr<Value> ids = getActivation(op.getIndices());
  if (failed(ids))
    return failure();
  FailureOr<Type> elementType =
      requireDsmElementType(op.getLoc(), op.getValues());
  if (failed(elementType))
    return failure();
  FailureOr<Value> table =
      getWeight(op.getValues(), {values.getDimSize(1), values.getDimSize(2)},
                *elementType, "table");
  if (failed(table))
    return failure();
  return finishImport(
      op,
      create<EmbeddingOp>(op.getLoc(), op.getResult().getType(), *ids, *table));
}

FailureOr<bool> TosaImporter::handle(Operation *op) {
  if (auto conv = dyn_cast<tosa::Conv2DOp>(op))
    return importConvolution(op, conv.getInput(), conv.getWeight(),
                             conv.getBias(), conv.getPad(), conv.getStride(),
                             conv.getDilation(), /*depthwise=*/false);
  if (auto conv = dyn_cast<tosa::DepthwiseConv2DOp>(op))
    return importConvolution(op, conv.getInput(), conv.getWeight(),
                             conv.getBias(), conv.getPad(), conv.getStride(),
                             conv.getDilation(), /*depthwise=*/true);
  if (auto conv = dyn_cast<tosa::Conv3DOp>(op))
    return importConvolution(op, conv.getInput(), conv.getWeight(),
                             conv.getBias(), conv.getPad(), conv.getStride(),
                             conv.getDilation(), /*depthwise=*/false);
  if (auto matmul = dyn_cast<tosa::MatMulOp>(op))
    return importMatMul(matmul);
  if (auto pool = dyn_cast<tosa::AvgPool2dOp>(op))
    return importPool(op, pool.getInput(), pool.getKernel(), pool.getStride(),
                      pool.getPad(), /*max=*/false);
  if (auto pool = dyn_cast<tosa::MaxPool2dOp>(op))
    return importPool(op, pool.getInput(), pool.getKernel(), pool.getStride(),
                      pool.getPad(), /*max=*/true);
  if (std::optional<ReduceView> reduce = getReduce(op))
    return importReduce(op, *reduce);
  if (auto gather = dyn_cast<tosa::GatherOp>(op))
    return importGather(gather);
  if (auto conv = dyn_cast<tosa::TransposeConv2DOp>(op))
    return importTransposeConv(conv);
  if (isa<tosa::TableOp>(op))
    return reject("table lookup (an int8 activation) is not classified");
  if (getElementwise(op))
    return importElementwise(op);
  return reject("no dsm counterpart is known");
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {
struct ImportTosaPass : public dsm::impl::DsmImportTosaBase<ImportTosaPass> {
  using DsmImportTosaBase::DsmImportTosaBase;

  void runOnOperation() override {
    if (failed(runImport<TosaImporter>(getOperation(), getArgument(),
                                       {mode, summary, batch, {}})))
      signalPassFailure();
  }
};
} // namespace
