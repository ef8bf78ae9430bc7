//===- ImportContext.h - The context of the import fuzzers ------*- C++ -*-===//
//
// The Paleo and --upgrade-mlir fuzzers need only the dialects models arrive
// in, not every pass and the ONNX importer: they link DsmImport alone, which
// keeps their sanitized build small.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_FUZZ_IMPORTCONTEXT_H
#define DSM_FUZZ_IMPORTCONTEXT_H

#include "dsm/Import/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

namespace dsm::fuzz {
/// One context for the whole run with the import dialects loaded and
/// threading off.
inline mlir::MLIRContext &getImportContext() {
  static mlir::MLIRContext *context = [] {
    mlir::DialectRegistry registry;
    dsm::registerImportDialects(registry);
    auto *created =
        new mlir::MLIRContext(registry, mlir::MLIRContext::Threading::DISABLED);
    created->loadAllAvailableDialects();
    return created;
  }();
  return *context;
}
} // namespace dsm::fuzz

#endif // DSM_FUZZ_IMPORTCONTEXT_H
