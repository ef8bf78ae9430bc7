//===- ModelLoader.cpp - Models through dsm passes, in process ------------===//

#include "ModelLoader.h"

#include "dsm/Dialect/DsmDialect.h"
#include "dsm/Passes/Passes.h"
#include "dsm/Support/ReportWriter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <mutex>

using namespace mlir;

std::unique_ptr<MLIRContext> dsm::bench::makeContext() {
  static std::once_flag registered;
  std::call_once(registered, [] { dsm::registerDsmPasses(); });
  DialectRegistry registry;
  registry.insert<dsm::DsmDialect, arith::ArithDialect, func::FuncDialect,
                  tensor::TensorDialect>();
  auto context = std::make_unique<MLIRContext>(registry);
  context->loadAllAvailableDialects();
  return context;
}

OwningOpRef<ModuleOp> dsm::bench::runPipeline(MLIRContext &context,
                                              StringRef path,
                                              StringRef pipeline) {
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(path, &context);
  if (!module) {
    llvm::errs() << "cannot parse " << path << "\n";
    std::exit(1);
  }
  PassManager pm(&context, ModuleOp::getOperationName());
  if (failed(parsePassPipeline(pipeline, pm, llvm::errs())) ||
      failed(pm.run(*module))) {
    llvm::errs() << "pipeline '" << pipeline << "' failed on " << path << "\n";
    std::exit(1);
  }
  return module;
}

std::string dsm::bench::modelPath(StringRef name) {
  return (DSM_MODELS_DIR "/" + name + ".mlir").str();
}

bool dsm::bench::checkOutputPath(llvm::StringRef tool, llvm::StringRef path) {
  if (path == "-")
    return true;
  llvm::StringRef directory = llvm::sys::path::parent_path(path);
  if (directory.empty())
    directory = ".";
  std::error_code error;
  bool isLink = false;
  if (!llvm::sys::fs::is_directory(directory))
    error = std::make_error_code(std::errc::no_such_file_or_directory);
  else if (!llvm::sys::fs::is_symlink_file(path, isLink) && isLink &&
           !llvm::sys::fs::exists(path))
    error = std::make_error_code(std::errc::no_such_file_or_directory);
  else if (llvm::sys::fs::exists(path))
    error = llvm::sys::fs::access(path, llvm::sys::fs::AccessMode::Write);
  else
    error = llvm::sys::fs::access(directory, llvm::sys::fs::AccessMode::Write);
  if (!error)
    return true;
  llvm::errs() << tool << ": cannot write '" << path << "': " << error.message()
               << "\n";
  return false;
}

bool dsm::bench::writeOutput(
    MLIRContext &context, llvm::StringRef tool, llvm::StringRef path,
    llvm::function_ref<void(llvm::raw_ostream &)> print) {
  return succeeded(dsm::writeReport(
      path, NameLoc::get(StringAttr::get(&context, tool)), print));
}
