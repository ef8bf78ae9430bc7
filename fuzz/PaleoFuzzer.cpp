//===- PaleoFuzzer.cpp - Fuzz the Paleo/Exprimo network importer ----------===//
//
// Any bytes as a Paleo network (JSON): import it as `dsm-translate
// --import-paleo` does, then verify the module it makes. Errors are fine;
// crashes, hangs, sanitizer reports and a module that does not verify are
// not.
//
//===----------------------------------------------------------------------===//

#include "ImportContext.h"

#include "dsm/Import/PaleoTranslation.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static mlir::MLIRContext &context = dsm::fuzz::getImportContext();
  mlir::ScopedDiagnosticHandler quiet(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      dsm::importPaleoNetwork(text, "fuzz.json", &context);
  if (module && failed(mlir::verify(*module))) {
    llvm::errs() << "an imported network does not verify\n";
    std::abort();
  }
  return 0;
}
