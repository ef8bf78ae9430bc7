//===- OnnxFusions.cpp - Recognized ONNX subgraphs ------------------------===//
//
// Each recognizer starts at the first node of its subgraph, walks forward
// through single-use values (a value read elsewhere means the pieces are
// needed, so they are imported one by one) and checks the constants the
// subgraph must use. Constants are read with `peekContents`, since Constant
// nodes that feed later nodes of the subgraph may not be imported yet.
//
//===----------------------------------------------------------------------===//

#include "OnnxFusions.h"
#include "GraphImporter.h"
#include "OnnxShapes.h"
#include "OnnxTypes.h"

#include "onnx.pb.h"

#include "dsm/Dialect/DsmOps.h"

#include <cmath>

using namespace mlir;
using namespace dsm::onnx;

namespace {

constexpr StringLiteral kGeluPattern = "erf GELU";
constexpr StringLiteral kLayerNormPattern = "decomposed LayerNorm";

class Matcher {
public:
  Matcher(GraphImporter &imp, const OnnxNode &first) : imp(imp), first(first) {}

  FailureOr<bool> matchGelu();
  FailureOr<bool> matchLayerNorm();

private:
  /// The single node reading `value` (read once, not a graph output), if it
  /// has op type `opType` and comes later in the graph.
  const OnnxNode *soleUser(StringRef value, StringRef opType) const {
    if (imp.getUseCount(value) != 1 || imp.getUsers(value).size() != 1)
      return nullptr;
    const OnnxNode *user = imp.getUsers(value).front();
    if (user->getOpType() != opType || user->getIndex() <= first.getIndex())
      return nullptr;
    return user;
  }
  /// The input of a two-input `node` other than `value`, or "" when
  /// `value` is not one of its inputs.
  static StringRef other(const OnnxNode &node, StringRef value) {
    if (node.getNumInputs() != 2)
      return "";
    if (node.getInput(0) == value)
      return node.getInput(1);
    if (node.getInput(1) == value)
      return node.getInput(0);
    return "";
  }
  /// Whether `value` is a static scalar (of rank <= `maxRank`, so that it
  /// broadcasts without changing the shape) close to `expected`.
  bool isScalar(StringRef value, double expected, int64_t maxRank) {
    if (value.empty())
      return false;
    const HostTensor *t = imp.peekContents(value);
    if (!t || !t->isFloat() || t->getNumElements() != 1 ||
        t->getRank() > maxRank)
      return false;
    return std::fabs(t->getFloat(0) - expected) <=
           1e-4 * std::max(1.0, std::fabs(expected));
  }
  std::optional<double> scalarValue(StringRef value, int64_t maxRank) {
    const HostTensor *t = value.empty() ? nullptr : imp.peekContents(value);
    if (!t || !t->isFloat() || t->getNumElements() != 1 ||
        t->getRank() > maxRank)
      return std::nullopt;
    return t->getFloat(0);
  }
  /// Emits the fused op's result as the value of `output` and marks `nodes`
  /// (after the first) consumed.
  LogicalResult finish(StringRef pattern, ArrayRef<const OnnxNode *> nodes,
                       StringRef output, FailureOr<Value> result) {
    if (failed(result))
      return failure();
    for (const OnnxNode *node : nodes)
      if (node != &first)
        imp.consume(*node, pattern);
    imp.recordPattern(pattern);
    return imp.define(*nodes.back(), output, *result);
  }
  Location fusedLoc(ArrayRef<const OnnxNode *> nodes) const {
    SmallVector<Location> locs;
    for (const OnnxNode *node : nodes)
      locs.push_back(node->getLoc());
    return FusedLoc::get(imp.getContext(), locs);
  }

  GraphImporter &imp;
  const OnnxNode &first;
};

} // namespace

