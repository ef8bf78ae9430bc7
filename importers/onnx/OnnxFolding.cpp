//===- OnnxFolding.cpp - Static evaluation of ONNX nodes ------------------===//
//
// Evaluates nodes whose inputs are all statically known: Constant nodes, the
// Shape -> Gather -> Unsqueeze -> Concat -> Reshape subgraphs exporters write
// for `x.view(n, t, -1)`, masks built from constants, and so on. Shape and
// Size need only the (always static) shape of their input. Results larger
// than HostTensor::kMaxElements are left to the conversions.
//
//===----------------------------------------------------------------------===//

#include "OnnxFolding.h"
#include "GraphImporter.h"
#include "OnnxOperands.h"
#include "OnnxShapes.h"
#include "OnnxTypes.h"

#include "onnx.pb.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <cmath>
#include <functional>
#include <limits>

using namespace mlir;
using namespace dsm::onnx;
using dsm_onnx::AttributeProto;
using dsm_onnx::TensorProto;

namespace {

/// Min, Max and the comparisons (as 0 or 1), alike on floats and integers;
/// none for the other operators.
template <typename T> std::optional<T> selectOrCompare(StringRef op, T a, T b) {
  return llvm::StringSwitch<std::optional<T>>(op)
      .Case("Min", std::min(a, b))
      .Case("Max", std::max(a, b))
      .Case("Equal", T(a == b))
      .Case("Less", T(a < b))
      .Case("Greater", T(a > b))
      .Case("LessOrEqual", T(a <= b))
      .Case("GreaterOrEqual", T(a >= b))
      .Default(std::nullopt);
}

/// `a op b` for ONNX's binary operator `op` (Add, Sum, Sub, Mul, Div, Mod,
/// Pow, or one of selectOrCompare's) on floats.
double combine(StringRef op, double a, double b) {
  if (std::optional<double> r = selectOrCompare(op, a, b))
    return *r;
  return llvm::StringSwitch<double>(op)
      .Cases({"Add", "Sum", "Mean"}, a + b)
      .Case("Sub", a - b)
      .Case("Mul", a * b)
      .Case("Div", a / b)
      .Case("Mod", std::fmod(a, b))
      .Case("Pow", std::pow(a, b))
      .Default(a);
}

/// The same on integers (and And, Or, Xor on booleans), in checked
/// arithmetic: none for a division by zero or a result out of 64 bits.
std::optional<int64_t> combine(StringRef op, int64_t a, int64_t b) {
  if (op == "Add" || op == "Sum")
    return llvm::checkedAdd(a, b);
  if (op == "Sub")
    return llvm::checkedSub(a, b);
  if (op == "Mul")
    return llvm::checkedMul(a, b);
  if (op == "Div" || op == "Mod") {
    if (b == 0 || (a == std::numeric_limits<int64_t>::min() && b == -1))
      return op == "Mod" && b == -1 ? std::optional<int64_t>(0) : std::nullopt;
    if (op == "Div")
      return a / b;
    // ONNX's integer Mod takes the sign of the divisor.
    int64_t r = a % b;
    return r != 0 && (r < 0) != (b < 0) ? r + b : r;
  }
  if (op == "Pow") {
    double r = std::pow(double(a), double(b));
    if (!(r >= -0x1p63 && r < 0x1p63))
      return std::nullopt;
    return int64_t(r);
  }
  if (std::optional<int64_t> r = selectOrCompare(op, a, b))
    return r;
  return llvm::StringSwitch<int64_t>(op)
      .Case("And", a && b)
      .Case("Or", a || b)
      .Case("Xor", bool(a) != bool(b))
      .Default(a);
}

/// Calls `fn` with every multi-index of `shape` in row-major order.
void forEachIndex(ArrayRef<int64_t> shape,
                  llvm::function_ref<void(ArrayRef<int64_t>)> fn) {
  std::optional<int64_t> count = getNumElements(shape);
  if (!count || *count == 0)
    return;
  SmallVector<int64_t> index(shape.size(), 0);
  for (int64_t n = 0; n < *count; ++n) {
    fn(index);
    for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
}

SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// Strides of `in` seen through a broadcast to `out` (0 along stretched dims).
SmallVector<int64_t> broadcastStrides(ArrayRef<int64_t> in,
                                      ArrayRef<int64_t> out) {
  SmallVector<int64_t> strides(out.size(), 0);
  SmallVector<int64_t> own = stridesOf(in);
  size_t offset = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i)
    strides[i + offset] = in[i] == 1 ? 0 : own[i];
  return strides;
}

int64_t dot(ArrayRef<int64_t> index, ArrayRef<int64_t> strides) {
  int64_t offset = 0;
  for (size_t i = 0; i < index.size(); ++i)
    offset += index[i] * strides[i];
  return offset;
}

/// Builds a result of `dataType` from doubles or ints, whichever it holds.
HostTensor makeResult(int32_t dataType, ArrayRef<int64_t> shape,
                      std::vector<double> floats, std::vector<int64_t> ints) {
  if (isFloatDataType(dataType))
    return HostTensor::getFloats(dataType, shape, std::move(floats));
  return HostTensor::getInts(dataType, shape, std::move(ints));
}

/// Gathers elements of `in` at `sources` (linear indices) into `shape`.
HostTensor gatherElements(const HostTensor &in, ArrayRef<int64_t> shape,
                          ArrayRef<int64_t> sources) {
  std::vector<double> floats;
  std::vector<int64_t> ints;
  for (int64_t s : sources) {
    if (in.isFloat())
      floats.push_back(in.getFloat(s));
    else
      ints.push_back(in.getInt(s));
  }
  return makeResult(in.getDataType(), shape, std::move(floats),
                    std::move(ints));
}

class Folder {
public:
  Folder(GraphImporter &importer, const OnnxNode &node)
      : importer(importer), node(node) {}

