//===- GraphImporter.cpp - Imports one ONNX graph into dsm ops ------------===//
//
// The driver: checks the model, declares inputs and initializers, imports the
// nodes in graph order (fold, fuse or convert each), returns the outputs,
// removes what ended up unused and accounts for every node in the summary.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"
#include "OnnxConversions.h"
#include "OnnxFolding.h"
#include "OnnxTypes.h"

#include "onnx.pb.h"

#include "dsm/Dialect/DsmOps.h"
#include "dsm/Import/BatchPlacement.h"
#include "dsm/Import/GraphFusion.h"
#include "dsm/Support/LayerName.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace dsm::onnx;
using dsm::ImportMode;
using dsm::ImportOptions;
using dsm::ImportSummary;
using dsm_onnx::GraphProto;
using dsm_onnx::ModelProto;
using dsm_onnx::TensorProto;
using dsm_onnx::TypeProto;
using dsm_onnx::ValueInfoProto;

/// The opsets whose operator semantics the importer implements.
static constexpr int64_t kMinOpset = 7;
static constexpr int64_t kMaxOpset = 22;

/// Records which op type (or pattern) every created op comes from.
/// Records which node each op was created for, and forgets ops the graph
/// fusions erase.
class GraphImporter::Listener : public RewriterBase::Listener {
public:
  explicit Listener(GraphImporter &importer) : importer(importer) {}
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    if (!importer.currentNode)
      return;
    importer.origins[op] = importer.currentNode->getOpType().str();
    importer.creators[op] = importer.currentNode;
  }
  void notifyOperationErased(Operation *op) override {
    importer.origins.erase(op);
    importer.creators.erase(op);
  }

private:
  GraphImporter &importer;
};

GraphImporter::GraphImporter(MLIRContext *context, StringRef fileName,
                             const ImportOptions &options,
                             ImportSummary &summary)
    : GraphBuilder(context, /*composeViews=*/true), context(context),
      fileName(fileName.str()), options(options), summary(summary),
      listener(std::make_unique<Listener>(*this)),
      currentOutcome(ImportSummary::Outcome::Imported) {
  builder.setListener(listener.get());
}

GraphImporter::~GraphImporter() = default;

Location GraphImporter::getFileLoc() {
  return FileLineColLoc::get(context, fileName, 0, 0);
}

InFlightDiagnostic GraphImporter::emitFileError() {
  return mlir::emitError(getFileLoc());
}

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

const ValueInfo &GraphImporter::get(StringRef name) const {
  auto it = values.find(name);
  assert(it != values.end() && "undefined ONNX value");
  return it->second;
}

const HostTensor *GraphImporter::getContents(StringRef name) const {
  auto it = values.find(name);
  if (it == values.end() || it->second.parameter)
    return nullptr;
  return it->second.contents.get();
}

bool GraphImporter::isParameter(StringRef name) const {
  auto it = values.find(name);
  return it != values.end() && it->second.parameter;
}

RankedTensorType GraphImporter::getType(StringRef name) const {
  const ValueInfo &info = get(name);
  Type element = getElementType(context, info.dataType);
  if (!element)
    return nullptr;
  return RankedTensorType::get(info.shape, element);
}

FailureOr<Value> GraphImporter::materialize(const OnnxNode &node,
                                            StringRef name) {
  auto it = values.find(name);
  if (it == values.end())
    return node.emitError() << "input '" << name << "' is not defined";
  ValueInfo &info = it->second;
  if (info.value)
    return info.value;
  if (info.parameter)
    return materializeParameter(node, name, info.shape, /*transposed=*/false);
  if (info.contents) {
    FailureOr<Value> value = materializeContents(node, name, *info.contents);
    if (succeeded(value))
      info.value = *value;
    return value;
  }
  return node.emitError() << "initializer '" << name << "' of type "
                          << getDataTypeName(info.dataType)
                          << " has no data, which the importer needs for a "
                             "constant that is not a parameter";
}

