//===- DsmOps.cpp - dsm operations: shape inference and workloads ---------===//
//
// Every graph op infers its result type; the inference doubles as the shape
// verifier (InferTypeOpInterface checks the written type against it), so a
// check lives in exactly one place and also guards re-batching. Workload
// formulas live in the core library (dsm/Core/Workload/Workload.h); this file
// only extracts shapes.
//
//===----------------------------------------------------------------------===//

#include "dsm/Dialect/DsmOps.h"
#include "dsm/Core/Spatial/Mapping.h"
#include "dsm/Core/Workload/Window.h"

#include "mlir/Dialect/Traits.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InterleavedRange.h"

#include <numeric>

using namespace mlir;
using namespace dsm;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

namespace {
/// Emits inference failures as verifier-style errors ("'dsm.x' op ...") at the
/// op's location; silent when inference runs without a location (builders
/// probing a shape).
class ShapeErrors {
public:
  ShapeErrors(std::optional<Location> loc, StringRef opName)
      : loc(loc), opName(opName) {}

  template <typename... Args> LogicalResult fail(Args &&...args) const {
    return emitOptionalError(loc, "'", opName, "' op ",
                             std::forward<Args>(args)...);
  }

private:
  std::optional<Location> loc;
  StringRef opName;
};
} // namespace

std::string dsm::formatShape(ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::interleaved_array(llvm::map_range(shape, [](int64_t d) {
    return ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d);
  }));
  return text;
}

/// Bytes per element of a dsm tensor (int8 = 1, fp16/bf16 = 2, fp32 = 4).
static int64_t elementBytes(Type type) {
  Type element = getElementTypeOrSelf(type);
  unsigned bits = element.getIntOrFloatBitWidth();
  return std::max<int64_t>(1, bits / 8);
}

static int64_t numElements(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() ? tensor.getNumElements() : 0;
}

/// Product of shape[begin, end) with overflow tracking.
static int64_t product(ArrayRef<int64_t> shape, core::CheckedCount &count) {
  int64_t result = 1;
  for (int64_t d : shape)
    result = count.mul(result, d);
  return result;
}

/// The ranked tensor type of a value, or a located failure naming `what`.
static FailureOr<RankedTensorType> rankedOperand(const ShapeErrors &errors,
                                                 Value value, StringRef what,
                                                 int64_t rank = -1) {
  auto type =
      dyn_cast_or_null<RankedTensorType>(value ? value.getType() : Type());
  if (!type || !type.hasStaticShape())
    return errors.fail(what, " must be a statically shaped tensor");
  // Every count derived from the tensor (elements, bytes, MACs) starts from
  // its element count: one that overflows 64 bits is refused here, once.
  core::CheckedCount count;
  count.mul(product(type.getShape(), count), elementBytes(type));
  if (count.overflow)
    return errors.fail(what, " ", type,
                       " is too large: its size in bytes overflows 64 bits");
  if (rank >= 0 && type.getRank() != rank)
    return errors.fail(what, " must have rank ", rank, ", got ", type.getRank(),
                       " (", type, ")");
  return type;
}

static LogicalResult sameElementType(const ShapeErrors &errors,
                                     RankedTensorType a, RankedTensorType b,
                                     StringRef whatB) {
  if (a.getElementType() != b.getElementType())
    return errors.fail(whatB, " element type ", b.getElementType(),
                       " does not match ", a.getElementType());
  return success();
}

/// Normalizes a possibly negative axis; fails if out of [-rank, rank).
static FailureOr<int64_t> normalizeAxis(const ShapeErrors &errors, int64_t axis,
                                        int64_t rank, StringRef what = "axis") {
  if (axis < -rank || axis >= rank)
    return errors.fail(what, " ", axis, " is out of range for rank ", rank);
  return axis < 0 ? axis + rank : axis;
}

/// (N, C, H, W) of an activation in `layout`.
static std::array<int64_t, 4> activationNCHW(ArrayRef<int64_t> shape,
                                             dsm::DataLayout layout) {
  if (layout == dsm::DataLayout::NHWC)
    return {shape[0], shape[3], shape[1], shape[2]};
  return {shape[0], shape[1], shape[2], shape[3]};
}

static SmallVector<int64_t> activationShape(int64_t n, int64_t c, int64_t h,
                                            int64_t w, dsm::DataLayout layout) {
  if (layout == dsm::DataLayout::NHWC)
    return {n, h, w, c};
  return {n, c, h, w};
}

/// (O, I, KH, KW) of a kernel in `layout`.
static std::array<int64_t, 4> kernelOIHW(ArrayRef<int64_t> shape,
                                         dsm::KernelLayout layout) {
  switch (layout) {
  case dsm::KernelLayout::HWIO:
    return {shape[3], shape[2], shape[0], shape[1]};
  case dsm::KernelLayout::OHWI:
    return {shape[0], shape[3], shape[1], shape[2]};
  case dsm::KernelLayout::OIHW:
    break;
  }
  return {shape[0], shape[1], shape[2], shape[3]};
}

/// Checks a 2D or 3D window's strides, padding ([begin..., end...]) and
/// dilations and computes each output extent: floor or ceil((in + pads -
/// effective kernel) / stride) + 1.
static FailureOr<SmallVector<int64_t, 3>>
windowOutput(const ShapeErrors &errors, ArrayRef<int64_t> inSpatial,
             ArrayRef<int64_t> kernelSpatial, ArrayRef<int64_t> strides,
             ArrayRef<int64_t> padding, ArrayRef<int64_t> dilations,
             bool ceilMode) {
  size_t rank = inSpatial.size();
  StringRef axes = rank == 3 ? "DHW" : "HW";
  if (strides.size() != rank)
    return errors.fail("strides must have ", rank, " values, got ",
                       strides.size());
  if (padding.size() != 2 * rank)
    return errors.fail("padding must have ", 2 * rank, " values ",
                       rank == 3 ? "[front, top, left, back, bottom, right]"
                                 : "[top, left, bottom, right]",
                       ", got ", padding.size());
  if (dilations.size() != rank)
    return errors.fail("dilations must have ", rank, " values, got ",
                       dilations.size());
  for (int64_t s : strides)
    if (s <= 0)
      return errors.fail("strides must be positive, got ",
                         formatShape(strides));
  for (int64_t p : padding)
    if (p < 0)
      return errors.fail("padding must not be negative, got ",
                         formatShape(padding));
  for (int64_t d : dilations)
    if (d <= 0)
      return errors.fail("dilations must be positive, got ",
                         formatShape(dilations));
  SmallVector<int64_t, 3> out;
  for (size_t i = 0; i < rank; ++i) {
    if (kernelSpatial[i] <= 0)
      return errors.fail("window size must be positive, got ",
                         formatShape(kernelSpatial));
    // Attributes are arbitrary 64-bit values: every step is checked.
    core::CheckedCount count;
    int64_t padded =
        count.add(count.add(inSpatial[i], padding[i]), padding[i + rank]);
    int64_t effective =
        count.add(count.mul(kernelSpatial[i] - 1, dilations[i]), 1);
    if (count.overflow)
      return errors.fail("window arithmetic overflows 64 bits (input ",
                         inSpatial[i], ", kernel ", kernelSpatial[i],
                         ", padding ", formatShape(padding), ", dilations ",
                         formatShape(dilations), ")");
    if (effective > padded)
      return errors.fail("window of ", effective,
                         " does not fit the padded input of ", padded,
                         " along ", axes.substr(i, 1));
    out.push_back(
        *core::windowOutputExtent({inSpatial[i], kernelSpatial[i], strides[i],
                                   dilations[i], padding[i], padding[i + rank]},
                                  ceilMode));
  }
  return out;
}

