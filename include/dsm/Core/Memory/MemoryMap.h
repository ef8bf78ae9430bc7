//===- MemoryMap.h - A memory level for every tensor ------------*- C++ -*-===//
//
// The action of Khadka et al. (EGRL), §3 "Actions": per node, the level of
// its weights and the level of its output activation.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_MEMORY_MEMORYMAP_H
#define DSM_CORE_MEMORY_MEMORYMAP_H

#include "dsm/Core/Memory/MemoryLevel.h"

#include <vector>

namespace dsm::core::memory {

/// The two decisions of one node.
struct NodePlacement {
  MemoryLevel weights = MemoryLevel::DRAM;
  MemoryLevel activations = MemoryLevel::DRAM;

  bool operator==(const NodePlacement &other) const {
    return weights == other.weights && activations == other.activations;
  }
  bool operator!=(const NodePlacement &other) const {
    return !(*this == other);
  }
};

/// One NodePlacement per node of a MemoryGraph, index for index.
using MemoryMap = std::vector<NodePlacement>;

/// Every tensor of `nodes` nodes at `level`.
inline MemoryMap makeUniformMap(size_t nodes, MemoryLevel level) {
  return MemoryMap(nodes, NodePlacement{level, level});
}

} // namespace dsm::core::memory

#endif // DSM_CORE_MEMORY_MEMORYMAP_H