FailureOr<Value> GraphImporter::materializeParameter(const OnnxNode &node,
                                                     StringRef name,
                                                     ArrayRef<int64_t> shape,
                                                     bool transposed) {
  const ValueInfo &info = get(name);
  assert(info.parameter && "not a parameter");
  const std::string &paramName = info.parameterName;
  std::string key = paramName + (transposed ? "^T" : "");
  if (Value cached = parameterCache.lookup(key))
    return cached;
  Type element = getElementType(context, info.dataType);
  if (!element || !isDsmElementType(element))
    return node.emitError()
           << "initializer '" << paramName << "' has element type "
           << getDataTypeName(info.dataType)
           << ", which a dsm.weight cannot hold";
  SmallVector<int64_t> declared(shape);
  if (transposed)
    std::reverse(declared.begin(), declared.end());
  auto type = RankedTensorType::get(declared, element);
  auto weight = dsm::WeightOp::create(
      builder, NameLoc::get(StringAttr::get(context, paramName)), type,
      paramName);
  if (transposed)
    weight->setAttr("onnx.transposed", builder.getUnitAttr());
  parameterCache[key] = weight.getResult();
  return weight.getResult();
}

FailureOr<Value>
GraphImporter::materializeContents(const OnnxNode &node, StringRef name,
                                   const HostTensor &contents) {
  Type element = getElementType(context, contents.getDataType());
  if (!element)
    return node.emitError() << "constant '" << name << "' has element type "
                            << getDataTypeName(contents.getDataType())
                            << ", which the importer cannot represent";
  auto type = RankedTensorType::get(contents.getShape(), element);
  DenseElementsAttr attr;
  int64_t count = contents.getNumElements();
  bool splat = count > 0 && contents.isSplat();
  if (auto floatType = dyn_cast<FloatType>(element)) {
    auto convert = [&](double d) {
      APFloat value(d);
      bool lost;
      value.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                    &lost);
      return value;
    };
    if (splat) {
      attr = DenseElementsAttr::get(type, convert(contents.getFloat(0)));
    } else {
      SmallVector<APFloat> elements;
      for (int64_t i = 0; i < count; ++i)
        elements.push_back(convert(contents.getFloat(i)));
      attr = DenseElementsAttr::get(type, elements);
    }
  } else {
    unsigned width = element.getIntOrFloatBitWidth();
    auto convert = [&](int64_t v) {
      return APInt(width, static_cast<uint64_t>(v), /*isSigned=*/true,
                   /*implicitTrunc=*/true);
    };
    if (splat) {
      attr = DenseElementsAttr::get(type, convert(contents.getInt(0)));
    } else {
      SmallVector<APInt> elements;
      for (int64_t i = 0; i < count; ++i)
        elements.push_back(convert(contents.getInt(i)));
      attr = DenseElementsAttr::get(type, elements);
    }
  }
  return arith::ConstantOp::create(
             builder, NameLoc::get(StringAttr::get(context, name)), attr)
      .getResult();
}

LogicalResult GraphImporter::define(const OnnxNode &node, StringRef name,
                                    Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  if (failed(checkRank(node, name, type.getRank())))
    return failure();
  ValueInfo info;
  info.shape.assign(type.getShape().begin(), type.getShape().end());
  info.dataType = getDataType(type.getElementType());
  info.value = value;
  values[name] = std::move(info);
  return checkDeclared(node, name);
}

LogicalResult GraphImporter::checkRank(const OnnxNode &node, StringRef name,
                                       size_t rank) {
  if (rank <= kMaxRank)
    return success();
  return node.emitError() << "output '" << name << "' would have " << rank
                          << " dimensions, more than the " << kMaxRank
                          << " a tensor may have";
}

LogicalResult GraphImporter::defineParameter(const OnnxNode &node,
                                             StringRef name,
                                             const TensorProto &tensor) {
  return defineParameter(
      node, name,
      SmallVector<int64_t>(tensor.dims().begin(), tensor.dims().end()),
      tensor.data_type());
}

LogicalResult GraphImporter::defineParameter(const OnnxNode &node,
                                             StringRef name,
                                             ArrayRef<int64_t> shape,
                                             int32_t dataType) {
  if (failed(checkRank(node, name, shape.size())))
    return failure();
  ValueInfo info;
  info.shape.assign(shape.begin(), shape.end());
  if (!getNumElements(info.shape))
    return node.emitError()
           << "constant '" << name << "' has invalid dimensions";
  info.dataType = dataType;
  info.parameter = true;
  info.parameterName = name.str();
  values[name] = std::move(info);
  return checkDeclared(node, name);
}

