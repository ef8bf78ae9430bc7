//===- Rectifier.h - Repairing a memory map that does not fit ---*- C++ -*-===//
//
// Khadka et al. (EGRL), §3: "If any of the mapping decisions cannot be
// executed on the hardware (i.e., invalid mapping), the compiler rectifies
// them and outputs a modified map [...] that is fully executable", and the
// reward of an invalid map is minus the re-assigned bytes ratio.
//
// The order, documented because the result depends on it: tensors are
// admitted first come, first served, like a linear-scan allocator walking the
// schedule -- node by node in topological order, each node's output
// activation before its weights (the activation is reused by its consumers,
// the weights are read once per inference). A tensor keeps its level if it
// fits there over its whole live range next to the tensors already admitted,
// else it is demoted one level at a time (SRAM -> LLC -> DRAM) until it fits.
// A valid map comes back unchanged.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_MEMORY_RECTIFIER_H
#define DSM_CORE_MEMORY_RECTIFIER_H

#include "dsm/Core/Memory/CapacityChecker.h"

namespace dsm::core::memory {

struct Rectification {
  MemoryMap map;
  /// Bytes of the tensors whose level changed.
  int64_t reassignedBytes = 0;
  /// reassignedBytes / the graph's total bytes (0 for a valid map).
  double reassignedRatio = 0;
};

class Rectifier {
public:
  explicit Rectifier(const CapacityChecker &checker) : checker(checker) {}

  /// The repaired map; always valid when the all-DRAM map is.
  Rectification rectify(const MemoryMap &map) const;

private:
  const CapacityChecker &checker;
};

} // namespace dsm::core::memory

#endif // DSM_CORE_MEMORY_RECTIFIER_H
