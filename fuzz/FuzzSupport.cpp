//===- FuzzSupport.cpp - What the MLIR-level fuzzers share ----------------===//

#include "FuzzSupport.h"

#include "dsm/Dialect/DsmDialect.h"
#include "dsm/Import/OnnxImporter.h"
#include "dsm/Import/Passes.h"
#include "dsm/Passes/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

#include <cstdlib>

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

void dsm::fuzz::enterScratchDirectory(llvm::StringRef name) {
  static bool entered = [&] {
    llvm::SmallString<128> dir;
    if (llvm::sys::fs::createUniqueDirectory(name, dir) ||
        llvm::sys::fs::set_current_path(dir))
      std::abort();
    return true;
  }();
  (void)entered;
}

bool dsm::fuzz::runMapSystem(llvm::StringRef options, llvm::StringRef model) {
  mlir::MLIRContext &context = getContext();
  mlir::ScopedDiagnosticHandler quiet(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });
  mlir::PassManager pm(&context, mlir::ModuleOp::getOperationName());
  std::string error;
  llvm::raw_string_ostream errors(error);
  if (failed(mlir::parsePassPipeline(("dsm-map-system{" + options + "}").str(),
                                     pm, errors)))
    return false;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(model, &context);
  if (!module)
    std::abort();
  (void)pm.run(*module);
  return true;
}
