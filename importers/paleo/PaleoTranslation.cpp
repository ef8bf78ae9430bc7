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
//
// Layers nothing reads are the function's results. Anything else is an error
// naming the layer.
//
//===----------------------------------------------------------------------===//

#include "dsm/Import/PaleoTranslation.h"
#include "dsm/Dialect/DsmAttrs.h"
#include "dsm/Dialect/DsmDialect.h"
#include "dsm/Dialect/DsmOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/SourceMgr.h"

#include <algorithm>

using namespace mlir;
namespace json = llvm::json;

namespace {
/// Dimensions larger than this are typos (or attacks): products of a few of
/// them stay far inside 64 bits.
constexpr int64_t kMaxDim = int64_t(1) << 24;

class PaleoImporter {
public:
  PaleoImporter(StringRef text, StringRef fileName, MLIRContext *context)
      : text(text), fileName(fileName), context(context), builder(context) {}

  OwningOpRef<ModuleOp> run();

private:
  struct Layer {
    std::string name;
    const json::Object *spec = nullptr;
    size_t offset = 0; ///< where its definition starts in the file
    Location loc;
  };

  Location fileLocation(size_t offset) const;
  InFlightDiagnostic error(const Layer &layer) {
    return emitError(layer.loc) << "layer '" << layer.name << "': ";
  }
  /// The layer's integer list `key` of `size` elements (-1 allowed where
  /// `allowUnknown`), or failure after an error.
  FailureOr<SmallVector<int64_t, 4>> ints(const Layer &layer, StringRef key,
                                          size_t size,
                                          bool allowUnknown = false);
  FailureOr<StringRef> string(const Layer &layer, StringRef key);
  /// TensorFlow padding of one spatial dimension: (before, after).
  FailureOr<std::pair<int64_t, int64_t>> padding(const Layer &layer,
                                                 StringRef mode, int64_t size,
                                                 int64_t kernel,
                                                 int64_t stride);
  FailureOr<Value> build(const Layer &layer, ArrayRef<Value> inputs);
  Value weight(const Layer &layer, StringRef suffix, ArrayRef<int64_t> shape) {
    auto type = RankedTensorType::get(shape, builder.getF32Type());
    return dsm::WeightOp::create(builder, layer.loc, type,
                                 layer.name + "." + suffix.str());
  }

  StringRef text, fileName;
  MLIRContext *context;
  OpBuilder builder;
};
} // namespace

Location PaleoImporter::fileLocation(size_t offset) const {
  StringRef before = text.take_front(offset);
  unsigned line = unsigned(before.count('\n')) + 1;
  size_t lineStart = before.rfind('\n');
  unsigned column =
      unsigned(offset - (lineStart == StringRef::npos ? 0 : lineStart + 1) + 1);
  return FileLineColLoc::get(context, fileName, line, column);
}

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
    const json::Array *tensor = layer.spec->getArray("tensor");
    if (failed(input) || !tensor)
      return failed(input)
                 ? failure()
                 : (error(layer) << "'tensor' must be a list", failure());
    FailureOr<SmallVector<int64_t, 4>> shape =
        ints(layer, "tensor", tensor->size());
    if (failed(shape))
      return failure();
    int64_t from = 1, to = 1;
    for (int64_t d : shapeOf(*input).drop_front())
      from *= d;
    for (int64_t d : ArrayRef<int64_t>(*shape).drop_front())
      to = std::min(to * d, kMaxDim * kMaxDim);
    if (from != to) {
      error(layer) << "'tensor' holds " << to
                   << " elements per sample, its parent " << from;
      return failure();
    }
    (*shape)[0] = 0; // keep the batch
    return dsm::ReshapeOp::create(
               builder, layer.loc, ValueRange{*input},
               {named("shape", builder.getDenseI64ArrayAttr(*shape))})
        .getResult();
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
    Value conv =
        dsm::Conv2DOp::create(
            builder, layer.loc, ValueRange{*input, w, b},
            {named("strides", builder.getDenseI64ArrayAttr(
                                  {(*strides)[1], (*strides)[2]})),
             named("padding",
                   builder.getDenseI64ArrayAttr(
                       {padH->first, padW->first, padH->second, padW->second})),
             named("dilations", builder.getDenseI64ArrayAttr({1, 1})),
             named("groups", builder.getI64IntegerAttr(1)), nhwc,
             named("kernel_layout", dsm::KernelLayoutAttr::get(
                                        context, dsm::KernelLayout::HWIO))})
            .getResult();
    // Paleo's Conv2d defaults to relu; an explicit null means none.
    const json::Value *activation = layer.spec->get("activation_fn");
    if (activation && activation->kind() == json::Value::Null)
      return conv;
    std::optional<StringRef> name =
        activation ? activation->getAsString() : StringRef("relu");
    if (name && *name == "relu")
      return dsm::ReluOp::create(builder, layer.loc, ValueRange{conv})
          .getResult();
    if (name && *name == "sigmoid")
      return dsm::SigmoidOp::create(builder, layer.loc, ValueRange{conv})
          .getResult();
    if (name && *name == "tanh")
      return dsm::TanhOp::create(builder, layer.loc, ValueRange{conv})
          .getResult();
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
      return dsm::MaxPoolOp::create(builder, layer.loc, ValueRange{*input},
                                    attrs)
          .getResult();
    return dsm::AvgPoolOp::create(builder, layer.loc, ValueRange{*input}, attrs)
        .getResult();
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
    int64_t features = 1;
    for (int64_t d : in.drop_front())
      features *= d; // each <= 2^24, rank 4 at most: no overflow
    if (features > kMaxDim) {
      error(layer) << "reads " << features << " features, more than "
                   << kMaxDim;
      return failure();
    }
    if (in.size() != 2)
      x = dsm::ReshapeOp::create(
              builder, layer.loc, ValueRange{x},
              {named("shape", builder.getDenseI64ArrayAttr({0, -1}))})
              .getResult();
    Value w = weight(layer, "weight", {*outputs, features});
    Value b = weight(layer, "bias", {*outputs});
    return dsm::FullyConnectedOp::create(builder, layer.loc,
                                         ValueRange{x, w, b})
        .getResult();
  }

  if (*type == "Dropout") {
    FailureOr<Value> input = one();
    if (failed(input))
      return failure();
    return dsm::OpaqueOp::create(builder, layer.loc, input->getType(),
                                 builder.getStringAttr("paleo.Dropout"),
                                 ValueRange{*input},
                                 builder.getF64FloatAttr(1.0))
        .getResult();
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
    for (Value next : inputs.drop_front())
      sum = dsm::AddOp::create(builder, layer.loc, ValueRange{sum, next})
                .getResult();
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
    return dsm::ConcatOp::create(
               builder, layer.loc, ValueRange{inputs},
               {named("axis", builder.getI64IntegerAttr(*dim))})
        .getResult();
  }

  if (*type == "Softmax") {
    FailureOr<Value> input = one();
    if (failed(input))
      return failure();
    return dsm::SoftmaxOp::create(
               builder, layer.loc, ValueRange{*input},
               {named("axis", builder.getI64IntegerAttr(-1))})
        .getResult();
  }

  error(layer) << "unsupported Paleo layer type '" << *type
               << "' (supported: Input, Convolution, Pooling, AvgPool, "
                  "InnerProduct, Dropout, Elementwise, Concatenate, Softmax)";
  return failure();
}

