//===- ImportLinalg.cpp - --dsm-import-linalg -----------------------------===//
//
// Imports linalg on tensors (torch-mlir, IREE, TF dumps) into the dsm dialect.
// Structured ops are recognised by their indexing maps and bodies rather than
// by name, so named ops and the generics front ends emit for them take the
// same path: convolution and pooling windows (linalg::inferConvolutionDims),
// contractions (linalg::inferContractionDims), elementwise bodies (evaluated,
// see dsm/Core/Workload/ElementwiseClass.h) and reductions.
//
//===----------------------------------------------------------------------===//

#include "dsm/Core/Workload/Window.h"
#include "dsm/Import/Importer.h"
#include "dsm/Import/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

#include <numeric>

namespace dsm {
#define GEN_PASS_DEF_DSMIMPORTLINALG
#include "dsm/Import/Passes.h.inc"
} // namespace dsm

using namespace mlir;
using namespace dsm;
using core::ScalarOpcode;

//===----------------------------------------------------------------------===//
// Scalar bodies
//===----------------------------------------------------------------------===//

static std::optional<ScalarOpcode> comparison(arith::CmpFPredicate p) {
  using P = arith::CmpFPredicate;
  switch (p) {
  case P::OGT:
  case P::UGT:
    return ScalarOpcode::CmpGT;
  case P::OGE:
  case P::UGE:
    return ScalarOpcode::CmpGE;
  case P::OLT:
  case P::ULT:
    return ScalarOpcode::CmpLT;
  case P::OLE:
  case P::ULE:
    return ScalarOpcode::CmpLE;
  case P::OEQ:
  case P::UEQ:
    return ScalarOpcode::CmpEQ;
  case P::ONE:
  case P::UNE:
    return ScalarOpcode::CmpNE;
  default:
    return std::nullopt;
  }
}

static std::optional<ScalarOpcode> comparison(arith::CmpIPredicate p) {
  using P = arith::CmpIPredicate;
  switch (p) {
  case P::sgt:
  case P::ugt:
    return ScalarOpcode::CmpGT;
  case P::sge:
  case P::uge:
    return ScalarOpcode::CmpGE;
  case P::slt:
  case P::ult:
    return ScalarOpcode::CmpLT;
  case P::sle:
  case P::ule:
    return ScalarOpcode::CmpLE;
  case P::eq:
    return ScalarOpcode::CmpEQ;
  case P::ne:
    return ScalarOpcode::CmpNE;
  }
  return std::nullopt;
}

/// The scalar opcode of a body operation (Unknown if not modelled).
static ScalarOpcode opcodeOf(Operation *op) {
  using O = ScalarOpcode;
  if (isa<arith::AddFOp, arith::AddIOp>(op))
    return O::Add;
  if (isa<arith::SubFOp, arith::SubIOp>(op))
    return O::Sub;
  if (isa<arith::MulFOp, arith::MulIOp>(op))
    return O::Mul;
  if (isa<arith::DivFOp, arith::DivSIOp, arith::DivUIOp>(op))
    return O::Div;
  if (isa<arith::MaximumFOp, arith::MaxNumFOp, arith::MaxSIOp, arith::MaxUIOp>(
          op))
    return O::Max;
  if (isa<arith::MinimumFOp, arith::MinNumFOp, arith::MinSIOp, arith::MinUIOp>(
          op))
    return O::Min;
  if (isa<arith::NegFOp>(op))
    return O::Neg;
  if (isa<arith::SelectOp>(op))
    return O::Select;
  if (auto cmp = dyn_cast<arith::CmpFOp>(op))
    return comparison(cmp.getPredicate()).value_or(O::Unknown);
  if (auto cmp = dyn_cast<arith::CmpIOp>(op))
    return comparison(cmp.getPredicate()).value_or(O::Unknown);
  if (auto trunc = dyn_cast<arith::TruncFOp>(op))
    return trunc.getType().isF32() ? O::TruncateToF32 : O::Convert;
  if (isa<arith::ExtFOp, arith::SIToFPOp, arith::UIToFPOp, arith::FPToSIOp,
          arith::FPToUIOp, arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp,
          arith::IndexCastOp>(op))
    return O::Convert;
  if (isa<math::ExpOp>(op))
    return O::Exp;
  if (isa<math::LogOp>(op))
    return O::Log;
  if (isa<math::SqrtOp>(op))
    return O::Sqrt;
  if (isa<math::RsqrtOp>(op))
    return O::Rsqrt;
  if (isa<math::TanhOp>(op))
    return O::Tanh;
  if (isa<math::ErfOp>(op))
    return O::Erf;
  if (isa<math::AbsFOp, math::AbsIOp>(op))
    return O::Abs;
  if (isa<math::PowFOp>(op))
    return O::Pow;
  if (isa<math::FloorOp>(op))
    return O::Floor;
  if (isa<math::CeilOp>(op))
    return O::Ceil;
  if (isa<math::RoundOp, math::RoundEvenOp>(op))
    return O::Round;
  return O::Unknown;
}

namespace {
/// The body of a structured op as a scalar function. Block arguments become
/// inputs (numbered in `arguments`), scalars captured from outside must be
/// constants.
struct BodyFunction {
  core::ScalarFunction function;
  /// Function input i is block argument arguments[i].
  SmallVector<unsigned> arguments;
};
} // namespace

static std::optional<BodyFunction>
buildBodyFunction(linalg::LinalgOp op,
                  function_ref<std::optional<double>(Value)> scalarConstant) {
  Block *block = op.getBlock();
  if (!block)
    return std::nullopt;
  BodyFunction body;
  DenseMap<Value, int> nodes;
  auto lookup = [&](Value value) -> std::optional<int> {
    auto it = nodes.find(value);
    if (it != nodes.end())
      return it->second;
    if (auto arg = dyn_cast<BlockArgument>(value);
        arg && arg.getOwner() == block) {
      unsigned index = body.arguments.size();
      body.arguments.push_back(arg.getArgNumber());
      int node = body.function.input(index);
      nodes[value] = node;
      return node;
    }
    // Captured from outside: a constant scalar.
    if (std::optional<double> constant = scalarConstant(value)) {
      int node = body.function.constant(*constant);
      nodes[value] = node;
      return node;
    }
    return std::nullopt;
  };
  for (Operation &inner : *block) {
    if (inner.hasTrait<OpTrait::IsTerminator>()) {
      if (inner.getNumOperands() != 1)
        return std::nullopt;
      std::optional<int> result = lookup(inner.getOperand(0));
      if (!result)
        return std::nullopt;
      body.function.setResult(*result);
      return body;
    }
    if (inner.getNumResults() != 1 || inner.getNumRegions() != 0)
      return std::nullopt;
    Attribute attr;
    if (matchPattern(inner.getResult(0), m_Constant(&attr))) {
      std::optional<double> constant = scalarConstant(inner.getResult(0));
      if (!constant)
        return std::nullopt;
      nodes[inner.getResult(0)] = body.function.constant(*constant);
      continue;
    }
    SmallVector<int, 3> args;
    for (Value operand : inner.getOperands()) {
      std::optional<int> node = lookup(operand);
      if (!node)
        return std::nullopt;
      args.push_back(*node);
    }
    ScalarOpcode opcode = opcodeOf(&inner);
    nodes[inner.getResult(0)] =
        body.function.operation(opcode, args, inner.getName().getStringRef());
  }
  return std::nullopt;
}

/// Whether the body of a reduction (block argument 0 the input, 1 the
/// accumulator) adds the square of its input to the accumulator.
static bool isSumOfSquares(const BodyFunction &body) {
  auto input = llvm::find(body.arguments, 0u);
  auto accumulator = llvm::find(body.arguments, 1u);
  if (body.arguments.size() != 2 || input == body.arguments.end() ||
      accumulator == body.arguments.end())
    return false;
  unsigned inputs[] = {unsigned(input - body.arguments.begin()),
                       unsigned(accumulator - body.arguments.begin())};
  return core::agreesWith(body.function, inputs, [](ArrayRef<double> v) {
    return v[0] * v[0] + v[1];
  });
}

//===----------------------------------------------------------------------===//
// Indexing helpers
//===----------------------------------------------------------------------===//

/// Whether every iterator of `op` is parallel.
static bool allParallel(linalg::LinalgOp op) {
  return op.getNumLoops() == op.getNumParallelLoops();
}

/// `map` with each constant-0 result at position j replaced by d_j when the
/// operand's dimension j and loop j both have size 1 (torch-mlir writes a
/// unit batch as `(0, d1, d2, d3)`), so that it compares equal to identity.
static AffineMap normalizeMap(AffineMap map, ArrayRef<int64_t> operandShape,
                              ArrayRef<int64_t> loopRanges) {
  SmallVector<AffineExpr> results(map.getResults());
  bool changed = false;
  for (auto [j, expr] : llvm::enumerate(results)) {
    auto constant = dyn_cast<AffineConstantExpr>(expr);
    if (!constant || constant.getValue() != 0 || j >= operandShape.size() ||
        operandShape[j] != 1 || j >= map.getNumDims() ||
        j >= loopRanges.size() || loopRanges[j] != 1 || map.isFunctionOfDim(j))
      continue;
    expr = getAffineDimExpr(j, map.getContext());
    changed = true;
  }
  return changed ? AffineMap::get(map.getNumDims(), map.getNumSymbols(),
                                  results, map.getContext())
                 : map;
}

static ArrayRef<int64_t> shapeOf(Value value) {
  if (auto type = dyn_cast<ShapedType>(value.getType()))
    return type.getShape();
  return {};
}

/// The loop dimension at each position of `map` (-1 for a constant 0, which
/// must index a unit dimension), or none for other expressions.
static std::optional<SmallVector<int64_t>> dimsOf(AffineMap map) {
  SmallVector<int64_t> dims;
  for (AffineExpr expr : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      dims.push_back(dim.getPosition());
      continue;
    }
    auto constant = dyn_cast<AffineConstantExpr>(expr);
    if (!constant || constant.getValue() != 0)
      return std::nullopt;
    dims.push_back(-1);
  }
  return dims;
}

/// The tensor.extract a structured op's body yields (a gather), or null.
static tensor::ExtractOp getGather(linalg::LinalgOp op) {
  Block *block = op.getBlock();
  if (!block || block->getTerminator()->getNumOperands() != 1)
    return nullptr;
  auto extract =
      block->getTerminator()->getOperand(0).getDefiningOp<tensor::ExtractOp>();
  return extract && extract->getBlock() == block ? extract : nullptr;
}

//===----------------------------------------------------------------------===//
// LinalgImporter
//===----------------------------------------------------------------------===//