LogicalResult GraphImporter::defineContents(const OnnxNode &node,
                                            StringRef name,
                                            HostTensor contents) {
  if (failed(checkRank(node, name, contents.getRank())))
    return failure();
  ValueInfo info;
  info.shape.assign(contents.getShape().begin(), contents.getShape().end());
  info.dataType = contents.getDataType();
  info.contents = std::make_shared<const HostTensor>(std::move(contents));
  values[name] = std::move(info);
  return checkDeclared(node, name);
}

LogicalResult GraphImporter::defineAlias(const OnnxNode &node, StringRef name,
                                         StringRef source) {
  ValueInfo info = get(source);
  values[name] = std::move(info);
  return checkDeclared(node, name);
}

/// Compares what the file declares about `name` (value_info, graph outputs)
/// with what the importer inferred: a disagreement means one of them is
/// wrong, and importing on would be silently wrong.
LogicalResult GraphImporter::checkDeclared(const OnnxNode &node,
                                           StringRef name) {
  auto it = declared.find(name);
  if (it == declared.end() || !it->second->has_tensor_type())
    return success();
  const auto &tensorType = it->second->tensor_type();
  const ValueInfo &info = get(name);
  if (tensorType.elem_type() != 0 && tensorType.elem_type() != info.dataType)
    return node.emitError()
           << "the file declares '" << name << "' as "
           << getDataTypeName(tensorType.elem_type())
           << " but the importer infers " << getDataTypeName(info.dataType);
  if (!tensorType.has_shape())
    return success();
  const auto &dims = tensorType.shape().dim();
  bool mismatch = dims.size() != int(info.shape.size());
  for (int i = 0; !mismatch && i < dims.size(); ++i)
    mismatch = dims[i].has_dim_value() && dims[i].dim_value() != info.shape[i];
  if (!mismatch)
    return success();
  SmallVector<std::string> written;
  for (const auto &dim : dims)
    written.push_back(dim.has_dim_value()   ? std::to_string(dim.dim_value())
                      : dim.has_dim_param() ? dim.dim_param()
                                            : "?");
  return node.emitError() << "the file declares '" << name << "' with shape ["
                          << llvm::join(written, ", ")
                          << "] but the importer infers "
                          << formatShape(info.shape);
}

//===----------------------------------------------------------------------===//
// Building
//===----------------------------------------------------------------------===//

LogicalResult GraphImporter::unsupported(const OnnxNode &node,
                                         const Twine &reason,
                                         ArrayRef<Type> resultTypes) {
  if (options.mode == ImportMode::Strict)
    return node.emitError()
           << reason.str()
           << " (--onnx-mode=permissive keeps such nodes as dsm.opaque)";
  return buildOpaque(node, 1.0, resultTypes, reason);
}

LogicalResult GraphImporter::opaque(const OnnxNode &node, double opsPerElement,
                                    ArrayRef<Type> resultTypes,
                                    const Twine &why) {
  return buildOpaque(node, opsPerElement, resultTypes, why);
}

Value GraphImporter::createOpaque(const OnnxNode &node, ValueRange inputs,
                                  Type type, double opsPerElement,
                                  const Twine &why) {
  auto op = dsm::OpaqueOp::create(
      builder, node.getLoc(), type,
      builder.getStringAttr("onnx." + node.getOpType().str()), inputs,
      builder.getF64FloatAttr(opsPerElement));
  recordOpaque(node, {type}, opsPerElement, why.str());
  return op.getResult();
}

void GraphImporter::recordOpaque(const OnnxNode &node, ArrayRef<Type> types,
                                 double opsPerElement, StringRef why) {
  ImportSummary::Opaque entry;
  entry.location = ("'" + node.getName() + "'").str();
  entry.origin = node.getOpType().str();
  entry.reason = why.str();
  entry.opsPerElement = opsPerElement;
  for (Type type : types)
    if (auto tensor = dyn_cast_if_present<RankedTensorType>(type))
      entry.elements += tensor.getNumElements();
  unit->addOpaque(std::move(entry));
}

