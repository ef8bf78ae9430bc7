//===- OnnxFuzzer.cpp - Fuzz the ONNX importer ----------------------------===//
//
// Any bytes as a serialized ONNX ModelProto: import, then compute the
// workload of what was imported. Errors are fine; crashes, hangs and
// sanitizer reports are not.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "dsm/Import/OnnxImporter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static mlir::MLIRContext &context = dsm::fuzz::getContext();
  mlir::ScopedDiagnosticHandler quiet(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });
  llvm::MemoryBufferRef buffer(
      llvm::StringRef(reinterpret_cast<const char *>(data), size), "fuzz.onnx");
  mlir::OwningOpRef<mlir::ModuleOp> module =
      dsm::importOnnxModel(buffer, &context);
  if (!module)
    return 0;
  mlir::PassManager pm(&context, mlir::ModuleOp::getOperationName());
  if (failed(mlir::parsePassPipeline("dsm-workload-report{output=-}", pm)))
    std::abort();
  (void)pm.run(*module);
  return 0;
}
