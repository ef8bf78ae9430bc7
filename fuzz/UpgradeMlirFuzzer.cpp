//===- UpgradeMlirFuzzer.cpp - Fuzz dsm-translate --upgrade-mlir ----------===//
//
// Any bytes as older MLIR text, through what `dsm-translate --upgrade-mlir`
// does: the parse screen, the rewrite, then a parse of the upgraded text.
// Errors are fine; crashes, hangs and sanitizer reports are not. An upgrade
// the tool would write (it parses) must upgrade to itself: a second pass
// finds nothing left to change.
//
//===----------------------------------------------------------------------===//

#include "ImportContext.h"

#include "dsm/Core/Support/MlirText.h"
#include "dsm/Import/UpgradeMlir.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static mlir::MLIRContext &context = dsm::fuzz::getImportContext();
  mlir::ScopedDiagnosticHandler quiet(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });
  // NUL-terminated, as every buffer the tools read.
  std::string text(reinterpret_cast<const char *>(data), size);
  if (dsm::core::findMlirTextProblem(text))
    return 0;
  mlir::FailureOr<std::string> upgraded =
      dsm::upgradeMlirText(text, "fuzz.mlir", &context);
  if (failed(upgraded))
    return 0;
  // What the tool writes is what parses; text that does not is an error
  // there (the rewrite scans text, and on malformed text a rewrite may
  // expose another spelling: found by this fuzzer, 2026-11-26).
  if (!mlir::parseSourceString<mlir::ModuleOp>(*upgraded, &context))
    return 0;
  unsigned again = 0;
  mlir::FailureOr<std::string> twice =
      dsm::upgradeMlirText(*upgraded, "fuzz.mlir", &context, &again);
  if (failed(twice) || again != 0 || *twice != *upgraded) {
    llvm::errs() << "an upgraded text does not upgrade to itself\n";
    std::abort();
  }
  return 0;
}
