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

#include <limits>

using namespace mlir;

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
  ImportSummary summary("import-onnx", options.mode);
  onnx::GraphImporter importer(context, fileName, options, summary);
  OwningOpRef<ModuleOp> module = importer.importModel(model);
  if (!module || failed(summary.write(options.summary, fileLoc)))
    return nullptr;
  return module;
}