  /// True when folded (outputs defined); false when not foldable.
  FailureOr<bool> run();

private:
  const HostTensor &in(unsigned i) const {
    return *importer.getContents(node.getInput(i));
  }
  FailureOr<bool> done(HostTensor result) {
    if (!small(result.getShape()))
      return false;
    if (node.getOutput(0).empty())
      return true;
    if (failed(importer.defineContents(node, node.getOutput(0),
                                       std::move(result))))
      return failure();
    return true;
  }
  FailureOr<bool> fail(const Twine &message) {
    return node.emitError() << message;
  }
  /// Whether a result of `shape` is small enough to fold. Also requires the
  /// product of its non-zero dimensions to fit, so that no partial product
  /// computed while folding overflows (an empty tensor may have huge
  /// dimensions).
  static bool small(ArrayRef<int64_t> shape) {
    std::optional<int64_t> count = getNumElements(shape);
    SmallVector<int64_t> nonZero;
    for (int64_t d : shape)
      if (d != 0)
        nonZero.push_back(d);
    return count && *count <= HostTensor::kMaxElements &&
           getNumElements(nonZero).has_value();
  }

  /// The contents of the tensor attribute `attr`; none when it holds no
  /// data (stripped, external, or too large to hold).
  FailureOr<std::optional<HostTensor>>
  readTensorAttr(const AttributeProto &attr);
  /// A Constant's `scalarName` attribute as a scalar, or its `listName`
  /// attribute as a 1-D tensor, of T (double: FLOAT, int64_t: INT64); none
  /// when it has neither.
  template <typename T>
  FailureOr<std::optional<HostTensor>> readConstantValues(StringRef scalarName,
                                                          StringRef listName);
  FailureOr<bool> foldConstant();
  FailureOr<bool> foldElementwise(StringRef op);
  FailureOr<bool> foldUnary(StringRef op);
  FailureOr<bool> foldGather();
  FailureOr<bool> foldConcat();
  FailureOr<bool> foldSlice();
  FailureOr<bool> foldTranspose();
  FailureOr<bool> foldExpand();
  FailureOr<bool> foldRange();
  FailureOr<bool> foldConstantOfShape();
  FailureOr<bool> foldTrilu();
  FailureOr<bool> foldReduce(StringRef op);

  GraphImporter &importer;
  const OnnxNode &node;
};

} // namespace