OwningOpRef<ModuleOp> PaleoImporter::run() {
  Location fileLoc = FileLineColLoc::get(context, fileName, 1, 1);
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
  const json::Object *root = parsed->getAsObject();
  const json::Object *layersSpec = root ? root->getObject("layers") : nullptr;
  if (!layersSpec || layersSpec->empty()) {
    emitError(fileLoc) << "a Paleo network needs a non-empty 'layers' object";
    return nullptr;
  }

  // Layers in file order: the definition of "<name>": { is the first place
  // the name is followed by an object (a parent list names it with , or ]).
  std::vector<Layer> layers;
  for (const auto &[key, value] : *layersSpec) {
    Layer layer{key.str(), value.getAsObject(), text.size(), fileLoc};
    llvm::Regex definition("\"" + llvm::Regex::escape(key) +
                           "\"[ \t\r\n]*:[ \t\r\n]*\\{");
    SmallVector<StringRef, 1> match;
    if (definition.match(text, &match))
      layer.offset = size_t(match[0].data() - text.data());
    layer.loc = NameLoc::get(
        builder.getStringAttr(layer.name),
        layer.offset < text.size() ? fileLocation(layer.offset) : fileLoc);
    if (!layer.spec) {
      emitError(layer.loc) << "layer '" << layer.name << "' must be an object";
      return nullptr;
    }
    layers.push_back(std::move(layer));
  }
  std::stable_sort(
      layers.begin(), layers.end(),
      [](const Layer &a, const Layer &b) { return a.offset < b.offset; });
  llvm::StringMap<size_t> byName;
  for (auto [i, layer] : llvm::enumerate(layers))
    byName[layer.name] = i;

  // Parents, checked, then a topological order that keeps the file's where
  // it can.
  std::vector<SmallVector<size_t, 2>> parents(layers.size());
  std::vector<bool> read(layers.size(), false);
  for (auto [i, layer] : llvm::enumerate(layers)) {
    const json::Array *list = layer.spec->getArray("parents");
    if (!list) {
      error(layer) << "'parents' must be a list of layer names";
      return nullptr;
    }
    for (const json::Value &parent : *list) {
      std::optional<StringRef> name = parent.getAsString();
      auto it = name ? byName.find(*name) : byName.end();
      if (it == byName.end()) {
        error(layer) << "parent "
                     << (name ? "'" + name->str() + "'" : std::string("?"))
                     << " is not a layer of the network";
        return nullptr;
      }
      parents[i].push_back(it->second);
      read[it->second] = true;
    }
  }
  std::vector<size_t> order;
  std::vector<bool> placed(layers.size(), false);
  while (order.size() < layers.size()) {
    size_t before = order.size();
    for (size_t i = 0; i < layers.size(); ++i)
      if (!placed[i] &&
          llvm::all_of(parents[i], [&](size_t p) { return bool(placed[p]); })) {
        placed[i] = true;
        order.push_back(i);
      }
    if (order.size() == before) {
      size_t stuck = size_t(llvm::find(placed, false) - placed.begin());
      error(layers[stuck]) << "is part of a cycle of parents";
      return nullptr;
    }
  }

  // The network's inputs: Input layers without parents.
  SmallVector<Type> argTypes;
  SmallVector<size_t> argLayers;
  for (size_t i : order) {
    const Layer &layer = layers[i];
    if (!parents[i].empty() || layer.spec->getString("type") != "Input")
      continue;
    const json::Array *tensor = layer.spec->getArray("tensor");
    FailureOr<SmallVector<int64_t, 4>> shape =
        ints(layer, "tensor", tensor ? tensor->size() : 4);
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
