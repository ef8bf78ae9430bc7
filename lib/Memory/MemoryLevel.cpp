//===- MemoryLevel.cpp - The three levels of a memory hierarchy -----------===//

#include "dsm/Core/Memory/MemoryLevel.h"

#include "llvm/ADT/StringSwitch.h"

using namespace dsm::core;
using namespace dsm::core::memory;

llvm::StringRef memory::stringifyMemoryLevel(MemoryLevel level) {
  switch (level) {
  case MemoryLevel::DRAM:
    return "dram";
  case MemoryLevel::LLC:
    return "llc";
  case MemoryLevel::SRAM:
    return "sram";
  }
  return "";
}

std::optional<MemoryLevel> memory::symbolizeMemoryLevel(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<MemoryLevel>>(name)
      .Case("dram", MemoryLevel::DRAM)
      .Case("llc", MemoryLevel::LLC)
      .Case("sram", MemoryLevel::SRAM)
      .Default(std::nullopt);
}