namespace {
class LinalgImporter : public Importer {
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
  double estimateOpsPerElement(Operation *op) override;
  SmallVector<Value> getOpaqueInputs(Operation *op) override;

private:
  FailureOr<bool> importWindow(linalg::LinalgOp op);
  /// importWindow's pieces: a window op's structure (Window), read in
  /// order; the readers return false once they have rejected the op.
  struct Window;
  bool classifyWindowBody(linalg::LinalgOp op, Window &w);
  bool readWindowLoops(Window &w);
  bool readWindowLayout(Window &w);
  void foldWindowPad(Window &w);
  FailureOr<Value> windowActivation(const Window &w, Value value);
  FailureOr<Value> restoreWindowResult(const Window &w, Value result);
  FailureOr<bool> importWindowPool(linalg::LinalgOp op, Window &w,
                                   Value activation);
  FailureOr<bool> importWindowConv(linalg::LinalgOp op, Window &w,
                                   Value activation, Type elementType);
  /// Writes a window over `activation` (`padding` [top, left, bottom,
  /// right] folded from a pad) so that the dsm op's shape rule gives the
  /// `declared` [H, W] the linalg op iterates over, which may be less than
  /// the padded input allows: changes the high padding, sets `ceilMode`
  /// (pooling) or slices off an input tail no window reads. Returns false
  /// when no attributes give the declared extents.
  FailureOr<bool>
  fitWindow(Location loc, Value &activation, dsm::DataLayout layout,
            ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
            ArrayRef<int64_t> dilations, ArrayRef<int64_t> declared,
            SmallVectorImpl<int64_t> &padding, bool &ceilMode, bool pooling);
  FailureOr<bool> importContraction(linalg::LinalgOp op);
  /// How a convolution's accumulator starts: a bias (a broadcast
  /// per-channel constant as the init, or the single consumer adding one to
  /// a zero-initialised result), or an init added afterwards.
  struct ConvInit {
    Value biasWeight, addend;
    Operation *biasAdd = nullptr;
  };
  FailureOr<ConvInit> getConvInit(Value init, Value result, int64_t outChannels,
                                  int64_t channelPosition, Type elementType);
  /// Maps `op`'s result to the imported convolution `result` (plus the
  /// init's addend) and records what `op`, the pad folded into it and the
  /// bias add folded into it became.
  /// `result` plus the activation `addend` (a product accumulating into a
  /// tensor that is not zero).
  FailureOr<Value> addAccumulator(Location loc, Type expected, Value result,
                                  Value addend);
  FailureOr<bool> finishConv(Operation *op, Value result, const ConvInit &init,
                             Type expected, Operation *foldedPad,
                             StringRef dsmOp);
  /// `linalg.conv_3d_ncdhw_fcdhw` and `conv_3d_ndhwc_dhwcf` (the named 3-D
  /// convolutions front ends emit) as dsm.conv3d, with a preceding zero pad
  /// of the spatial dimensions folded and a per-channel init as the bias.
  FailureOr<bool> importConv3D(linalg::LinalgOp op);
  /// A gather `op` whose body yields `extract`: torch-mlir's aten.embedding,
  /// table[index_cast(id), linalg.index(last)] of a constant [V, D] table.
  FailureOr<bool> importEmbedding(linalg::LinalgOp op,
                                  tensor::ExtractOp extract);

  /// Transposes and reshapes `value`, whose positions index the loops
  /// `dims` (-1: unit), into one dimension per group of loops, in order.
  FailureOr<Value> arrange(Location loc, Value value, ArrayRef<int64_t> dims,
                           ArrayRef<SmallVector<int64_t>> groups);
  /// The per-channel constant a broadcast init holds: a constant of
  /// `channels` elements broadcast along `channelPosition`. Null otherwise.
  Value getBiasConstant(Value value, int64_t channels, int64_t channelPosition);
  /// A bias folded from the single consumer of `result` that adds a
  /// per-channel constant along position `channelPosition`; that consumer is
  /// returned for claiming.
  std::pair<Value, Operation *> getFollowingBias(Value result, int64_t channels,
                                                 int64_t channelPosition);
  /// Whether `op` only moves data: its body yields its single input.
  bool isDataMovement(linalg::LinalgOp op);
  /// Checks that `value` has the static dimensions of `expected`.
  LogicalResult checkShape(Location loc, Value value, Type expected);
};
} // namespace

//===----------------------------------------------------------------------===//
// Lazy producers
//===----------------------------------------------------------------------===//

bool LinalgImporter::isDataMovement(linalg::LinalgOp op) {
  if (!allParallel(op) || op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1)
    return false;
  if (isa<linalg::TransposeOp, linalg::BroadcastOp, linalg::CopyOp>(op))
    return true;
  Block *block = op.getBlock();
  if (!block || block->getOperations().size() != 1)
    return false;
  auto yield = block->getTerminator();
  return yield->getNumOperands() == 1 &&
         yield->getOperand(0) == block->getArgument(0) &&
         isa<RankedTensorType>(op.getDpsInputOperand(0)->get().getType());
}

bool LinalgImporter::isLazy(Operation *op) {
  // On buffers a fill or a copy writes memory: it is work, charged opaque.
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
      linalgOp && !linalgOp.hasPureTensorSemantics())
    return false;
  if (op->hasTrait<OpTrait::ConstantLike>() ||
      isa<ml_program::GlobalLoadConstOp, tensor::EmptyOp, tensor::PadOp,
          tensor::CollapseShapeOp, tensor::ExpandShapeOp, tensor::ReshapeOp,
          tensor::CastOp, tensor::ExtractSliceOp, tensor::ConcatOp,
          tensor::InsertSliceOp, linalg::FillOp>(op))
    return true;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || op->getNumResults() != 1)
    return false;
  if (isDataMovement(linalgOp))
    return true;
  // Computed from constants only (sitofp of a filled scalar tensor).
  return isConstantExpression(op);
}

Value LinalgImporter::getViewSource(Operation *op) {
  if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp, tensor::ReshapeOp,
          tensor::CastOp>(op))
    return op->getOperand(0);
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !isDataMovement(linalgOp) || isa<linalg::BroadcastOp>(op))
    return nullptr;
  // A copy or transpose (every loop indexes the input): the same elements.
  AffineMap in = linalgOp.getIndexingMapsArray()[0];
  if (!in.isPermutation())
    return nullptr;
  return linalgOp.getDpsInputOperand(0)->get();
}

FailureOr<Value> LinalgImporter::materialize(OpResult result) {
  Operation *op = result.getOwner();
  Location loc = op->getLoc();
  auto activation = [&](Value value) { return getActivation(value); };

  // Constants: a weight, or (splat) a tensor of one value used as data.
  if (op->hasTrait<OpTrait::ConstantLike>() ||
      isa<ml_program::GlobalLoadConstOp>(op))
    return materializeConstant(result);
  if (isa<tensor::EmptyOp>(op))
    return keepDataMovement(result, {}, "uninitialized tensor used as data");
  if (auto pad = dyn_cast<tensor::PadOp>(op)) {
    FailureOr<Value> source = activation(pad.getSource());
    if (failed(source))
      return failure();
    return keepDataMovement(result, {*source},
                            "padding not folded into a convolution or pooling");
  }
  if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp, tensor::ReshapeOp,
          tensor::CastOp>(op)) {
    FailureOr<Value> source = activation(op->getOperand(0));
    if (failed(source))
      return failure();
    auto in = cast<RankedTensorType>(source->getType());
    auto out = cast<RankedTensorType>(result.getType());
    SmallVector<int64_t> shape(out.getShape());
    if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op)) {
      shape.clear();
      for (const ReassociationIndices &group :
           collapse.getReassociationIndices()) {
        int64_t size = 1;
        for (int64_t d : group)
          size *= in.getDimSize(d);
        shape.push_back(size);
      }
    } else if (!out.hasStaticShape()) {
      // Only one dynamic dimension: it takes the remaining elements.
      int64_t known = 1, dynamic = 0;
      for (int64_t d : shape)
        if (ShapedType::isDynamic(d))
          ++dynamic;
        else
          known *= d;
      if (dynamic != 1 || known == 0)
        return emitError(loc) << "cannot import a reshape to " << out;
      for (int64_t &d : shape)
        if (ShapedType::isDynamic(d))
          d = in.getNumElements() / known;
    }
    if (in.getShape() == ArrayRef(shape))
      setOutcome(op, Outcome::Dropped, "pass-through");
    else
      setImported(op, ReshapeOp::getOperationName());
    return reshape(loc, *source, shape);
  }
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
    FailureOr<Value> source = activation(slice.getSource());
    if (failed(source))
      return failure();
    auto in = cast<RankedTensorType>(source->getType());
    if (!llvm::all_of(slice.getStaticStrides(),
                      [](int64_t s) { return s == 1; }) ||
        ShapedType::isDynamicShape(slice.getStaticOffsets()))
      return keepDataMovement(result, {*source}, "strided or dynamic slice");
    SmallVector<int64_t> offsets(slice.getStaticOffsets());
    SmallVector<int64_t> sizes(slice.getStaticSizes());
    SmallVector<int64_t> full;
    for (auto [d, size] : llvm::enumerate(sizes)) {
      // A dynamic size only follows the batch (dimension 0, fixed by the
      // batch option); a runtime length (a KV cache read up to the current
      // position) has no static workload.
      if (ShapedType::isDynamic(size) && d != 0)
        return emitError(loc)
               << "cannot import a slice of dynamic size along dimension " << d
               << " (of " << slice.getSourceType().getDimSize(d)
               << "): dsm needs static shapes; import the graph specialized "
                  "to one length (a decode step at a given position)";
      if (ShapedType::isDynamic(size))
        size = in.getDimSize(d) - offsets[d];
      full.push_back(size);
      // A slice over the whole batch stays re-batchable.
      if (d == 0 && offsets[d] == 0 && size == in.getDimSize(0))
        size = -1;
    }
    FailureOr<SliceOp> sliced = create<SliceOp>(
        loc, Type(), *source, builder.getDenseI64ArrayAttr(offsets),
        builder.getDenseI64ArrayAttr(sizes));
    if (failed(sliced))
      return failure();
    setImported(op, SliceOp::getOperationName());
    auto want = cast<RankedTensorType>(result.getType());
    if (want.getRank() == int64_t(full.size()))
      return sliced->getResult();
    // Rank-reducing: drop the unit dimensions.
    SmallVector<int64_t> shape;
    llvm::SmallBitVector dropped = slice.getDroppedDims();
    for (auto [d, size] : llvm::enumerate(full))
      if (!dropped.test(d))
        shape.push_back(size);
    return reshape(loc, sliced->getResult(), shape);
  }
  if (auto concat = dyn_cast<tensor::ConcatOp>(op)) {
    FailureOr<SmallVector<Value>> inputs = getActivations(concat.getInputs());
    if (failed(inputs))
      return failure();
    FailureOr<ConcatOp> joined =
        create<ConcatOp>(loc, result.getType(), *inputs,
                         builder.getI64IntegerAttr(concat.getDim()));
    if (failed(joined))
      return failure();
    setImported(op, ConcatOp::getOperationName());
    return joined->getResult();
  }
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(op)) {
    // A chain of insertions into an empty tensor that tiles it along one
    // axis is a concatenation.
    SmallVector<tensor::InsertSliceOp> chain;
    Value dest = insert.getResult();
    while (auto step = dest.getDefiningOp<tensor::InsertSliceOp>()) {
      chain.push_back(step);
      dest = step.getDest();
    }
    auto destType = cast<RankedTensorType>(result.getType());
    std::optional<int64_t> axis;
    SmallVector<std::pair<int64_t, Value>> pieces;
    bool tiles = dest.getDefiningOp<tensor::EmptyOp>() ||
                 getSplatValue(dest).has_value();
    for (tensor::InsertSliceOp step : chain) {
      auto sourceType = cast<RankedTensorType>(step.getSourceType());
      if (!tiles || ShapedType::isDynamicShape(step.getStaticOffsets()) ||
          sourceType.getRank() != destType.getRank() ||
          !llvm::all_of(step.getStaticStrides(),
                        [](int64_t s) { return s == 1; })) {
        tiles = false;
        break;
      }
      for (int64_t d = 0; d < destType.getRank(); ++d) {
        if (sourceType.getDimSize(d) == destType.getDimSize(d) &&
            step.getStaticOffsets()[d] == 0)
          continue;
        if (axis && *axis != d)
          tiles = false;
        axis = d;
      }
      pieces.push_back(
          {axis ? step.getStaticOffsets()[*axis] : 0, step.getSource()});
    }
    if (tiles && axis) {
      llvm::sort(pieces, [](auto &a, auto &b) { return a.first < b.first; });
      int64_t offset = 0;
      SmallVector<Value> inputs;
      for (auto [start, piece] : pieces) {
        if (start != offset) {
          tiles = false;
          break;
        }
        offset += cast<RankedTensorType>(piece.getType()).getDimSize(*axis);
        FailureOr<Value> value = activation(piece);
        if (failed(value))
          return failure();
        inputs.push_back(*value);
      }
      if (tiles && offset == destType.getDimSize(*axis)) {
        for (tensor::InsertSliceOp step : chain)
          setOutcome(step, Outcome::Fused, "into dsm.concat");
        FailureOr<ConcatOp> joined = create<ConcatOp>(
            loc, result.getType(), inputs, builder.getI64IntegerAttr(*axis));
        if (failed(joined))
          return failure();
        setImported(op, ConcatOp::getOperationName());
        return joined->getResult();
      }
    }
    FailureOr<Value> source = activation(insert.getSource());
    FailureOr<Value> into = succeeded(source) ? activation(insert.getDest())
                                              : FailureOr<Value>(failure());
    if (failed(into))
      return failure();
    return keepDataMovement(result, {*into, *source},
                            "insertion that is not a concatenation");
  }
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    if (!isDataMovement(linalgOp))
      return materializeConstantExpression(result);
    Value input = linalgOp.getDpsInputOperand(0)->get();
    FailureOr<Value> source = activation(input);
    if (failed(source))
      return failure();
    SmallVector<AffineMap> maps = linalgOp.getIndexingMapsArray();
    AffineMap in = maps[0], out = maps[1];
    if (!out.isIdentity() || !in.isPermutation())
      return keepDataMovement(result, {*source}, "broadcast (data movement)");
    if (in.isIdentity()) {
      setOutcome(op, Outcome::Dropped, "pass-through");
      return *source;
    }
    // Result dimension i (loop i) is input dimension j where in[j] = d_i.
    SmallVector<int64_t> permutation(in.getNumResults());
    for (auto [j, expr] : llvm::enumerate(in.getResults()))
      permutation[cast<AffineDimExpr>(expr).getPosition()] = j;
    setImported(op, TransposeOp::getOperationName());
    return transpose(loc, *source, permutation);
  }
  return emitError(loc) << "internal error: cannot materialize '"
                        << op->getName() << "'";
}

