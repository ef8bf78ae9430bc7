//===- PaleoTranslation.cpp - The --import-paleo translation --------------===//
//
// Paleo's network JSON (Qi et al.; the format Exprimo, the device-placement
// thesis's tool, reads): `layers` maps each layer's name to its `type`,
// `parents` and shape parameters in TensorFlow's NHWC conventions. Each layer
// becomes the dsm ops that compute it, in NHWC with HWIO kernels, located at
// the layer's line of the file:
//
//   Input (no parents)   a function argument; with parents, dsm.reshape
//   Convolution          dsm.conv2d with a bias, then its activation_fn
//                        (Paleo's default relu; null for none)
//   Pooling / AvgPool    dsm.max_pool / dsm.avg_pool
//   InnerProduct         dsm.fully_connected with a bias (flattened first)
//   Dropout              dsm.opaque "paleo.Dropout" (1 op per element)
//   Elementwise          dsm.add
//   Concatenate          dsm.concat
//   Softmax              dsm.softmax over the last axis
//   Block                its inner layers, named `block/inner`: those without
//                        parents read the block's parents, the others name
//                        layers of the block; `block/endpoint` (or `block`)
//                        is its output (Paleo's and Exprimo's Inception-v3)
//
// Layers nothing reads are the function's results. Anything else is an error
// naming the layer.
//
// The file is read in time linear in its size: one scan finds every layer's
// definition, rejects duplicate names (JSON lets the last one win silently)
// and bounds the nesting before llvm::json, which recurses once per level,
// parses it.
//
//===----------------------------------------------------------------------===//

#include "dsm/Import/PaleoTranslation.h"
#include "dsm/Dialect/DsmAttrs.h"
#include "dsm/Dialect/DsmDialect.h"
#include "dsm/Dialect/DsmOps.h"
#include "dsm/Import/GraphBuilder.h"
#include "dsm/Support/MlirSource.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/SourceMgr.h"

#include <algorithm>
#include <functional>

using namespace mlir;
namespace json = llvm::json;

namespace {
/// Dimensions larger than this are typos (or attacks): products of a few of
/// them stay far inside 64 bits.
constexpr int64_t kMaxDim = int64_t(1) << 24;
/// Paleo's tensors are NHWC at most.
constexpr size_t kMaxRank = 4;
/// A network is a few levels deep (root, layers, layer, list); deeper is
/// not a Paleo network, and llvm::json would recurse once per level.
constexpr int kMaxDepth = 32;

/// What one linear scan of the JSON text finds before it is parsed.
struct TextScan {
  /// Where the nesting first goes deeper than kMaxDepth (the scan stops).
  std::optional<size_t> tooDeep;
  /// The second definition of the first layer name defined twice.
  std::optional<std::pair<size_t, std::string>> duplicate;
  /// Where each layer's name is written in the `layers` object.
  llvm::StringMap<size_t> layerOffsets;
};

/// The decoded text of the JSON string literal at `text[begin, end)` (quotes
/// included); the raw text when it does not decode (the parser will say why).
std::string decodeString(StringRef literal) {
  if (!literal.contains('\\'))
    return literal.drop_front().drop_back().str();
  llvm::Expected<json::Value> value = json::parse(literal);
  if (!value) {
    llvm::consumeError(value.takeError());
    return literal.str();
  }
  return value->getAsString().value_or(literal).str();
}

/// Finds the definitions of the root's `layers` members and of the inner
/// layers of its Block layers (named `block/inner`, as Paleo and Exprimo name
/// them), in one pass over `text`: depth beyond kMaxDepth and a name defined
/// twice are problems. Anything that is not JSON is left to the parser.
TextScan scanText(StringRef text) {
  TextScan scan;
  // One frame per open container: '{' or '['; for an object, whether its
  // members are layers (the root's `layers`, a block's `layers`) and, when
  // it defines a layer, that layer's full name.
  struct Frame {
    char open;
    bool layers = false;
    std::string layer;
  };
  SmallVector<Frame, kMaxDepth> open;
  std::string key; // the last key read in an object, until its value opens
  std::optional<StringRef> lastString; // a string that may be a key
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {
      size_t start = i++;
      while (i < text.size() && text[i] != '"')
        i += text[i] == '\\' ? 2 : 1;
      lastString = text.slice(start, std::min(i + 1, text.size()));
      continue;
    }
    if (c == ':' && lastString && !open.empty() && open.back().open == '{') {
      key = decodeString(*lastString);
      if (open.back().layers) {
        // A layer of the root's `layers` or of a block's.
        std::string name =
            open.size() >= 3 ? open[open.size() - 2].layer + "/" + key : key;
        size_t offset = size_t(lastString->data() - text.data());
        if (!scan.layerOffsets.try_emplace(name, offset).second &&
            !scan.duplicate)
          scan.duplicate = {offset, name};
        key = name;
      }
    } else if (c == '{' || c == '[') {
      if (open.size() == size_t(kMaxDepth)) {
        scan.tooDeep = i;
        return scan;
      }
      Frame frame{c};
      if (c == '{' && !open.empty() && open.back().open == '{') {
        const Frame &parent = open.back();
        if (parent.layers)
          frame.layer = key; // a layer's definition
        else if (key == "layers" && (open.size() == 1 || !parent.layer.empty()))
          frame.layers = true; // the root's or a block's layers
      }
      open.push_back(std::move(frame));
      key.clear();
    } else if ((c == '}' || c == ']') && !open.empty()) {
      open.pop_back();
    }
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n')
      lastString.reset();
  }
  return scan;
}

