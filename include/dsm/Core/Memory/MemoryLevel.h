//===- MemoryLevel.h - The three levels of a memory hierarchy ---*- C++ -*-===//
//
// Where a tensor lives on a memory_hierarchy system (Khadka et al.,
// "Optimizing Memory Placement using Evolutionary Graph Reinforcement
// Learning", App. G: NNP-I's DRAM, shared LLC and per-engine Deep SRAM),
// ordered from slowest to fastest so that "demote" means "minus one".
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_MEMORY_MEMORYLEVEL_H
#define DSM_CORE_MEMORY_MEMORYLEVEL_H

#include "llvm/ADT/StringRef.h"

#include <array>
#include <cstdint>
#include <optional>

namespace dsm::core::memory {

/// A memory level, slowest first.
enum class MemoryLevel : uint8_t { DRAM = 0, LLC = 1, SRAM = 2 };

constexpr int kNumMemoryLevels = 3;

/// Every level, slowest first.
constexpr std::array<MemoryLevel, kNumMemoryLevels> kMemoryLevels = {
    MemoryLevel::DRAM, MemoryLevel::LLC, MemoryLevel::SRAM};

/// "dram", "llc", "sram": the spelling of `#dsm.memory` and the reports.
llvm::StringRef stringifyMemoryLevel(MemoryLevel level);
std::optional<MemoryLevel> symbolizeMemoryLevel(llvm::StringRef name);

} // namespace dsm::core::memory

#endif // DSM_CORE_MEMORY_MEMORYLEVEL_H