//===----------------------------------------------------------------------===//
// Elementwise views
//===----------------------------------------------------------------------===//

std::optional<ElementwiseView> LinalgImporter::getElementwise(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !allParallel(linalgOp) || linalgOp.getNumDpsInits() != 1 ||
      op->getNumResults() != 1)
    return std::nullopt;
  SmallVector<AffineMap> maps = linalgOp.getIndexingMapsArray();
  SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
  OpOperand *init = linalgOp.getDpsInitOperand(0);
  AffineMap outMap = normalizeMap(maps[init->getOperandNumber()],
                                  shapeOf(init->get()), ranges);
  if (!outMap.isIdentity())
    return std::nullopt;
  std::optional<BodyFunction> body = buildBodyFunction(
      linalgOp, [&](Value v) { return getScalarConstant(v); });
  if (!body)
    return std::nullopt;
  ElementwiseView view;
  view.op = op;
  view.function = std::move(body->function);
  for (unsigned argument : body->arguments) {
    OpOperand &operand = op->getOpOperand(argument);
    if (!isa<RankedTensorType>(operand.get().getType())) {
      // A scalar input: bind it if it is a constant.
      std::optional<double> constant = getScalarConstant(operand.get());
      if (!constant)
        return std::nullopt;
      view.function.bind(view.operands.size(), *constant);
      view.operands.push_back({operand.get(), AffineMap()});
      continue;
    }
    AffineMap map = normalizeMap(maps[operand.getOperandNumber()],
                                 shapeOf(operand.get()), ranges);
    Value value = operand.get();
    // Read through broadcasts, transposes and copies: index their input.
    for (int depth = 0; depth < 4; ++depth) {
      auto producer = value.getDefiningOp<linalg::LinalgOp>();
      if (!producer || !isDataMovement(producer))
        break;
      SmallVector<AffineMap> producerMaps = producer.getIndexingMapsArray();
      if (!producerMaps[1].isIdentity() ||
          producerMaps[1].getNumDims() != map.getNumResults())
        break;
      map = producerMaps[0].compose(map);
      value = producer.getDpsInputOperand(0)->get();
    }
    view.operands.push_back({value, map});
  }
  return view;
}

std::optional<SmallVector<ViewOperand>>
LinalgImporter::retarget(const ElementwiseView &producer,
                         const ElementwiseView &consumer, unsigned index) {
  AffineMap link = consumer.operands[index].map;
  auto linalgProducer = cast<linalg::LinalgOp>(producer.op);
  if (!link || link.getNumResults() != linalgProducer.getNumLoops())
    return std::nullopt;
  SmallVector<ViewOperand> operands;
  for (const ViewOperand &operand : producer.operands) {
    if (!operand.map) {
      operands.push_back(operand);
      continue;
    }
    operands.push_back({operand.value, operand.map.compose(link)});
  }
  return operands;
}

bool LinalgImporter::isFullSize(const ElementwiseView &view, unsigned index) {
  AffineMap map = view.operands[index].map;
  return map && map.isIdentity();
}

SmallVector<int64_t>
LinalgImporter::getAlignedShape(const ElementwiseView &view, unsigned index) {
  const ViewOperand &operand = view.operands[index];
  auto linalgOp = cast<linalg::LinalgOp>(view.op);
  unsigned loops = linalgOp.getNumLoops();
  SmallVector<int64_t> aligned(loops, 1);
  ArrayRef<int64_t> shape = shapeOf(operand.value);
  if (!operand.map)
    return aligned;
  for (auto [j, expr] : llvm::enumerate(operand.map.getResults()))
    if (auto dim = dyn_cast<AffineDimExpr>(expr); dim && j < shape.size())
      aligned[dim.getPosition()] = shape[j];
  return aligned;
}

FailureOr<Value> LinalgImporter::getViewOperand(const ElementwiseView &view,
                                                unsigned index,
                                                Type elementType,
                                                StringRef role) {
  const ViewOperand &operand = view.operands[index];
  Location loc = view.op->getLoc();
  // Integer constants (a mask, positions) are data, never parameters.
  if (getConstantRoot(operand.value) && !isIntegerData(operand.value)) {
    SmallVector<int64_t> aligned = getAlignedShape(view, index);
    // Leading unit dimensions are implied by broadcasting.
    ArrayRef<int64_t> shape(aligned);
    while (shape.size() > 1 && shape.front() == 1)
      shape = shape.drop_front();
    return getWeight(operand.value, shape,
                     elementType ? elementType
                                 : getDsmElementType(operand.value.getType()),
                     role);
  }
  FailureOr<Value> value = getActivation(operand.value);
  if (failed(value))
    return failure();
  if (!operand.map)
    return emitError(loc) << "internal error: scalar operand as a tensor";
  std::optional<SmallVector<int64_t>> dims = dimsOf(operand.map);
  if (!dims) {
    std::string text;
    llvm::raw_string_ostream os(text);
    operand.map.print(os);
    return emitError(loc) << "cannot import the operand indexing " << text;
  }
  // Bring the indexed dimensions into loop order, then insert unit
  // dimensions for the loops the operand does not vary along.
  unsigned loops = cast<linalg::LinalgOp>(view.op).getNumLoops();
  SmallVector<SmallVector<int64_t>> groups;
  for (unsigned loop = 0; loop < loops; ++loop)
    groups.push_back(llvm::is_contained(*dims, int64_t(loop))
                         ? SmallVector<int64_t>{int64_t(loop)}
                         : SmallVector<int64_t>{});
  // Leading groups the operand does not have are left to broadcasting.
  while (groups.size() > 1 && groups.front().empty())
    groups.erase(groups.begin());
  return arrange(loc, *value, *dims, groups);
}

FailureOr<Value>
LinalgImporter::arrange(Location loc, Value value, ArrayRef<int64_t> dims,
                        ArrayRef<SmallVector<int64_t>> groups) {
  SmallVector<int64_t> permutation;
  for (const SmallVector<int64_t> &group : groups)
    for (int64_t loop : group) {
      auto it = llvm::find(dims, loop);
      if (it == dims.end())
        return emitError(loc) << "internal error: loop d" << loop
                              << " does not index the operand";
      permutation.push_back(it - dims.begin());
    }
  for (auto [position, loop] : llvm::enumerate(dims))
    if (loop < 0)
      permutation.push_back(position);
  if (permutation.size() != dims.size())
    return emitError(loc) << "cannot import an operand indexed twice by a loop";
  FailureOr<Value> transposed = transpose(loc, value, permutation);
  if (failed(transposed))
    return failure();
  auto type = cast<RankedTensorType>(transposed->getType());
  SmallVector<int64_t> shape;
  int64_t position = 0;
  for (const SmallVector<int64_t> &group : groups) {
    int64_t size = 1;
    for (size_t k = 0; k < group.size(); ++k)
      size *= type.getDimSize(position++);
    shape.push_back(size);
  }
  return reshape(loc, *transposed, shape);
}

