//===- OnnxImporter.h - ONNX model to dsm dialect ---------------*- C++ -*-===//
//
// Imports a serialized ONNX model (a ModelProto) into a module holding one
// `func.func` of dsm operations with static shapes: initializers become
// `dsm.weight` under their names (their data is never needed), shape
// subgraphs are folded, and every operation is located by its ONNX node
// name. Errors are reported through the context's diagnostic engine; a
// corrupt file is an error, never a crash.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_IMPORT_ONNXIMPORTER_H
#define DSM_IMPORT_ONNXIMPORTER_H

#include "dsm/Import/ImportSummary.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/MemoryBufferRef.h"

namespace mlir {
class DialectRegistry;
class MLIRContext;
} // namespace mlir

namespace dsm {

/// Imports the ONNX model in `buffer` (its identifier names the file in
/// diagnostics). Returns null after emitting errors. On success, the summary
/// of what happened to every node is written to `options.summary` (as the
/// import passes write theirs).
mlir::OwningOpRef<mlir::ModuleOp>
importOnnxModel(llvm::MemoryBufferRef buffer, mlir::MLIRContext *context,
                const ImportOptions &options = {});

/// Adds the dialects an imported module uses (dsm, func, arith).
void registerOnnxImportDialects(mlir::DialectRegistry &registry);

} // namespace dsm

#endif // DSM_IMPORT_ONNXIMPORTER_H