/// x * 0.5 * (1 + erf(x / sqrt(2))), as torch.onnx writes GELU before opset
/// 20: Div(x, 1.414..) (or Mul by 0.707..), Erf, Add 1, then either
/// Mul(x, .) and Mul(., 0.5), or Mul(Mul(x, 0.5), .).
FailureOr<bool> Matcher::matchGelu() {
  StringRef op = first.getOpType();
  if (op != "Div" && op != "Mul")
    return false;
  if (first.getNumInputs() != 2)
    return false;
  StringRef x = first.getInput(0);
  if (!imp.isDefined(x))
    return false;
  int64_t rank = imp.get(x).shape.size();
  bool scaled = op == "Div" ? isScalar(first.getInput(1), M_SQRT2, rank)
                            : isScalar(first.getInput(1), M_SQRT1_2, rank);
  if (!scaled && op == "Mul" && isScalar(first.getInput(0), M_SQRT1_2, rank)) {
    x = first.getInput(1);
    scaled = imp.isDefined(x);
    rank = scaled ? imp.get(x).shape.size() : 0;
  }
  if (!scaled)
    return false;
  const OnnxNode *erf = soleUser(first.getOutput(0), "Erf");
  if (!erf)
    return false;
  const OnnxNode *addOne = soleUser(erf->getOutput(0), "Add");
  if (!addOne || !isScalar(other(*addOne, erf->getOutput(0)), 1.0, rank))
    return false;
  const OnnxNode *mul = soleUser(addOne->getOutput(0), "Mul");
  if (!mul)
    return false;
  StringRef factor = other(*mul, addOne->getOutput(0));
  SmallVector<const OnnxNode *> nodes{erf, &first, addOne, mul};
  StringRef output;
  if (factor == x) {
    // (x * (1 + erf)) * 0.5
    const OnnxNode *half = soleUser(mul->getOutput(0), "Mul");
    if (!half || !isScalar(other(*half, mul->getOutput(0)), 0.5, rank))
      return false;
    nodes.push_back(half);
    output = half->getOutput(0);
  } else {
    // (x * 0.5) * (1 + erf): the half product may come before or after.
    const OnnxNode *half = imp.getProducer(factor);
    if (!half || half->getOpType() != "Mul" || imp.getUseCount(factor) != 1 ||
        !isScalar(other(*half, x), 0.5, rank))
      return false;
    if (half->getIndex() > first.getIndex())
      nodes.push_back(half);
    output = mul->getOutput(0);
  }
  FailureOr<Value> input = imp.materialize(first, x);
  if (failed(input))
    return failure();
  if (!isDsmElementType(
          cast<RankedTensorType>(input->getType()).getElementType()))
    return false;
  imp.setOutcome(dsm::ImportSummary::Outcome::Fused);
  imp.setPattern(kGeluPattern);
  // The last node defines the output; keep it last for `finish`.
  std::swap(nodes.back(), *llvm::find_if(nodes, [&](const OnnxNode *n) {
              return n->getOutput(0) == output;
            }));
  if (failed(finish(kGeluPattern, nodes, output,
                    imp.create<dsm::GeluOp>(fusedLoc(nodes), {*input}))))
    return failure();
  return true;
}