class PaleoImporter : public dsm::GraphBuilder {
public:
  PaleoImporter(StringRef text, StringRef fileName, MLIRContext *context)
      : GraphBuilder(context, /*composeViews=*/false), text(text),
        fileName(fileName), context(context), locate(text, fileName, context) {}

  OwningOpRef<ModuleOp> run();

private:
  struct Layer {
    std::string name;
    const json::Object *spec = nullptr;
    size_t offset = 0; ///< where its definition starts in the file
    Location loc;
    /// The full names of its parents (a block's inner layer reads the
    /// block's parents when it lists none, else layers of its block).
    SmallVector<std::string, 2> parents;
  };
  /// The layers of the network in file order, the inner layers of Block
  /// layers named `block/inner`; `endpoints` maps a block's name to its
  /// endpoint's. Failure after an error.
  LogicalResult collectLayers(const json::Object &spec, const TextScan &scan,
                              std::vector<Layer> &layers,
                              llvm::StringMap<std::string> &endpoints);
  /// A layer located at its definition (the file when the scan missed it).
  Layer makeLayer(StringRef name, const json::Object *spec,
                  const TextScan &scan);

  InFlightDiagnostic error(const Layer &layer) {
    return emitError(layer.loc) << "layer '" << layer.name << "': ";
  }
  /// The layer's integer list `key` of `size` elements (-1 allowed where
  /// `allowUnknown`), or failure after an error.
  FailureOr<SmallVector<int64_t, 4>> ints(const Layer &layer, StringRef key,
                                          size_t size,
                                          bool allowUnknown = false);
  FailureOr<StringRef> string(const Layer &layer, StringRef key);
  /// An Input layer's `tensor`: 1 to kMaxRank dimensions (the batch first).
  FailureOr<SmallVector<int64_t, 4>> tensorShape(const Layer &layer);
  /// TensorFlow padding of one spatial dimension: (before, after).
  FailureOr<std::pair<int64_t, int64_t>> padding(const Layer &layer,
                                                 StringRef mode, int64_t size,
                                                 int64_t kernel,
                                                 int64_t stride);
  FailureOr<Value> build(const Layer &layer, ArrayRef<Value> inputs);
  /// `OpTy` over `operands` with `attrs`, typed by its shape rule: a located
  /// error, not an abort, when the rule rejects the layer's shapes.
  template <typename OpTy>
  FailureOr<Value> op(const Layer &layer, ValueRange operands,
                      ArrayRef<NamedAttribute> attrs = {}) {
    FailureOr<OpTy> created = create<OpTy>(layer.loc, operands, attrs);
    if (failed(created))
      return failure();
    return created->getResult();
  }
  Value weight(const Layer &layer, StringRef suffix, ArrayRef<int64_t> shape) {
    auto type = RankedTensorType::get(shape, builder.getF32Type());
    return dsm::WeightOp::create(builder, layer.loc, type,
                                 layer.name + "." + suffix.str());
  }

