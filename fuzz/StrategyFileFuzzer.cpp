//===- StrategyFileFuzzer.cpp - Fuzz the strategy-file reader -------------===//
//
// Any bytes as a strategy file (StrategyFile.h) given to --dsm-map-system
// with strategy=, mapping a small network in training on a small system.
// The file is written in a scratch directory of the fuzzer's own. Errors
// are fine; crashes, hangs and sanitizer reports are not.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>

/// Four fully connected layers: enough for pipelines of 2 and 4 stages.
static constexpr llvm::StringLiteral kModel = R"mlir(
func.func @net(%x: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %w0 = dsm.weight "l.0.weight" : tensor<64x64xf32>
  %y0 = dsm.fully_connected %x, %w0 : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
  %w1 = dsm.weight "l.1.weight" : tensor<64x64xf32>
  %y1 = dsm.fully_connected %y0, %w1 : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
  %w2 = dsm.weight "l.2.weight" : tensor<64x64xf32>
  %y2 = dsm.fully_connected %y1, %w2 : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
  %w3 = dsm.weight "l.3.weight" : tensor<64x64xf32>
  %y3 = dsm.fully_connected %y2, %w3 : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
  return %y3 : tensor<16x64xf32>
}
)mlir";

/// Moves the process into a fresh scratch directory, once.
static void enterScratchDirectory() {
  static bool entered = [] {
    llvm::SmallString<128> dir;
    if (llvm::sys::fs::createUniqueDirectory("dsm-fuzz-strategy", dir) ||
        llvm::sys::fs::set_current_path(dir))
      std::abort();
    return true;
  }();
  (void)entered;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  enterScratchDirectory();
  static mlir::MLIRContext &context = dsm::fuzz::getContext();
  mlir::ScopedDiagnosticHandler quiet(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });
  {
    std::error_code error;
    llvm::raw_fd_ostream file("strategy.yaml", error);
    if (error)
      std::abort();
    file.write(reinterpret_cast<const char *>(data), size);
  }
  mlir::PassManager pm(&context, mlir::ModuleOp::getOperationName());
  std::string error;
  llvm::raw_string_ostream errors(error);
  if (failed(mlir::parsePassPipeline(
          "dsm-map-system{system=dsm-8pf-asym mode=train "
          "strategy=strategy.yaml}",
          pm, errors)))
    std::abort();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(kModel, &context);
  if (!module)
    std::abort();
  (void)pm.run(*module);
  return 0;
}