/// NumPy broadcast of two shapes.
static FailureOr<SmallVector<int64_t>>
broadcastShapes(const ShapeErrors &errors, ArrayRef<int64_t> a,
                ArrayRef<int64_t> b) {
  SmallVector<int64_t> result;
  if (!OpTrait::util::getBroadcastedShape(a, b, result))
    return errors.fail("operand shapes ", formatShape(a), " and ",
                       formatShape(b), " are not broadcast-compatible");
  return result;
}

static Type resultLike(RankedTensorType like, ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, like.getElementType());
}

static int64_t leadingBatch(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getRank() > 0 ? tensor.getDimSize(0) : 1;
}

static bool isWeight(Value value) {
  return value && value.getDefiningOp<WeightOp>();
}

/// Workload of an op charged per result element.
static core::Workload elementwiseWorkload(Operation *op, core::OpKind kind,
                                          int64_t params = 0,
                                          int64_t statistics = 0) {
  Type resultType = op->getResult(0).getType();
  int64_t inputs = 0;
  for (Value operand : op->getOperands())
    if (!isWeight(operand))
      inputs += numElements(operand.getType());
  return core::makeElementwiseWorkload(kind, leadingBatch(resultType),
                                       numElements(resultType), inputs, params,
                                       statistics, elementBytes(resultType));
}

//===----------------------------------------------------------------------===//
// Interface verification
//===----------------------------------------------------------------------===//

LogicalResult dsm::detail::verifyWorkload(Operation *op) {
  if (cast<WorkloadOpInterface>(op).workloadOverflows())
    return op->emitOpError("workload is too large: its element or operation "
                           "counts overflow 64 bits");
  return success();
}

/// The geometry of a 2-D or 3-D convolution for its workload: `in`, `out`
/// and `kernel` are the spatial extents ([H, W] or [D, H, W]), `padding`
/// [begin..., end...].
static core::ConvShape convShape(int64_t n, int64_t c, int64_t o,
                                 ArrayRef<int64_t> in, ArrayRef<int64_t> out,
                                 ArrayRef<int64_t> kernel,
                                 ArrayRef<int64_t> strides,
                                 ArrayRef<int64_t> padding, IntegerAttr groups,
                                 Value bias) {
  size_t rank = in.size(), h = rank - 2, w = rank - 1;
  core::ConvShape shape;
  shape.batch = n;
  shape.inChannels = c;
  shape.outChannels = o;
  if (rank == 3) {
    shape.inD = in[0];
    shape.outD = out[0];
    shape.kernelD = kernel[0];
  }
  shape.inH = in[h];
  shape.inW = in[w];
  shape.outH = out[h];
  shape.outW = out[w];
  shape.kernelH = kernel[h];
  shape.kernelW = kernel[w];
  shape.strideH = strides[h];
  shape.strideW = strides[w];
  shape.padTop = padding[h];
  shape.padLeft = padding[w];
  shape.groups = groups ? groups.getInt() : 1;
  shape.hasBias = static_cast<bool>(bias);
  return shape;
}

/// A convolution's parameters: its weight and its bias, if any.
static SmallVector<Value> weightAndBias(Value weight, Value bias) {
  SmallVector<Value> params{weight};
  if (bias)
    params.push_back(bias);
  return params;
}

/// A convolution's optional bias: one element per output channel `o`.
static LogicalResult checkConvBias(const ShapeErrors &errors,
                                   RankedTensorType input, Value bias,
                                   int64_t o) {
  if (!bias)
    return success();
  FailureOr<RankedTensorType> biasType = rankedOperand(errors, bias, "bias", 1);
  if (failed(biasType) ||
      failed(sameElementType(errors, input, *biasType, "bias")))
    return failure();
  if (biasType->getDimSize(0) != o)
    return errors.fail("bias has ", biasType->getDimSize(0),
                       " elements but the convolution has ", o,
                       " output channels");
  return success();
}

/// The channel rules dsm.conv2d and dsm.conv3d share: `groups` divides the
/// input channels `c` and the output channels `o`, the weight has c / groups
/// input channels `perGroup`, and a bias has one element per output channel.
static LogicalResult checkConvChannels(const ShapeErrors &errors,
                                       RankedTensorType input, Value bias,
                                       int64_t c, int64_t o, int64_t perGroup,
                                       IntegerAttr groupsAttr) {
  int64_t groups = groupsAttr ? groupsAttr.getInt() : 1;
  if (groups < 1)
    return errors.fail("groups must be positive, got ", groups);
  if (c % groups != 0 || o % groups != 0)
    return errors.fail("groups (", groups, ") must divide the input channels (",
                       c, ") and the output channels (", o, ")");
  if (perGroup != c / groups)
    return errors.fail("weight has ", perGroup,
                       " input channels per group but input has ", c,
                       " channels in ", groups, " group(s)");
  return checkConvBias(errors, input, bias, o);
}

//===----------------------------------------------------------------------===//
// Conv2DOp
//===----------------------------------------------------------------------===//

LogicalResult Conv2DOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  ShapeErrors errors(loc, getOperationName());
  FailureOr<RankedTensorType> input =
      rankedOperand(errors, adaptor.getInput(), "input", 4);
  if (failed(input))
    return failure();
  FailureOr<RankedTensorType> weight =
      rankedOperand(errors, adaptor.getWeight(), "weight", 4);
  if (failed(weight) ||
      failed(sameElementType(errors, *input, *weight, "weight")))
    return failure();

  dsm::DataLayout layout = adaptor.getDataLayout();
  auto [n, c, h, w] = activationNCHW(input->getShape(), layout);
  auto [o, i, kh, kw] =
      kernelOIHW(weight->getShape(), adaptor.getKernelLayout());
  if (failed(checkConvChannels(errors, *input, adaptor.getBias(), c, o, i,
                               adaptor.getGroupsAttr())))
    return failure();
  FailureOr<SmallVector<int64_t, 3>> out =
      windowOutput(errors, {h, w}, {kh, kw}, adaptor.getStrides(),
                   adaptor.getPadding(), adaptor.getDilations(), false);
  if (failed(out))
    return failure();
  types.push_back(
      resultLike(*input, activationShape(n, o, (*out)[0], (*out)[1], layout)));
  return success();
}

core::Workload Conv2DOp::getWorkload() {
  auto [n, c, h, w] =
      activationNCHW(getInput().getType().getShape(), getDataLayout());
  auto [on, o, oh, ow] =
      activationNCHW(getResult().getType().getShape(), getDataLayout());
  auto [ko, ki, kh, kw] =
      kernelOIHW(getWeight().getType().getShape(), getKernelLayout());
  (void)on, (void)ko, (void)ki;
  return core::makeConvWorkload(convShape(n, c, o, {h, w}, {oh, ow}, {kh, kw},
                                          getStrides(), getPadding(),
                                          getGroupsAttr(), getBias()),
                                elementBytes(getInput().getType()));
}

SmallVector<Value> Conv2DOp::getParameterOperands() {
  return weightAndBias(getWeight(), getBias());
}

//===----------------------------------------------------------------------===//
// Conv3DOp
//===----------------------------------------------------------------------===//

/// (N, C, D, H, W) of a 5-D activation: `nhwc` puts the channels last.
static std::array<int64_t, 5> activationNCDHW(ArrayRef<int64_t> shape,
                                              dsm::DataLayout layout) {
  if (layout == dsm::DataLayout::NHWC)
    return {shape[0], shape[4], shape[1], shape[2], shape[3]};
  return {shape[0], shape[1], shape[2], shape[3], shape[4]};
}

/// (O, I, KD, KH, KW) of a 5-D kernel, the layouts read as for 2-D with the
/// depth before the height.
static std::array<int64_t, 5> kernelOIDHW(ArrayRef<int64_t> shape,
                                          dsm::KernelLayout layout) {
  switch (layout) {
  case dsm::KernelLayout::HWIO:
    return {shape[4], shape[3], shape[0], shape[1], shape[2]};
  case dsm::KernelLayout::OHWI:
    return {shape[0], shape[4], shape[1], shape[2], shape[3]};
  case dsm::KernelLayout::OIHW:
    break;
  }
  return {shape[0], shape[1], shape[2], shape[3], shape[4]};
}