LogicalResult GraphImporter::buildOpaque(const OnnxNode &node,
                                         double opsPerElement,
                                         ArrayRef<Type> resultTypes,
                                         const Twine &why) {
  // Result types: given, else declared by the file.
  SmallVector<Type> types;
  for (unsigned i = 0; i < node.getNumOutputs(); ++i) {
    StringRef output = node.getOutput(i);
    if (output.empty()) {
      types.push_back(nullptr);
      continue;
    }
    if (i < resultTypes.size() && resultTypes[i]) {
      types.push_back(resultTypes[i]);
      continue;
    }
    Type type;
    auto it = declared.find(output);
    if (it != declared.end() && it->second->has_tensor_type() &&
        it->second->tensor_type().has_shape()) {
      const auto &tensorType = it->second->tensor_type();
      SmallVector<int64_t> shape;
      bool isStatic = true;
      for (const auto &dim : tensorType.shape().dim()) {
        isStatic &= dim.has_dim_value() && dim.dim_value() >= 0;
        shape.push_back(dim.dim_value());
      }
      Type element = getElementType(context, tensorType.elem_type());
      if (isStatic && element)
        type = RankedTensorType::get(shape, element);
    }
    if (!type && getUseCount(output) > 0)
      return node.emitError()
             << "cannot keep the node as dsm.opaque (" << why.str()
             << "): the shape of its output '" << output
             << "' is unknown; the file declares no static shape for it "
                "(run onnx.shape_inference.infer_shapes on the model first)";
    types.push_back(type);
  }
  SmallVector<Value> inputs;
  for (unsigned i = 0; i < node.getNumInputs(); ++i) {
    if (!node.hasInput(i))
      continue;
    FailureOr<Value> input = materialize(node, node.getInput(i));
    if (failed(input))
      return failure();
    inputs.push_back(*input);
  }
  std::string reason = why.str();
  bool first = true;
  for (auto [i, type] : llvm::enumerate(types)) {
    if (!type)
      continue;
    // One summary entry per node.
    auto op = dsm::OpaqueOp::create(
        builder, node.getLoc(), type,
        builder.getStringAttr("onnx." + node.getOpType().str()), inputs,
        builder.getF64FloatAttr(opsPerElement));
    if (first)
      recordOpaque(node, types, opsPerElement, reason);
    first = false;
    if (failed(define(node, node.getOutput(i), op.getResult())))
      return failure();
  }
  currentOutcome = ImportSummary::Outcome::Opaque;
  return success();
}

//===----------------------------------------------------------------------===//
// Graph structure
//===----------------------------------------------------------------------===//

int64_t GraphImporter::getUseCount(StringRef name) const {
  return useCounts.lookup(name);
}

ArrayRef<const OnnxNode *> GraphImporter::getUsers(StringRef name) const {
  auto it = users.find(name);
  if (it == users.end())
    return {};
  return it->second;
}

//===----------------------------------------------------------------------===//
// The model
//===----------------------------------------------------------------------===//

LogicalResult GraphImporter::readOpset(const ModelProto &model) {
  for (const auto &entry : model.opset_import())
    if (entry.domain().empty() || entry.domain() == "ai.onnx")
      opset = entry.version();
  if (opset == 0)
    return emitFileError()
           << "the model imports no version of the default ONNX "
              "operator set (opset_import)";
  if (opset < kMinOpset || opset > kMaxOpset)
    return emitFileError() << "the model uses ONNX opset " << opset
                           << "; the importer supports opsets " << kMinOpset
                           << " to " << kMaxOpset;
  return success();
}