  StringRef text, fileName;
  MLIRContext *context;
  dsm::TextLocator locate;
};
} // namespace

FailureOr<SmallVector<int64_t, 4>> PaleoImporter::ints(const Layer &layer,
                                                       StringRef key,
                                                       size_t size,
                                                       bool allowUnknown) {
  const json::Array *array = layer.spec->getArray(key);
  if (!array || array->size() != size) {
    error(layer) << "'" << key << "' must be a list of " << size << " integers";
    return failure();
  }
  SmallVector<int64_t, 4> values;
  for (const json::Value &value : *array) {
    std::optional<int64_t> v = value.getAsInteger();
    if (!v || *v > kMaxDim || (*v < 1 && !(allowUnknown && *v == -1))) {
      error(layer) << "'" << key << "' must hold integers in [1, " << kMaxDim
                   << "]" << (allowUnknown ? " (or -1)" : "");
      return failure();
    }
    values.push_back(*v);
  }
  return values;
}

FailureOr<SmallVector<int64_t, 4>>
PaleoImporter::tensorShape(const Layer &layer) {
  const json::Array *tensor = layer.spec->getArray("tensor");
  if (!tensor || tensor->empty() || tensor->size() > kMaxRank) {
    error(layer) << "'tensor' must be a list of 1 to " << kMaxRank
                 << " integers (the batch first)";
    return failure();
  }
  return ints(layer, "tensor", tensor->size());
}

FailureOr<StringRef> PaleoImporter::string(const Layer &layer, StringRef key) {
  std::optional<StringRef> value = layer.spec->getString(key);
  if (!value) {
    error(layer) << "'" << key << "' must be a string";
    return failure();
  }
  return *value;
}

FailureOr<std::pair<int64_t, int64_t>>
PaleoImporter::padding(const Layer &layer, StringRef mode, int64_t size,
                       int64_t kernel, int64_t stride) {
  if (mode == "VALID") {
    if (size < kernel) {
      error(layer) << "a " << kernel << " window does not fit in " << size;
      return failure();
    }
    return std::make_pair(int64_t(0), int64_t(0));
  }
  if (mode == "SAME") {
    int64_t out = (size + stride - 1) / stride;
    int64_t total = std::max<int64_t>((out - 1) * stride + kernel - size, 0);
    return std::make_pair(total / 2, total - total / 2);
  }
  error(layer) << "padding must be \"SAME\" or \"VALID\", got \"" << mode
               << "\"";
  return failure();
}

