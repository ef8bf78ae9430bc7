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
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <limits>

using namespace mlir;

namespace {

/// Model-local functions (ModelProto.functions, IR >= 8; torch's dynamo
/// exporter writes modules as them) are inlined before the import, so that a
/// call is imported as the nodes it stands for. A call's inputs and outputs
/// replace the function's formal ones, every other value and every node is
/// named `<call>/<name>` (the layer path), and an attribute the body reads
/// by reference (`ref_attr_name`) is the call's (absent: the op's default).
///
/// Before anything is copied, every called function is checked (it produces
/// its outputs, its calls give no more inputs and outputs than the callee
/// declares, no call is recursive or nested deeper than kMaxDepth) and the
/// size it expands into is counted, in nodes and in serialized bytes
/// (saturating, each function once): a model whose calls would expand past
/// kMaxNodes nodes or kMaxBytes bytes is refused, naming the function,
/// before any memory is spent on it. Names made for a call's values are
/// unique in the whole graph (a suffix `_<k>` when `<call>/<name>` is taken):
/// calls named after their outputs can otherwise give two call paths one
/// prefix.
class FunctionInliner {
public:
  /// The most nodes inlining may leave in the graph.
  static constexpr uint64_t kMaxNodes = uint64_t(1) << 20;
  /// The most bytes (serialized NodeProtos) the calls may expand into: a
  /// Constant copied into every call counts each time.
  static constexpr uint64_t kMaxBytes = uint64_t(256) << 20;
  /// The deepest nesting of calls (a function calling a function ...).
  static constexpr unsigned kMaxDepth = 256;

  explicit FunctionInliner(dsm_onnx::ModelProto &model, Location fileLoc)
      : model(model), fileLoc(fileLoc) {
    for (const auto &function : model.functions())
      functions[function.domain() + "." + function.name()] = &function;
  }

  /// Whether any call was inlined; failure after an error.
  FailureOr<bool> run() {
    if (functions.empty())
      return false;
    auto *nodes = model.mutable_graph()->mutable_node();
    // Count what the graph's calls expand into.
    uint64_t totalNodes = 0, totalBytes = 0;
    bool anyCall = false;
    for (int i = 0; i < nodes->size(); ++i) {
      const dsm_onnx::NodeProto &node = nodes->Get(i);
      const dsm_onnx::FunctionProto *function = lookup(node);
      if (!function) {
        totalNodes = add(totalNodes, 1);
        continue;
      }
      anyCall = true;
      if (failed(checkCall(node, *function, /*caller=*/nullptr)))
        return failure();
      FailureOr<Size> size = expand(*function, 1);
      if (failed(size))
        return failure();
      totalNodes = add(totalNodes, size->nodes);
      totalBytes = add(totalBytes, size->bytes);
      if (totalNodes > kMaxNodes || totalBytes > kMaxBytes) {
        InFlightDiagnostic diag = emitError(fileLoc);
        diag << "cannot inline local function '" << key(*function)
             << "' (called by node " << describe(node)
             << "): the model's local functions would expand into more than ";
        if (totalNodes > kMaxNodes)
          diag << kMaxNodes << " nodes";
        else
          diag << kMaxBytes << " bytes of nodes";
        return diag << ", the most an import inlines";
      }
    }
    if (!anyCall)
      return false;

    // Every name the graph uses, so that the names made are new.
    const dsm_onnx::GraphProto &graph = model.graph();
    for (const auto &input : graph.input())
      taken.insert(input.name());
    for (const auto &output : graph.output())
      taken.insert(output.name());
    for (const auto &info : graph.value_info())
      taken.insert(info.name());
    for (const auto &tensor : graph.initializer())
      taken.insert(tensor.name());
    for (const auto &node : graph.node()) {
      for (const auto &input : node.input())
        taken.insert(input);
      for (const auto &output : node.output())
        taken.insert(output);
    }

    // Each round inlines one level of calls (at most kMaxDepth rounds,
    // checked above).
    for (;;) {
      if (llvm::none_of(*nodes, [&](const auto &node) {
            return lookup(node) != nullptr;
          }))
        return true;
      google::protobuf::RepeatedPtrField<dsm_onnx::NodeProto> inlined;
      for (int i = 0; i < nodes->size(); ++i) {
        const dsm_onnx::NodeProto &call = nodes->Get(i);
        const dsm_onnx::FunctionProto *function = lookup(call);
        if (!function) {
          *inlined.Add() = call;
          continue;
        }
        std::string base = call.name().empty()
                               ? call.op_type() + "_" + std::to_string(i)
                               : call.name();
        std::string prefix = base + "/";
        for (unsigned k = 1; !prefixes.insert(prefix).second; ++k)
          prefix = base + "_" + std::to_string(k) + "/";
        instantiate(*function, call, prefix, inlined);
      }
      nodes->Swap(&inlined);
    }
  }

private:
  struct Size {
    uint64_t nodes = 0;
    uint64_t bytes = 0;
    /// The nesting of calls: 1 for a function that calls none.
    unsigned height = 1;
  };

  static uint64_t add(uint64_t a, uint64_t b) {
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
  }

  static std::string key(const dsm_onnx::FunctionProto &function) {
    return function.domain() + "." + function.name();
  }

  static std::string describe(const dsm_onnx::NodeProto &node) {
    return "'" + node.name() + "' (" + node.domain() + "." + node.op_type() +
           ")";
  }