LogicalResult GraphImporter::indexGraph(const GraphProto &graph) {
  llvm::StringMap<int> definitions;
  for (const auto &input : graph.input())
    ++definitions[input.name()];
  for (const auto &tensor : graph.initializer()) {
    if (tensor.name().empty())
      return emitFileError() << "an initializer has no name";
    if (initializers.count(tensor.name()))
      return emitFileError()
             << "initializer '" << tensor.name() << "' is defined twice";
    initializers[tensor.name()] = &tensor;
    // An input may repeat an initializer (IR < 4 lists them as inputs).
    definitions[tensor.name()] = 1;
  }
  for (const auto &[name, count] : definitions)
    if (count > 1)
      return emitFileError() << "graph input '" << name << "' is defined twice";

  for (int i = 0; i < graph.node_size(); ++i) {
    nodes.push_back(std::make_unique<OnnxNode>(graph.node(i), i, getFileLoc()));
    const OnnxNode &node = *nodes.back();
    for (unsigned j = 0; j < node.getNumInputs(); ++j) {
      if (!node.hasInput(j))
        continue;
      auto &list = users[node.getInput(j)];
      if (list.empty() || list.back() != &node)
        list.push_back(&node);
      ++useCounts[node.getInput(j)];
    }
    for (unsigned j = 0; j < node.getNumOutputs(); ++j) {
      StringRef output = node.getOutput(j);
      if (output.empty())
        continue;
      if (definitions.count(output) || producers.count(output))
        return node.emitError()
               << "output '" << output
               << "' is already defined elsewhere in the graph";
      producers[output] = &node;
    }
  }
  for (const auto &output : graph.output()) {
    ++useCounts[output.name()];
    graphOutputs.insert(output.name());
  }
  for (const ValueInfoProto &info : graph.value_info())
    declared[info.name()] = &info.type();
  for (const ValueInfoProto &info : graph.output())
    declared[info.name()] = &info.type();
  return success();
}

LogicalResult GraphImporter::addInitializer(const TensorProto &tensor) {
  ValueInfo info;
  if (size_t(tensor.dims_size()) > kMaxRank)
    return emitFileError() << "initializer '" << tensor.name() << "' has "
                           << tensor.dims_size()
                           << " dimensions, more than the " << kMaxRank
                           << " a tensor may have";
  for (int64_t d : tensor.dims()) {
    if (d < 0)
      return emitFileError() << "initializer '" << tensor.name()
                             << "' has a negative dimension";
    info.shape.push_back(d);
  }
  if (!getNumElements(info.shape))
    return emitFileError() << "initializer '" << tensor.name()
                           << "' has too many elements";
  info.dataType = tensor.data_type();
  if (!getElementType(context, info.dataType))
    return emitFileError() << "initializer '" << tensor.name()
                           << "' has unsupported element type "
                           << getDataTypeName(info.dataType);
  // Floating-point and int8 initializers are parameters (dsm.weight), except
  // scalars with data (constants such as 0.5); integer initializers are
  // shapes, indices and other constants. Parameters are only checked: their
  // values are never needed.
  bool parameterType =
      isFloatDataType(info.dataType) || info.dataType == TensorProto::INT8;
  bool scalar = getNumElements(info.shape) == 1;
  if (parameterType && !scalar) {
    llvm::Expected<bool> hasData = HostTensor::checkProto(tensor);
    if (!hasData) {
      InFlightDiagnostic diag = emitFileError();
      diag << "invalid initializer: " << llvm::toString(hasData.takeError());
      return diag;
    }
  } else {
    llvm::Expected<std::optional<HostTensor>> contents =
        HostTensor::fromProto(tensor);
    if (!contents) {
      InFlightDiagnostic diag = emitFileError();
      diag << "invalid initializer: " << llvm::toString(contents.takeError());
      return diag;
    }
    if (*contents)
      info.contents = std::make_shared<const HostTensor>(std::move(**contents));
  }
  if (parameterType && !info.contents) {
    info.parameter = true;
    info.parameterName = tensor.name();
  }
  values[tensor.name()] = std::move(info);
  return success();
}

