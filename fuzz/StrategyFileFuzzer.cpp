//===- StrategyFileFuzzer.cpp - Fuzz the strategy-file reader -------------===//
//
// Any bytes as a strategy file (StrategyFile.h) given to --dsm-map-system
// with strategy=, mapping a small network in training on a small system.
// The file is written in a scratch directory of the fuzzer's own. Errors
// are fine; crashes, hangs and sanitizer reports are not.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

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

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  dsm::fuzz::enterScratchDirectory("dsm-fuzz-strategy");
  {
    std::error_code error;
    llvm::raw_fd_ostream file("strategy.yaml", error);
    if (error)
      std::abort();
    file.write(reinterpret_cast<const char *>(data), size);
  }
  if (!dsm::fuzz::runMapSystem(
          "system=dsm-8pf-asym mode=train strategy=strategy.yaml", kModel))
    std::abort();
  return 0;
}