LogicalResult Conv3DOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  ShapeErrors errors(loc, getOperationName());
  FailureOr<RankedTensorType> input =
      rankedOperand(errors, adaptor.getInput(), "input", 5);
  if (failed(input))
    return failure();
  FailureOr<RankedTensorType> weight =
      rankedOperand(errors, adaptor.getWeight(), "weight", 5);
  if (failed(weight) ||
      failed(sameElementType(errors, *input, *weight, "weight")))
    return failure();
  dsm::DataLayout layout = adaptor.getDataLayout();
  auto [n, c, d, h, w] = activationNCDHW(input->getShape(), layout);
  auto [o, i, kd, kh, kw] =
      kernelOIDHW(weight->getShape(), adaptor.getKernelLayout());
  if (failed(checkConvChannels(errors, *input, adaptor.getBias(), c, o, i,
                               adaptor.getGroupsAttr())))
    return failure();
  FailureOr<SmallVector<int64_t, 3>> out =
      windowOutput(errors, {d, h, w}, {kd, kh, kw}, adaptor.getStrides(),
                   adaptor.getPadding(), adaptor.getDilations(), false);
  if (failed(out))
    return failure();
  SmallVector<int64_t> shape =
      layout == dsm::DataLayout::NHWC
          ? SmallVector<int64_t>{n, (*out)[0], (*out)[1], (*out)[2], o}
          : SmallVector<int64_t>{n, o, (*out)[0], (*out)[1], (*out)[2]};
  types.push_back(resultLike(*input, shape));
  return success();
}

core::Workload Conv3DOp::getWorkload() {
  auto [n, c, d, h, w] =
      activationNCDHW(getInput().getType().getShape(), getDataLayout());
  auto [on, o, od, oh, ow] =
      activationNCDHW(getResult().getType().getShape(), getDataLayout());
  auto [ko, ki, kd, kh, kw] =
      kernelOIDHW(getWeight().getType().getShape(), getKernelLayout());
  (void)on, (void)ko, (void)ki;
  return core::makeConvWorkload(
      convShape(n, c, o, {d, h, w}, {od, oh, ow}, {kd, kh, kw}, getStrides(),
                getPadding(), getGroupsAttr(), getBias()),
      elementBytes(getInput().getType()));
}

SmallVector<Value> Conv3DOp::getParameterOperands() {
  return weightAndBias(getWeight(), getBias());
}

//===----------------------------------------------------------------------===//
// ConvTranspose2DOp
//===----------------------------------------------------------------------===//

LogicalResult
ConvTranspose2DOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                    Adaptor adaptor,
                                    SmallVectorImpl<Type> &types) {
  ShapeErrors errors(loc, getOperationName());
  FailureOr<RankedTensorType> input =
      rankedOperand(errors, adaptor.getInput(), "input", 4);
  if (failed(input))
    return failure();
  FailureOr<RankedTensorType> weight =
      rankedOperand(errors, adaptor.getWeight(), "weight", 4);
  if (failed(weight) ||
      failed(sameElementType(errors, *input, *weight, "weight")))
    return failure();
  dsm::DataLayout layout = adaptor.getDataLayout();
  auto [n, c, h, w] = activationNCHW(input->getShape(), layout);
  ArrayRef<int64_t> k = weight->getShape();
  int64_t groups =
      adaptor.getGroupsAttr() ? adaptor.getGroupsAttr().getInt() : 1;
  if (groups < 1)
    return errors.fail("groups must be positive, got ", groups);
  if (k[0] != c)
    return errors.fail("weight has ", k[0], " input channels but input has ",
                       c);
  if (c % groups != 0)
    return errors.fail("groups (", groups, ") must divide the input channels (",
                       c, ")");
  int64_t o = k[1] * groups;
  if (failed(checkConvBias(errors, *input, adaptor.getBias(), o)))
    return failure();
  ArrayRef<int64_t> strides = adaptor.getStrides(),
                    padding = adaptor.getPadding(),
                    outputPadding = adaptor.getOutputPadding(),
                    dilations = adaptor.getDilations();
  if (strides.size() != 2 || dilations.size() != 2 || padding.size() != 4 ||
      outputPadding.size() != 2)
    return errors.fail("strides, dilations and output_padding must have 2 "
                       "values and padding 4 [top, left, bottom, right]");
  if (llvm::any_of(strides, [](int64_t v) { return v <= 0; }) ||
      llvm::any_of(dilations, [](int64_t v) { return v <= 0; }) ||
      llvm::any_of(padding, [](int64_t v) { return v < 0; }) ||
      llvm::any_of(outputPadding, [](int64_t v) { return v < 0; }))
    return errors.fail("strides and dilations must be positive, padding and "
                       "output_padding not negative");
  SmallVector<int64_t, 2> out;
  for (int i = 0; i < 2; ++i) {
    int64_t in = i == 0 ? h : w;
    if (in < 1 || k[2 + i] < 1)
      return errors.fail("input and kernel extents must be positive");
    if (outputPadding[i] >= std::max(strides[i], dilations[i]))
      return errors.fail("output_padding must be smaller than the stride or "
                         "the dilation, got ",
                         formatShape(outputPadding));
    core::CheckedCount count;
    int64_t full = count.add(count.add(count.mul(in - 1, strides[i]),
                                       count.mul(dilations[i], k[2 + i] - 1)),
                             count.add(outputPadding[i], 1));
    if (count.overflow)
      return errors.fail("window arithmetic overflows 64 bits");
    int64_t extent = full - padding[i] - padding[i + 2];
    if (extent < 1)
      return errors.fail("padding ", formatShape(padding),
                         " leaves no output along ", i == 0 ? "H" : "W");
    out.push_back(extent);
  }
  types.push_back(
      resultLike(*input, activationShape(n, o, out[0], out[1], layout)));
  return success();
}

core::Workload ConvTranspose2DOp::getWorkload() {
  auto [n, c, h, w] =
      activationNCHW(getInput().getType().getShape(), getDataLayout());
  auto [on, o, oh, ow] =
      activationNCHW(getResult().getType().getShape(), getDataLayout());
  (void)on;
  ArrayRef<int64_t> k = getWeight().getType().getShape();
  core::ConvShape shape =
      convShape(n, c, o, {h, w}, {oh, ow}, {k[2], k[3]}, getStrides(),
                getPadding(), getGroupsAttr(), getBias());
  shape.transposed = true;
  return core::makeConvWorkload(shape, elementBytes(getInput().getType()));
}

SmallVector<Value> ConvTranspose2DOp::getParameterOperands() {
  return weightAndBias(getWeight(), getBias());
}

//===----------------------------------------------------------------------===//
// FullyConnectedOp
//===----------------------------------------------------------------------===//

LogicalResult FullyConnectedOp::inferReturnTypes(MLIRContext *,
                                                 std::optional<Location> loc,
                                                 Adaptor adaptor,
                                                 SmallVectorImpl<Type> &types) {
  ShapeErrors errors(loc, getOperationName());
  FailureOr<RankedTensorType> input =
      rankedOperand(errors, adaptor.getInput(), "input");
  if (failed(input))
    return failure();
  if (input->getRank() < 2)
    return errors.fail("input must have rank >= 2 ([batch, ..., in]), got ",
                       input->getRank());
  FailureOr<RankedTensorType> weight =
      rankedOperand(errors, adaptor.getWeight(), "weight", 2);
  if (failed(weight) ||
      failed(sameElementType(errors, *input, *weight, "weight")))
    return failure();
  int64_t in = input->getShape().back();
  int64_t out = weight->getDimSize(0);
  if (weight->getDimSize(1) != in)
    return errors.fail(
        "weight is [out, in] = ", formatShape(weight->getShape()),
        " but the input has ", in, " features");
  if (Value bias = adaptor.getBias()) {
    FailureOr<RankedTensorType> biasType =
        rankedOperand(errors, bias, "bias", 1);
    if (failed(biasType) ||
        failed(sameElementType(errors, *input, *biasType, "bias")))
      return failure();
    if (biasType->getDimSize(0) != out)
      return errors.fail("bias has ", biasType->getDimSize(0),
                         " elements but the layer has ", out, " outputs");
  }
  SmallVector<int64_t> shape(input->getShape());
  shape.back() = out;
  types.push_back(resultLike(*input, shape));
  return success();
}