FailureOr<Type> GraphImporter::getInputType(const TypeProto &type,
                                            StringRef name) {
  if (!type.has_tensor_type())
    return emitFileError() << "graph input '" << name
                           << "' is not a tensor, which the importer requires";
  const auto &tensorType = type.tensor_type();
  Type element = getElementType(context, tensorType.elem_type());
  if (!element)
    return emitFileError() << "graph input '" << name
                           << "' has unsupported element type "
                           << getDataTypeName(tensorType.elem_type());
  if (!tensorType.has_shape())
    return emitFileError()
           << "graph input '" << name
           << "' has no shape; the importer needs static shapes";
  if (size_t(tensorType.shape().dim_size()) > kMaxRank)
    return emitFileError() << "graph input '" << name << "' has "
                           << tensorType.shape().dim_size()
                           << " dimensions, more than the " << kMaxRank
                           << " a tensor may have";
  SmallVector<int64_t> shape;
  for (auto [index, dim] : llvm::enumerate(tensorType.shape().dim())) {
    if (dim.has_dim_value() && dim.dim_value() >= 0) {
      shape.push_back(dim.dim_value());
      continue;
    }
    std::string param = dim.has_dim_param() ? dim.dim_param() : "";
    auto named = options.dims.find(param);
    if (!param.empty() && named != options.dims.end()) {
      shape.push_back(named->second);
      continue;
    }
    if (index == 0 && options.batch > 0) {
      shape.push_back(options.batch);
      continue;
    }
    InFlightDiagnostic diag = emitFileError();
    diag << "graph input '" << name << "' has dynamic dimension " << index;
    if (!param.empty())
      diag << " ('" << param << "')";
    diag << "; the importer needs static shapes: fix it with ";
    if (index == 0)
      diag << "--onnx-batch=<N> or ";
    diag << "--onnx-dim=" << (param.empty() ? "<name>" : param) << "=<N>";
    if (param.empty() && index != 0)
      diag << " (it has no name, so only re-exporting the model with a static "
              "size helps)";
    return diag;
  }
  return Type(RankedTensorType::get(shape, element));
}

OwningOpRef<ModuleOp> GraphImporter::importModel(const ModelProto &model) {
  // Operations are located by node names only (their layer names). Their
  // diagnostics (shape inference, verification) are re-emitted in the model
  // file, naming the node.
  bool reemitting = false;
  ScopedDiagnosticHandler handler(context, [&](Diagnostic &diag) {
    Location loc = diag.getLocation();
    if (reemitting || loc->findInstanceOf<FileLineColLoc>())
      return failure();
    StringRef name = findName(loc);
    std::string message =
        (name.empty() ? "" : "node '" + name.str() + "': ") + diag.str();
    reemitting = true;
    {
      InFlightDiagnostic out =
          diag.getSeverity() == DiagnosticSeverity::Error
              ? mlir::emitError(getFileLoc())
          : diag.getSeverity() == DiagnosticSeverity::Warning
              ? mlir::emitWarning(getFileLoc())
              : mlir::emitRemark(getFileLoc());
      out << message;
      for (Diagnostic &note : diag.getNotes())
        out.attachNote() << note.str();
    }
    reemitting = false;
    return success();
  });
  if (!model.has_graph() || model.ir_version() <= 0) {
    emitFileError() << "not an ONNX model: "
                    << (model.has_graph() ? "no IR version" : "no graph");
    return nullptr;
  }
  if (failed(readOpset(model)))
    return nullptr;
  std::string producer = model.producer_name();
  if (!model.producer_version().empty())
    producer += " " + model.producer_version();
  summary.setInput(
      (fileName + " (producer '" + producer + "', opset " + Twine(opset) + ")")
          .str());

  const GraphProto &graph = model.graph();
  if (failed(indexGraph(graph)))
    return nullptr;
  for (const auto &tensor : graph.initializer())
    if (failed(addInitializer(tensor)))
      return nullptr;

  // Inputs that are not initializers become the function's arguments.
  SmallVector<Type> argTypes;
  SmallVector<Location> argLocs;
  SmallVector<std::string> argNames;
  for (const ValueInfoProto &input : graph.input()) {
    if (initializers.count(input.name()))
      continue;
    FailureOr<Type> type = getInputType(input.type(), input.name());
    if (failed(type))
      return nullptr;
    argTypes.push_back(*type);
    argLocs.push_back(NameLoc::get(builder.getStringAttr(input.name())));
    argNames.push_back(input.name());
  }

  OwningOpRef<ModuleOp> module = ModuleOp::create(builder.getUnknownLoc());
  (*module)->setAttr("onnx.opset", builder.getI64IntegerAttr(opset));
  if (!producer.empty())
    (*module)->setAttr("onnx.producer", builder.getStringAttr(producer));
  builder.setInsertionPointToEnd(module->getBody());
  std::string funcName = graph.name().empty() ? "main" : graph.name();
  unit = &summary.addUnit(funcName);
  function = func::FuncOp::create(builder, builder.getUnknownLoc(), funcName,
                                  builder.getFunctionType(argTypes, {}));
  Block *body = function.addEntryBlock();
  for (auto [arg, loc, name] :
       llvm::zip(body->getArguments(), argLocs, argNames)) {
    arg.setLoc(loc);
    ValueInfo info;
    auto type = cast<RankedTensorType>(arg.getType());
    info.shape.assign(type.getShape().begin(), type.getShape().end());
    info.dataType = getDataType(type.getElementType());
    info.value = arg;
    values[name] = std::move(info);
  }
  builder.setInsertionPointToEnd(body);

  for (const auto &node : nodes)
    if (failed(importNode(*node)))
      return nullptr;
  currentNode = nullptr;
  if (failed(finishModule(graph, argTypes)))
    return nullptr;
  if (failed(mlir::verify(*module)))
    return nullptr;
  return module;
}