FailureOr<Value> PaleoImporter::build(const Layer &layer,
                                      ArrayRef<Value> inputs) {
  FailureOr<StringRef> type = string(layer, "type");
  if (failed(type))
    return failure();
  auto shapeOf = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getShape();
  };
  auto one = [&]() -> FailureOr<Value> {
    if (inputs.size() != 1) {
      error(layer) << "a " << *type << " layer reads one parent, got "
                   << inputs.size();
      return failure();
    }
    if (shapeOf(inputs[0]).size() != 4 && *type != "InnerProduct" &&
        *type != "Dropout" && *type != "Softmax" && *type != "Input") {
      error(layer) << "a " << *type << " layer reads an NHWC tensor, got rank "
                   << shapeOf(inputs[0]).size();
      return failure();
    }
    return inputs[0];
  };
  auto named = [&](StringRef attr, Attribute value) {
    return NamedAttribute(builder.getStringAttr(attr), value);
  };
  auto nhwc = named("data_layout",
                    dsm::DataLayoutAttr::get(context, dsm::DataLayout::NHWC));

  if (*type == "Input") {
    // With parents: a view of the parent with the given shape.
    FailureOr<Value> input = one();
    if (failed(input))
      return failure();
    FailureOr<SmallVector<int64_t, 4>> shape = tensorShape(layer);
    if (failed(shape))
      return failure();
    uint64_t from = 1, to = 1;
    for (int64_t d : shapeOf(*input).drop_front())
      from = llvm::SaturatingMultiply(from, uint64_t(d));
    for (int64_t d : ArrayRef<int64_t>(*shape).drop_front())
      to = llvm::SaturatingMultiply(to, uint64_t(d));
    if (from != to) {
      error(layer) << "'tensor' holds " << to
                   << " elements per sample, its parent " << from;
      return failure();
    }
    (*shape)[0] = 0; // keep the batch
    return op<dsm::ReshapeOp>(
        layer, *input, {named("shape", builder.getDenseI64ArrayAttr(*shape))});
  }

  if (*type == "Convolution") {
    FailureOr<Value> input = one();
    if (failed(input))
      return failure();
    FailureOr<SmallVector<int64_t, 4>> filter =
        ints(layer, "filter", 4, /*allowUnknown=*/true);
    FailureOr<SmallVector<int64_t, 4>> strides = ints(layer, "strides", 4);
    FailureOr<StringRef> mode = string(layer, "padding");
    if (failed(filter) || failed(strides) || failed(mode))
      return failure();
    ArrayRef<int64_t> in = shapeOf(*input);
    if ((*filter)[0] == -1 || (*filter)[1] == -1 || (*filter)[3] == -1) {
      error(layer) << "only the filter's input channels may be -1";
      return failure();
    }
    if ((*filter)[2] == -1)
      (*filter)[2] = in[3];
    if ((*filter)[2] != in[3]) {
      error(layer) << "the filter has " << (*filter)[2]
                   << " input channels but its input has " << in[3];
      return failure();
    }
    FailureOr<std::pair<int64_t, int64_t>> padH =
        padding(layer, *mode, in[1], (*filter)[0], (*strides)[1]);
    FailureOr<std::pair<int64_t, int64_t>> padW =
        padding(layer, *mode, in[2], (*filter)[1], (*strides)[2]);
    if (failed(padH) || failed(padW))
      return failure();
    Value w = weight(layer, "weight", *filter);
    Value b = weight(layer, "bias", {(*filter)[3]});
    FailureOr<Value> conv = op<dsm::Conv2DOp>(
        layer, ValueRange{*input, w, b},
        {named("strides",
               builder.getDenseI64ArrayAttr({(*strides)[1], (*strides)[2]})),
         named("padding",
               builder.getDenseI64ArrayAttr(
                   {padH->first, padW->first, padH->second, padW->second})),
         named("dilations", builder.getDenseI64ArrayAttr({1, 1})),
         named("groups", builder.getI64IntegerAttr(1)), nhwc,
         named("kernel_layout",
               dsm::KernelLayoutAttr::get(context, dsm::KernelLayout::HWIO))});
    if (failed(conv))
      return failure();
    // Paleo's Conv2d defaults to relu; an explicit null means none.
    const json::Value *activation = layer.spec->get("activation_fn");
    if (activation && activation->kind() == json::Value::Null)
      return conv;
    std::optional<StringRef> name =
        activation ? activation->getAsString() : StringRef("relu");
    if (name && *name == "relu")
      return op<dsm::ReluOp>(layer, *conv);
    if (name && *name == "sigmoid")
      return op<dsm::SigmoidOp>(layer, *conv);
    if (name && *name == "tanh")
      return op<dsm::TanhOp>(layer, *conv);
    error(layer) << "unsupported activation_fn (relu, sigmoid, tanh or null)";
    return failure();
  }

  if (*type == "Pooling" || *type == "AvgPool") {
    FailureOr<Value> input = one();
    if (failed(input))
      return failure();
    FailureOr<SmallVector<int64_t, 4>> kernel = ints(layer, "ksize", 4);
    FailureOr<SmallVector<int64_t, 4>> strides = ints(layer, "strides", 4);
    FailureOr<StringRef> mode = string(layer, "padding");
    if (failed(kernel) || failed(strides) || failed(mode))
      return failure();
    ArrayRef<int64_t> in = shapeOf(*input);
    FailureOr<std::pair<int64_t, int64_t>> padH =
        padding(layer, *mode, in[1], (*kernel)[1], (*strides)[1]);
    FailureOr<std::pair<int64_t, int64_t>> padW =
        padding(layer, *mode, in[2], (*kernel)[2], (*strides)[2]);
    if (failed(padH) || failed(padW))
      return failure();
    SmallVector<NamedAttribute> attrs{
        named("kernel",
              builder.getDenseI64ArrayAttr({(*kernel)[1], (*kernel)[2]})),
        named("strides",
              builder.getDenseI64ArrayAttr({(*strides)[1], (*strides)[2]})),
        named("padding",
              builder.getDenseI64ArrayAttr(
                  {padH->first, padW->first, padH->second, padW->second})),
        nhwc};
    if (*type == "Pooling")
      return op<dsm::MaxPoolOp>(layer, *input, attrs);
    return op<dsm::AvgPoolOp>(layer, *input, attrs);
  }

  if (*type == "InnerProduct") {
    FailureOr<Value> input = one();
    std::optional<int64_t> outputs = layer.spec->getInteger("num_outputs");
    if (failed(input))
      return failure();
    if (!outputs || *outputs < 1 || *outputs > kMaxDim) {
      error(layer) << "'num_outputs' must be an integer in [1, " << kMaxDim
                   << "]";
      return failure();
    }
    Value x = *input;
    ArrayRef<int64_t> in = shapeOf(x);
    if (in.empty()) {
      error(layer) << "reads a scalar; an InnerProduct needs a batch";
      return failure();
    }
    uint64_t features = 1;
    for (int64_t d : in.drop_front())
      features = llvm::SaturatingMultiply(features, uint64_t(d));
    if (features > uint64_t(kMaxDim)) {
      error(layer) << "reads " << features << " features, more than "
                   << kMaxDim;
      return failure();
    }
    if (in.size() != 2) {
      FailureOr<Value> flat = op<dsm::ReshapeOp>(
          layer, x, {named("shape", builder.getDenseI64ArrayAttr({0, -1}))});
      if (failed(flat))
        return failure();
      x = *flat;
    }
    Value w = weight(layer, "weight", {*outputs, int64_t(features)});
    Value b = weight(layer, "bias", {*outputs});
    return op<dsm::FullyConnectedOp>(layer, ValueRange{x, w, b});
  }

  if (*type == "Dropout") {
    FailureOr<Value> input = one();
    if (failed(input))
      return failure();
    return opaque(layer.loc, cast<RankedTensorType>(input->getType()),
                  "paleo.Dropout", *input, 1.0);
  }

  if (*type == "Elementwise") {
    if (inputs.size() < 2) {
      error(layer) << "an Elementwise layer adds two or more parents, got "
                   << inputs.size();
      return failure();
    }
    for (Value next : inputs.drop_front())
      if (shapeOf(next) != shapeOf(inputs[0])) {
        error(layer) << "an Elementwise layer adds parents of one shape";
        return failure();
      }
    Value sum = inputs[0];
    for (Value next : inputs.drop_front()) {
      FailureOr<Value> added = op<dsm::AddOp>(layer, ValueRange{sum, next});
      if (failed(added))
        return failure();
      sum = *added;
    }
    return sum;
  }

  if (*type == "Concatenate") {
    std::optional<int64_t> dim = layer.spec->getInteger("dim");
    if (inputs.empty() || !dim || *dim < 0 ||
        *dim >= int64_t(shapeOf(inputs[0]).size())) {
      error(layer) << "a Concatenate layer needs parents and a 'dim' within "
                      "their rank";
      return failure();
    }
    for (Value next : inputs) {
      ArrayRef<int64_t> a = shapeOf(inputs[0]), b = shapeOf(next);
      bool same = a.size() == b.size();
      for (size_t d = 0; same && d < a.size(); ++d)
        same = int64_t(d) == *dim || a[d] == b[d];
      if (!same) {
        error(layer) << "a Concatenate layer's parents must agree on every "
                        "dimension but 'dim'";
        return failure();
      }
    }
    return op<dsm::ConcatOp>(layer, inputs,
                             {named("axis", builder.getI64IntegerAttr(*dim))});
  }

  if (*type == "Softmax") {
    FailureOr<Value> input = one();
    if (failed(input))
      return failure();
    return op<dsm::SoftmaxOp>(layer, *input,
                              {named("axis", builder.getI64IntegerAttr(-1))});
  }

  error(layer) << "unsupported Paleo layer type '" << *type
               << "' (supported: Input, Convolution, Pooling, AvgPool, "
                  "InnerProduct, Dropout, Elementwise, Concatenate, Softmax)";
  return failure();
}