core::Workload FullyConnectedOp::getWorkload() {
  auto shape = getInput().getType().getShape();
  core::CheckedCount count;
  int64_t rows = product(shape.drop_front().drop_back(), count);
  core::Workload w = core::makeFullyConnectedWorkload(
      shape.front(), rows, shape.back(), getWeight().getType().getDimSize(0),
      static_cast<bool>(getBias()), elementBytes(getInput().getType()));
  w.overflow |= count.overflow;
  return w;
}

SmallVector<Value> FullyConnectedOp::getParameterOperands() {
  return weightAndBias(getWeight(), getBias());
}

//===----------------------------------------------------------------------===//
// MatMulOp
//===----------------------------------------------------------------------===//

LogicalResult MatMulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  ShapeErrors errors(loc, getOperationName());
  FailureOr<RankedTensorType> lhs =
      rankedOperand(errors, adaptor.getLhs(), "lhs");
  FailureOr<RankedTensorType> rhs =
      succeeded(lhs) ? rankedOperand(errors, adaptor.getRhs(), "rhs")
                     : FailureOr<RankedTensorType>(failure());
  if (failed(lhs) || failed(rhs) ||
      failed(sameElementType(errors, *lhs, *rhs, "rhs")))
    return failure();
  if (lhs->getRank() < 2 || lhs->getRank() != rhs->getRank())
    return errors.fail("operands must have the same rank >= 2, got ",
                       lhs->getRank(), " and ", rhs->getRank());
  ArrayRef<int64_t> a = lhs->getShape(), b = rhs->getShape();
  size_t batchRank = a.size() - 2;
  if (a.take_front(batchRank) != b.take_front(batchRank))
    return errors.fail("batch dimensions ",
                       formatShape(a.take_front(batchRank)), " and ",
                       formatShape(b.take_front(batchRank)), " differ");
  bool transposed = adaptor.getTransposeRhs();
  int64_t k = b[batchRank + (transposed ? 1 : 0)];
  int64_t n = b[batchRank + (transposed ? 0 : 1)];
  if (a.back() != k)
    return errors.fail("contraction sizes differ: lhs has ", a.back(),
                       ", rhs has ", k, transposed ? " (rhs transposed)" : "");
  SmallVector<int64_t> shape(a);
  shape.back() = n;
  types.push_back(resultLike(*lhs, shape));
  return success();
}

core::Workload MatMulOp::getWorkload() {
  auto a = getLhs().getType().getShape();
  auto result = getResult().getType().getShape();
  core::CheckedCount count;
  int64_t batch = product(a.drop_back(2), count);
  core::Workload w =
      core::makeMatMulWorkload(batch, a[a.size() - 2], a.back(), result.back(),
                               elementBytes(getLhs().getType()));
  w.overflow |= count.overflow;
  return w;
}

//===----------------------------------------------------------------------===//
// LstmOp
//===----------------------------------------------------------------------===//

LogicalResult LstmOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  ShapeErrors errors(loc, getOperationName());
  FailureOr<RankedTensorType> input =
      rankedOperand(errors, adaptor.getInput(), "input ([T, N, features])", 3);
  if (failed(input))
    return failure();
  FailureOr<RankedTensorType> weights =
      rankedOperand(errors, adaptor.getWeights(), "weights", 3);
  if (failed(weights) ||
      failed(sameElementType(errors, *input, *weights, "weights")))
    return failure();
  FailureOr<RankedTensorType> recurrence =
      rankedOperand(errors, adaptor.getRecurrence(), "recurrence", 3);
  if (failed(recurrence) ||
      failed(sameElementType(errors, *input, *recurrence, "recurrence")))
    return failure();
  int64_t directions = adaptor.getBidirectional() ? 2 : 1;
  int64_t hidden = recurrence->getDimSize(2);
  int64_t features = input->getDimSize(2);
  auto expect = [&](RankedTensorType type, ArrayRef<int64_t> shape,
                    StringRef what) -> LogicalResult {
    if (type.getShape() != shape)
      return errors.fail(what, " must be ", formatShape(shape), " for ",
                         directions, " direction(s), ", hidden,
                         " hidden units and ", features,
                         " input features, got ", formatShape(type.getShape()));
    return success();
  };
  if (failed(expect(*recurrence, {directions, 4 * hidden, hidden},
                    "recurrence")) ||
      failed(expect(*weights, {directions, 4 * hidden, features}, "weights")))
    return failure();
  if (Value bias = adaptor.getBias()) {
    FailureOr<RankedTensorType> biasType =
        rankedOperand(errors, bias, "bias", 2);
    if (failed(biasType) ||
        failed(sameElementType(errors, *input, *biasType, "bias")) ||
        failed(expect(*biasType, {directions, 8 * hidden}, "bias")))
      return failure();
  }
  types.push_back(
      resultLike(*input, {input->getDimSize(0), input->getDimSize(1),
                          directions * hidden}));
  return success();
}

core::Workload LstmOp::getWorkload() {
  auto shape = getInput().getType().getShape();
  return core::makeLstmWorkload(
      shape[0], shape[1], shape[2], getRecurrence().getType().getDimSize(2),
      getBidirectional() ? 2 : 1, static_cast<bool>(getBias()),
      elementBytes(getInput().getType()));
}

SmallVector<Value> LstmOp::getParameterOperands() {
  SmallVector<Value> params{getWeights(), getRecurrence()};
  if (getBias())
    params.push_back(getBias());
  return params;
}

int64_t LstmOp::getBatchDim() { return 1; }

//===----------------------------------------------------------------------===//
// Elementwise binary ops
//===----------------------------------------------------------------------===//

// The binary, unary and pooling ops' shared methods (type inference,
// verifier, workload) are defined once in their ODS classes in DsmOps.td
// (`extraClassDefinition`), on the helpers below.

template <typename OpTy>
static LogicalResult inferBinary(std::optional<Location> loc,
                                 typename OpTy::Adaptor adaptor,
                                 SmallVectorImpl<Type> &types) {
  ShapeErrors errors(loc, OpTy::getOperationName());
  FailureOr<RankedTensorType> lhs =
      rankedOperand(errors, adaptor.getLhs(), "lhs");
  FailureOr<RankedTensorType> rhs =
      succeeded(lhs) ? rankedOperand(errors, adaptor.getRhs(), "rhs")
                     : FailureOr<RankedTensorType>(failure());
  if (failed(lhs) || failed(rhs) ||
      failed(sameElementType(errors, *lhs, *rhs, "rhs")))
    return failure();
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes(errors, lhs->getShape(), rhs->getShape());
  if (failed(shape))
    return failure();
  types.push_back(resultLike(*lhs, *shape));
  return success();
}

/// Parameters of a binary or opaque op are the operands that are declared
/// weights.
static SmallVector<Value> weightOperands(Operation *op) {
  SmallVector<Value> params;
  for (Value operand : op->getOperands())
    if (isWeight(operand))
      params.push_back(operand);
  return params;
}

static int64_t weightElements(Operation *op) {
  int64_t total = 0;
  for (Value v : weightOperands(op))
    total += numElements(v.getType());
  return total;
}