/// Returns the graph outputs, removes unused operations and accounts for the
/// operations that remain.
LogicalResult GraphImporter::finishModule(const GraphProto &graph,
                                          ArrayRef<Type> argTypes) {
  dsm_onnx::NodeProto outputsProto;
  outputsProto.set_name("graph outputs");
  outputsProto.set_op_type("Return");
  OnnxNode outputsNode(outputsProto, -1, getFileLoc());
  SmallVector<Value> results;
  for (const ValueInfoProto &output : graph.output()) {
    if (!isDefined(output.name()))
      return emitFileError() << "graph output '" << output.name()
                             << "' is not produced by any node";
    FailureOr<Value> value = materialize(outputsNode, output.name());
    if (failed(value))
      return failure();
    results.push_back(*value);
  }
  func::ReturnOp::create(builder, builder.getUnknownLoc(), results);
  function.setType(
      builder.getFunctionType(argTypes, ValueRange(results).getTypes()));

  eraseDeadOps();
  // The compositions exporters spell out (erf GELU, layer norms, bias adds)
  // are recognised on the dsm ops, as after every front end. A node all of
  // whose ops a fusion replaced counts as fused.
  llvm::DenseMap<const OnnxNode *, int64_t> replacedOps;
  if (failed(fuseGraph(
          function,
          [&](StringRef pattern, Operation *fused,
              ArrayRef<Operation *> replaced) {
            unit->addPatternMatch(pattern);
            origins[fused] = pattern.str();
            for (Operation *op : replaced)
              if (const OnnxNode *creator = creators.lookup(op))
                ++replacedOps[creator];
          },
          listener.get())))
    return emitFileError() << "internal error: the graph fusions do not "
                              "converge";
  eraseDeadOps();
  // Which dimension of each reshape follows the batch, decided by
  // re-batching (dsm/Import/BatchPlacement.h).
  for (unsigned i = 0, e = placeBatchInReshapes(function); i < e; ++i) {
    unit->addPatternMatch(kBatchPlacedPattern);
    unit->addResult(kBatchPlacedPattern, dsm::ReshapeOp::getOperationName());
  }
  llvm::DenseMap<const OnnxNode *, int64_t> remainingOps;
  for (const auto &[op, creator] : creators)
    if (!isa<dsm::WeightOp, arith::ConstantOp>(op))
      ++remainingOps[creator];
  for (auto [node, outcome] : outcomes) {
    if (outcome == ImportSummary::Outcome::Imported &&
        replacedOps.count(node) && !remainingOps.count(node))
      outcome = ImportSummary::Outcome::Fused;
    unit->addSource(node->getOpType(), outcome);
  }
  for (Operation &op : function.getBody().front())
    if (isa_and_nonnull<dsm::DsmDialect>(op.getDialect()))
      ++unit->dsmOps;
  for (const auto &[op, origin] : origins)
    if (!isa<dsm::WeightOp, arith::ConstantOp>(op))
      unit->addResult(origin, op->getName().getStringRef());
  return success();
}

/// Erases operations whose results are unused: the intermediate ops a
/// look-through or a fusion replaced, and nodes whose outputs nothing reads.
void GraphImporter::eraseDeadOps() {
  for (Block &block : function.getBody())
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
      if (isOpTriviallyDead(&op)) {
        origins.erase(&op);
        creators.erase(&op);
        op.erase();
      }
}