PaleoImporter::Layer PaleoImporter::makeLayer(StringRef name,
                                              const json::Object *spec,
                                              const TextScan &scan) {
  Location fileLoc = FileLineColLoc::get(context, fileName, 1, 1);
  Layer layer{name.str(), spec, text.size(), fileLoc, {}};
  auto found = scan.layerOffsets.find(name);
  if (found != scan.layerOffsets.end())
    layer.offset = found->second;
  layer.loc = NameLoc::get(
      builder.getStringAttr(layer.name),
      layer.offset < text.size() ? Location(locate(layer.offset)) : fileLoc);
  return layer;
}

LogicalResult
PaleoImporter::collectLayers(const json::Object &spec, const TextScan &scan,
                             std::vector<Layer> &layers,
                             llvm::StringMap<std::string> &endpoints) {
  // A layer's `parents`, as written.
  auto parentList = [&](Layer &layer) -> FailureOr<SmallVector<std::string>> {
    const json::Array *list = layer.spec->getArray("parents");
    SmallVector<std::string> names;
    for (const json::Value &parent : list ? *list : json::Array())
      if (std::optional<StringRef> name = parent.getAsString())
        names.push_back(name->str());
    if (!list || names.size() != list->size()) {
      error(layer) << "'parents' must be a list of layer names";
      return failure();
    }
    return names;
  };
  for (const auto &[key, value] : spec) {
    Layer layer = makeLayer(key, value.getAsObject(), scan);
    if (!layer.spec)
      return emitError(layer.loc)
             << "layer '" << layer.name << "' must be an object";
    FailureOr<SmallVector<std::string>> outer = parentList(layer);
    if (failed(outer))
      return failure();
    if (layer.spec->getString("type") != "Block") {
      layer.parents.assign(outer->begin(), outer->end());
      layers.push_back(std::move(layer));
      continue;
    }
    // A Block (Paleo, Exprimo): inner layers named `block/inner`; those
    // with no parents read the block's parents, the others name inner
    // layers; later layers read its endpoint as `block/endpoint` (or
    // `block`).
    const json::Object *inner = layer.spec->getObject("layers");
    if (!inner || inner->empty())
      return error(layer) << "a Block layer needs a non-empty 'layers' object";
    if (const json::Value *endpoint = layer.spec->get("endpoint")) {
      std::optional<StringRef> name = endpoint->getAsString();
      if (!name || !inner->get(*name))
        return error(layer) << "'endpoint' must name one of the block's layers";
      endpoints[layer.name] = layer.name + "/" + name->str();
    }
    for (const auto &[innerKey, innerValue] : *inner) {
      Layer sub = makeLayer(layer.name + "/" + innerKey.str(),
                            innerValue.getAsObject(), scan);
      if (!sub.spec)
        return emitError(sub.loc)
               << "layer '" << sub.name << "' must be an object";
      if (sub.spec->getString("type") == "Block")
        return error(sub) << "a Block inside a Block is not supported (Paleo "
                             "and Exprimo nest one level)";
      FailureOr<SmallVector<std::string>> names = parentList(sub);
      if (failed(names))
        return failure();
      if (names->empty())
        sub.parents.assign(outer->begin(), outer->end());
      for (const std::string &name : *names) {
        if (!inner->get(name))
          return error(sub) << "parent '" << name << "' is not a layer of "
                            << "block '" << layer.name << "'";
        sub.parents.push_back(layer.name + "/" + name);
      }
      layers.push_back(std::move(sub));
    }
  }
  return success();
}