std::optional<ReduceView> LinalgImporter::getReduce(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || allParallel(linalgOp) || linalgOp.getNumDpsInputs() != 1 ||
      linalgOp.getNumDpsInits() != 1 || op->getNumResults() != 1)
    return std::nullopt;
  Value input = linalgOp.getDpsInputOperand(0)->get();
  if (!isa<RankedTensorType>(input.getType()))
    return std::nullopt;
  SmallVector<AffineMap> maps = linalgOp.getIndexingMapsArray();
  SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
  // The input reads every loop once, in any order (TF's NHWC global pool
  // iterates (n, c, h, w) over an [N, H, W, C] input): input dimension i is
  // loop loopOf[i].
  AffineMap in = normalizeMap(maps[0], shapeOf(input), ranges);
  if (!in.isPermutation())
    return std::nullopt;
  SmallVector<int64_t> loopOf;
  for (AffineExpr expr : in.getResults())
    loopOf.push_back(cast<AffineDimExpr>(expr).getPosition());
  OpOperand *init = linalgOp.getDpsInitOperand(0);
  AffineMap out = maps[init->getOperandNumber()];
  std::optional<SmallVector<int64_t>> outDims = dimsOf(out);
  if (!outDims)
    return std::nullopt;
  ReduceView view;
  view.input = input;
  SmallVector<utils::IteratorType> iterators = linalgOp.getIteratorTypesArray();
  auto reduced = [&](int64_t loop) {
    return iterators[loop] == utils::IteratorType::reduction;
  };
  // The axes are input dimensions; the parallel loops in the input's order.
  SmallVector<int64_t> parallel;
  for (auto [dim, loop] : llvm::enumerate(loopOf)) {
    if (reduced(loop))
      view.axes.push_back(dim);
    else
      parallel.push_back(loop);
  }
  // The result lists the parallel loops in the input's order (dsm.reduce
  // does not permute), with the reduced ones as unit dimensions (kept, where
  // the input has them) or absent.
  view.keepDims = out.getNumResults() == in.getNumResults();
  if (view.keepDims) {
    for (auto [dim, loop] : llvm::enumerate(loopOf))
      if ((*outDims)[dim] != (reduced(loop) ? -1 : loop))
        return std::nullopt;
  } else if (ArrayRef<int64_t>(*outDims) != ArrayRef<int64_t>(parallel)) {
    return std::nullopt;
  }
  // The body combines the input with the accumulator.
  std::optional<BodyFunction> body = buildBodyFunction(
      linalgOp, [&](Value v) { return getScalarConstant(v); });
  if (!body || body->arguments.size() != 2)
    return std::nullopt;
  core::ElementwiseClass c = core::classifyElementwise(body->function);
  if (c.kind == core::ElementwiseKind::Add) {
    view.kind = ReduceKind::Sum;
  } else if (c.kind == core::ElementwiseKind::Max) {
    view.kind = ReduceKind::Max;
  } else if (c.kind == core::ElementwiseKind::Min) {
    view.kind = ReduceKind::Min;
  } else if (isSumOfSquares(*body)) {
    view.kind = ReduceKind::Sum;
    view.squares = true;
  } else {
    return std::nullopt;
  }
  return view;
}

SmallVector<Value> LinalgImporter::getOpaqueInputs(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  SmallVector<Value> inputs;
  for (OpOperand &operand : op->getOpOperands()) {
    Value value = operand.get();
    if (!isa<RankedTensorType>(value.getType()))
      continue;
    // Inits only count when the body reads them (accumulations); tensors of
    // one known value or of none carry no data.
    if (linalgOp && !linalgOp.isDpsInput(&operand) &&
        !linalgOp.payloadUsesValueFromOperand(&operand))
      continue;
    if (value.getDefiningOp<tensor::EmptyOp>() || getSplatValue(value))
      continue;
    inputs.push_back(value);
  }
  return inputs;
}

double LinalgImporter::estimateOpsPerElement(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp)
    return 1.0;
  std::optional<BodyFunction> body = buildBodyFunction(
      linalgOp, [&](Value v) { return getScalarConstant(v); });
  double perIteration = 1.0;
  if (body)
    perIteration = std::max(1u, body->function.countOperations());
  else if (Block *block = linalgOp.getBlock())
    perIteration = std::max<double>(1.0, block->getOperations().size() - 1);
  // Each result element is produced by the reduction loops' iterations.
  double iterations = 1.0;
  SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
  for (auto [loop, iterator] :
       llvm::enumerate(linalgOp.getIteratorTypesArray()))
    if (iterator == utils::IteratorType::reduction &&
        !ShapedType::isDynamic(ranges[loop]))
      iterations *= ranges[loop];
  return perIteration * iterations;
}

//===----------------------------------------------------------------------===//
// Handlers
//===----------------------------------------------------------------------===//

LogicalResult LinalgImporter::checkShape(Location loc, Value value,
                                         Type expected) {
  auto want = dyn_cast<RankedTensorType>(expected);
  auto have = cast<RankedTensorType>(value.getType());
  if (!want)
    return success();
  bool same = want.getRank() == have.getRank();
  for (int64_t d = 0; same && d < want.getRank(); ++d)
    same = want.isDynamicDim(d) || want.getDimSize(d) == have.getDimSize(d);
  if (!same)
    return emitError(loc) << "internal error: imported value has type " << have
                          << " but '" << current->getName() << "' produces "
                          << expected;
  return success();
}

FailureOr<bool> LinalgImporter::handle(Operation *op) {
  if (auto softmax = dyn_cast<linalg::SoftmaxOp>(op)) {
    FailureOr<Value> input = getActivation(softmax.getInput());
    if (failed(input))
      return failure();
    return finishImport(
        op, create<SoftmaxOp>(
                op->getLoc(), softmax.getResult()[0].getType(), *input,
                builder.getI64IntegerAttr(softmax.getDimension())));
  }
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp)
    return reject("no dsm counterpart is known");
  if (!linalgOp.hasPureTensorSemantics())
    return reject("linalg on buffers is not supported (import before "
                  "bufferization)");
  if (isa<linalg::Conv3DNcdhwFcdhwOp, linalg::Conv3DNdhwcDhwcfOp>(op))
    return importConv3D(linalgOp);
  if (linalg::isaConvolutionOpInterface(linalgOp))
    return importWindow(linalgOp);
  if (linalg::isaContractionOpInterface(linalgOp))
    return importContraction(linalgOp);
  if (allParallel(linalgOp)) {
    if (tensor::ExtractOp extract = getGather(linalgOp))
      return importEmbedding(linalgOp, extract);
    return importElementwise(op);
  }
  if (std::optional<ReduceView> reduce = getReduce(op))
    return importReduce(op, *reduce);
  return reject("neither a convolution, pooling, contraction, elementwise op "
                "nor a plain sum/max/min reduction");
}

Value LinalgImporter::getBiasConstant(Value value, int64_t channels,
                                      int64_t channelPosition) {
  // A broadcast of a per-channel constant along the channels (torch-mlir's
  // convolution init).
  auto linalgOp = value.getDefiningOp<linalg::LinalgOp>();
  if (!linalgOp || !isDataMovement(linalgOp))
    return nullptr;
  SmallVector<AffineMap> maps = linalgOp.getIndexingMapsArray();
  AffineMap in = maps[0];
  if (!maps[1].isIdentity() || in.getNumResults() != 1 ||
      in.getResult(0) != getAffineDimExpr(channelPosition, getContext()))
    return nullptr;
  Value source = linalgOp.getDpsInputOperand(0)->get();
  if (Operation *root = getConstantRoot(source)) {
    auto type = cast<RankedTensorType>(root->getResult(0).getType());
    if (type.hasStaticShape() && type.getNumElements() == channels) {
      setOutcome(linalgOp, Outcome::Folded, "into a bias");
      return source;
    }
  }
  return nullptr;
}

std::pair<Value, Operation *>
LinalgImporter::getFollowingBias(Value result, int64_t channels,
                                 int64_t channelPosition) {
  if (!result.hasOneUse())
    return {};
  Operation *user = *result.getUsers().begin();
  if (isClaimed(user) || isLazy(user))
    return {};
  std::optional<ElementwiseView> view = getElementwise(user);
  if (!view)
    return {};
  core::ElementwiseClass c = classify(*view);
  if (c.kind != core::ElementwiseKind::Add)
    return {};
  for (int side = 0; side < 2; ++side) {
    unsigned self = c.operands[side], other = c.operands[1 - side];
    if (view->operands[self].value != result || !isFullSize(*view, self))
      continue;
    const ViewOperand &bias = view->operands[other];
    Operation *root = getConstantRoot(bias.value);
    if (!root ||
        cast<RankedTensorType>(root->getResult(0).getType()).getNumElements() !=
            channels)
      return {};
    Value constant = bias.value;
    // It must vary along the channels only.
    SmallVector<int64_t> aligned = getAlignedShape(*view, other);
    for (auto [position, size] : llvm::enumerate(aligned))
      if (size != 1 && int64_t(position) != channelPosition)
        return {};
    if (channels != 1 && aligned[channelPosition] != channels)
      return {};
    return {constant, user};
  }
  return {};
}

/// The position in `map`'s results of the expression that uses `dim`.
static int64_t positionOf(AffineMap map, unsigned dim) {
  for (auto [position, expr] : llvm::enumerate(map.getResults()))
    if (expr.isFunctionOfDim(dim))
      return position;
  return -1;
}

FailureOr<bool> LinalgImporter::fitWindow(
    Location loc, Value &activation, dsm::DataLayout layout,
    ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
    ArrayRef<int64_t> dilations, ArrayRef<int64_t> declared,
    SmallVectorImpl<int64_t> &padding, bool &ceilMode, bool pooling) {
  auto type = cast<RankedTensorType>(activation.getType());
  int64_t first = layout == dsm::DataLayout::NCHW ? 2 : 1;
  size_t rank = kernel.size();
  SmallVector<core::WindowDim, 3> dims;
  SmallVector<int64_t, 3> outputs;
  for (size_t i = 0; i < rank; ++i) {
    dims.push_back({type.getDimSize(first + i), kernel[i], strides[i],
                    dilations[i], padding[i], padding[i + rank]});
    // A dynamic declared extent is whatever the padding as written gives.
    std::optional<int64_t> written = core::windowOutputExtent(dims[i], false);
    outputs.push_back(
        ShapedType::isDynamic(declared[i]) && written ? *written : declared[i]);
  }
  std::optional<core::WindowFit> fit =
      core::fitDeclaredOutput(dims, outputs, /*allowCeilMode=*/pooling,
                              /*padAtMostHalfKernel=*/pooling);
  if (!fit)
    return false;
  bool whole = true;
  for (size_t i = 0; i < rank; ++i) {
    padding[rank + i] = fit->padHigh[i];
    whole &= fit->input[i] == dims[i].input;
  }
  ceilMode = fit->ceilMode;
  if (whole)
    return true;
  // The windows never read the input's tail: slice it off.
  SmallVector<int64_t> offsets(type.getRank(), 0), sizes(type.getShape());
  sizes[0] = -1;
  for (size_t i = 0; i < rank; ++i)
    sizes[first + i] = fit->input[i];
  FailureOr<SliceOp> sliced = create<SliceOp>(
      loc, Type(), activation, builder.getDenseI64ArrayAttr(offsets),
      builder.getDenseI64ArrayAttr(sizes));
  if (failed(sliced))
    return failure();
  activation = sliced->getResult();
  return true;
}