/// A node of another domain than ONNX's own: onnxruntime's contrib
/// operators (com.microsoft), ONNX-ML's or an exporter's custom ones (calls
/// of functions the model defines are inlined before).
LogicalResult GraphImporter::unsupportedDomain(const OnnxNode &node) {
  const std::string &domain = node.getProto().domain();
  InFlightDiagnostic diag = node.emitError()
                            << "op '" << node.getProto().op_type()
                            << "' of domain '" << domain
                            << "' is not supported: the importer knows the "
                               "default ONNX domain only";
  if (domain == "com.microsoft")
    diag << "; it is one of onnxruntime's contrib operators (its "
            "optimizers write them: import the model as exported)";
  return diag << " (--onnx-mode=permissive keeps unknown nodes as dsm.opaque)";
}

/// What the operator's signature requires of its operands, before folding
/// or converting reads them: the arithmetic ops whose inputs share one type
/// T (ONNX's checker says so; an importer that imported them anyway made an
/// opaque op of a type the file never meant), and Trilu's matrices.
LogicalResult GraphImporter::checkOperands(const OnnxNode &node) {
  StringRef op = node.getOpType();
  if (llvm::is_contained(
          {"Add", "Sub", "Mul", "Div", "Sum", "Mean", "Max", "Min"}, op)) {
    int first = -1;
    for (unsigned i = 0; i < node.getNumInputs(); ++i) {
      if (!node.hasInput(i))
        continue;
      if (first < 0) {
        first = i;
        continue;
      }
      int32_t a = get(node.getInput(first)).dataType;
      int32_t b = get(node.getInput(i)).dataType;
      if (a != b)
        return node.emitError()
               << "inputs of mixed element types: input " << first << " ('"
               << node.getInput(first) << "') is " << getDataTypeName(a)
               << ", input " << i << " ('" << node.getInput(i) << "') is "
               << getDataTypeName(b) << "; " << op
               << " takes inputs of one element type";
    }
  }
  if (op == "Trilu" && node.hasInput(0)) {
    size_t rank = get(node.getInput(0)).shape.size();
    if (rank < 2)
      return node.emitError()
             << "input 0 ('" << node.getInput(0) << "') has rank " << rank
             << "; Trilu takes matrices (rank 2 or more)";
  }
  return success();
}

LogicalResult GraphImporter::importNode(const OnnxNode &node) {
  currentNode = &node;
  currentOutcome = ImportSummary::Outcome::Imported;
  if (node.isOnnxDomain()) {
    unsigned required =
        getRequiredInputCount(node.getOpType(), opset, node.getNumInputs());
    for (unsigned i = 0; i < required; ++i)
      if (!node.hasInput(i))
        return node.emitError() << "missing required input " << i;
  }
  for (unsigned i = 0; i < node.getNumInputs(); ++i)
    if (node.hasInput(i) && !isDefined(node.getInput(i)))
      return node.emitError()
             << "input '" << node.getInput(i) << "' is not defined before the "
             << "node (unknown name, or the nodes are not topologically "
                "sorted)";

  if (node.isOnnxDomain() && failed(checkOperands(node)))
    return failure();

  LogicalResult result = success();
  FailureOr<bool> folded = foldNode(*this, node);
  if (failed(folded))
    return failure();
  if (*folded) {
    currentOutcome = ImportSummary::Outcome::Folded;
  } else {
    ConversionFn convert =
        node.isOnnxDomain() ? lookupConversion(node.getOpType()) : nullptr;
    if (convert)
      result = convert(*this, node);
    else if (options.mode == ImportMode::Strict && node.isOnnxDomain())
      return node.emitError() << "unsupported op type '" << node.getOpType()
                              << "' (--onnx-mode=permissive keeps unknown "
                                 "nodes as dsm.opaque)";
    else if (options.mode == ImportMode::Strict)
      return unsupportedDomain(node);
    else
      result = buildOpaque(node, 1.0, {}, "unknown op type");
  }
  if (failed(result))
    return failure();
  // Every output read by a graph output or another node must now be
  // defined.
  for (unsigned i = 0; i < node.getNumOutputs(); ++i) {
    StringRef output = node.getOutput(i);
    if (output.empty() || isDefined(output))
      continue;
    if (graphOutputs.contains(output) || !getUsers(output).empty())
      return node.emitError() << "output '" << output
                              << "' is used but the importer cannot produce it";
  }
  outcomes.push_back({&node, currentOutcome});
  return success();
}