  const dsm_onnx::FunctionProto *lookup(const dsm_onnx::NodeProto &node) {
    if (node.domain().empty() || node.domain() == "ai.onnx")
      return nullptr;
    return functions.lookup(node.domain() + "." + node.op_type());
  }

  /// A call gives at most the inputs and outputs the function declares
  /// (fewer: trailing optional ones are omitted).
  LogicalResult checkCall(const dsm_onnx::NodeProto &call,
                          const dsm_onnx::FunctionProto &function,
                          const dsm_onnx::FunctionProto *caller) {
    if (call.input_size() <= function.input_size() &&
        call.output_size() <= function.output_size())
      return success();
    InFlightDiagnostic diag = emitError(fileLoc);
    if (caller)
      diag << "in local function '" << key(*caller) << "': ";
    auto count = [](int n, StringRef what) {
      return std::to_string(n) + " " + what.str() + (n == 1 ? "" : "s");
    };
    return diag << "node " << describe(call) << " calls local function '"
                << key(function) << "' with "
                << count(call.input_size(), "input") << " and "
                << count(call.output_size(), "output")
                << ", but the function takes "
                << count(function.input_size(), "input") << " and gives "
                << count(function.output_size(), "output");
  }

  /// What `function` expands into, every call in it expanded; checks the
  /// function on its first visit.
  FailureOr<Size> expand(const dsm_onnx::FunctionProto &function,
                         unsigned depth) {
    auto known = sizes.find(&function);
    if (known != sizes.end())
      return known->second;
    if (!active.insert(&function).second)
      return emitError(fileLoc)
             << "the model's local functions call each other recursively: '"
             << key(function) << "' calls itself through its calls";
    if (depth > kMaxDepth)
      return emitError(fileLoc)
             << "cannot inline local function '" << key(function)
             << "': calls of local functions are nested deeper than "
             << kMaxDepth << " levels";
    // The function produces each of its outputs.
    llvm::StringSet<> produced;
    for (const auto &node : function.node())
      for (const auto &output : node.output())
        produced.insert(output);
    for (const auto &output : function.output())
      if (!output.empty() && !produced.contains(output))
        return emitError(fileLoc) << "local function '" << key(function)
                                  << "' never produces its output '" << output
                                  << "': no node of its body writes it";
    Size size;
    for (const auto &node : function.node()) {
      const dsm_onnx::FunctionProto *callee = lookup(node);
      if (!callee) {
        size.nodes = add(size.nodes, 1);
        size.bytes = add(size.bytes, node.ByteSizeLong());
        continue;
      }
      if (failed(checkCall(node, *callee, &function)))
        return failure();
      FailureOr<Size> inner = expand(*callee, depth + 1);
      if (failed(inner))
        return failure();
      size.nodes = add(size.nodes, inner->nodes);
      size.bytes = add(size.bytes, inner->bytes);
      size.height = std::max(size.height, inner->height + 1);
    }
    if (size.height > kMaxDepth)
      return emitError(fileLoc)
             << "cannot inline local function '" << key(function)
             << "': calls of local functions are nested deeper than "
             << kMaxDepth << " levels";
    active.erase(&function);
    sizes[&function] = size;
    return size;
  }

  /// A name not yet in the graph, `name` if it is free.
  std::string fresh(const std::string &name) {
    if (taken.insert(name).second)
      return name;
    for (unsigned k = 1;; ++k) {
      std::string candidate = name + "_" + std::to_string(k);
      if (taken.insert(candidate).second)
        return candidate;
    }
  }

  /// Appends the body of `function` for `call` to `out`.
  void
  instantiate(const dsm_onnx::FunctionProto &function,
              const dsm_onnx::NodeProto &call, const std::string &prefix,
              google::protobuf::RepeatedPtrField<dsm_onnx::NodeProto> &out) {
    llvm::StringMap<std::string> actual;
    for (int k = 0; k < function.input_size(); ++k)
      actual[function.input(k)] = k < call.input_size() ? call.input(k) : "";
    for (int k = 0; k < function.output_size(); ++k)
      actual[function.output(k)] = k < call.output_size() ? call.output(k) : "";
    auto rename = [&](const std::string &value) -> std::string {
      if (value.empty())
        return value;
      auto [it, inserted] = actual.try_emplace(value);
      if (inserted)
        it->second = fresh(prefix + value);
      return it->second;
    };
    for (const auto &node : function.node()) {
      dsm_onnx::NodeProto &result = *out.Add();
      result = node;
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
    }
  }

  dsm_onnx::ModelProto &model;
  Location fileLoc;
  llvm::StringMap<const dsm_onnx::FunctionProto *> functions;
  llvm::DenseMap<const dsm_onnx::FunctionProto *, Size> sizes;
  llvm::SmallPtrSet<const dsm_onnx::FunctionProto *, 8> active;
  llvm::StringSet<> taken;
  llvm::StringSet<> prefixes;
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
  if (model.has_graph() && failed(FunctionInliner(model, fileLoc).run()))
    return nullptr;
  ImportSummary summary("import-onnx", options.mode);
  onnx::GraphImporter importer(context, fileName, options, summary);
  OwningOpRef<ModuleOp> module = importer.importModel(model);
  if (!module || failed(summary.write(options.summary, fileLoc)))
    return nullptr;
  return module;
}
