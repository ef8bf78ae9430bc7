//===- PassOptionFuzzer.cpp - Fuzz the pass-option parser -----------------===//
//
// Any bytes as the options of --dsm-map-system (system, mode, batch, search,
// parallelism, report...), run on a small network against a small system when
// they parse. Fuzzed options name no paths ('/' is refused) and no external
// evaluator program (`evaluator` is refused), and the fuzzer
// works in a scratch directory of its own, so whatever file a fuzzed
// `report=` names lands there. Errors are fine; crashes, hangs and sanitizer
// reports are not.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include <cstdint>

/// Two convolutions and a classifier: enough for every pass of the pipeline.
static constexpr llvm::StringLiteral kModel = R"mlir(
func.func @net(%x: tensor<8x3x16x16xf32>) -> tensor<8x10xf32> {
  %w1 = dsm.weight "conv1.weight" : tensor<16x3x3x3xf32>
  %c1 = dsm.conv2d %x, %w1 {padding = array<i64: 1, 1, 1, 1>} : (tensor<8x3x16x16xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x16x16xf32>
  %r1 = dsm.relu %c1 : tensor<8x16x16x16xf32>
  %p = dsm.global_avg_pool %r1 : (tensor<8x16x16x16xf32>) -> tensor<8x16x1x1xf32>
  %f = dsm.reshape %p {shape = array<i64: 0, -1>} : (tensor<8x16x1x1xf32>) -> tensor<8x16xf32>
  %fw = dsm.weight "fc.weight" : tensor<10x16xf32>
  %y = dsm.fully_connected %f, %fw : (tensor<8x16xf32>, tensor<10x16xf32>) -> tensor<8x10xf32>
  return %y : tensor<8x10xf32>
}
)mlir";

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  dsm::fuzz::enterScratchDirectory("dsm-fuzz-pass-options");
  std::string options(reinterpret_cast<const char *>(data), size);
  // No paths: a fuzzed option must not reach outside the scratch directory.
  // No evaluator=: it runs a program (any in PATH), which is not the
  // parser's robustness.
  if (options.find('/') != std::string::npos ||
      options.find("evaluator") != std::string::npos)
    return 0;
  (void)dsm::fuzz::runMapSystem(options, kModel);
  return 0;
}
