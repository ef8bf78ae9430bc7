//===- StepMemory.h - What a chip's memory holds over a step ----*- C++ -*-===//
//
// The external memory a plan needs on its fullest chip over a whole
// training step (or inference), by category:
//
//   weights      each distinct parameter once, the chip's share of it under
//                the parallelism of the layers that read it;
//   gradients    in training, one per weight element the chip holds;
//   optimizer    in training, the optimizer's state per weight element;
//   activations  the peak over the step's schedule of the tensors alive at
//                once (a tensor from its producer's pass to its last
//                reader's: FWD activations wait for the BWD and UPD that read
//                them again);
//   buffers      what the plan stages in external memory besides (none yet:
//                the DeepSpatialMatrix §III buffers live in the cores'
//                scratchpads, which the explorer checks layer by layer).
//
// Optimizer state, by default mixed-precision Adam: a 16-bit weight and
// gradient and, per parameter, a 32-bit master weight and two 32-bit
// moments -- 2 + 2 + 12 = 16 bytes per parameter, the accounting of
// Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training Trillion
// Parameter Models" (SC 2020), Section 3.1. Momentum SGD keeps a master
// weight and one moment (8 bytes), plain SGD the master weight (4).
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SPATIAL_STEPMEMORY_H
#define DSM_CORE_SPATIAL_STEPMEMORY_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace dsm::core {

enum class Optimizer { SGD, Momentum, Adam };
llvm::StringRef stringifyOptimizer(Optimizer optimizer);
std::optional<Optimizer> symbolizeOptimizer(llvm::StringRef name);

/// Bytes of optimizer state per parameter (master weights and moments).
double optimizerBytesPerParameter(Optimizer optimizer);

/// A tensor in a chip's memory during part of the step: `bytes` from step
/// `first` to step `last` (inclusive) of the schedule.
struct LiveTensor {
  double bytes = 0;
  int first = 0;
  int last = 0;
};

struct MemoryPerChip {
  double weights = 0, gradients = 0, optimizer = 0, activations = 0,
         buffers = 0;
  double capacity = 0;
  double total() const {
    return weights + gradients + optimizer + activations + buffers;
  }
  bool fits() const { return total() <= capacity; }
};

/// The memory of one chip: `weightElements` are the chip's elements of each
/// distinct parameter, of `elementBytes` each; `tensors` the activations (and
/// errors) with their live ranges; in `training`, gradients and `optimizer`
/// state for every weight element.
MemoryPerChip memoryPerChip(llvm::ArrayRef<double> weightElements,
                            llvm::ArrayRef<LiveTensor> tensors,
                            double elementBytes, bool training,
                            Optimizer optimizer, double capacity);

/// Bytes for people: "12.34 GB", "5.00 MB", "812 B".
std::string formatBytes(double bytes);
/// "total X of Y (weights ..., gradients ..., optimizer ..., activations
/// ..., buffers ...)", and whether it does not fit.
std::string describeMemory(const MemoryPerChip &memory);

/// The most bytes of `tensors` alive at one step.
double peakLiveBytes(llvm::ArrayRef<LiveTensor> tensors);

} // namespace dsm::core

#endif // DSM_CORE_SPATIAL_STEPMEMORY_H