FailureOr<bool> Folder::run() {
  StringRef op = node.getOpType();
  if (!node.isOnnxDomain() || node.getNumOutputs() == 0)
    return false;
  if (op == "Constant")
    return foldConstant();
  // Shape and Size read only the static shape of their input.
  if (op == "Shape" || op == "Size") {
    if (!node.hasInput(0))
      return false;
    ArrayRef<int64_t> shape = importer.get(node.getInput(0)).shape;
    if (op == "Size")
      return done(HostTensor::getInts(TensorProto::INT64, {},
                                      {getNumElements(shape).value_or(0)}));
    int64_t rank = shape.size();
    FailureOr<int64_t> start = node.getInt("start", 0);
    FailureOr<int64_t> end = node.getInt("end", rank);
    if (failed(start) || failed(end))
      return failure();
    auto clampAxis = [&](int64_t a) {
      if (a < 0)
        a += rank;
      return std::clamp<int64_t>(a, 0, rank);
    };
    int64_t first = clampAxis(*start), last = clampAxis(*end);
    std::vector<int64_t> dims;
    for (int64_t i = first; i < last; ++i)
      dims.push_back(shape[i]);
    return done(
        HostTensor::getInts(TensorProto::INT64, {int64_t(dims.size())}, dims));
  }
  // Everything else needs all its inputs, of foldable sizes.
  bool anyInput = false;
  for (unsigned i = 0; i < node.getNumInputs(); ++i) {
    if (!node.hasInput(i))
      continue;
    anyInput = true;
    const HostTensor *contents = importer.getContents(node.getInput(i));
    if (!contents || !small(contents->getShape()))
      return false;
  }
  if (!anyInput && op != "ConstantOfShape")
    return false;

  if (op == "Identity" || op == "Dropout") {
    if (node.getNumOutputs() > 1 && !node.getOutput(1).empty())
      return false;
    return done(in(0));
  }
  if (op == "Cast") {
    FailureOr<int64_t> to = node.getInt("to");
    if (failed(to))
      return failure();
    if (!getDataTypeSize(*to))
      return false;
    return done(in(0).cast(*to));
  }
  if (op == "Reshape" || op == "Squeeze" || op == "Unsqueeze" ||
      op == "Flatten") {
    ArrayRef<int64_t> shape = in(0).getShape();
    llvm::Expected<SmallVector<int64_t>> result = SmallVector<int64_t>();
    if (op == "Reshape") {
      FailureOr<SmallVector<int64_t>> requested =
          getStaticInts(importer, node, 1, "shape");
      FailureOr<int64_t> allowZero = node.getInt("allowzero", 0);
      if (failed(requested) || failed(allowZero))
        return failure();
      result = inferReshape(shape, *requested, *allowZero != 0);
    } else if (op == "Flatten") {
      FailureOr<int64_t> axis = node.getInt("axis", 1);
      if (failed(axis))
        return failure();
      result = flattenShape(shape, *axis);
    } else {
      auto axes = getIntsOperand(importer, node, 1, "axes", 13);
      if (failed(axes))
        return failure();
      if (op == "Squeeze")
        result = squeezeShape(shape, axes->value_or(SmallVector<int64_t>()));
      else if (!*axes)
        return fail("missing axes");
      else
        result = unsqueezeShape(shape, **axes);
    }
    if (!result)
      return fail(llvm::toString(result.takeError()));
    return done(in(0).reshaped(*result));
  }
  if (op == "Gather")
    return foldGather();
  if (op == "Concat")
    return foldConcat();
  if (op == "Slice")
    return foldSlice();
  if (op == "Transpose")
    return foldTranspose();
  if (op == "Expand")
    return foldExpand();
  if (op == "Range")
    return foldRange();
  if (op == "ConstantOfShape")
    return foldConstantOfShape();
  if (op == "Trilu")
    return foldTrilu();
  if (op.starts_with("Reduce"))
    return foldReduce(op);
  if (llvm::is_contained({"Add", "Sub", "Mul", "Div", "Pow", "Min", "Max",
                          "Mod", "Equal", "Less", "Greater", "LessOrEqual",
                          "GreaterOrEqual", "And", "Or", "Xor", "Where", "Sum",
                          "Mean"},
                         op))
    return foldElementwise(op);
  if (llvm::is_contained({"Neg", "Abs", "Sqrt", "Floor", "Ceil", "Reciprocal",
                          "Not", "Relu", "Exp", "Log", "Sign"},
                         op))
    return foldUnary(op);
  return false;
}