/// Whether `value` is computed from the network's inputs (an activation)
/// rather than from weights and constants alone (a position embedding, a
/// scale). Parameter-only subgraphs are small: a search that has visited
/// kParameterSearchBudget operations without exhausting them is looking at
/// an activation's history and stops there. Without that bound every
/// residual add of an N-block chain walks back to the argument: O(N^2) over
/// the model. (The verifier, which runs after every pass, does not ask:
/// AddOp::workloadOverflows; passes over a whole function ask its
/// InputDependence, which walks it once and knows where this search would
/// stop at its bound.)
static constexpr unsigned kParameterSearchBudget = 1024;
static bool dependsOnInputs(Value value) {
  SmallVector<Value> stack{value};
  llvm::SmallPtrSet<Operation *, 16> visited;
  // Sized for the whole budget: an activation's search uses all of it, and
  // growing the set from 16 would rehash it seven times on the way.
  visited.reserve(kParameterSearchBudget + 1);
  while (!stack.empty()) {
    Value v = stack.pop_back_val();
    if (isa<BlockArgument>(v))
      return true;
    Operation *def = v.getDefiningOp();
    if (!def || !visited.insert(def).second)
      continue;
    if (visited.size() > kParameterSearchBudget)
      return true;
    for (Value operand : llvm::reverse(def->getOperands()))
      stack.push_back(operand);
  }
  return false;
}

/// An add of two activations is a residual connection (DeepSpatialMatrix
/// §II-A); one whose other operand is a parameter (or computed from parameters
/// alone) is a bias addition. What `inputs` knows of the function is not
/// searched for.
static core::OpKind classifyAdd(AddOp op,
                                const InputDependence *inputs = nullptr) {
  auto fromInputs = [&](Value value) {
    std::optional<bool> known;
    if (inputs)
      known = inputs->dependsOnInputs(value);
    return known ? *known : dependsOnInputs(value);
  };
  bool residual = fromInputs(op.getLhs()) && fromInputs(op.getRhs());
  return residual ? core::OpKind::ResidualAdd : core::OpKind::BiasAdd;
}

core::Workload AddOp::getWorkloadGiven(const InputDependence &inputs) {
  return elementwiseWorkload(getOperation(), classifyAdd(*this, &inputs),
                             weightElements(getOperation()));
}

/// Whether an add is residual or a bias addition changes none of its counts,
/// so the verifier's question needs no graph search.
bool AddOp::workloadOverflows() {
  return elementwiseWorkload(getOperation(), core::OpKind::BiasAdd,
                             weightElements(getOperation()))
      .overflow;
}

//===----------------------------------------------------------------------===//
// Elementwise unary ops
//===----------------------------------------------------------------------===//

template <typename OpTy>
static LogicalResult inferUnary(std::optional<Location> loc,
                                typename OpTy::Adaptor adaptor,
                                SmallVectorImpl<Type> &types) {
  ShapeErrors errors(loc, OpTy::getOperationName());
  FailureOr<RankedTensorType> input =
      rankedOperand(errors, adaptor.getInput(), "input");
  if (failed(input))
    return failure();
  types.push_back(*input);
  return success();
}

// Graph ops' shapes are verified first, by their VerifiesShapes trait.
LogicalResult ClampOp::verify() {
  if (getMin().convertToDouble() > getMax().convertToDouble())
    return emitOpError("min (")
           << getMin().convertToDouble() << ") must not exceed max ("
           << getMax().convertToDouble() << ")";
  return success();
}

LogicalResult SoftmaxOp::verify() {
  ShapeErrors errors(getLoc(), getOperationName());
  return normalizeAxis(errors, static_cast<int64_t>(getAxis()),
                       getInput().getType().getRank());
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// The batch, channels and spatial sizes of an activation of any spatial
/// rank: channels second (`nchw`, also [N, C, D, H, W]) or last (`nhwc`).
static std::tuple<int64_t, int64_t, SmallVector<int64_t, 3>>
splitActivation(ArrayRef<int64_t> shape, dsm::DataLayout layout) {
  if (layout == dsm::DataLayout::NHWC)
    return {shape.front(), shape.back(),
            SmallVector<int64_t, 3>(shape.drop_front().drop_back())};
  return {shape[0], shape[1], SmallVector<int64_t, 3>(shape.drop_front(2))};
}

/// The activation of batch `n`, `c` channels and `spatial` sizes in `layout`.
static SmallVector<int64_t> joinActivation(int64_t n, int64_t c,
                                           ArrayRef<int64_t> spatial,
                                           dsm::DataLayout layout) {
  SmallVector<int64_t> shape{n};
  if (layout != dsm::DataLayout::NHWC)
    shape.push_back(c);
  shape.append(spatial.begin(), spatial.end());
  if (layout == dsm::DataLayout::NHWC)
    shape.push_back(c);
  return shape;
}

template <typename OpTy>
static LogicalResult inferPool(std::optional<Location> loc,
                               typename OpTy::Adaptor adaptor,
                               SmallVectorImpl<Type> &types) {
  ShapeErrors errors(loc, OpTy::getOperationName());
  ArrayRef<int64_t> kernel = adaptor.getKernel();
  if (kernel.size() != 2 && kernel.size() != 3)
    return errors.fail("kernel must have 2 or 3 values, got ", kernel.size());
  FailureOr<RankedTensorType> input =
      rankedOperand(errors, adaptor.getInput(), "input", kernel.size() + 2);
  if (failed(input))
    return failure();
  dsm::DataLayout layout = adaptor.getDataLayout();
  auto [n, c, spatial] = splitActivation(input->getShape(), layout);
  SmallVector<int64_t, 3> unitDilation(kernel.size(), 1);
  FailureOr<SmallVector<int64_t, 3>> out =
      windowOutput(errors, spatial, kernel, adaptor.getStrides(),
                   adaptor.getPadding(), unitDilation, adaptor.getCeilMode());
  if (failed(out))
    return failure();
  ArrayRef<int64_t> padding = adaptor.getPadding();
  for (size_t i = 0; i < kernel.size(); ++i)
    if (padding[i] * 2 > kernel[i] ||
        padding[i + kernel.size()] * 2 > kernel[i])
      return errors.fail("padding ", formatShape(padding),
                         " must be at most half the kernel ",
                         formatShape(kernel));
  types.push_back(resultLike(*input, joinActivation(n, c, *out, layout)));
  return success();
}

template <typename OpTy>
static core::Workload poolWorkload(OpTy op, core::OpKind kind) {
  auto [n, c, spatial] =
      splitActivation(op.getInput().getType().getShape(), op.getDataLayout());
  (void)spatial;
  int64_t window = 1;
  for (int64_t size : op.getKernel())
    window *= size;
  core::Workload workload = core::makeWindowedWorkload(
      kind, n, c, numElements(op.getResult().getType()),
      numElements(op.getInput().getType()), window,
      elementBytes(op.getInput().getType()));
  // The image's strides (a 3-D window's depth stride only thins the output).
  ArrayRef<int64_t> strides = op.getStrides();
  workload.strideI = strides[strides.size() - 2];
  workload.strideJ = strides.back();
  return workload;
}

LogicalResult GlobalAvgPoolOp::inferReturnTypes(MLIRContext *,
                                                std::optional<Location> loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &types) {
  ShapeErrors errors(loc, getOperationName());
  FailureOr<RankedTensorType> input =
      rankedOperand(errors, adaptor.getInput(), "input", 4);
  if (failed(input))
    return failure();
  dsm::DataLayout layout = adaptor.getDataLayout();
  auto [n, c, h, w] = activationNCHW(input->getShape(), layout);
  (void)h;
  (void)w;
  types.push_back(resultLike(*input, activationShape(n, c, 1, 1, layout)));
  return success();
}

core::Workload GlobalAvgPoolOp::getWorkload() {
  auto [n, c, h, w] =
      activationNCHW(getInput().getType().getShape(), getDataLayout());
  return core::makeWindowedWorkload(core::OpKind::AvgPool, n, c,
                                    numElements(getResult().getType()),
                                    numElements(getInput().getType()), h * w,
                                    elementBytes(getInput().getType()));
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

LogicalResult BatchNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  ShapeErrors errors(loc, getOperationName());
  FailureOr<RankedTensorType> input =
      rankedOperand(errors, adaptor.getInput(), "input");
  if (failed(input))
    return failure();
  if (input->getRank() < 2)
    return errors.fail("input must have rank >= 2, got ", input->getRank());
  FailureOr<int64_t> axis = normalizeAxis(
      errors, adaptor.getAxisAttr() ? adaptor.getAxisAttr().getInt() : 1,
      input->getRank());
  if (failed(axis))
    return failure();
  int64_t channels = input->getDimSize(*axis);
  std::pair<Value, StringRef> vectors[] = {{adaptor.getScale(), "scale"},
                                           {adaptor.getOffset(), "offset"},
                                           {adaptor.getMean(), "mean"},
                                           {adaptor.getVariance(), "variance"}};
  for (auto [value, name] : vectors) {
    FailureOr<RankedTensorType> type = rankedOperand(errors, value, name, 1);
    if (failed(type) || failed(sameElementType(errors, *input, *type, name)))
      return failure();
    if (type->getDimSize(0) != channels)
      return errors.fail(name, " has ", type->getDimSize(0),
                         " elements but the input has ", channels,
                         " channels along axis ", *axis);
  }
  if (adaptor.getEpsilon().convertToDouble() <= 0)
    return errors.fail("epsilon must be positive");
  types.push_back(*input);
  return success();
}

core::Workload BatchNormOp::getWorkload() {
  int64_t channels = numElements(getScale().getType());
  return elementwiseWorkload(getOperation(), core::OpKind::BatchNorm,
                             2 * channels, 2 * channels);
}

SmallVector<Value> BatchNormOp::getParameterOperands() {
  return {getScale(), getOffset()};
}

/// The result type of a normalization of `input` over the dimensions from
/// `axis`, checking that every `parameters` operand has their shape.
static LogicalResult
inferNormalization(const ShapeErrors &errors, Value input, IntegerAttr axisAttr,
                   ArrayRef<std::pair<Value, StringRef>> parameters,
                   APFloat epsilon, SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> inputType = rankedOperand(errors, input, "input");
  if (failed(inputType))
    return failure();
  FailureOr<int64_t> axis = normalizeAxis(
      errors, axisAttr ? axisAttr.getInt() : -1, inputType->getRank());
  if (failed(axis))
    return failure();
  ArrayRef<int64_t> normalized = inputType->getShape().drop_front(*axis);
  for (auto [value, name] : parameters) {
    FailureOr<RankedTensorType> type = rankedOperand(errors, value, name);
    if (failed(type) ||
        failed(sameElementType(errors, *inputType, *type, name)))
      return failure();
    if (type->getShape() != normalized)
      return errors.fail(name, " must have the normalized shape ",
                         formatShape(normalized), ", got ",
                         formatShape(type->getShape()));
  }
  if (epsilon.convertToDouble() <= 0)
    return errors.fail("epsilon must be positive");
  types.push_back(*inputType);
  return success();
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  return inferNormalization(
      ShapeErrors(loc, getOperationName()), adaptor.getInput(),
      adaptor.getAxisAttr(),
      {{adaptor.getScale(), "scale"}, {adaptor.getOffset(), "offset"}},
      adaptor.getEpsilon(), types);
}

core::Workload LayerNormOp::getWorkload() {
  return elementwiseWorkload(getOperation(), core::OpKind::LayerNorm,
                             2 * numElements(getScale().getType()));
}

LogicalResult RmsNormOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  return inferNormalization(ShapeErrors(loc, getOperationName()),
                            adaptor.getInput(), adaptor.getAxisAttr(),
                            {{adaptor.getScale(), "scale"}},
                            adaptor.getEpsilon(), types);
}