/// LayerNorm as exporters write it before opset 17:
///   m = ReduceMean(x, trailing axes); d = Sub(x, m); v = ReduceMean(Pow(d, 2))
///   y = Div(d, Sqrt(Add(v, eps))) * scale + offset
FailureOr<bool> Matcher::matchLayerNorm() {
  if (first.getOpType() != "ReduceMean" || first.getNumOutputs() != 1)
    return false;
  StringRef x = first.getInput(0);
  if (!imp.isDefined(x))
    return false;
  ArrayRef<int64_t> shape = imp.get(x).shape;
  int64_t rank = shape.size();
  // Axes: attribute before opset 18, an input from it.
  auto readAxes =
      [&](const OnnxNode &node) -> std::optional<SmallVector<int64_t>> {
    // Read the attributes directly: a malformed one is reported when the
    // node is imported on its own.
    const dsm_onnx::AttributeProto *keepDims = node.getAttr("keepdims");
    if (keepDims && keepDims->i() != 1)
      return std::nullopt;
    SmallVector<int64_t> axes;
    if (imp.getOpset() < 18) {
      if (const dsm_onnx::AttributeProto *attr = node.getAttr("axes"))
        axes.assign(attr->ints().begin(), attr->ints().end());
    } else if (node.hasInput(1)) {
      const HostTensor *t = imp.peekContents(node.getInput(1));
      if (!t || t->isFloat())
        return std::nullopt;
      for (int64_t v : t->toInts())
        axes.push_back(v);
    }
    llvm::Expected<SmallVector<int64_t>> normalized = normalizeAxes(axes, rank);
    if (!normalized) {
      llvm::consumeError(normalized.takeError());
      return std::nullopt;
    }
    return *normalized;
  };
  std::optional<SmallVector<int64_t>> axes = readAxes(first);
  if (!axes || axes->empty() || axes->back() != rank - 1 ||
      int64_t(axes->size()) != rank - axes->front())
    return false;
  int64_t axis = axes->front();

  const OnnxNode *sub = soleUser(first.getOutput(0), "Sub");
  if (!sub || sub->getInput(0) != x || sub->getInput(1) != first.getOutput(0))
    return false;
  StringRef d = sub->getOutput(0);
  if (imp.getUseCount(d) != 2 || imp.getUsers(d).size() != 2)
    return false;
  const OnnxNode *square = nullptr, *div = nullptr;
  for (const OnnxNode *user : imp.getUsers(d)) {
    if (user->getOpType() == "Div" && user->getInput(0) == d)
      div = user;
    else if ((user->getOpType() == "Pow" && user->getInput(0) == d &&
              isScalar(user->getInput(1), 2.0, rank)) ||
             (user->getOpType() == "Mul" && user->getInput(0) == d &&
              user->getInput(1) == d))
      square = user;
  }
  if (!square || !div)
    return false;
  const OnnxNode *variance = soleUser(square->getOutput(0), "ReduceMean");
  if (!variance || readAxes(*variance) != axes)
    return false;
  const OnnxNode *addEps = soleUser(variance->getOutput(0), "Add");
  if (!addEps)
    return false;
  std::optional<double> epsilon =
      scalarValue(other(*addEps, variance->getOutput(0)), rank);
  if (!epsilon || *epsilon <= 0)
    return false;
  const OnnxNode *sqrt = soleUser(addEps->getOutput(0), "Sqrt");
  if (!sqrt || imp.getUseCount(sqrt->getOutput(0)) != 1 ||
      div->getInput(1) != sqrt->getOutput(0))
    return false;
  const OnnxNode *scale = soleUser(div->getOutput(0), "Mul");
  if (!scale)
    return false;
  const OnnxNode *offset = soleUser(scale->getOutput(0), "Add");
  if (!offset)
    return false;
  StringRef scaleName = other(*scale, div->getOutput(0));
  StringRef offsetName = other(*offset, scale->getOutput(0));
  ArrayRef<int64_t> normalized = shape.drop_front(axis);
  for (StringRef param : {scaleName, offsetName})
    if (param.empty() || !imp.isDefined(param) || !imp.isParameter(param) ||
        ArrayRef<int64_t>(imp.get(param).shape) != normalized)
      return false;

  SmallVector<Value> operands;
  for (StringRef name : {x, scaleName, offsetName}) {
    FailureOr<Value> value = imp.materialize(first, name);
    if (failed(value))
      return failure();
    operands.push_back(*value);
  }
  if (!isDsmElementType(
          cast<RankedTensorType>(operands[0].getType()).getElementType()))
    return false;
  imp.setOutcome(dsm::ImportSummary::Outcome::Fused);
  imp.setPattern(kLayerNormPattern);
  SmallVector<const OnnxNode *> nodes{&first, sub, square, variance, addEps,
                                      sqrt,   div, scale,  offset};
  OpBuilder &b = imp.getBuilder();
  SmallVector<NamedAttribute> attrs{
      b.getNamedAttr("epsilon", b.getF64FloatAttr(*epsilon))};
  if (axis != rank - 1)
    attrs.push_back(b.getNamedAttr("axis", b.getI64IntegerAttr(axis)));
  if (failed(finish(
          kLayerNormPattern, nodes, offset->getOutput(0),
          imp.create<dsm::LayerNormOp>(fusedLoc(nodes), operands, attrs))))
    return failure();
  return true;
}

FailureOr<bool> dsm::onnx::tryFusions(GraphImporter &importer,
                                      const OnnxNode &node) {
  if (!node.isOnnxDomain())
    return false;
  Matcher matcher(importer, node);
  FailureOr<bool> gelu = matcher.matchGelu();
  if (failed(gelu) || *gelu)
    return gelu;
  return matcher.matchLayerNorm();
}
