//===- GraphFusion.cpp - Composite functions recognised on dsm ops --------===//
//
// Each pattern is matched at the last op of its composition and follows
// single-use values back (a value read elsewhere means the pieces are needed,
// so they stay). Activations are recognised by evaluating what the pieces
// compute (ComposedActivation), so every spelling of one is one pattern; the
// others (norms, bias adds, merged views around products) by their
// structure, checking the constants they must use: splat constants of at
// most the result's rank, which broadcast without changing the shape.
//
//===----------------------------------------------------------------------===//

#include "dsm/Import/GraphFusion.h"
#include "dsm/Core/Support/Float.h"
#include "dsm/Core/Workload/ElementwiseClass.h"
#include "dsm/Dialect/DsmOps.h"
#include "dsm/Import/Passes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <functional>

namespace dsm {
#define GEN_PASS_DEF_DSMFUSEGRAPH
#include "dsm/Import/Passes.h.inc"
} // namespace dsm

using namespace mlir;
using namespace dsm;

namespace {

using OnFused =
    std::function<void(StringRef, Operation *, ArrayRef<Operation *>)>;

/// The value of `value` if it is a one-element float constant of rank at
/// most `maxRank` (so that it broadcasts without changing the shape).
std::optional<double> getScalar(Value value, int64_t maxRank) {
  DenseElementsAttr attr;
  if (!value || !matchPattern(value, m_Constant(&attr)) ||
      attr.getNumElements() != 1 || attr.getType().getRank() > maxRank ||
      !isa<FloatType>(attr.getElementType()))
    return std::nullopt;
  APFloat scalar = *attr.value_begin<APFloat>();
  if (&scalar.getSemantics() == &APFloat::IEEEdouble())
    return scalar.convertToDouble();
  bool lost;
  scalar.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
  return core::shortestDouble(scalar.convertToFloat());
}

bool isScalar(Value value, double expected, int64_t maxRank) {
  std::optional<double> actual = getScalar(value, maxRank);
  return actual &&
         std::fabs(*actual - expected) <= 1e-4 * std::max(1.0, expected);
}

/// The operand of the two-operand `op` other than `value`, or null when
/// `value` is not one of them.
Value getOther(Operation *op, Value value) {
  if (!op || op->getNumOperands() != 2)
    return nullptr;
  if (op->getOperand(0) == value)
    return op->getOperand(1);
  if (op->getOperand(1) == value)
    return op->getOperand(0);
  return nullptr;
}

/// The only user of `value`, if it reads it once and is an `OpTy`.
template <typename OpTy> OpTy getSoleUser(Value value) {
  if (!value || !value.hasOneUse())
    return nullptr;
  return dyn_cast<OpTy>(*value.user_begin());
}

/// What every fusion pattern does: replace a single-result chain of ops by
/// one op, telling `onFused`.
class Fusion {
public:
  Fusion(StringRef name, OnFused onFused)
      : name(name), onFused(std::move(onFused)) {}

protected:
  /// Replaces `last`'s result by `fused` and erases `chain` (which holds
  /// `last`; the others are read only inside the chain).
  void replace(PatternRewriter &rewriter, Operation *fused,
               ArrayRef<Operation *> chain, Operation *last) const {
    if (onFused)
      onFused(name, fused, chain);
    // The composition's constants go with it when nothing else reads them.
    llvm::SetVector<Operation *> constants;
    for (Operation *op : chain)
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp();
            def && def->hasTrait<OpTrait::ConstantLike>())
          constants.insert(def);
    rewriter.replaceOp(last, fused->getResults());
    llvm::SetVector<Operation *> pending(chain.begin(), chain.end());
    pending.remove(last);
    while (!pending.empty()) {
      Operation *dead = *llvm::find_if(
          pending, [](Operation *op) { return op->use_empty(); });
      pending.remove(dead);
      rewriter.eraseOp(dead);
    }
    for (Operation *constant : constants)
      if (constant->use_empty())
        rewriter.eraseOp(constant);
  }
  /// `weight` (a dsm.weight) declared with `shape`: itself, or the same
  /// parameter declared again with that shape, as every front end declares
  /// a weight once per shape it is read in.
  static Value declareWithShape(PatternRewriter &rewriter, Value weight,
                                ArrayRef<int64_t> shape) {
    auto type = cast<RankedTensorType>(weight.getType());
    if (type.getShape() == shape)
      return weight;
    Operation *declared = rewriter.clone(*weight.getDefiningOp());
    declared->getResult(0).setType(type.clone(shape));
    return declared->getResult(0);
  }
  /// Erases the declaration of `weight` once nothing reads it.
  static void eraseIfUnused(PatternRewriter &rewriter, Value weight) {
    if (weight.use_empty())
      rewriter.eraseOp(weight.getDefiningOp());
  }
  /// The chain's locations, at most 16 (fusing a fused op again, as a run
  /// of ReLUs folds into one, would otherwise grow them without bound).
  static Location getFusedLoc(ArrayRef<Operation *> chain) {
    llvm::SetVector<Location> locs;
    for (Operation *op : chain) {
      if (auto fused = dyn_cast<FusedLoc>(op->getLoc()))
        locs.insert(fused.getLocations().begin(), fused.getLocations().end());
      else
        locs.insert(op->getLoc());
    }
    return FusedLoc::get(chain.front()->getContext(),
                         locs.getArrayRef().take_front(16));
  }