core::Workload RmsNormOp::getWorkload() {
  return elementwiseWorkload(getOperation(), core::OpKind::RMSNorm,
                             numElements(getScale().getType()));
}

SmallVector<Value> RmsNormOp::getParameterOperands() { return {getScale()}; }

SmallVector<Value> LayerNormOp::getParameterOperands() {
  return {getScale(), getOffset()};
}

//===----------------------------------------------------------------------===//
// ReduceOp
//===----------------------------------------------------------------------===//

/// The reduced axes, normalized and sorted.
static FailureOr<SmallVector<int64_t>>
reducedAxes(const ShapeErrors &errors, ArrayRef<int64_t> axes, int64_t rank) {
  if (axes.empty())
    return errors.fail("axes must not be empty");
  SmallVector<int64_t> result;
  for (int64_t axis : axes) {
    FailureOr<int64_t> normalized = normalizeAxis(errors, axis, rank);
    if (failed(normalized))
      return failure();
    if (llvm::is_contained(result, *normalized))
      return errors.fail("axis ", axis, " is repeated");
    result.push_back(*normalized);
  }
  llvm::sort(result);
  return result;
}

LogicalResult ReduceOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  ShapeErrors errors(loc, getOperationName());
  FailureOr<RankedTensorType> input =
      rankedOperand(errors, adaptor.getInput(), "input");
  if (failed(input))
    return failure();
  FailureOr<SmallVector<int64_t>> axes =
      reducedAxes(errors, adaptor.getAxes(), input->getRank());
  if (failed(axes))
    return failure();
  SmallVector<int64_t> shape;
  for (auto [index, size] : llvm::enumerate(input->getShape())) {
    if (!llvm::is_contained(*axes, int64_t(index)))
      shape.push_back(size);
    else if (adaptor.getKeepDims())
      shape.push_back(1);
  }
  types.push_back(resultLike(*input, shape));
  return success();
}

core::Workload ReduceOp::getWorkload() {
  int64_t in = numElements(getInput().getType());
  int64_t out = numElements(getResult().getType());
  int64_t batch =
      llvm::is_contained(getAxes(), 0) ? 1 : leadingBatch(getInput().getType());
  return core::makeWindowedWorkload(core::OpKind::Reduction, batch, 1, out, in,
                                    out > 0 ? in / out : 0,
                                    elementBytes(getInput().getType()));
}

//===----------------------------------------------------------------------===//
// EmbeddingOp
//===----------------------------------------------------------------------===//

LogicalResult EmbeddingOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  ShapeErrors errors(loc, getOperationName());
  FailureOr<RankedTensorType> indices =
      rankedOperand(errors, adaptor.getIndices(), "indices");
  FailureOr<RankedTensorType> table =
      succeeded(indices) ? rankedOperand(errors, adaptor.getTable(), "table", 2)
                         : FailureOr<RankedTensorType>(failure());
  if (failed(indices) || failed(table))
    return failure();
  SmallVector<int64_t> shape(indices->getShape());
  shape.push_back(table->getDimSize(1));
  types.push_back(resultLike(*table, shape));
  return success();
}

core::Workload EmbeddingOp::getWorkload() {
  Type result = getResult().getType();
  // Only the gathered rows are read, but the whole table must be stored.
  return core::makeElementwiseWorkload(
      core::OpKind::Embedding, leadingBatch(getIndices().getType()),
      numElements(result), numElements(getIndices().getType()),
      numElements(getTable().getType()), 0, elementBytes(result));
}

