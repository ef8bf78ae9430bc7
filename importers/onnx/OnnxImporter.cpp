//===- OnnxImporter.cpp - ONNX model to dsm dialect -----------------------===//

#include "dsm/Import/OnnxImporter.h"
#include "GraphImporter.h"

#include "onnx.pb.h"

#include "dsm/Dialect/DsmDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"

#include <limits>

using namespace mlir;

namespace {

/// Model-local functions (ModelProto.functions, IR >= 8; torch's dynamo
/// exporter writes modules as them) are inlined before the import, so that a
/// call is imported as the nodes it stands for. A call's inputs and outputs
/// replace the function's formal ones, every other value and every node is
/// named `<call>/<name>` (the layer path), and an attribute the body reads
/// by reference (`ref_attr_name`) is the call's (absent: the op's default).
class FunctionInliner {
public:
  explicit FunctionInliner(dsm_onnx::ModelProto &model) : model(model) {
    for (const auto &function : model.functions())
      functions[function.domain() + "." + function.name()] = &function;
  }

  /// Whether any call was inlined; failure after an error (recursion, or a
  /// graph grown past kMaxNodes).
  FailureOr<bool> run(Location fileLoc) {
    if (functions.empty())
      return false;
    bool changed = false;
    // Each round inlines one level of calls; a chain deeper than the
    // number of functions is recursion.
    for (size_t round = 0;; ++round) {
      auto *nodes = model.mutable_graph()->mutable_node();
      if (llvm::none_of(*nodes, [&](const auto &node) {
            return lookup(node) != nullptr;
          }))
        return changed;
      if (round == functions.size())
        return emitError(fileLoc)
               << "the model's local functions call each other recursively";
      google::protobuf::RepeatedPtrField<dsm_onnx::NodeProto> inlined;
      for (int i = 0; i < nodes->size(); ++i) {
        const dsm_onnx::NodeProto &call = nodes->Get(i);
        const dsm_onnx::FunctionProto *function = lookup(call);
        if (!function) {
          *inlined.Add() = call;
        } else {
          std::string prefix =
              (call.name().empty() ? call.op_type() + "_" + std::to_string(i)
                                   : call.name()) +
              "/";
          for (const auto &node : function->node())
            *inlined.Add() = instantiate(*function, call, node, prefix);
        }
        if (inlined.size() > kMaxNodes)
          return emitError(fileLoc)
                 << "inlining the model's local functions makes more than "
                 << kMaxNodes << " nodes";
      }
      nodes->Swap(&inlined);
      changed = true;
    }
  }

private:
  static constexpr int kMaxNodes = 1 << 20;

  const dsm_onnx::FunctionProto *lookup(const dsm_onnx::NodeProto &node) {
    if (node.domain().empty() || node.domain() == "ai.onnx")
      return nullptr;
    return functions.lookup(node.domain() + "." + node.op_type());
  }

  static dsm_onnx::NodeProto
  instantiate(const dsm_onnx::FunctionProto &function,
              const dsm_onnx::NodeProto &call, const dsm_onnx::NodeProto &node,
              const std::string &prefix) {
    llvm::StringMap<std::string> actual;
    for (int k = 0; k < function.input_size(); ++k)
      actual[function.input(k)] = k < call.input_size() ? call.input(k) : "";
    for (int k = 0; k < function.output_size(); ++k)
      actual[function.output(k)] = k < call.output_size() ? call.output(k) : "";
    auto rename = [&](const std::string &value) -> std::string {
      if (value.empty())
        return value;
      auto it = actual.find(value);
      return it != actual.end() ? it->second : prefix + value;
    };
    dsm_onnx::NodeProto result = node;
    for (std::string &input : *result.mutable_input())
      input = rename(input);
    for (std::string &output : *result.mutable_output())
      output = rename(output);
    // An unnamed node is named after its first output, as in the graph.
    if (!node.name().empty())
      result.set_name(prefix + node.name());
    else if (result.output_size() > 0 && !result.output(0).empty())
      result.set_name(result.output(0));
    else
      result.set_name(prefix + node.op_type());
    result.clear_attribute();
    for (const auto &attr : node.attribute()) {
      if (attr.ref_attr_name().empty()) {
        *result.add_attribute() = attr;
        continue;
      }
      for (const auto &given : call.attribute())
        if (given.name() == attr.ref_attr_name()) {
          dsm_onnx::AttributeProto *copy = result.add_attribute();
          *copy = given;
          copy->set_name(attr.name());
        }
    }
    return result;
  }

  dsm_onnx::ModelProto &model;
  llvm::StringMap<const dsm_onnx::FunctionProto *> functions;
};

} // namespace

void dsm::registerOnnxImportDialects(DialectRegistry &registry) {
  registry.insert<dsm::DsmDialect, arith::ArithDialect, func::FuncDialect>();
}

OwningOpRef<ModuleOp> dsm::importOnnxModel(llvm::MemoryBufferRef buffer,
                                           MLIRContext *context,
                                           const ImportOptions &options) {
  DialectRegistry registry;
  registerOnnxImportDialects(registry);
  context->appendDialectRegistry(registry);
  context
      ->loadDialect<dsm::DsmDialect, arith::ArithDialect, func::FuncDialect>();

  StringRef fileName = buffer.getBufferIdentifier();
  Location fileLoc = FileLineColLoc::get(context, fileName, 0, 0);
  if (failed(options.verify(fileLoc)))
    return nullptr;
  if (buffer.getBufferSize() == 0) {
    emitError(fileLoc) << "not an ONNX model: the file is empty";
    return nullptr;
  }
  if (buffer.getBufferSize() > size_t(std::numeric_limits<int>::max())) {
    emitError(fileLoc) << "the model is larger than 2 GiB; ONNX stores such "
                          "models with external data, which the importer "
                          "does not need: strip the initializers' data first";
    return nullptr;
  }
  dsm_onnx::ModelProto model;
  if (!model.ParseFromArray(buffer.getBufferStart(),
                            static_cast<int>(buffer.getBufferSize()))) {
    emitError(fileLoc) << "not an ONNX model: the file is not a valid "
                          "ModelProto (corrupt or truncated)";
    return nullptr;
  }
  if (model.has_graph() && failed(FunctionInliner(model).run(fileLoc)))
    return nullptr;
  ImportSummary summary("import-onnx", options.mode);
  onnx::GraphImporter importer(context, fileName, options, summary);
  OwningOpRef<ModuleOp> module = importer.importModel(model);
  if (!module || failed(summary.write(options.summary, fileLoc)))
    return nullptr;
  return module;
}