FailureOr<std::optional<HostTensor>>
Folder::readTensorAttr(const AttributeProto &attr) {
  if (!attr.has_t())
    return node.emitError()
           << "attribute '" << attr.name() << "' must be a tensor";
  llvm::Expected<std::optional<HostTensor>> contents =
      HostTensor::fromProto(attr.t());
  if (!contents)
    return node.emitError() << llvm::toString(contents.takeError());
  return std::move(*contents);
}

template <typename T>
FailureOr<std::optional<HostTensor>>
Folder::readConstantValues(StringRef scalarName, StringRef listName) {
  bool scalar = node.hasAttr(scalarName);
  if (!scalar && !node.hasAttr(listName))
    return std::optional<HostTensor>();
  SmallVector<T> values;
  if (scalar) {
    FailureOr<T> value = std::is_same_v<T, double>
                             ? FailureOr<T>(node.getFloat(scalarName))
                             : FailureOr<T>(node.getInt(scalarName));
    if (failed(value))
      return failure();
    values.push_back(*value);
  } else {
    FailureOr<SmallVector<T>> list;
    if constexpr (std::is_same_v<T, double>)
      list = node.getFloats(listName);
    else
      list = node.getInts(listName);
    if (failed(list))
      return failure();
    values = std::move(*list);
  }
  SmallVector<int64_t> shape;
  if (!scalar)
    shape.push_back(values.size());
  if constexpr (std::is_same_v<T, double>)
    return std::optional<HostTensor>(HostTensor::getFloats(
        TensorProto::FLOAT, shape, {values.begin(), values.end()}));
  else
    return std::optional<HostTensor>(HostTensor::getInts(
        TensorProto::INT64, shape, {values.begin(), values.end()}));
}

FailureOr<bool> Folder::foldConstant() {
  StringRef output = node.getOutput(0);
  if (const AttributeProto *attr = node.getAttr("value")) {
    FailureOr<std::optional<HostTensor>> contents = readTensorAttr(*attr);
    if (failed(contents))
      return failure();
    if (*contents) {
      if (failed(importer.defineContents(node, output, std::move(**contents))))
        return failure();
      return true;
    }
    // No data (stripped or external) or too large to hold: a parameter.
    if (!isFloatDataType(attr->t().data_type()) &&
        attr->t().data_type() != TensorProto::INT8)
      return fail("its " + getDataTypeName(attr->t().data_type()) +
                  " tensor has no data, which the importer needs");
    if (failed(importer.defineParameter(node, output, attr->t())))
      return failure();
    return true;
  }
  FailureOr<std::optional<HostTensor>> contents =
      readConstantValues<double>("value_float", "value_floats");
  if (succeeded(contents) && !*contents)
    contents = readConstantValues<int64_t>("value_int", "value_ints");
  if (failed(contents))
    return failure();
  if (*contents)
    return done(std::move(**contents));
  return fail("only tensor, float and integer constants are supported");
}