  std::string name;
  OnFused onFused;
};

/// A fusion matched at an op of kind `AnchorOp`.
template <typename AnchorOp>
class FusionPattern : public OpRewritePattern<AnchorOp>, protected Fusion {
public:
  FusionPattern(MLIRContext *context, StringRef name, OnFused onFused)
      : OpRewritePattern<AnchorOp>(context), Fusion(name, std::move(onFused)) {}
};

/// The scalar function of `op`, one of the elementwise dsm operations, over
/// the nodes `args` of its operands; none for the others.
std::optional<int> buildScalar(Operation *op, core::ScalarFunction &f,
                               ArrayRef<int> args) {
  using core::ScalarOpcode;
  auto unary = [&](ScalarOpcode opcode) { return f.operation(opcode, args); };
  auto clamp = [&](int x, double lo, double hi) {
    if (!std::isinf(lo))
      x = f.operation(ScalarOpcode::Max, {x, f.constant(lo)});
    if (!std::isinf(hi))
      x = f.operation(ScalarOpcode::Min, {x, f.constant(hi)});
    return x;
  };
  auto hardSigmoid = [&](int x) {
    int scaled = f.operation(ScalarOpcode::Mul, {x, f.constant(1.0 / 6)});
    return clamp(f.operation(ScalarOpcode::Add, {scaled, f.constant(0.5)}), 0,
                 1);
  };
  return llvm::TypeSwitch<Operation *, std::optional<int>>(op)
      .Case([&](AddOp) { return unary(ScalarOpcode::Add); })
      .Case([&](SubOp) { return unary(ScalarOpcode::Sub); })
      .Case([&](MulOp) { return unary(ScalarOpcode::Mul); })
      .Case([&](DivOp) { return unary(ScalarOpcode::Div); })
      .Case([&](ExpOp) { return unary(ScalarOpcode::Exp); })
      .Case([&](ErfOp) { return unary(ScalarOpcode::Erf); })
      .Case([&](SqrtOp) { return unary(ScalarOpcode::Sqrt); })
      .Case([&](RsqrtOp) { return unary(ScalarOpcode::Rsqrt); })
      .Case([&](TanhOp) { return unary(ScalarOpcode::Tanh); })
      .Case([&](SigmoidOp) { return unary(ScalarOpcode::Sigmoid); })
      .Case([&](ReluOp) { return clamp(args[0], 0, INFINITY); })
      .Case([&](ClampOp clampOp) {
        return clamp(args[0], clampOp.getMin().convertToDouble(),
                     clampOp.getMax().convertToDouble());
      })
      .Case([&](HardSigmoidOp) { return hardSigmoid(args[0]); })
      .Case([&](HardSwishOp) {
        return f.operation(ScalarOpcode::Mul, {args[0], hardSigmoid(args[0])});
      })
      .Case([&](GeluOp) {
        int x = args[0];
        int scaled = f.operation(ScalarOpcode::Mul, {x, f.constant(M_SQRT1_2)});
        int onePlusErf = f.operation(
            ScalarOpcode::Add,
            {f.constant(1), f.operation(ScalarOpcode::Erf, {scaled})});
        int half = f.operation(ScalarOpcode::Mul, {x, f.constant(0.5)});
        return f.operation(ScalarOpcode::Mul, {half, onePlusErf});
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// An activation function spelled as several elementwise dsm operations
/// (torch.onnx's erf GELU, x * clip(x + 3, 0, 6) / 6 for hard swish,
/// 1 / (1 + exp(-x)) for the sigmoid): what the composition computes is
/// found by evaluating it (dsm/Core/Workload/ElementwiseClass.h), so every
/// spelling is one pattern. Matched at the last operation: the composition
/// is the ops from an input `x` to it, each value in between read once and
/// at the result's full size, with scalar constants; it must compute one of
/// the activations dsm has an operation for, of `x` alone.
class ComposedActivation : public RewritePattern, protected Fusion {
public:
  ComposedActivation(MLIRContext *context, StringRef name, OnFused onFused)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context),
        Fusion(name, std::move(onFused)) {}

  LogicalResult matchAndRewrite(Operation *last,
                                PatternRewriter &rewriter) const override {
    if (last->getNumResults() != 1 || !isa<DsmDialect>(last->getDialect()))
      return failure();
    auto type = dyn_cast<RankedTensorType>(last->getResult(0).getType());
    if (!type || !isElementwise(last))
      return failure();
    // The values the composition could start from, nearest first.
    SmallVector<Operation *> pieces;
    collectPieces(last, type, pieces);
    if (pieces.size() < 2)
      return failure();
    // The longest composition of one input that is an activation.
    std::optional<Match> best;
    for (Operation *piece : pieces)
      for (Value x : piece->getOperands())
        if (x.getType() == type)
          if (std::optional<Match> match = classifyFrom(x, last, type);
              match && (!best || match->chain.size() > best->chain.size()))
            best = std::move(match);
    if (!best || best->chain.size() < 2)
      return failure();
    rewriter.setInsertionPoint(last);
    Location loc = getFusedLoc(best->chain);
    Operation *fused = emit(rewriter, loc, best->kind, best->x);
    if (!fused)
      return failure();
    replace(rewriter, fused, best->chain, last);
    return success();
  }

private:
  struct Match {
    Value x;
    core::ElementwiseClass kind;
    /// The characteristic op first (the fused op is named after it), then
    /// the others in program order.
    SmallVector<Operation *> chain;
  };

  static bool isElementwise(Operation *op) {
    return isa<AddOp, SubOp, MulOp, DivOp, ExpOp, ErfOp, SqrtOp, RsqrtOp,
               TanhOp, SigmoidOp, ReluOp, ClampOp, HardSigmoidOp, HardSwishOp,
               GeluOp>(op);
  }
  /// Whether `value` is computed inside a composition ending at a result
  /// of `type`: by an elementwise op, at full size, read once.
  static Operation *getPiece(Value value, RankedTensorType type) {
    Operation *def = value.getDefiningOp();
    if (!def || !isElementwise(def) || value.getType() != type ||
        !value.hasOneUse())
      return nullptr;
    return def;
  }
  /// `op` and the pieces computing its operands, transitively (at most 16).
  static void collectPieces(Operation *op, RankedTensorType type,
                            SmallVectorImpl<Operation *> &pieces) {
    if (pieces.size() >= 16 || llvm::is_contained(pieces, op))
      return;
    pieces.push_back(op);
    for (Value operand : op->getOperands())
      if (Operation *def = getPiece(operand, type))
        collectPieces(def, type, pieces);
  }

  /// The composition from `x` to `last`, if it computes an activation of
  /// `x` alone.
  std::optional<Match> classifyFrom(Value x, Operation *last,
                                    RankedTensorType type) const {
    core::ScalarFunction f;
    int input = f.input(0);
    SmallVector<Operation *> chain;
    bool other = false;
    unsigned visited = 0;
    std::function<int(Value)> node = [&](Value value) -> int {
      if (value == x)
        return input;
      if (std::optional<double> scalar = getScalar(value, type.getRank()))
        return f.constant(*scalar);
      Operation *def = value.getDefiningOp();
      // A second input, or a composition longer than collectPieces looks
      // (which keeps the search linear in the graph's size).
      if (def != last && (!getPiece(value, type) || visited >= 16)) {
        other = true;
        return f.constant(0);
      }
      ++visited;
      SmallVector<int> args;
      for (Value operand : def->getOperands())
        args.push_back(node(operand));
      chain.push_back(def);
      return *buildScalar(def, f, args);
    };
    f.setResult(node(last->getResult(0)));
    if (other || !f.dependsOn(0))
      return std::nullopt;
    core::ElementwiseClass c = core::classifyElementwise(f);
    using K = core::ElementwiseKind;
    if (!llvm::is_contained({K::Relu, K::Clamp, K::Sigmoid, K::Tanh, K::Gelu,
                             K::HardSigmoid, K::HardSwish},
                            c.kind))
      return std::nullopt;
    // Program order, then the characteristic op (the first that is not
    // arithmetic) to the front.
    llvm::sort(chain, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    chain.erase(std::unique(chain.begin(), chain.end()), chain.end());
    auto characteristic = llvm::find_if(chain, [](Operation *op) {
      return !isa<AddOp, SubOp, MulOp, DivOp>(op);
    });
    if (characteristic != chain.end())
      std::rotate(chain.begin(), characteristic, characteristic + 1);
    return Match{x, c, std::move(chain)};
  }

  static Operation *emit(PatternRewriter &rewriter, Location loc,
                         const core::ElementwiseClass &c, Value x) {
    Type type = x.getType();
    using K = core::ElementwiseKind;
    switch (c.kind) {
    case K::Relu:
      return ReluOp::create(rewriter, loc, type, x);
    case K::Clamp:
      return ClampOp::create(rewriter, loc, type, x,
                             rewriter.getF64FloatAttr(c.min),
                             rewriter.getF64FloatAttr(c.max));
    case K::Sigmoid:
      return SigmoidOp::create(rewriter, loc, type, x);
    case K::Tanh:
      return TanhOp::create(rewriter, loc, type, x);
    case K::Gelu:
      return GeluOp::create(rewriter, loc, type, x);
    case K::HardSigmoid:
      return HardSigmoidOp::create(rewriter, loc, type, x);
    case K::HardSwish:
      return HardSwishOp::create(rewriter, loc, type, x);
    default:
      return nullptr;
    }
  }
};

/// `value` without the single-use dsm.reshapes in front of it (views that
/// add or drop unit dimensions), which are added to `views`.
Value lookThroughReshapes(Value value, SmallVectorImpl<Operation *> &views) {
  while (auto reshape = value.getDefiningOp<ReshapeOp>()) {
    if (!value.hasOneUse())
      break;
    views.push_back(reshape);
    value = reshape.getInput();
  }
  return value;
}

/// The first axis of a mean (or another `kind` of reduction) over the
/// trailing axes of a rank-`rank` input (the reduced dimensions kept or not).
std::optional<int64_t> getTrailingMeanAxis(ReduceOp op, int64_t rank,
                                           ReduceKind kind = ReduceKind::Mean) {
  if (op.getKind() != kind || op.getAxes().empty())
    return std::nullopt;
  SmallVector<int64_t> axes;
  for (int64_t a : op.getAxes())
    axes.push_back(a < 0 ? a + rank : a);
  llvm::sort(axes);
  for (auto [i, a] : llvm::enumerate(axes))
    if (a != rank - int64_t(axes.size()) + int64_t(i))
      return std::nullopt;
  return axes.front();
}

/// A mean over the trailing axes of a rank-`rank` input: a dsm.reduce
/// <mean>, or a sum times 1 / n or divided by n, n the elements each result
/// sums (the divisor written apart from the sum: rsqrt(sum / n + eps) in
/// one body). `value` is read once; the ops from the reduction on are added
/// to `ops`, the first axis returned.
std::optional<int64_t> matchTrailingMean(Value value, int64_t rank,
                                         SmallVectorImpl<Operation *> &ops) {
  if (auto mean = value.getDefiningOp<ReduceOp>()) {
    std::optional<int64_t> axis = getTrailingMeanAxis(mean, rank);
    if (axis)
      ops.push_back(mean);
    return axis;
  }
  Operation *scale = value.getDefiningOp();
  if (!isa_and_present<MulOp, DivOp>(scale))
    return std::nullopt;
  for (Value sumValue : scale->getOperands()) {
    auto sum = sumValue.getDefiningOp<ReduceOp>();
    if (!sum || !sumValue.hasOneUse() ||
        (isa<DivOp>(scale) && sumValue != scale->getOperand(0)))
      continue;
    std::optional<int64_t> axis =
        getTrailingMeanAxis(sum, rank, ReduceKind::Sum);
    auto inputType = cast<RankedTensorType>(sum.getInput().getType());
    if (!axis || !inputType.hasStaticShape())
      continue;
    double count = 1;
    for (int64_t d = *axis; d < inputType.getRank(); ++d)
      count *= inputType.getDimSize(d);
    Value divisor = getOther(scale, sumValue);
    if (!isScalar(divisor, isa<DivOp>(scale) ? count : 1.0 / count, rank))
      continue;
    ops.append({sum, scale});
    return axis;
  }
  return std::nullopt;
}

/// `x` divided by its root mean square: `norm` is `x * r`, `r * x` or
/// `x / sqrt(t)`, with r = rsqrt(t) or 1 / sqrt(t) (through views of the
/// per-row factor) and t = mean(x * x) + eps over trailing axes.
struct RootMeanSquareMatch {
  Value x;
  int64_t axis;
  double epsilon;
  /// The ops from the square to the factor (not `norm`).
  SmallVector<Operation *> ops;
};
std::optional<RootMeanSquareMatch> matchRootMeanSquare(Operation *norm,
                                                       RankedTensorType type) {
  int64_t rank = type.getRank();
  SmallVector<std::pair<Value, Value>, 2> candidates;
  if (auto div = dyn_cast<DivOp>(norm))
    candidates.push_back({div.getLhs(), div.getRhs()});
  else if (isa<MulOp>(norm))
    candidates.append({{norm->getOperand(0), norm->getOperand(1)},
                       {norm->getOperand(1), norm->getOperand(0)}});
  for (auto [x, factor] : candidates) {
    if (x.getType() != type || !factor.hasOneUse())
      continue;
    SmallVector<Operation *> ops;
    Value root = lookThroughReshapes(factor, ops);
    Operation *def = root.getDefiningOp();
    Value radicand;
    if (isa<DivOp>(norm)) {
      // x / sqrt(t)
      if (auto sqrt = dyn_cast_if_present<SqrtOp>(def);
          sqrt && root.hasOneUse()) {
        radicand = sqrt.getInput();
        ops.push_back(sqrt);
      }
    } else if (auto rsqrt = dyn_cast_if_present<RsqrtOp>(def);
               rsqrt && root.hasOneUse()) {
      radicand = rsqrt.getInput();
      ops.push_back(rsqrt);
    } else if (auto inverse = dyn_cast_if_present<DivOp>(def);
               inverse && root.hasOneUse() &&
               isScalar(inverse.getLhs(), 1.0, rank)) {
      // 1 / sqrt(t)
      if (auto sqrt = inverse.getRhs().getDefiningOp<SqrtOp>();
          sqrt && inverse.getRhs().hasOneUse()) {
        radicand = sqrt.getInput();
        ops.append({inverse, sqrt});
      }
    }
    auto addEps = radicand ? radicand.getDefiningOp<AddOp>() : nullptr;
    if (!addEps || !radicand.hasOneUse())
      continue;
    for (Value mean : {addEps.getLhs(), addEps.getRhs()}) {
      std::optional<double> epsilon = getScalar(getOther(addEps, mean), rank);
      if (!mean.hasOneUse() || !epsilon || *epsilon <= 0)
        continue;
      SmallVector<Operation *> meanOps;
      std::optional<int64_t> axis = matchTrailingMean(mean, rank, meanOps);
      if (!axis)
        continue;
      auto reduce = cast<ReduceOp>(meanOps.front());
      auto square = reduce.getInput().getDefiningOp<MulOp>();
      if (!square || !reduce.getInput().hasOneUse() || square.getLhs() != x ||
          square.getRhs() != x)
        continue;
      SmallVector<Operation *> all{square};
      all.append(meanOps);
      all.push_back(addEps);
      all.append(ops.rbegin(), ops.rend());
      return RootMeanSquareMatch{x, *axis, *epsilon, std::move(all)};
    }
  }
  return std::nullopt;
}

/// Whether `weight` is a dsm.weight of `shape`, or of `shape` with leading
/// unit dimensions (as TOSA's broadcasting declares a scale).
bool isScaleWeight(Value weight, ArrayRef<int64_t> shape) {
  if (!weight || !weight.getDefiningOp<WeightOp>())
    return false;
  ArrayRef<int64_t> declared =
      cast<RankedTensorType>(weight.getType()).getShape();
  return declared.size() >= shape.size() &&
         declared.take_back(shape.size()) == shape &&
         llvm::all_of(declared.drop_back(shape.size()),
                      [](int64_t d) { return d == 1; });
}

/// A layer norm written out, as exporters did before ONNX opset 17 and
/// torch-mlir decomposes it:
///   m = mean(x, trailing axes); d = x - m; v = mean(d * d)
///   y = d / sqrt(v + eps) * scale + offset   (or d * rsqrt(v + eps))
/// with `scale` and `offset` weights shaped like the normalized dimensions.
/// Matched at the last addition.
class DecomposedLayerNorm : public FusionPattern<AddOp> {
public:
  using FusionPattern::FusionPattern;

  LogicalResult matchAndRewrite(AddOp offset,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(offset.getType());
    int64_t rank = type.getRank();
    for (Value scaled : {offset.getLhs(), offset.getRhs()}) {
      auto scale = scaled.getDefiningOp<MulOp>();
      if (!scale || !scaled.hasOneUse())
        continue;
      for (Value normalized : {scale.getLhs(), scale.getRhs()}) {
        Operation *norm = normalized.getDefiningOp();
        if (!norm || !normalized.hasOneUse())
          continue;
        std::optional<RootMeanSquareMatch> match =
            matchRootMeanSquare(norm, type);
        if (!match)
          continue;
        // d = x - mean(x) over the same axes, read by the square and the
        // normalization only.
        Value d = match->x;
        auto sub = d.getDefiningOp<SubOp>();
        if (!sub || llvm::any_of(d.getUsers(), [&](Operation *user) {
              return user != match->ops.front() && user != norm;
            }))
          continue;
        SmallVector<Operation *> views;
        Value meanValue = lookThroughReshapes(sub.getRhs(), views);
        auto mean = meanValue.getDefiningOp<ReduceOp>();
        if (!mean || !meanValue.hasOneUse() ||
            mean.getInput() != sub.getLhs() ||
            getTrailingMeanAxis(mean, rank) != match->axis)
          continue;
        Value scaleWeight = getOther(scale, normalized);
        Value offsetWeight = getOther(offset, scaled);
        ArrayRef<int64_t> shape = type.getShape().drop_front(match->axis);
        if (!isScaleWeight(scaleWeight, shape) ||
            !isScaleWeight(offsetWeight, shape) ||
            sub.getLhs().getType() != type)
          continue;
        SmallVector<Operation *> chain{mean};
        chain.append(views.rbegin(), views.rend());
        chain.push_back(sub);
        chain.append(match->ops.begin(), match->ops.end());
        chain.append({norm, scale, offset});
        rewriter.setInsertionPoint(offset);
        Value scaleDecl = declareWithShape(rewriter, scaleWeight, shape);
        Value offsetDecl = declareWithShape(rewriter, offsetWeight, shape);
        auto layerNorm = LayerNormOp::create(
            rewriter, getFusedLoc(chain), type, sub.getLhs(), scaleDecl,
            offsetDecl, rewriter.getF64FloatAttr(match->epsilon),
            rewriter.getI64IntegerAttr(match->axis == rank - 1 ? -1
                                                               : match->axis));
        replace(rewriter, layerNorm, chain, offset);
        eraseIfUnused(rewriter, scaleWeight);
        eraseIfUnused(rewriter, offsetWeight);
        return success();
      }
    }
    return failure();
  }
};

/// RMSNorm written out, as LlamaRMSNorm computes it and exporters spell it:
///   r = 1 / sqrt(mean(x * x) + eps); y = x * r * scale
/// (rsqrt, or 1 / sqrt, or x / sqrt), the mean over trailing axes, `scale`
/// a weight shaped like them (or with leading unit dimensions). `x` centred
/// by its mean is a layer norm's (DecomposedLayerNorm, matched at its
/// shift). Matched at the multiplication by the scale.
class DecomposedRmsNorm : public FusionPattern<MulOp> {
public:
  using FusionPattern::FusionPattern;

  LogicalResult matchAndRewrite(MulOp last,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(last.getType());
    for (auto [normalized, scale] : {std::pair(last.getLhs(), last.getRhs()),
                                     std::pair(last.getRhs(), last.getLhs())}) {
      Operation *norm = normalized.getDefiningOp();
      if (!norm || !normalized.hasOneUse())
        continue;
      std::optional<RootMeanSquareMatch> match =
          matchRootMeanSquare(norm, type);
      if (!match || isCentred(match->x))
        continue;
      ArrayRef<int64_t> shape = type.getShape().drop_front(match->axis);
      if (!isScaleWeight(scale, shape))
        continue;
      SmallVector<Operation *> chain(match->ops.begin(), match->ops.end());
      chain.append({norm, last});
      rewriter.setInsertionPoint(last);
      auto rmsNorm = RmsNormOp::create(
          rewriter, getFusedLoc(chain), type, match->x,
          declareWithShape(rewriter, scale, shape),
          rewriter.getF64FloatAttr(match->epsilon),
          rewriter.getI64IntegerAttr(
              match->axis == type.getRank() - 1 ? -1 : match->axis));
      replace(rewriter, rmsNorm, chain, last);
      eraseIfUnused(rewriter, scale);
      return success();
    }
    return failure();
  }

private:
  static bool isCentred(Value x) {
    auto sub = x.getDefiningOp<SubOp>();
    if (!sub)
      return false;
    SmallVector<Operation *> views;
    auto mean =
        lookThroughReshapes(sub.getRhs(), views).getDefiningOp<ReduceOp>();
    return mean && mean.getKind() == ReduceKind::Mean &&
           mean.getInput() == sub.getLhs();
  }
};

/// A fully connected layer without bias followed by the addition of a
/// [out] weight: the layer with that bias. Matched at the addition.
class BiasAdd : public FusionPattern<AddOp> {
public:
  using FusionPattern::FusionPattern;

  LogicalResult matchAndRewrite(AddOp add,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(add.getType());
    for (Value product : {add.getLhs(), add.getRhs()}) {
      auto fc = product.getDefiningOp<FullyConnectedOp>();
      Value bias = getOther(add, product);
      if (!fc || fc.getBias() || !product.hasOneUse() || fc.getType() != type ||
          !bias || !bias.getDefiningOp<WeightOp>() ||
          cast<RankedTensorType>(bias.getType()).getShape() !=
              ArrayRef<int64_t>{type.getShape().back()})
        continue;
      SmallVector<Operation *> chain{fc, add};
      rewriter.setInsertionPoint(add);
      auto fused =
          FullyConnectedOp::create(rewriter, getFusedLoc(chain), type,
                                   fc.getInput(), fc.getWeight(), bias);
      replace(rewriter, fused, chain, add);
      return success();
    }
    return failure();
  }
};

/// A batched product spelled over merged batch dimensions, as TOSA's 3-D
/// matmul forces: [B.., M, K] and [B.., K, N] reshaped to [b, M, K] and
/// [b, K, N] (b the product of B..), multiplied, the result reshaped back to
/// [B.., M, N] (the right operand possibly transposed after the merge).
/// The product over [B.., ...] itself keeps each batch
/// dimension (re-batchable, heads apart from the minibatch). Matched at the
/// last reshape.
class MergedBatchMatMul : public FusionPattern<ReshapeOp> {
public:
  using FusionPattern::FusionPattern;

  LogicalResult matchAndRewrite(ReshapeOp restore,
                                PatternRewriter &rewriter) const override {
    auto matmul = restore.getInput().getDefiningOp<MatMulOp>();
    if (!matmul || !restore.getInput().hasOneUse())
      return failure();
    auto type = cast<RankedTensorType>(restore.getType());
    auto merged = cast<RankedTensorType>(matmul.getType());
    if (merged.getRank() != 3 || type.getRank() < 4 ||
        !mergesBatch(type, merged))
      return failure();
    ArrayRef<int64_t> batch = type.getShape().drop_back(2);
    SmallVector<Value, 2> operands;
    SmallVector<Operation *> chain{matmul};
    // The keys transposed after the merge ([b, N, K] -> [b, K, N]) are the
    // product's transposed right operand.
    bool transposeRhs = matmul.getTransposeRhs();
    Value rhs = matmul.getRhs();
    if (auto transpose = rhs.getDefiningOp<TransposeOp>();
        transpose && !transposeRhs && rhs.hasOneUse() &&
        transpose.getPermutation() == ArrayRef<int64_t>{0, 2, 1}) {
      chain.push_back(transpose);
      rhs = transpose.getInput();
      transposeRhs = true;
    }
    for (Value operand : {Value(matmul.getLhs()), rhs}) {
      auto reshape = operand.getDefiningOp<ReshapeOp>();
      if (!reshape || !operand.hasOneUse())
        return failure();
      auto source = cast<RankedTensorType>(reshape.getInput().getType());
      if (source.getShape().drop_back(2) != batch ||
          !mergesBatch(source, cast<RankedTensorType>(operand.getType())))
        return failure();
      operands.push_back(reshape.getInput());
      chain.push_back(reshape);
    }
    chain.push_back(restore);
    // Where the product was, so that layers keep their order.
    rewriter.setInsertionPoint(matmul);
    auto product = MatMulOp::create(rewriter, getFusedLoc(chain), type,
                                    operands[0], operands[1], transposeRhs);
    replace(rewriter, product, chain, restore);
    return success();
  }

private:
  /// Whether `merged` is `full` with its batch dimensions (all but the last
  /// two) merged into one.
  static bool mergesBatch(RankedTensorType full, RankedTensorType merged) {
    if (full.getRank() < 3 || merged.getRank() != 3 ||
        full.getShape().take_back(2) != merged.getShape().take_back(2))
      return false;
    int64_t product = 1;
    for (int64_t size : full.getShape().drop_back(2))
      product *= size;
    return product == merged.getDimSize(0);
  }
};

/// A fully connected layer over rows merged into one dimension, as
/// torch.export writes nn.Linear on [B, T, in]: the input reshaped to
/// [B*T, in], the product, the result reshaped back to [B, T, out]. The
/// layer over [B, T, in] itself keeps the batch a dimension of its own
/// (re-batchable). Matched at the last reshape.
class MergedRowsFullyConnected : public FusionPattern<ReshapeOp> {
public:
  using FusionPattern::FusionPattern;

  LogicalResult matchAndRewrite(ReshapeOp restore,
                                PatternRewriter &rewriter) const override {
    auto fc = restore.getInput().getDefiningOp<FullyConnectedOp>();
    if (!fc || !restore.getInput().hasOneUse())
      return failure();
    auto merge = fc.getInput().getDefiningOp<ReshapeOp>();
    if (!merge || !fc.getInput().hasOneUse())
      return failure();
    auto type = cast<RankedTensorType>(restore.getType());
    auto source = cast<RankedTensorType>(merge.getInput().getType());
    auto rows = cast<RankedTensorType>(fc.getInput().getType());
    auto product = cast<RankedTensorType>(fc.getType());
    if (rows.getRank() != 2 || product.getRank() != 2 || source.getRank() < 3 ||
        source.getShape().drop_back() != type.getShape().drop_back() ||
        source.getShape().back() != rows.getDimSize(1) ||
        type.getShape().back() != product.getDimSize(1) ||
        source.getNumElements() / source.getShape().back() !=
            rows.getDimSize(0))
      return failure();
    SmallVector<Operation *> chain{fc, merge, restore};
    // Where the product was, so that layers keep their order.
    rewriter.setInsertionPoint(fc);
    auto layer = FullyConnectedOp::create(rewriter, getFusedLoc(chain), type,
                                          merge.getInput(), fc.getWeight(),
                                          fc.getBias());
    replace(rewriter, layer, chain, restore);
    return success();
  }
};

} // namespace

LogicalResult dsm::fuseGraph(Operation *root, FusionCallback onFused,
                             RewriterBase::Listener *listener) {
  MLIRContext *context = root->getContext();
  OnFused callback;
  if (onFused)
    callback = [onFused](StringRef pattern, Operation *fused,
                         ArrayRef<Operation *> replaced) {
      onFused(pattern, fused, replaced);
    };
  RewritePatternSet patterns(context);
  patterns.add<ComposedActivation>(context, "composed activation", callback);
  patterns.add<DecomposedLayerNorm>(context, "decomposed LayerNorm", callback);
  patterns.add<DecomposedRmsNorm>(context, "decomposed RMSNorm", callback);
  patterns.add<MergedRowsFullyConnected>(context, "merged-rows fully connected",
                                         callback);
  patterns.add<BiasAdd>(context, "bias add", callback);
  patterns.add<MergedBatchMatMul>(context, "merged-batch matmul", callback);
  // One walk: each pattern matches at the last op of its composition and
  // replaces only ops before it, and a fused op is no piece of another
  // composition. No folding and no dead-code removal: a front end's ops
  // stay unless a composition replaces them.
  walkAndApplyPatterns(root, std::move(patterns), listener);
  return success();
}

namespace {
struct FuseGraphPass : public dsm::impl::DsmFuseGraphBase<FuseGraphPass> {
  void runOnOperation() override {
    if (failed(fuseGraph(getOperation())))
      signalPassFailure();
  }
};
} // namespace
