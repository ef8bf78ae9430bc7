//===- map-model.cpp - A downstream driver of the dsm passes --------------===//
//
// Parses a model, runs --dsm-map-system with the options given on the command
// line, prints the mapping report: what a downstream ML compiler does with the
// installed package.
//
//   map-model model.mlir "system=dsm-8pf-asym mode=infer batch=64"
//
//===----------------------------------------------------------------------===//

#include "dsm/Dialect/DsmDialect.h"
#include "dsm/Import/Passes.h"
#include "dsm/Passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

int main(int argc, char **argv) {
  if (argc != 3) {
    llvm::errs()
        << "usage: map-model model.mlir \"<dsm-map-system options>\"\n";
    return 2;
  }
  dsm::registerDsmPasses();
  dsm::registerDsmImportPasses();
  mlir::DialectRegistry registry;
  registry.insert<dsm::DsmDialect, mlir::func::FuncDialect>();
  mlir::MLIRContext context(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(argv[1], &context);
  if (!module)
    return 1;
  mlir::PassManager pm(&context, mlir::ModuleOp::getOperationName());
  std::string pipeline =
      std::string("dsm-map-system{") + argv[2] + " report=-}";
  if (mlir::failed(mlir::parsePassPipeline(pipeline, pm, llvm::errs())) ||
      mlir::failed(pm.run(*module)))
    return 1;
  return 0;
}