SmallVector<Value> EmbeddingOp::getParameterOperands() { return {getTable()}; }

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  ShapeErrors errors(loc, getOperationName());
  if (adaptor.getInputs().empty())
    return errors.fail("needs at least one input");
  FailureOr<RankedTensorType> first =
      rankedOperand(errors, adaptor.getInputs().front(), "input #0");
  if (failed(first))
    return failure();
  FailureOr<int64_t> axis =
      normalizeAxis(errors, adaptor.getAxisAttr().getInt(), first->getRank());
  if (failed(axis))
    return failure();
  // Along another axis, an input of one sample (dimension 0 of size 1: a
  // parameter such as ViT's class token, which the source expands over the
  // batch) is broadcast over the batch of the others.
  SmallVector<int64_t> shape(first->getShape());
  for (auto [index, value] :
       llvm::enumerate(adaptor.getInputs().drop_front())) {
    std::string name = "input #" + std::to_string(index + 1);
    FailureOr<RankedTensorType> type =
        rankedOperand(errors, value, name, first->getRank());
    if (failed(type) || failed(sameElementType(errors, *first, *type, name)))
      return failure();
    for (int64_t d = 0; d < first->getRank(); ++d) {
      if (d == *axis)
        continue;
      int64_t size = type->getDimSize(d);
      if (d == 0 && size != shape[0] && (size == 1 || shape[0] == 1)) {
        shape[0] = std::max(size, shape[0]);
        continue;
      }
      if (size != shape[d])
        return errors.fail(name, " has shape ", formatShape(type->getShape()),
                           ", incompatible with ",
                           formatShape(first->getShape()), " outside axis ",
                           *axis);
    }
    shape[*axis] += type->getDimSize(*axis);
  }
  types.push_back(resultLike(*first, shape));
  return success();
}

SmallVector<Value> ConcatOp::getParameterOperands() {
  return weightOperands(getOperation());
}

core::Workload ConcatOp::getWorkload() {
  // A parameter joined in (ViT's class token) counts as one.
  return elementwiseWorkload(getOperation(), core::OpKind::Concat,
                             weightElements(getOperation()));
}

LogicalResult ReshapeOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  ShapeErrors errors(loc, getOperationName());
  FailureOr<RankedTensorType> input =
      rankedOperand(errors, adaptor.getInput(), "input");
  if (failed(input))
    return failure();
  ArrayRef<int64_t> requested = adaptor.getShape();
  SmallVector<int64_t> shape;
  int64_t inferred = -1;
  int64_t known = 1;
  core::CheckedCount count;
  for (auto [index, entry] : llvm::enumerate(requested)) {
    int64_t size = entry;
    if (size == 0) {
      if (int64_t(index) >= input->getRank())
        return errors.fail("shape entry ", index,
                           " is 0 (copy) but the input has rank ",
                           input->getRank());
      size = input->getDimSize(index);
    } else if (size == -1) {
      if (inferred >= 0)
        return errors.fail("shape ", formatShape(requested),
                           " has more than one -1");
      inferred = index;
    } else if (size < 0) {
      return errors.fail("shape entry ", index, " is ", size,
                         "; entries must be positive, 0 (copy) or -1 (infer)");
    }
    shape.push_back(size);
    if (size != -1)
      known = count.mul(known, size);
  }
  if (count.overflow)
    return errors.fail("shape ", formatShape(requested),
                       " has more elements than 64 bits can count");
  int64_t elements = input->getNumElements();
  if (inferred >= 0) {
    if (known == 0 || elements % known != 0)
      return errors.fail("cannot infer the -1 in ", formatShape(requested),
                         " for ", elements, " elements");
    shape[inferred] = elements / known;
  } else if (known != elements) {
    return errors.fail("shape ", formatShape(shape), " has ", known,
                       " elements but the input ",
                       formatShape(input->getShape()), " has ", elements);
  }
  types.push_back(resultLike(*input, shape));
  return success();
}

core::Workload ReshapeOp::getWorkload() {
  return elementwiseWorkload(getOperation(), core::OpKind::Reshape);
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  ShapeErrors errors(loc, getOperationName());
  FailureOr<RankedTensorType> input =
      rankedOperand(errors, adaptor.getInput(), "input");
  if (failed(input))
    return failure();
  ArrayRef<int64_t> perm = adaptor.getPermutation();
  if (int64_t(perm.size()) != input->getRank())
    return errors.fail("permutation ", formatShape(perm), " must have ",
                       input->getRank(), " entries");
  SmallVector<bool> seen(perm.size(), false);
  SmallVector<int64_t> shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= input->getRank() || seen[p])
      return errors.fail("permutation ", formatShape(perm),
                         " is not a permutation of 0..", input->getRank() - 1);
    seen[p] = true;
    shape.push_back(input->getDimSize(p));
  }
  types.push_back(resultLike(*input, shape));
  return success();
}

core::Workload TransposeOp::getWorkload() {
  return elementwiseWorkload(getOperation(), core::OpKind::Transpose);
}
int64_t TransposeOp::getBatchDim() {
  // Wherever the input's batch dimension went.
  auto perm = getPermutation();
  auto it = llvm::find(perm, 0);
  return it == perm.end() ? 0 : it - perm.begin();
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  ShapeErrors errors(loc, getOperationName());
  FailureOr<RankedTensorType> input =
      rankedOperand(errors, adaptor.getInput(), "input");
  if (failed(input))
    return failure();
  ArrayRef<int64_t> offsets = adaptor.getOffsets(), sizes = adaptor.getSizes();
  if (int64_t(offsets.size()) != input->getRank() ||
      int64_t(sizes.size()) != input->getRank())
    return errors.fail("offsets and sizes must have ", input->getRank(),
                       " entries each");
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < input->getRank(); ++d) {
    int64_t dim = input->getDimSize(d);
    if (offsets[d] < 0 || offsets[d] >= dim)
      return errors.fail("offset ", offsets[d],
                         " is out of range for dimension ", d, " of size ",
                         dim);
    int64_t size = sizes[d] == -1 ? dim - offsets[d] : sizes[d];
    if (size <= 0 || offsets[d] + size > dim)
      return errors.fail("slice [", offsets[d], ", ", offsets[d] + size,
                         ") does not fit dimension ", d, " of size ", dim);
    shape.push_back(size);
  }
  types.push_back(resultLike(*input, shape));
  return success();
}

core::Workload SliceOp::getWorkload() {
  return elementwiseWorkload(getOperation(), core::OpKind::Slice);
}

//===----------------------------------------------------------------------===//
// OpaqueOp
//===----------------------------------------------------------------------===//

/// More special-function operations per element than any importer derives
/// from a region (a reduction's trip count, a loop body) is a typo or an
/// attack: 2^32.
static constexpr double kMaxOpsPerElement = 4294967296.0;

LogicalResult OpaqueOp::verify() {
  // Like every other op: each tensor's size in bytes must count, and the
  // work per element must be a plausible number (NaN and inf are not).
  double ops = getOpsPerElement().convertToDouble();
  if (!(ops >= 0 && ops <= kMaxOpsPerElement)) {
    std::string text;
    llvm::raw_string_ostream(text) << llvm::format("%g", ops);
    return emitOpError("ops_per_element must be a number in [0, 2^32], got ")
           << text;
  }
  ShapeErrors errors(getLoc(), getOperationName());
  for (Value input : getInputs())
    if (cast<RankedTensorType>(input.getType()).hasStaticShape() &&
        failed(rankedOperand(errors, input, "operand")))
      return failure();
  return rankedOperand(errors, getResult(), "result");
}

// An operand an importer declared a dsm.weight (PRelu's slope) is a
// learnable parameter, whatever computes with it.
SmallVector<Value> OpaqueOp::getParameterOperands() {
  return weightOperands(getOperation());
}

core::Workload OpaqueOp::getWorkload() {
  core::Workload w = elementwiseWorkload(getOperation(), core::OpKind::Opaque,
                                         weightElements(getOperation()));
  w.auxOps = getOpsPerElement().convertToDouble() * double(w.outputElements);
  // Counts are 64-bit downstream: a product past 2^62 is refused by the
  // workload verifier.
  if (!(w.auxOps <= 0x1p62))
    w.overflow = true;
  return w;
}

//===----------------------------------------------------------------------===//
// LayerPassOp, TiledPassOp
//===----------------------------------------------------------------------===//

/// Structure shared by the two pass ops: UPD returns one gradient per weight.
template <typename OpTy> static LogicalResult verifyPassStructure(OpTy op) {
  if (op.getPass() == TrainingPass::UPD &&
      op.getResultTypes() != op.getWeights().getTypes())
    return op.emitOpError(
        "an upd pass returns one gradient of each weight's type");
  if (op.getPass() == TrainingPass::FWD && op.getNumResults() == 0)
    return op.emitOpError("a fwd pass produces at least one activation");
  return success();
}