/// A linalg convolution or pooling op as importWindow reads it: its
/// operands, loops and layout, and what the dsm op gets.
struct LinalgImporter::Window {
  explicit Window(Location loc) : loc(loc) {}
  /// What the window computes: a convolution or a max/sum pooling.
  enum Kind { Conv, MaxPool, SumPool };

  Location loc;
  Value input, filter;
  OpOperand *init = nullptr;
  linalg::ConvolutionDimensions dims;
  AffineMap inMap, filterMap, outMap;
  /// 1-D windows are 2-D ones over a unit height (exact work, dsm ops).
  bool oneD = false;
  Kind kind = Conv;
  /// N, the channel block (group then channel) of the input and output.
  SmallVector<unsigned> batchDims, inChannels, outChannels;
  /// (D,) H and W in output order, their strides and dilations, and the
  /// filter loop paired with each.
  SmallVector<unsigned> image;
  SmallVector<int64_t> strides, dilations;
  SmallVector<unsigned> window;
  dsm::DataLayout layout = dsm::DataLayout::NCHW;
  int64_t channelPosition = 0;
  /// The imported op's result type.
  Type expected;
  /// [begin.., end..] of the dsm op's window (a 1-D one's over a unit
  /// height), with a pad folded: `source` is then the pad's source, else
  /// `input`.
  SmallVector<int64_t> padding;
  Value source;
  /// What the op iterates over: its declared output, not a recomputed one.
  SmallVector<int64_t, 2> declaredHW;
  /// The dsm op's type, checked against the imported op's unless reshaped.
  Type dsmExpected;
};

