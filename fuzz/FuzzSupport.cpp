//===- FuzzSupport.cpp - What the MLIR-level fuzzers share ----------------===//

#include "FuzzSupport.h"

#include "dsm/Dialect/DsmDialect.h"
#include "dsm/Import/OnnxImporter.h"
#include "dsm/Import/Passes.h"
#include "dsm/Passes/Passes.h"

#include "mlir/IR/DialectRegistry.h"

mlir::MLIRContext &dsm::fuzz::getContext() {
  static mlir::MLIRContext *context = [] {
    dsm::registerDsmPasses();
    dsm::registerDsmImportPasses();
    mlir::DialectRegistry registry;
    dsm::registerImportDialects(registry);
    dsm::registerOnnxImportDialects(registry);
    auto *created =
        new mlir::MLIRContext(registry, mlir::MLIRContext::Threading::DISABLED);
    created->loadAllAvailableDialects();
    return created;
  }();
  return *context;
}