//===----------------------------------------------------------------------===//
// Layer passes: assembly
//===----------------------------------------------------------------------===//
//
//   dsm.tiled_pass "conv1" <fwd> ins(%x) weights(%w) {workload = ...}
//       : (tensor<...>, tensor<...>) -> tensor<...>
//
// What the declarative format `$layer $pass (`ins` `(` $ins^ `)`)?
// (`weights` `(` $weights^ `)`)? attr-dict `:` functional-type(operands,
// results)` reads and writes, written out: its printer asks for the op's
// attribute dictionary, which an op with properties builds afresh for each
// print (every name looked up, the list sorted, the dictionary uniqued), a
// third of printing a 10,000-layer plan. This printer lists the inherent
// attributes under their registered names, in a dictionary's order.

template <typename OpTy>
static ParseResult parsePassOp(OpAsmParser &parser, OperationState &result) {
  StringAttr layer;
  TrainingPassAttr pass;
  if (parser.parseCustomAttributeWithFallback(
          layer, parser.getBuilder().getType<NoneType>()) ||
      parser.parseCustomAttributeWithFallback(pass, Type{}))
    return failure();
  auto &properties = result.getOrAddProperties<typename OpTy::Properties>();
  properties.layer = layer;
  properties.pass = pass;
  // `keyword` `(` operands `)`, if the keyword is there.
  auto parseGroup =
      [&](StringRef keyword,
          SmallVectorImpl<OpAsmParser::UnresolvedOperand> &operands)
      -> ParseResult {
    if (failed(parser.parseOptionalKeyword(keyword)))
      return success();
    return failure(parser.parseLParen() || parser.parseOperandList(operands) ||
                   parser.parseRParen());
  };
  SmallVector<OpAsmParser::UnresolvedOperand, 4> ins, weights;
  if (parseGroup("ins", ins) || parseGroup("weights", weights))
    return failure();
  SMLoc attributesLoc = parser.getCurrentLocation();
  if (parser.parseOptionalAttrDict(result.attributes) ||
      failed(OpTy::verifyInherentAttrs(result.name, result.attributes, [&] {
        return parser.emitError(attributesLoc)
               << "'" << result.name.getStringRef() << "' op ";
      })))
    return failure();
  FunctionType type;
  if (parser.parseColon() || parser.parseType(type))
    return failure();
  properties.operandSegmentSizes = {static_cast<int32_t>(ins.size()),
                                    static_cast<int32_t>(weights.size())};
  result.addTypes(type.getResults());
  return parser.resolveOperands(
      llvm::concat<const OpAsmParser::UnresolvedOperand>(ins, weights),
      type.getInputs(), parser.getNameLoc(), result.operands);
}

template <typename OpTy>
static void printPassOp(OpTy op, OpAsmPrinter &printer) {
  printer << ' ';
  printer.printAttributeWithoutType(op.getLayerAttr());
  printer << ' ';
  printer.printStrippedAttrOrType(op.getPassAttr());
  if (!op.getIns().empty())
    printer << " ins(" << op.getIns() << ")";
  if (!op.getWeights().empty())
    printer << " weights(" << op.getWeights() << ")";
  // The attributes the dictionary shows: every inherent one that is set
  // but those printed before it (and the operand segments, which the
  // groups show), then any discardable ones.
  SmallVector<NamedAttribute, 16> attributes;
  for (StringAttr name : op->getName().getAttributeNames()) {
    if (name == op.getLayerAttrName() || name == op.getPassAttrName() ||
        name == op.getOperandSegmentSizesAttrName())
      continue;
    std::optional<Attribute> value = op->getInherentAttr(name.getValue());
    if (value && *value)
      attributes.emplace_back(name, *value);
  }
  llvm::append_range(attributes, op->getDiscardableAttrs());
  llvm::sort(attributes);
  printer.printOptionalAttrDict(attributes);
  printer << " : ";
  printer.printFunctionalType(op->getOperandTypes(), op->getResultTypes());
}

ParseResult LayerPassOp::parse(OpAsmParser &parser, OperationState &result) {
  return parsePassOp<LayerPassOp>(parser, result);
}
void LayerPassOp::print(OpAsmPrinter &printer) { printPassOp(*this, printer); }
ParseResult TiledPassOp::parse(OpAsmParser &parser, OperationState &result) {
  return parsePassOp<TiledPassOp>(parser, result);
}
void TiledPassOp::print(OpAsmPrinter &printer) { printPassOp(*this, printer); }

LogicalResult WeightOp::verify() {
  // Parameter counts and bytes start from this type: it must be countable.
  ShapeErrors errors(getLoc(), getOperationName());
  return rankedOperand(errors, getResult(), "parameter");
}

/// Checks what a split says about the op alone: no dimension is cut into more
/// parts than it has elements (ChipD then CoreD).
template <typename OpTy>
static LogicalResult verifySplits(OpTy op, SplitAttr chipSplit,
                                  SplitAttr coreSplit) {
  core::LayerShape shape = op.getWorkload().getShape(op.getLayer());
  core::DimSizes chipD = core::splitSizes(shape.dims, getDimSizes(chipSplit));
  for (int d = 0; d < core::kNumDims; ++d) {
    if (chipSplit.getFactor(d) > shape.dims[d])
      return op.emitOpError("splits dimension ")
             << core::stringifyDim(core::Dim(d)) << " of size " << shape.dims[d]
             << " over " << chipSplit.getFactor(d) << " chips";
    if (coreSplit.getFactor(d) > chipD[d])
      return op.emitOpError("splits dimension ")
             << core::stringifyDim(core::Dim(d)) << " of size " << chipD[d]
             << " per chip over " << coreSplit.getFactor(d) << " cores";
  }
  return success();
}

LogicalResult LayerPassOp::verify() {
  if (failed(verifyPassStructure(*this)))
    return failure();
  // The mapping record is all or nothing.
  bool anyMapping = getParallelismAttr() || getChipSplitAttr() ||
                    getCoreSplitAttr() || getArrayAttr() || getCyclesAttr() ||
                    getTransfersAttr() || getAlternativesAttr() ||
                    getMemoryAttr();
  bool fullMapping = getParallelismAttr() && getChipSplitAttr() &&
                     getCoreSplitAttr() && getArrayAttr() && getCyclesAttr();
  if (anyMapping && !fullMapping)
    return emitOpError("has a partial mapping: parallelism, chip_split, "
                       "core_split, array and cycles go together (transfers "
                       "and alternatives may follow)");
  if (fullMapping)
    return verifySplits(*this, getChipSplitAttr(), getCoreSplitAttr());
  return success();
}

core::MappingConfig TiledPassOp::getConfig() {
  core::MappingConfig config;
  config.parallelism = toCore(getParallelism());
  config.chipSplit = getDimSizes(getChipSplit());
  config.coreSplit = getDimSizes(getCoreSplit());
  config.array.rowDim = toCore(getArray().getRows());
  config.array.colDim = toCore(getArray().getColumns());
  config.array.rowTile = getArray().getRowTile();
  config.array.colTile = getArray().getColumnTile();
  if (MemoryDecisionAttr memory = getMemoryAttr())
    config.memory = memory.getDecision();
  if (ChipBlockAttr block = getBlockAttr())
    config.block = {block.getRows(), block.getColumns()};
  return config;
}

LogicalResult TiledPassOp::verify() {
  if (failed(verifyPassStructure(*this)))
    return failure();
  return verifySplits(*this, getChipSplit(), getCoreSplit());
}

//===----------------------------------------------------------------------===//
// TableGen'd definitions
//===----------------------------------------------------------------------===//

#define GET_OP_CLASSES
#include "dsm/Dialect/DsmOps.cpp.inc"
