//===- ModelFuzzer.cpp - Fuzz the MLIR model path -------------------------===//
//
// Any bytes as MLIR text with the dialects models arrive in: parse, verify,
// import what linalg/TOSA holds (permissive), compute every op's workload --
// the path every model takes before mapping. Diagnostics are swallowed:
// errors are fine; crashes, hangs and sanitizer reports are not.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "dsm/Core/Support/MlirText.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static mlir::MLIRContext &context = dsm::fuzz::getContext();
  mlir::ScopedDiagnosticHandler quiet(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });
  // A copy: MLIR's lexer reads up to a NUL terminator, which every file the
  // tools read has (llvm::MemoryBuffer guarantees it) and fuzzer data has not.
  std::string text(reinterpret_cast<const char *>(data), size);
  // dsm-opt rejects what upstream parsers crash on before parsing
  // (dsm/Core/Support/MlirText.h).
  if (dsm::core::findMlirTextProblem(text))
    return 0;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, &context);
  if (!module)
    return 0;
  mlir::PassManager pm(&context, mlir::ModuleOp::getOperationName());
  if (failed(mlir::parsePassPipeline(
          "dsm-import-linalg{mode=permissive},dsm-import-tosa{mode=permissive},"
          "dsm-workload-report{output=-}",
          pm)))
    std::abort();
  (void)pm.run(*module);
  return 0;
}
