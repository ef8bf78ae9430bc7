//===- CapacityChecker.h - Does a memory map fit? ---------------*- C++ -*-===//
//
// "Valid" made precise: at every step of the schedule (one node per step),
// the bytes of the tensors live at each level must fit its capacity. Weights
// are live for the whole run (inference reuses them for every input);
// activations from their producer's step to their last consumer's. A tensor
// placed in SRAM lives in one engine's SRAM, "the specific target out of the
// 12 possible Deep SRAM locations (one for each ICE) is left to the further
// logic in the compiler" (App. G of Khadka et al.): so no tensor larger than
// one engine's SRAM fits there, and the level's capacity is the engines'
// SRAMs together, the compiler's further logic being trusted to pack the
// tensors that do fit. The LLC is shared, DRAM holds the rest.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_MEMORY_CAPACITYCHECKER_H
#define DSM_CORE_MEMORY_CAPACITYCHECKER_H

#include "dsm/Core/Memory/MemoryGraph.h"
#include "dsm/Core/Memory/MemoryMap.h"
#include "dsm/Core/System/SystemDescription.h"

#include <array>
#include <vector>

namespace dsm::core::memory {

/// The outcome of a check: valid, or the first tensor too large for its
/// level (in node order), else the first overflow in schedule order.
struct CapacityVerdict {
  bool valid = true;
  /// When invalid: the first step (node index) and level that overflow.
  /// When a single tensor is too large for its level (one engine's SRAM):
  /// `tensorNode` is its node, `usedBytes` its bytes, `capacityBytes` the
  /// limit, `step` the first step it is live.
  int64_t step = -1;
  int64_t tensorNode = -1;
  MemoryLevel level = MemoryLevel::DRAM;
  int64_t usedBytes = 0;
  int64_t capacityBytes = 0;
  /// Peak bytes live at each level over the run.
  std::array<int64_t, kNumMemoryLevels> peakBytes{};
};

class CapacityChecker {
public:
  /// Fails when a level has no capacity or a single tensor is larger than
  /// DRAM (a NodeError on its node): no map could run.
  static llvm::Expected<CapacityChecker>
  create(const MemoryGraph &graph, const MemoryHierarchySystem &system);

  int64_t getCapacity(MemoryLevel level) const { return capacity[int(level)]; }
  /// The largest tensor a level can hold: one engine's SRAM, the whole LLC
  /// or DRAM.
  int64_t getTensorLimit(MemoryLevel level) const {
    return tensorLimit[int(level)];
  }

  CapacityVerdict check(const MemoryMap &map) const;
  bool isValid(const MemoryMap &map) const;

  const MemoryGraph &getGraph() const { return *graph; }

private:
  CapacityChecker(const MemoryGraph &graph) : graph(&graph) {}

  const MemoryGraph *graph;
  std::array<int64_t, kNumMemoryLevels> capacity{}, tensorLimit{};
};

} // namespace dsm::core::memory

#endif // DSM_CORE_MEMORY_CAPACITYCHECKER_H