OwningOpRef<ModuleOp> PaleoImporter::run() {
  Location fileLoc = FileLineColLoc::get(context, fileName, 1, 1);
  TextScan scan = scanText(text);
  if (scan.tooDeep) {
    emitError(locate(*scan.tooDeep))
        << "nested deeper than " << kMaxDepth << " levels";
    return nullptr;
  }
  llvm::Expected<json::Value> parsed = json::parse(text);
  if (!parsed) {
    // "[line:column, byte=offset]: message" from llvm::json::ParseError.
    std::string message = llvm::toString(parsed.takeError());
    SmallVector<StringRef, 4> match;
    llvm::Regex where("^\\[([0-9]+):([0-9]+), byte=[0-9]+\\]: (.*)$");
    unsigned line = 1, column = 1;
    if (where.match(message, &match)) {
      match[1].getAsInteger(10, line);
      match[2].getAsInteger(10, column);
      message = match[3].str();
    }
    emitError(FileLineColLoc::get(context, fileName, line, column))
        << "invalid JSON: " << message;
    return nullptr;
  }
  if (scan.duplicate) {
    auto [offset, name] = *scan.duplicate;
    emitError(locate(offset))
        << "layer '" << name << "' is defined twice (first at line "
        << locate.lineAndColumn(scan.layerOffsets.lookup(name)).first << ")";
    return nullptr;
  }
  const json::Object *root = parsed->getAsObject();
  const json::Object *layersSpec = root ? root->getObject("layers") : nullptr;
  if (!layersSpec || layersSpec->empty()) {
    emitError(fileLoc) << "a Paleo network needs a non-empty 'layers' object";
    return nullptr;
  }

  // Layers in file order, located where the scan found their names.
  std::vector<Layer> layers;
  llvm::StringMap<std::string> endpoints;
  if (failed(collectLayers(*layersSpec, scan, layers, endpoints)))
    return nullptr;
  std::stable_sort(
      layers.begin(), layers.end(),
      [](const Layer &a, const Layer &b) { return a.offset < b.offset; });
  llvm::StringMap<size_t> byName;
  for (auto [i, layer] : llvm::enumerate(layers))
    byName[layer.name] = i;

  // Parents, checked, then a topological order that keeps the file's where
  // it can. A block's name stands for its endpoint, as in Exprimo.
  std::vector<SmallVector<size_t, 2>> parents(layers.size());
  std::vector<bool> read(layers.size(), false);
  for (auto [i, layer] : llvm::enumerate(layers)) {
    for (const std::string &parent : layer.parents) {
      auto it = byName.find(parent);
      if (it == byName.end()) {
        auto endpoint = endpoints.find(parent);
        if (endpoint != endpoints.end())
          it = byName.find(endpoint->second);
      }
      if (it == byName.end()) {
        error(layer) << "parent '" << parent
                     << "' is not a layer of the network";
        return nullptr;
      }
      parents[i].push_back(it->second);
      read[it->second] = true;
    }
  }
  // (Kahn's algorithm taking the earliest ready layer: O(n log n).)
  std::vector<size_t> order;
  std::vector<size_t> waiting(layers.size());
  std::vector<SmallVector<size_t, 2>> children(layers.size());
  std::vector<size_t> ready; // a min-heap of file positions
  for (auto [i, list] : llvm::enumerate(parents)) {
    waiting[i] = list.size();
    for (size_t p : list)
      children[p].push_back(i);
    if (list.empty())
      ready.push_back(i);
  }
  std::make_heap(ready.begin(), ready.end(), std::greater<size_t>());
  while (!ready.empty()) {
    std::pop_heap(ready.begin(), ready.end(), std::greater<size_t>());
    size_t next = ready.back();
    ready.pop_back();
    order.push_back(next);
    for (size_t child : children[next])
      if (--waiting[child] == 0) {
        ready.push_back(child);
        std::push_heap(ready.begin(), ready.end(), std::greater<size_t>());
      }
  }
  if (order.size() < layers.size()) {
    size_t stuck = size_t(llvm::find_if(waiting, [](size_t w) { return w; }) -
                          waiting.begin());
    error(layers[stuck]) << "is part of a cycle of parents";
    return nullptr;
  }

  // The network's inputs: Input layers without parents.
  SmallVector<Type> argTypes;
  SmallVector<size_t> argLayers;
  for (size_t i : order) {
    const Layer &layer = layers[i];
    if (!parents[i].empty() || layer.spec->getString("type") != "Input")
      continue;
    FailureOr<SmallVector<int64_t, 4>> shape = tensorShape(layer);
    if (failed(shape))
      return nullptr;
    argTypes.push_back(RankedTensorType::get(*shape, builder.getF32Type()));
    argLayers.push_back(i);
  }
  if (argTypes.empty()) {
    emitError(fileLoc) << "the network has no Input layer without parents";
    return nullptr;
  }

  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  builder.setInsertionPointToEnd(module->getBody());
  std::string funcName = llvm::sys::path::stem(fileName).str();
  std::replace_if(
      funcName.begin(), funcName.end(),
      [](char c) { return !llvm::isAlnum(c) && c != '_'; }, '_');
  if (funcName.empty() || llvm::isDigit(funcName[0]))
    funcName = "net_" + funcName;
  auto function = func::FuncOp::create(builder, fileLoc, funcName,
                                       builder.getFunctionType(argTypes, {}));
  Block *body = function.addEntryBlock();
  builder.setInsertionPointToEnd(body);
  std::vector<Value> values(layers.size());
  for (auto [arg, i] : llvm::zip(body->getArguments(), argLayers)) {
    arg.setLoc(layers[i].loc);
    values[i] = arg;
  }
  for (size_t i : order) {
    if (values[i])
      continue;
    SmallVector<Value, 2> inputs;
    for (size_t p : parents[i])
      inputs.push_back(values[p]);
    FailureOr<Value> value = build(layers[i], inputs);
    if (failed(value))
      return nullptr;
    values[i] = *value;
  }
  SmallVector<Value> results;
  for (size_t i : order)
    if (!read[i])
      results.push_back(values[i]);
  func::ReturnOp::create(builder, fileLoc, results);
  function.setType(
      builder.getFunctionType(argTypes, ValueRange(results).getTypes()));
  // Shapes that do not agree (a filter's channels against its input) are
  // reported by the ops' verifiers at the layer.
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

OwningOpRef<ModuleOp> dsm::importPaleoNetwork(StringRef text,
                                              StringRef fileName,
                                              MLIRContext *context) {
  context->loadDialect<dsm::DsmDialect, func::FuncDialect>();
  return PaleoImporter(text, fileName, context).run();
}

void dsm::registerImportPaleoTranslation() {
  TranslateToMLIRRegistration registration(
      "import-paleo", "import a Paleo network (JSON) as dsm MLIR",
      [](llvm::SourceMgr &sourceMgr,
         MLIRContext *context) -> OwningOpRef<Operation *> {
        const llvm::MemoryBuffer *buffer =
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        return importPaleoNetwork(buffer->getBuffer(),
                                  buffer->getBufferIdentifier(), context);
      },
      [](DialectRegistry &registry) {
        registry.insert<dsm::DsmDialect, func::FuncDialect>();
      });
}