FailureOr<bool> Folder::foldElementwise(StringRef op) {
  SmallVector<const HostTensor *> inputs;
  for (unsigned i = 0; i < node.getNumInputs(); ++i)
    if (node.hasInput(i))
      inputs.push_back(&in(i));
  bool isWhere = op == "Where";
  if (inputs.empty() || (isWhere && inputs.size() != 3) ||
      (!isWhere && op != "Min" && op != "Max" && op != "Sum" && op != "Mean" &&
       inputs.size() != 2))
    return fail("has the wrong number of inputs");
  // Mean is defined on floats only: the sum, divided by the count.
  bool isMean = op == "Mean";
  if (isMean && !inputs[0]->isFloat())
    return false;
  SmallVector<int64_t> shape(inputs[0]->getShape());
  for (const HostTensor *t : ArrayRef(inputs).drop_front()) {
    llvm::Expected<SmallVector<int64_t>> next =
        broadcastShapes(shape, t->getShape());
    if (!next)
      return fail(llvm::toString(next.takeError()));
    shape = *next;
  }
  if (!small(shape))
    return false;
  bool comparison = llvm::is_contained(
      {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"}, op);
  bool logical = llvm::is_contained({"And", "Or", "Xor"}, op);
  const HostTensor &valueSource = isWhere ? *inputs[1] : *inputs[0];
  int32_t resultType = comparison || logical ? int32_t(TensorProto::BOOL)
                                             : valueSource.getDataType();
  bool useFloat = isWhere ? inputs[1]->isFloat() : inputs[0]->isFloat();

  SmallVector<SmallVector<int64_t>> strides;
  for (const HostTensor *t : inputs)
    strides.push_back(broadcastStrides(t->getShape(), shape));
  std::vector<double> floats;
  std::vector<int64_t> ints;
  bool outOfRange = false;
  forEachIndex(shape, [&](ArrayRef<int64_t> index) {
    SmallVector<int64_t> at;
    for (auto &s : strides)
      at.push_back(dot(index, s));
    if (isWhere) {
      const HostTensor &chosen =
          inputs[0]->getInt(at[0]) ? *inputs[1] : *inputs[2];
      int64_t pos = inputs[0]->getInt(at[0]) ? at[1] : at[2];
      if (useFloat)
        floats.push_back(chosen.getFloat(pos));
      else
        ints.push_back(chosen.getInt(pos));
      return;
    }
    // Comparisons of floats compare as floats and give booleans; everything
    // else computes in the type of its inputs.
    bool inFloat = useFloat && !logical;
    std::optional<double> floatAcc;
    std::optional<int64_t> intAcc;
    if (inFloat)
      floatAcc = inputs[0]->getFloat(at[0]);
    else
      intAcc = inputs[0]->getInt(at[0]);
    for (size_t k = 1; k < inputs.size(); ++k) {
      if (inFloat)
        floatAcc = combine(op, *floatAcc, inputs[k]->getFloat(at[k]));
      else if (!(intAcc = combine(op, *intAcc, inputs[k]->getInt(at[k])))) {
        outOfRange = true;
        return;
      }
    }
    if (!inFloat)
      ints.push_back(*intAcc);
    else if (comparison)
      ints.push_back(*floatAcc != 0);
    else
      floats.push_back(isMean ? *floatAcc / double(inputs.size()) : *floatAcc);
  });
  if (outOfRange)
    return fail("divides by zero or leaves the 64-bit integers in a static "
                "computation");
  return done(
      makeResult(resultType, shape, std::move(floats), std::move(ints)));
}

FailureOr<bool> Folder::foldUnary(StringRef op) {
  const HostTensor &x = in(0);
  int32_t resultType =
      op == "Not" ? int32_t(TensorProto::BOOL) : x.getDataType();
  std::vector<double> floats;
  std::vector<int64_t> ints;
  for (int64_t i = 0, e = x.getNumElements(); i < e; ++i) {
    if (x.isFloat()) {
      double v = x.getFloat(i);
      double r = llvm::StringSwitch<double>(op)
                     .Case("Neg", -v)
                     .Case("Abs", std::fabs(v))
                     .Case("Sqrt", std::sqrt(v))
                     .Case("Floor", std::floor(v))
                     .Case("Ceil", std::ceil(v))
                     .Case("Reciprocal", 1.0 / v)
                     .Case("Relu", v > 0 ? v : 0.0)
                     .Case("Exp", std::exp(v))
                     .Case("Log", std::log(v))
                     .Case("Sign", double((v > 0) - (v < 0)))
                     .Default(v == 0.0);
      if (op == "Not")
        ints.push_back(v == 0.0);
      else
        floats.push_back(r);
    } else {
      int64_t v = x.getInt(i);
      if (op == "Reciprocal" || op == "Sqrt" || op == "Exp" || op == "Log")
        return false;
      // -v of the smallest integer is out of 64 bits.
      bool negatable = v != std::numeric_limits<int64_t>::min();
      if (!negatable && (op == "Neg" || op == "Abs"))
        return fail("leaves the 64-bit integers in a static computation");
      int64_t negated = negatable ? -v : v;
      ints.push_back(llvm::StringSwitch<int64_t>(op)
                         .Case("Neg", negated)
                         .Case("Abs", v < 0 ? negated : v)
                         .Case("Relu", v > 0 ? v : 0)
                         .Case("Sign", (v > 0) - (v < 0))
                         .Case("Not", v == 0)
                         .Default(v));
    }
  }
  return done(
      makeResult(resultType, x.getShape(), std::move(floats), std::move(ints)));
}

FailureOr<bool> Folder::foldGather() {
  const HostTensor &data = in(0), &indices = in(1);
  if (indices.isFloat())
    return fail("indices must be integers");
  FailureOr<int64_t> axisAttr = node.getInt("axis", 0);
  if (failed(axisAttr))
    return failure();
  std::optional<int64_t> axis = normalizeAxis(*axisAttr, data.getRank());
  if (!axis)
    return fail("axis " + Twine(*axisAttr) + " is out of range");
  ArrayRef<int64_t> shape = data.getShape();
  SmallVector<int64_t> result(shape.take_front(*axis));
  llvm::append_range(result, indices.getShape());
  llvm::append_range(result, shape.drop_front(*axis + 1));
  if (!small(result))
    return false;
  int64_t outer = *getNumElements(shape.take_front(*axis));
  int64_t inner = *getNumElements(shape.drop_front(*axis + 1));
  int64_t extent = shape[*axis];
  SmallVector<int64_t> sources;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0, n = indices.getNumElements(); k < n; ++k) {
      int64_t index = indices.getInt(k);
      if (index < 0)
        index += extent;
      if (index < 0 || index >= extent)
        return fail("index " + Twine(indices.getInt(k)) +
                    " is out of range for a dimension of " + Twine(extent));
      for (int64_t j = 0; j < inner; ++j)
        sources.push_back((o * extent + index) * inner + j);
    }
  return done(gatherElements(data, result, sources));
}

FailureOr<bool> Folder::foldConcat() {
  FailureOr<int64_t> axisAttr = node.getInt("axis");
  if (failed(axisAttr))
    return failure();
  const HostTensor &first = in(0);
  std::optional<int64_t> axis = normalizeAxis(*axisAttr, first.getRank());
  if (!axis)
    return fail("axis " + Twine(*axisAttr) + " is out of range");
  SmallVector<int64_t> shape(first.getShape());
  shape[*axis] = 0;
  for (unsigned i = 0; i < node.getNumInputs(); ++i) {
    const HostTensor &t = in(i);
    if (t.getRank() != first.getRank())
      return fail("inputs have different ranks");
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (d != *axis && t.getShape()[d] != first.getShape()[d])
        return fail("input shapes " + formatShape(first.getShape()) + " and " +
                    formatShape(t.getShape()) + " differ outside the axis");
    shape[*axis] += t.getShape()[*axis];
  }
  int64_t outer = *getNumElements(ArrayRef(shape).take_front(*axis));
  int64_t inner = *getNumElements(ArrayRef(shape).drop_front(*axis + 1));
  std::vector<double> floats;
  std::vector<int64_t> ints;
  for (int64_t o = 0; o < outer; ++o)
    for (unsigned i = 0; i < node.getNumInputs(); ++i) {
      const HostTensor &t = in(i);
      int64_t rows = t.getShape()[*axis] * inner;
      for (int64_t k = 0; k < rows; ++k) {
        if (first.isFloat())
          floats.push_back(t.getFloat(o * rows + k));
        else
          ints.push_back(t.getInt(o * rows + k));
      }
    }
  return done(makeResult(first.getDataType(), shape, std::move(floats),
                         std::move(ints)));
}

FailureOr<bool> Folder::foldSlice() {
  const HostTensor &data = in(0);
  FailureOr<SliceOperands> bounds = getSliceOperands(importer, node);
  if (failed(bounds))
    return failure();
  auto &[starts, ends, axes, steps] = *bounds;
  llvm::Expected<SmallVector<SliceRange>> ranges =
      resolveSlice(data.getShape(), starts, ends, axes, steps);
  if (!ranges)
    return fail(llvm::toString(ranges.takeError()));
  SmallVector<int64_t> shape;
  for (const SliceRange &r : *ranges)
    shape.push_back(r.count);
  SmallVector<int64_t> strides = stridesOf(data.getShape());
  SmallVector<int64_t> sources;
  forEachIndex(shape, [&](ArrayRef<int64_t> index) {
    int64_t offset = 0;
    for (size_t d = 0; d < index.size(); ++d)
      offset +=
          ((*ranges)[d].start + index[d] * (*ranges)[d].step) * strides[d];
    sources.push_back(offset);
  });
  return done(gatherElements(data, shape, sources));
}

FailureOr<bool> Folder::foldTranspose() {
  const HostTensor &data = in(0);
  SmallVector<int64_t> reversed;
  for (int64_t i = data.getRank() - 1; i >= 0; --i)
    reversed.push_back(i);
  FailureOr<SmallVector<int64_t>> perm =
      node.getInts("perm", ArrayRef(reversed));
  if (failed(perm))
    return failure();
  if (int64_t(perm->size()) != data.getRank())
    return fail("perm has the wrong length");
  SmallVector<int64_t> shape;
  SmallVector<bool> seen(perm->size(), false);
  for (int64_t p : *perm) {
    if (p < 0 || p >= data.getRank() || seen[p])
      return fail("perm is not a permutation");
    seen[p] = true;
    shape.push_back(data.getShape()[p]);
  }
  SmallVector<int64_t> strides = stridesOf(data.getShape());
  SmallVector<int64_t> sources;
  forEachIndex(shape, [&](ArrayRef<int64_t> index) {
    int64_t offset = 0;
    for (size_t d = 0; d < index.size(); ++d)
      offset += index[d] * strides[(*perm)[d]];
    sources.push_back(offset);
  });
  return done(gatherElements(data, shape, sources));
}

FailureOr<bool> Folder::foldExpand() {
  const HostTensor &data = in(0);
  FailureOr<SmallVector<int64_t>> target =
      getStaticInts(importer, node, 1, "shape");
  if (failed(target))
    return failure();
  llvm::Expected<SmallVector<int64_t>> shape =
      broadcastShapes(data.getShape(), *target);
  if (!shape)
    return fail(llvm::toString(shape.takeError()));
  if (!small(*shape))
    return false;
  SmallVector<int64_t> strides = broadcastStrides(data.getShape(), *shape);
  SmallVector<int64_t> sources;
  forEachIndex(*shape, [&](ArrayRef<int64_t> index) {
    sources.push_back(dot(index, strides));
  });
  return done(gatherElements(data, *shape, sources));
}

FailureOr<bool> Folder::foldRange() {
  const HostTensor &start = in(0), &limit = in(1), &delta = in(2);
  if (start.getNumElements() != 1 || limit.getNumElements() != 1 ||
      delta.getNumElements() != 1)
    return fail("start, limit and delta must be scalars");
  double d = delta.getFloat(0);
  if (d == 0)
    return fail("delta must not be 0");
  double count = std::ceil((limit.getFloat(0) - start.getFloat(0)) / d);
  if (count > double(HostTensor::kMaxElements))
    return false;
  int64_t n = std::max<int64_t>(0, int64_t(count));
  std::vector<double> floats;
  std::vector<int64_t> ints;
  for (int64_t i = 0; i < n; ++i) {
    if (start.isFloat())
      floats.push_back(start.getFloat(0) + i * d);
    else
      ints.push_back(start.getInt(0) + i * delta.getInt(0));
  }
  return done(
      makeResult(start.getDataType(), {n}, std::move(floats), std::move(ints)));
}

FailureOr<bool> Folder::foldConstantOfShape() {
  SmallVector<int64_t> shape;
  if (node.hasInput(0)) {
    FailureOr<SmallVector<int64_t>> target =
        getStaticInts(importer, node, 0, "shape");
    if (failed(target))
      return failure();
    shape = *target;
  }
  for (int64_t d : shape)
    if (d < 0)
      return fail("shape " + formatShape(shape) + " has a negative dimension");
  int32_t dataType = TensorProto::FLOAT;
  double value = 0;
  if (const AttributeProto *attr = node.getAttr("value")) {
    FailureOr<std::optional<HostTensor>> contents = readTensorAttr(*attr);
    if (failed(contents))
      return failure();
    if (!*contents || (*contents)->getNumElements() != 1)
      return fail("attribute 'value' must hold one element");
    dataType = (*contents)->getDataType();
    value = (*contents)->getFloat(0);
  }
  if (small(shape))
    return done(HostTensor::getSplat(dataType, shape, value));
  // Too large to hold: a weight stored as its shape alone (the ONNX
  // backend's "light" models replace every initializer this way), declared
  // as a parameter named after its output, as a Constant too large to hold.
  if (!getNumElements(shape) || node.getOutput(0).empty())
    return false;
  if (failed(
          importer.defineParameter(node, node.getOutput(0), shape, dataType)))
    return failure();
  return true;
}

/// Trilu: the upper (or lower) triangle of the last two dimensions, from the
/// k-th diagonal, the rest zeros (how exporters write torch.triu's causal
/// masks).
FailureOr<bool> Folder::foldTrilu() {
  const HostTensor &data = in(0);
  FailureOr<int64_t> upper = node.getInt("upper", 1);
  if (failed(upper))
    return failure();
  if (data.getRank() < 2)
    return fail("input must have at least 2 dimensions");
  int64_t k = 0;
  if (node.hasInput(1)) {
    const HostTensor &diagonal = in(1);
    if (diagonal.getNumElements() != 1 || diagonal.isFloat())
      return fail("k must be one integer");
    k = diagonal.getInt(0);
  }
  ArrayRef<int64_t> shape = data.getShape();
  int64_t rows = shape[shape.size() - 2], columns = shape.back();
  std::vector<double> floats;
  std::vector<int64_t> ints;
  for (int64_t i = 0, e = data.getNumElements(); i < e; ++i) {
    int64_t row = (i / columns) % rows, column = i % columns;
    bool kept = *upper ? column - row >= k : column - row <= k;
    if (data.isFloat())
      floats.push_back(kept ? data.getFloat(i) : 0.0);
    else
      ints.push_back(kept ? data.getInt(i) : 0);
  }
  return done(makeResult(data.getDataType(), shape, std::move(floats),
                         std::move(ints)));
}

FailureOr<bool> Folder::foldReduce(StringRef op) {
  bool known = llvm::is_contained(
      {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd"}, op);
  if (!known)
    return false;
  const HostTensor &data = in(0);
  auto axes =
      getIntsOperand(importer, node, 1, "axes", op == "ReduceSum" ? 13 : 18);
  FailureOr<int64_t> keepDims = node.getInt("keepdims", 1);
  FailureOr<int64_t> noopEmpty = node.getInt("noop_with_empty_axes", 0);
  if (failed(axes) || failed(keepDims) || failed(noopEmpty))
    return failure();
  SmallVector<int64_t> list = axes->value_or(SmallVector<int64_t>());
  if (list.empty()) {
    if (*noopEmpty)
      return done(data);
    for (int64_t i = 0; i < data.getRank(); ++i)
      list.push_back(i);
  }
  llvm::Expected<SmallVector<int64_t>> reduced =
      normalizeAxes(list, data.getRank());
  if (!reduced)
    return fail(llvm::toString(reduced.takeError()));
  SmallVector<int64_t> kept, resultShape;
  for (int64_t d = 0; d < data.getRank(); ++d) {
    bool isReduced = llvm::is_contained(*reduced, d);
    kept.push_back(isReduced ? 1 : data.getShape()[d]);
    if (!isReduced || *keepDims)
      resultShape.push_back(isReduced ? 1 : data.getShape()[d]);
  }
  int64_t count = *getNumElements(kept);
  std::vector<double> acc(count, op == "ReduceProd" ? 1.0 : 0.0);
  std::vector<bool> first(count, true);
  SmallVector<int64_t> keptStrides = stridesOf(kept);
  int64_t perOutput = count ? data.getNumElements() / count : 0;
  int64_t linear = 0;
  forEachIndex(data.getShape(), [&](ArrayRef<int64_t> index) {
    int64_t out = 0;
    for (size_t d = 0; d < index.size(); ++d)
      if (!llvm::is_contained(*reduced, int64_t(d)))
        out += index[d] * keptStrides[d];
    double v = data.getFloat(linear++);
    if (op == "ReduceSum" || op == "ReduceMean")
      acc[out] += v;
    else if (op == "ReduceProd")
      acc[out] *= v;
    else if (first[out] || (op == "ReduceMax" ? v > acc[out] : v < acc[out]))
      acc[out] = v;
    first[out] = false;
  });
  if (op == "ReduceMean" && perOutput)
    for (double &v : acc)
      v /= perOutput;
  return done(HostTensor::getFloats(data.getDataType(), resultShape, acc));
}

FailureOr<bool> dsm::onnx::foldNode(GraphImporter &importer,
                                    const OnnxNode &node) {
  return Folder(importer, node).run();
}