FailureOr<bool> LinalgImporter::importWindow(linalg::LinalgOp op) {
  FailureOr<linalg::ConvolutionDimensions> dims =
      linalg::inferConvolutionDims(op);
  if (failed(dims) || op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return reject("convolution-like op with an unsupported structure");
  // 1-D windows are 2-D ones over a unit height (exact work, dsm ops); 3-D
  // pooling windows are dsm's 3-D pools.
  Window w(op.getLoc());
  w.dims = std::move(*dims);
  w.oneD = w.dims.outputImage.size() == 1;
  if (w.dims.outputImage.size() > 3 ||
      w.dims.filterLoop.size() != w.dims.outputImage.size())
    return reject("only 1-D and 2-D convolutions, 1-D to 3-D pooling, and the "
                  "named 3-D convolutions are supported");
  w.input = op.getDpsInputOperand(0)->get();
  w.filter = op.getDpsInputOperand(1)->get();
  w.init = op.getDpsInitOperand(0);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  w.inMap = maps[0];
  w.filterMap = maps[1];
  w.outMap = maps[w.init->getOperandNumber()];
  if (!classifyWindowBody(op, w) || !readWindowLoops(w) || !readWindowLayout(w))
    return false;
  w.expected = op->getResult(0).getType();
  foldWindowPad(w);

  FailureOr<Value> activation = windowActivation(w, w.source);
  if (failed(activation))
    return failure();
  FailureOr<Type> elementTypeOr = requireDsmElementType(w.loc, *activation);
  if (failed(elementTypeOr))
    return failure();
  Type elementType = *elementTypeOr;
  for (unsigned d : w.image)
    w.declaredHW.push_back(
        cast<RankedTensorType>(w.expected).getDimSize(positionOf(w.outMap, d)));
  w.dsmExpected = w.oneD || w.outChannels.size() == 2 ? Type() : w.expected;
  if (w.oneD) {
    w.declaredHW.insert(w.declaredHW.begin(), 1);
    w.strides.insert(w.strides.begin(), 1);
    w.dilations.insert(w.dilations.begin(), 1);
  }
  if (w.kind != Window::Conv)
    return importWindowPool(op, w, *activation);
  return importWindowConv(op, w, *activation, elementType);
}

/// What the window's body computes (w.kind); false (rejected) when it is
/// none of a convolution, a max or a sum pooling that dsm has.
bool LinalgImporter::classifyWindowBody(linalg::LinalgOp op, Window &w) {
  std::optional<BodyFunction> body =
      buildBodyFunction(op, [&](Value v) { return getScalarConstant(v); });
  if (!body)
    return reject("window body not recognised");
  auto inputOf = [&](unsigned argument) -> unsigned {
    auto it = llvm::find(body->arguments, argument);
    return it == body->arguments.end() ? ~0u : it - body->arguments.begin();
  };
  unsigned in = inputOf(0), weight = inputOf(1), acc = inputOf(2);
  if (in != ~0u && weight != ~0u && acc != ~0u && body->arguments.size() == 3 &&
      core::agreesWith(body->function, {in, weight, acc},
                       [](ArrayRef<double> v) { return v[2] + v[0] * v[1]; }))
    w.kind = Window::Conv;
  else if (in != ~0u && acc != ~0u && body->arguments.size() == 2 &&
           core::agreesWith(body->function, {in, acc}, [](ArrayRef<double> v) {
             return std::max(v[0], v[1]);
           }))
    w.kind = Window::MaxPool;
  else if (in != ~0u && acc != ~0u && body->arguments.size() == 2 &&
           core::agreesWith(body->function, {in, acc},
                            [](ArrayRef<double> v) { return v[0] + v[1]; }))
    w.kind = Window::SumPool;
  else
    return reject("window body is neither multiply-accumulate, max nor sum");
  if (w.kind == Window::Conv && w.dims.outputImage.size() == 3)
    return reject("only 1-D and 2-D convolutions, 1-D to 3-D pooling, and the "
                  "named 3-D convolutions are supported");
  return true;
}

/// The window's loops: N, the channel blocks, the image dimensions with
/// their strides and dilations, and the filter loop of each; false
/// (rejected) when they are not a convolution's or pooling's dsm has.
bool LinalgImporter::readWindowLoops(Window &w) {
  const linalg::ConvolutionDimensions &dims = w.dims;
  // Dimensions: N, the channel block (group then channel), H, W.
  w.batchDims.assign(dims.batch.begin(), dims.batch.end());
  if (w.kind == Window::Conv) {
    if (w.batchDims.size() != 1 || dims.depth.size() > 1 ||
        dims.inputChannel.size() > 1 || dims.outputChannel.size() > 1)
      return reject("convolution with an unsupported dimension structure");
    w.inChannels.append(dims.depth.begin(), dims.depth.end());
    w.inChannels.append(dims.inputChannel.begin(), dims.inputChannel.end());
    w.outChannels.append(dims.depth.begin(), dims.depth.end());
    w.outChannels.append(dims.outputChannel.begin(), dims.outputChannel.end());
    if (w.inChannels.empty() || w.outChannels.empty())
      return reject("convolution without channels");
  } else {
    // Pooling: N and C both index input and output only.
    if (w.batchDims.size() != 2 || !dims.depth.empty() ||
        !dims.inputChannel.empty() || !dims.outputChannel.empty())
      return reject("pooling with an unsupported dimension structure");
    if (positionOf(w.inMap, w.batchDims[0]) >
        positionOf(w.inMap, w.batchDims[1]))
      std::swap(w.batchDims[0], w.batchDims[1]);
    w.inChannels = w.outChannels = {w.batchDims[1]};
    w.batchDims.pop_back();
  }
  // (D,) H and W in output order.
  w.image.assign(dims.outputImage.begin(), dims.outputImage.end());
  llvm::sort(w.image, [&](unsigned a, unsigned b) {
    return positionOf(w.outMap, a) < positionOf(w.outMap, b);
  });
  for (unsigned d : w.image) {
    size_t i = llvm::find(dims.outputImage, d) - dims.outputImage.begin();
    w.strides.push_back(dims.strides[i]);
    w.dilations.push_back(dims.dilations[i]);
  }
  // The filter loop paired with each image dimension.
  for (unsigned d : w.image) {
    int64_t p = positionOf(w.inMap, d);
    if (p < 0)
      return reject("window indexing not recognised");
    AffineExpr expr = w.inMap.getResult(p);
    auto it = llvm::find_if(
        dims.filterLoop, [&](unsigned f) { return expr.isFunctionOfDim(f); });
    if (it == dims.filterLoop.end())
      return reject("window indexing not recognised");
    w.window.push_back(*it);
  }
  return true;
}

/// The layout of a window operand indexed by `map` with the batch loop
/// `batch`, the channel block `channels` and the `image` loops: NCHW or
/// NHWC, the channel block contiguous and in order.
static std::optional<dsm::DataLayout>
windowLayoutOf(AffineMap map, unsigned batch, ArrayRef<unsigned> channels,
               ArrayRef<unsigned> image) {
  int64_t n = positionOf(map, batch);
  SmallVector<int64_t> c, spatial;
  for (unsigned d : channels)
    c.push_back(positionOf(map, d));
  for (unsigned d : image)
    spatial.push_back(positionOf(map, d));
  if (int64_t(map.getNumResults()) !=
      1 + int64_t(image.size()) + int64_t(c.size()))
    return std::nullopt;
  for (size_t i = 1; i < c.size(); ++i)
    if (c[i] != c[i - 1] + 1)
      return std::nullopt;
  for (size_t i = 1; i < spatial.size(); ++i)
    if (spatial[i] != spatial[i - 1] + 1)
      return std::nullopt;
  // [N, C.., (D,) (H,) W] or [N, (D,) (H,) W, C..].
  if (n == 0 && c.front() == 1 && spatial.front() == c.back() + 1)
    return dsm::DataLayout::NCHW;
  if (n == 0 && spatial.front() == 1 && c.front() == spatial.back() + 1)
    return dsm::DataLayout::NHWC;
  return std::nullopt;
}

/// The input's and output's (common) layout and the output's channel
/// position; false (rejected) when they have none dsm has.
bool LinalgImporter::readWindowLayout(Window &w) {
  std::optional<dsm::DataLayout> layout =
      windowLayoutOf(w.inMap, w.batchDims[0], w.inChannels, w.image);
  if (!layout || windowLayoutOf(w.outMap, w.batchDims[0], w.outChannels,
                                w.image) != layout)
    return reject("only NCHW and NHWC (1-D: NCW and NWC) layouts are "
                  "supported");
  w.layout = *layout;
  w.channelPosition =
      w.layout == dsm::DataLayout::NCHW ? 1 : int64_t(w.image.size()) + 1;
  return true;
}

/// Folds a preceding pad of the spatial dimensions into the window's
/// padding (w.padding, w.source) when it pads with the window's neutral
/// value.
void LinalgImporter::foldWindowPad(Window &w) {
  size_t windowRank = w.oneD ? 2 : w.image.size();
  w.padding.assign(2 * windowRank, 0);
  w.source = w.input;
  auto pad = w.input.getDefiningOp<tensor::PadOp>();
  if (!pad)
    return;
  std::optional<double> value;
  if (Value padValue = pad.getConstantPaddingValue())
    value = getScalarConstant(padValue);
  bool neutral =
      value && (w.kind == Window::MaxPool ? *value <= -3.4e38 : *value == 0);
  ArrayRef<int64_t> low = pad.getStaticLow(), high = pad.getStaticHigh();
  SmallVector<int64_t> spatial;
  for (unsigned d : w.image)
    spatial.push_back(positionOf(w.inMap, d));
  bool spatialOnly =
      !ShapedType::isDynamicShape(low) && !ShapedType::isDynamicShape(high);
  for (int64_t d = 0; spatialOnly && d < int64_t(low.size()); ++d)
    if (!llvm::is_contained(spatial, d))
      spatialOnly = low[d] == 0 && high[d] == 0;
  if (!neutral || !spatialOnly)
    return;
  w.padding.clear();
  for (ArrayRef<int64_t> side : {low, high}) {
    if (w.oneD)
      w.padding.push_back(0);
    for (int64_t d : spatial)
      w.padding.push_back(side[d]);
  }
  w.source = pad.getSource();
}

/// The dsm value the window reads of `value`: grouped convolutions index
/// the input as [.., G, C, ..] (the block is merged), 1-D windows get a
/// unit height.
FailureOr<Value> LinalgImporter::windowActivation(const Window &w,
                                                  Value value) {
  FailureOr<Value> activation = getActivation(value);
  if (failed(activation))
    return failure();
  auto type = cast<RankedTensorType>(activation->getType());
  SmallVector<int64_t> shape(type.getShape());
  if (w.inChannels.size() == 2) {
    int64_t c = positionOf(w.inMap, w.inChannels[0]);
    shape[c] *= shape[c + 1];
    shape.erase(shape.begin() + c + 1);
  }
  if (w.oneD)
    shape.insert(shape.begin() + (w.layout == dsm::DataLayout::NCHW ? 2 : 1),
                 1);
  return reshape(w.loc, *activation, shape);
}

/// Back from the dsm op's `result` to the imported op's shape.
FailureOr<Value> LinalgImporter::restoreWindowResult(const Window &w,
                                                     Value result) {
  SmallVector<int64_t> shape(cast<RankedTensorType>(w.expected).getShape());
  shape[0] = cast<RankedTensorType>(result.getType()).getDimSize(0);
  FailureOr<Value> restored = reshape(w.loc, result, shape);
  if (failed(restored) || failed(checkShape(w.loc, *restored, w.expected)))
    return failure();
  return restored;
}

/// A max or sum pooling window as a dsm pool over `activation`, a
/// following scale by the window's area folded into an average.
FailureOr<bool> LinalgImporter::importWindowPool(linalg::LinalgOp op, Window &w,
                                                 Value activation) {
  const Location loc = w.loc;
  // The window tensor only gives the window's shape.
  auto windowType = cast<RankedTensorType>(w.filter.getType());
  SmallVector<int64_t> kernel(w.oneD ? 1 : 0, 1);
  for (unsigned f : w.window)
    kernel.push_back(windowType.getDimSize(positionOf(w.filterMap, f)));
  if (llvm::any_of(w.dilations, [](int64_t d) { return d != 1; }))
    return reject("dilated pooling is not supported");
  if (!getSplatValue(w.init->get()))
    return reject("pooling must accumulate into a filled tensor");
  // The declared output, with dsm's padding of at most half the window;
  // otherwise keep the pad apart.
  bool ceilMode = false;
  FailureOr<bool> fitted =
      fitWindow(loc, activation, w.layout, kernel, w.strides, w.dilations,
                w.declaredHW, w.padding, ceilMode, /*pooling=*/true);
  if (failed(fitted))
    return failure();
  if (!*fitted && w.source != w.input) {
    w.padding.assign(w.padding.size(), 0);
    w.source = w.input;
    FailureOr<Value> unpadded = windowActivation(w, w.input);
    if (failed(unpadded))
      return failure();
    activation = *unpadded;
    // Left as written if nothing fits: the result check then reports it.
    if (failed(fitWindow(loc, activation, w.layout, kernel, w.strides,
                         w.dilations, w.declaredHW, w.padding, ceilMode,
                         /*pooling=*/true)))
      return failure();
  }
  auto layoutAttr = DataLayoutAttr::get(getContext(), w.layout);
  // The window's extent over the (padded) image, for global pooling.
  auto shape = cast<RankedTensorType>(activation.getType()).getShape();
  ArrayRef<int64_t> imageShape = w.layout == dsm::DataLayout::NCHW
                                     ? shape.drop_front(2)
                                     : shape.drop_front().drop_back();
  int64_t area = 1;
  for (int64_t size : kernel)
    area *= size;
  std::optional<SmallVector<Operation *>> divisor;
  if (w.kind == Window::SumPool && area > 1)
    divisor = matchScaleBy(op->getResult(0), 1.0 / double(area));
  // dsm.global_avg_pool is 2-D.
  bool global = kernel.size() == 2 && ArrayRef(kernel) == imageShape &&
                !ceilMode &&
                llvm::all_of(w.padding, [](int64_t p) { return p == 0; });
  PoolKind poolKind = w.kind == Window::MaxPool ? PoolKind::Max
                      : global && (divisor || area == 1)
                          ? PoolKind::GlobalAverage
                          : PoolKind::Average;
  FailureOr<Value> pooled =
      createPool(loc, w.dsmExpected, poolKind, activation, kernel, w.strides,
                 w.padding, ceilMode, layoutAttr);
  if (failed(pooled))
    return failure();
  Value result = *pooled;
  std::string outcome = result.getDefiningOp()->getName().getStringRef().str();
  if (poolKind == PoolKind::Average && !divisor && area > 1)
    outcome += " (sum pooling, no divisor)";
  if (w.oneD) {
    FailureOr<Value> restored = restoreWindowResult(w, result);
    if (failed(restored))
      return failure();
    result = *restored;
  }
  if (divisor) {
    for (Operation *member : *divisor)
      claimFused(member, outcome);
    map(divisor->back()->getResult(0), result);
  }
  if (w.source != w.input)
    setOutcome(w.input.getDefiningOp(), Outcome::Folded,
               "into " + outcome + " padding");
  map(op->getResult(0), result);
  setImported(op, outcome);
  return true;
}

/// The layout dsm declares a convolution's filter in: the closest to the
/// linalg filter's (indexed by `filterMap`), and its shape for `kernelShape`
/// [O, I, H, W].
static KernelLayout convKernelLayout(const linalg::ConvolutionDimensions &dims,
                                     AffineMap filterMap,
                                     ArrayRef<unsigned> window,
                                     ArrayRef<unsigned> outChannels,
                                     SmallVectorImpl<int64_t> &kernelShape) {
  const int64_t outChannelCount = kernelShape[0], perGroupIn = kernelShape[1],
                kh = kernelShape[2], kw = kernelShape[3];
  int64_t firstSpatial = std::min(positionOf(filterMap, window.front()),
                                  positionOf(filterMap, window.back()));
  int64_t firstOut = filterMap.getNumResults(), inPosition = -1;
  for (unsigned d : outChannels)
    firstOut = std::min(firstOut, positionOf(filterMap, d));
  if (!dims.inputChannel.empty())
    inPosition = positionOf(filterMap, dims.inputChannel[0]);
  if (firstSpatial < firstOut &&
      (inPosition < 0 || firstSpatial < inPosition)) {
    kernelShape.assign({kh, kw, perGroupIn, outChannelCount});
    return KernelLayout::HWIO;
  }
  if (inPosition > firstSpatial && firstOut < firstSpatial) {
    kernelShape.assign({outChannelCount, kh, kw, perGroupIn});
    return KernelLayout::OHWI;
  }
  return KernelLayout::OIHW;
}

/// A convolution window as a dsm.conv2d over `activation`, its filter a
/// weight and its init a bias or an addend.
FailureOr<bool> LinalgImporter::importWindowConv(linalg::LinalgOp op, Window &w,
                                                 Value activation,
                                                 Type elementType) {
  const Location loc = w.loc;
  const linalg::ConvolutionDimensions &dims = w.dims;
  // Convolution: the filter is a weight declared in the closest dsm layout.
  if (!getConstantRoot(w.filter))
    return reject("the filter is not a constant");
  auto filterType = cast<RankedTensorType>(w.filter.getType());
  auto sizeOf = [&](unsigned loop) {
    return filterType.getDimSize(positionOf(w.filterMap, loop));
  };
  int64_t groups = dims.depth.empty() ? 1 : sizeOf(dims.depth[0]);
  int64_t perGroupIn =
      dims.inputChannel.empty() ? 1 : sizeOf(dims.inputChannel[0]);
  int64_t perGroupOut =
      dims.outputChannel.empty() ? 1 : sizeOf(dims.outputChannel[0]);
  int64_t outChannelCount = groups * perGroupOut;
  int64_t kh = w.oneD ? 1 : sizeOf(w.window[0]), kw = sizeOf(w.window.back());
  SmallVector<int64_t> kernelShape = {outChannelCount, perGroupIn, kh, kw};
  KernelLayout kernelLayout =
      convKernelLayout(dims, w.filterMap, w.window, w.outChannels, kernelShape);
  FailureOr<Value> weight =
      getWeight(w.filter, kernelShape, elementType, "weight");
  if (failed(weight))
    return failure();

  FailureOr<ConvInit> convInit =
      getConvInit(w.init->get(), op->getResult(0), outChannelCount,
                  w.channelPosition, elementType);
  if (failed(convInit))
    return failure();
  // The declared output; left as written if nothing fits (the result
  // check then reports it).
  bool ceilMode = false;
  if (failed(fitWindow(loc, activation, w.layout, {kh, kw}, w.strides,
                       w.dilations, w.declaredHW, w.padding, ceilMode,
                       /*pooling=*/false)))
    return failure();
  bool grouped = w.outChannels.size() == 2;
  FailureOr<Conv2DOp> conv = create<Conv2DOp>(
      loc, w.dsmExpected, activation, *weight, convInit->biasWeight,
      builder.getDenseI64ArrayAttr(w.strides),
      builder.getDenseI64ArrayAttr(w.padding),
      builder.getDenseI64ArrayAttr(w.dilations),
      builder.getI64IntegerAttr(groups),
      DataLayoutAttr::get(getContext(), w.layout),
      KernelLayoutAttr::get(getContext(), kernelLayout));
  if (failed(conv))
    return failure();
  Value result = conv->getResult();
  if (grouped || w.oneD) {
    // Back to the [.., G, F, ..] or 1-D result the op produced.
    FailureOr<Value> restored = restoreWindowResult(w, result);
    if (failed(restored))
      return failure();
    result = *restored;
  }
  return finishConv(op, result, *convInit, w.expected,
                    w.source != w.input ? w.input.getDefiningOp() : nullptr,
                    Conv2DOp::getOperationName());
}

FailureOr<LinalgImporter::ConvInit>
LinalgImporter::getConvInit(Value init, Value result, int64_t outChannels,
                            int64_t channelPosition, Type elementType) {
  ConvInit convInit;
  Value bias;
  std::optional<double> initSplat = getSplatValue(init);
  if (!initSplat || *initSplat != 0) {
    if (Value constant = getBiasConstant(init, outChannels, channelPosition))
      bias = constant;
    else
      convInit.addend = init;
  } else {
    std::tie(bias, convInit.biasAdd) =
        getFollowingBias(result, outChannels, channelPosition);
  }
  if (bias) {
    FailureOr<Value> declared =
        getWeight(bias, {outChannels}, elementType, "bias");
    if (failed(declared))
      return failure();
    convInit.biasWeight = *declared;
  }
  return convInit;
}

FailureOr<Value> LinalgImporter::addAccumulator(Location loc, Type expected,
                                                Value result, Value addend) {
  FailureOr<Value> value = getActivation(addend);
  if (failed(value))
    return failure();
  FailureOr<AddOp> sum = create<AddOp>(loc, expected, result, *value);
  if (failed(sum))
    return failure();
  return sum->getResult();
}

FailureOr<bool> LinalgImporter::finishConv(Operation *op, Value result,
                                           const ConvInit &init, Type expected,
                                           Operation *foldedPad,
                                           StringRef dsmOp) {
  if (init.addend) {
    FailureOr<Value> sum =
        addAccumulator(op->getLoc(), expected, result, init.addend);
    if (failed(sum))
      return failure();
    result = *sum;
  }
  if (foldedPad)
    setOutcome(foldedPad, Outcome::Folded, "into " + dsmOp.str() + " padding");
  setImported(op, dsmOp);
  map(op->getResult(0), result);
  if (init.biasAdd) {
    claim(init.biasAdd, Outcome::Folded, "into " + dsmOp.str() + " bias");
    map(init.biasAdd->getResult(0), result);
  }
  return true;
}

FailureOr<bool> LinalgImporter::importConv3D(linalg::LinalgOp op) {
  bool channelsFirst = isa<linalg::Conv3DNcdhwFcdhwOp>(op);
  Location loc = op.getLoc();
  Value input = op.getDpsInputOperand(0)->get();
  Value filter = op.getDpsInputOperand(1)->get();
  Value init = op.getDpsInitOperand(0)->get();
  Type expected = op->getResult(0).getType();
  auto attrValues = [&](StringRef name) {
    SmallVector<int64_t> values(3, 1);
    if (auto attr = op->getAttrOfType<DenseIntElementsAttr>(name))
      values = llvm::to_vector(
          llvm::map_range(attr.getValues<APInt>(),
                          [](const APInt &v) { return v.getSExtValue(); }));
    return values;
  };
  SmallVector<int64_t> strides = attrValues("strides"),
                       dilations = attrValues("dilations");
  if (!getConstantRoot(filter))
    return reject("the filter is not a constant");
  // The spatial dimensions of the activation: D, H, W after (NCDHW) or
  // before (NDHWC) the channels.
  int64_t firstSpatial = channelsFirst ? 2 : 1;
  SmallVector<int64_t> padding(6, 0);
  Value source = input;
  if (auto pad = input.getDefiningOp<tensor::PadOp>()) {
    std::optional<double> value;
    if (Value padValue = pad.getConstantPaddingValue())
      value = getScalarConstant(padValue);
    ArrayRef<int64_t> low = pad.getStaticLow(), high = pad.getStaticHigh();
    bool spatialOnly = value && *value == 0 &&
                       !ShapedType::isDynamicShape(low) &&
                       !ShapedType::isDynamicShape(high);
    for (int64_t d = 0; spatialOnly && d < int64_t(low.size()); ++d)
      if (d < firstSpatial || d >= firstSpatial + 3)
        spatialOnly = low[d] == 0 && high[d] == 0;
    if (spatialOnly) {
      for (int64_t i = 0; i < 3; ++i) {
        padding[i] = low[firstSpatial + i];
        padding[i + 3] = high[firstSpatial + i];
      }
      source = pad.getSource();
    }
  }
  FailureOr<TypedActivation> activation = getTypedActivation(loc, source);
  if (failed(activation))
    return failure();
  Type elementType = activation->elementType;
  auto filterType = cast<RankedTensorType>(filter.getType());
  int64_t outChannels = filterType.getDimSize(channelsFirst ? 0 : 4);
  FailureOr<Value> weight =
      getWeight(filter, filterType.getShape(), elementType, "weight");
  if (failed(weight))
    return failure();
  FailureOr<ConvInit> convInit = getConvInit(
      init, op->getResult(0), outChannels, channelsFirst ? 1 : 4, elementType);
  if (failed(convInit))
    return failure();
  FailureOr<Conv3DOp> conv = create<Conv3DOp>(
      loc, expected, activation->value, *weight, convInit->biasWeight,
      builder.getDenseI64ArrayAttr(strides),
      builder.getDenseI64ArrayAttr(padding),
      builder.getDenseI64ArrayAttr(dilations), builder.getI64IntegerAttr(1),
      DataLayoutAttr::get(getContext(), channelsFirst ? dsm::DataLayout::NCHW
                                                      : dsm::DataLayout::NHWC),
      KernelLayoutAttr::get(getContext(), channelsFirst ? KernelLayout::OIHW
                                                        : KernelLayout::HWIO));
  if (failed(conv))
    return failure();
  return finishConv(op, conv->getResult(), *convInit, expected,
                    source != input ? input.getDefiningOp() : nullptr,
                    Conv3DOp::getOperationName());
}

FailureOr<bool> LinalgImporter::importContraction(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return reject("contraction with an unsupported structure");
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  Value lhs = op.getDpsInputOperand(0)->get(),
        rhs = op.getDpsInputOperand(1)->get();
  // A constant operand read through broadcasts and transposes is indexed as
  // the constant itself: torch-mlir's nn.Linear on [B, T, in] broadcasts the
  // transposed weight to [B, in, out] for a batch_matmul, whose batch loop
  // the weight then does not vary along (a row loop of a fully connected
  // layer).
  SmallVector<AffineMap> direct(maps);
  Value operands[2] = {lhs, rhs};
  bool lookedThrough = false;
  for (unsigned i = 0; i < 2; ++i) {
    for (int depth = 0; depth < 4; ++depth) {
      auto producer = operands[i].getDefiningOp<linalg::LinalgOp>();
      if (!producer || !isDataMovement(producer))
        break;
      Value source = producer.getDpsInputOperand(0)->get();
      SmallVector<AffineMap> producerMaps = producer.getIndexingMapsArray();
      if (!getConstantRoot(source) || !producerMaps[1].isIdentity() ||
          producerMaps[1].getNumDims() != direct[i].getNumResults())
        break;
      direct[i] = producerMaps[0].compose(direct[i]);
      operands[i] = source;
      lookedThrough = true;
    }
  }
  FailureOr<linalg::ContractionDimensions> dims = failure();
  if (lookedThrough && succeeded(dims = linalg::inferContractionDims(direct))) {
    maps = direct;
    lhs = operands[0];
    rhs = operands[1];
  } else {
    dims = linalg::inferContractionDims(op);
  }
  if (failed(dims))
    return reject("contraction with an unsupported structure");
  std::optional<BodyFunction> body =
      buildBodyFunction(op, [&](Value v) { return getScalarConstant(v); });
  if (!body || body->arguments.size() != 3 ||
      !core::agreesWith(body->function, {0, 1, 2}, [&](ArrayRef<double> v) {
        // Inputs are numbered as the body first reads its arguments.
        double args[3];
        for (int i = 0; i < 3; ++i)
          args[body->arguments[i]] = v[i];
        return args[2] + args[0] * args[1];
      }))
    return reject("contraction body is not a multiply-accumulate");
  Location loc = op.getLoc();
  OpOperand *init = op.getDpsInitOperand(0);
  AffineMap outMap = maps[init->getOperandNumber()];
  std::optional<SmallVector<int64_t>> lhsDims = dimsOf(maps[0]),
                                      rhsDims = dimsOf(maps[1]),
                                      outDims = dimsOf(outMap);
  if (!lhsDims || !rhsDims || !outDims)
    return reject("contraction indexing not supported");
  bool lhsConstant = getConstantRoot(lhs), rhsConstant = getConstantRoot(rhs);
  if (lhsConstant && rhsConstant)
    return reject("contraction of two constants");
  auto byPosition = [](ArrayRef<int64_t> positions, ArrayRef<unsigned> loops) {
    SmallVector<int64_t> sorted(loops.begin(), loops.end());
    llvm::sort(sorted, [&](int64_t a, int64_t b) {
      return llvm::find(positions, a) < llvm::find(positions, b);
    });
    return sorted;
  };
  Type expected = op->getResult(0).getType();
  auto outType = cast<RankedTensorType>(expected);
  // What the op iterates over: a result dimension declared dynamic is known
  // from the operand that the same loop indexes.
  SmallVector<int64_t> loopSizes = op.getStaticLoopRanges();
  auto outSize = [&](int64_t loop) {
    int64_t size =
        outType.getDimSize(llvm::find(*outDims, loop) - outDims->begin());
    return ShapedType::isDynamic(size) ? loopSizes[loop] : size;
  };

  // Finishes a result whose dimensions are the loops `order`, possibly
  // flattened: reshape to one dimension per loop, then transpose into the
  // op's result order.
  auto finish = [&](Value value, ArrayRef<int64_t> order) -> FailureOr<Value> {
    auto type = cast<RankedTensorType>(value.getType());
    SmallVector<int64_t> shape;
    for (int64_t loop : order) {
      int64_t size = outSize(loop);
      if (ShapedType::isDynamic(size)) {
        // Only the batch can be dynamic; it leads the value.
        if (loop != order.front())
          return emitError(loc) << "cannot import a contraction with dynamic "
                                   "dimension d"
                                << loop;
        size = type.getDimSize(0);
      }
      shape.push_back(size);
    }
    FailureOr<Value> reshaped = reshape(loc, value, shape);
    if (failed(reshaped))
      return failure();
    SmallVector<int64_t> permutation;
    for (int64_t loop : *outDims)
      permutation.push_back(llvm::find(order, loop) - order.begin());
    FailureOr<Value> transposed = transpose(loc, *reshaped, permutation);
    if (failed(transposed) || failed(checkShape(loc, *transposed, expected)))
      return failure();
    return *transposed;
  };
  if (llvm::is_contained(*outDims, -1))
    return reject("contraction result with unit dimensions");

  std::optional<double> initSplat = getSplatValue(init->get());
  bool zeroInit = initSplat && *initSplat == 0;

  if ((lhsConstant || rhsConstant) && dims->batch.empty()) {
    // A fully connected layer: activation rows times an [out, in] weight.
    Value act = rhsConstant ? lhs : rhs, weight = rhsConstant ? rhs : lhs;
    ArrayRef<int64_t> actDims = rhsConstant ? *lhsDims : *rhsDims;
    ArrayRef<unsigned> rowLoops = rhsConstant ? dims->m : dims->n;
    ArrayRef<unsigned> outLoops = rhsConstant ? dims->n : dims->m;
    SmallVector<int64_t> rows = byPosition(*outDims, rowLoops);
    SmallVector<int64_t> outs = byPosition(*outDims, outLoops);
    SmallVector<int64_t> reduced = byPosition(actDims, dims->k);
    // Rows merged around the product (torch.export's nn.Linear: collapse,
    // matmul, expand) are unmerged by the graph fusions.
    // Integer data converted in the body (a mask, a one-hot) enters the
    // product converted.
    FailureOr<Value> activation = getActivation(act);
    if (succeeded(activation))
      activation = convertIntegerData(
          op, *activation, getDsmElementType(op->getResult(0).getType()));
    if (failed(activation))
      return failure();
    SmallVector<SmallVector<int64_t>> groups;
    if (rows.empty())
      groups.push_back({});
    for (int64_t row : rows)
      groups.push_back({row});
    groups.push_back(reduced);
    FailureOr<Value> input = arrange(loc, *activation, actDims, groups);
    if (failed(input))
      return failure();
    auto inputType = cast<RankedTensorType>(input->getType());
    FailureOr<Type> elementType = requireDsmElementType(loc, *input);
    if (failed(elementType))
      return failure();
    int64_t in = inputType.getShape().back();
    int64_t out = 1;
    for (int64_t loop : outs) {
      if (ShapedType::isDynamic(outSize(loop)))
        return emitError(loc) << "cannot import a contraction with dynamic "
                                 "dimension d"
                              << loop;
      out *= outSize(loop);
    }
    FailureOr<Value> declared =
        getWeight(weight, {out, in}, *elementType, "weight");
    if (failed(declared))
      return failure();
    Value bias, initValue;
    Operation *biasAdd = nullptr;
    bool plain = !rows.empty() && outs.size() == 1 &&
                 llvm::equal(*outDims, llvm::concat<const int64_t>(rows, outs));
    if (!zeroInit) {
      if (Value constant =
              getBiasConstant(init->get(), out, outType.getRank() - 1))
        bias = constant;
      else
        initValue = init->get();
    } else if (plain) {
      std::tie(bias, biasAdd) =
          getFollowingBias(op->getResult(0), out, outType.getRank() - 1);
    }
    Value biasWeight;
    if (bias) {
      FailureOr<Value> b = getWeight(bias, {out}, *elementType, "bias");
      if (failed(b))
        return failure();
      biasWeight = *b;
    }
    FailureOr<FullyConnectedOp> fc = create<FullyConnectedOp>(
        loc, plain ? expected : Type(), *input, *declared, biasWeight);
    if (failed(fc))
      return failure();
    Value result = fc->getResult();
    if (!plain) {
      SmallVector<int64_t> order(rows);
      order.append(outs);
      FailureOr<Value> finished = finish(result, order);
      if (failed(finished))
        return failure();
      result = *finished;
    }
    if (initValue) {
      FailureOr<Value> sum = addAccumulator(loc, expected, result, initValue);
      if (failed(sum))
        return failure();
      result = *sum;
    }
    setImported(op, FullyConnectedOp::getOperationName());
    map(op->getResult(0), result);
    if (biasAdd) {
      claim(biasAdd, Outcome::Folded, "into dsm.fully_connected bias");
      map(biasAdd->getResult(0), result);
    }
    return true;
  }

  // A product of two activations: [B.., M, K] x [B.., K, N] (or N, K).
  SmallVector<int64_t> batch = byPosition(*outDims, dims->batch);
  SmallVector<int64_t> ms = byPosition(*outDims, dims->m);
  SmallVector<int64_t> ns = byPosition(*outDims, dims->n);
  SmallVector<int64_t> ks = byPosition(*lhsDims, dims->k);
  auto operandValue = [&](Value value) -> FailureOr<Value> {
    if (getConstantRoot(value)) {
      auto type = cast<RankedTensorType>(value.getType());
      return getWeight(value, type.getShape(),
                       getDsmElementType(type) ? type.getElementType()
                                               : builder.getF32Type(),
                       "constant");
    }
    FailureOr<Value> activation = getActivation(value);
    if (failed(activation))
      return failure();
    return convertIntegerData(op, *activation,
                              getDsmElementType(op->getResult(0).getType()));
  };
  // Heads merged into the batch around the product (collapse, batch_matmul,
  // expand) are unmerged by the graph fusions (dsm/Import/GraphFusion.h).
  FailureOr<Value> a = operandValue(lhs);
  FailureOr<Value> b =
      succeeded(a) ? operandValue(rhs) : FailureOr<Value>(failure());
  if (failed(b))
    return failure();
  SmallVector<SmallVector<int64_t>> lhsGroups, rhsGroups;
  for (int64_t loop : batch) {
    lhsGroups.push_back({loop});
    rhsGroups.push_back({loop});
  }
  lhsGroups.push_back(ms);
  lhsGroups.push_back(ks);
  // A reduced loop only one operand reads sums inside the product, which
  // no dsm.matmul computes.
  if (ks.empty())
    return reject("a contraction whose reduced loops only one operand reads "
                  "(a sum inside the product)");
  // Keep the right operand's own order of N and K when it is [.., N, K] (a
  // matrix-vector product has no N).
  bool transposeRhs = !ns.empty() && llvm::find(*rhsDims, ns.front()) <
                                         llvm::find(*rhsDims, ks.front());
  rhsGroups.push_back(transposeRhs ? ns : ks);
  rhsGroups.push_back(transposeRhs ? ks : ns);
  FailureOr<Value> left = arrange(loc, *a, *lhsDims, lhsGroups);
  FailureOr<Value> right = succeeded(left)
                               ? arrange(loc, *b, *rhsDims, rhsGroups)
                               : FailureOr<Value>(failure());
  if (failed(right))
    return failure();
  bool plain =
      ms.size() == 1 && ns.size() == 1 &&
      llvm::equal(*outDims, llvm::concat<const int64_t>(batch, ms, ns));
  FailureOr<MatMulOp> matmul =
      create<MatMulOp>(loc, plain ? expected : Type(), *left, *right,
                       transposeRhs ? builder.getUnitAttr() : UnitAttr());
  if (failed(matmul))
    return failure();
  Value result = matmul->getResult();
  if (!plain) {
    SmallVector<int64_t> order(batch);
    order.append(ms);
    order.append(ns);
    FailureOr<Value> finished = finish(result, order);
    if (failed(finished))
      return failure();
    result = *finished;
  }
  if (!zeroInit) {
    FailureOr<Value> sum = addAccumulator(loc, expected, result, init->get());
    if (failed(sum))
      return failure();
    result = *sum;
  }
  setImported(op, MatMulOp::getOperationName());
  map(op->getResult(0), result);
  return true;
}

FailureOr<bool> LinalgImporter::importEmbedding(linalg::LinalgOp op,
                                                tensor::ExtractOp extract) {
  Block *block = op.getBlock();
  unsigned loops = op.getNumLoops();
  if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      op->getNumResults() != 1 || extract.getIndices().size() != 2 ||
      llvm::range_size(block->without_terminator()) != 3)
    return reject("a gather other than an embedding lookup (ids, then "
                  "table[index_cast(id), linalg.index])");
  // The row is the id the op reads, the column the innermost loop.
  Operation *row = extract.getIndices()[0].getDefiningOp();
  auto column = extract.getIndices()[1].getDefiningOp<linalg::IndexOp>();
  if (!row || !isa<arith::IndexCastOp, arith::IndexCastUIOp>(row) ||
      row->getOperand(0) != block->getArgument(0) || !column ||
      column.getDim() != loops - 1)
    return reject("a gather other than an embedding lookup (ids, then "
                  "table[index_cast(id), linalg.index])");
  // The ids index the leading loops, the result all of them, in order.
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(loops, getContext());
  if (maps[0] != identity.getMajorSubMap(loops - 1) || maps[1] != identity)
    return reject("embedding lookup with an unsupported indexing");
  Value table = extract.getTensor();
  if (!getConstantRoot(table))
    return reject("a gather from a table that is not a constant (only "
                  "embedding lookups are supported)");
  auto tableType = cast<RankedTensorType>(table.getType());
  FailureOr<Type> elementType = requireDsmElementType(op.getLoc(), table);
  if (failed(elementType))
    return failure();
  // Ids are data: a function argument, or fixed ids (BERT's and GPT-2's
  // positions) kept as an integer constant, possibly reshaped.
  FailureOr<Value> indices = getActivation(op.getDpsInputOperand(0)->get());
  if (failed(indices))
    return failure();
  FailureOr<Value> weight =
      getWeight(table, tableType.getShape(), *elementType, "weight");
  if (failed(weight))
    return failure();
  return finishImport(op, create<EmbeddingOp>(op.getLoc(),
                                              op->getResult(0).getType(),
                                              *indices, *weight));
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {
struct ImportLinalgPass
    : public dsm::impl::DsmImportLinalgBase<ImportLinalgPass> {
  using DsmImportLinalgBase::DsmImportLinalgBase;

  void runOnOperation() override {
    if (failed(runImport<LinalgImporter>(getOperation(), getArgument(),
                                         {mode, summary, batch, {}})))
      signalPassFailure();
  }
};
} // namespace
