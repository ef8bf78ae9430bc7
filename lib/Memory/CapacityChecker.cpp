//===- CapacityChecker.cpp - Does a memory map fit? -----------------------===//

#include "dsm/Core/Memory/CapacityChecker.h"
#include "dsm/Core/Support/NodeError.h"

#include <cmath>

using namespace dsm::core;
using namespace dsm::core::memory;

/// Capacities come as doubles from the system file; anything past 2^62 bytes
/// is "unbounded" for our sums, which the graph keeps below 2^63.
static int64_t toBytes(double capacity) {
  constexpr double kLimit = 4611686018427387904.0; // 2^62
  if (!(capacity > 0))
    return 0;
  return capacity >= kLimit ? int64_t(kLimit) : int64_t(std::floor(capacity));
}

llvm::Expected<CapacityChecker>
CapacityChecker::create(const MemoryGraph &graph,
                        const MemoryHierarchySystem &system) {
  CapacityChecker checker(graph);
  double sram = double(system.engines) * system.sram.capacityBytes;
  checker.capacity[int(MemoryLevel::DRAM)] = toBytes(system.dram.capacityBytes);
  checker.capacity[int(MemoryLevel::LLC)] = toBytes(system.llc.capacityBytes);
  checker.capacity[int(MemoryLevel::SRAM)] = toBytes(sram);
  checker.tensorLimit = checker.capacity;
  checker.tensorLimit[int(MemoryLevel::SRAM)] =
      toBytes(system.sram.capacityBytes);
  for (MemoryLevel level : kMemoryLevels)
    if (checker.capacity[int(level)] <= 0)
      return llvm::createStringError(
          llvm::Twine("the system's ") + stringifyMemoryLevel(level) +
          " has no capacity; every level must hold at least one byte");

  int64_t dram = checker.capacity[int(MemoryLevel::DRAM)];
  for (size_t i = 0; i < graph.size(); ++i) {
    const MemoryNode &node = graph.getNode(i);
    for (auto [what, bytes] : {std::pair{"weights", node.weightBytes},
                               std::pair{"output", node.outputBytes}})
      if (bytes > dram)
        return makeNodeError(int64_t(i), "the ", what, " of '", node.name,
                             "' (", bytes, " bytes) do not fit in DRAM (", dram,
                             " bytes)");
  }
  // Every map keeps at most the all-DRAM map's bytes in DRAM: if that fits,
  // DRAM never overflows and rectification always succeeds.
  CapacityVerdict allDram =
      checker.check(makeUniformMap(graph.size(), MemoryLevel::DRAM));
  if (!allDram.valid)
    return makeNodeError(allDram.step, "the model needs ", allDram.usedBytes,
                         " bytes of DRAM while '",
                         graph.getNode(allDram.step).name,
                         "' runs, more than "
                         "the ",
                         allDram.capacityBytes, " it has");
  return checker;
}

CapacityVerdict CapacityChecker::check(const MemoryMap &map) const {
  CapacityVerdict verdict;
  size_t count = graph->size();
  std::array<int64_t, kNumMemoryLevels> weights{};
  // Activation bytes entering (+) and leaving (-) each level at each step.
  std::vector<std::array<int64_t, kNumMemoryLevels>> delta(count + 1);
  auto tooLarge = [&](size_t node, MemoryLevel level, int64_t bytes,
                      int64_t step) {
    if (bytes <= tensorLimit[int(level)] || !verdict.valid)
      return;
    verdict.valid = false;
    verdict.step = step;
    verdict.tensorNode = int64_t(node);
    verdict.level = level;
    verdict.usedBytes = bytes;
    verdict.capacityBytes = tensorLimit[int(level)];
  };
  for (size_t i = 0; i < count; ++i) {
    const MemoryNode &node = graph->getNode(i);
    weights[int(map[i].weights)] += node.weightBytes;
    LiveRange range = graph->getActivationRange(i);
    tooLarge(i, map[i].weights, node.weightBytes, 0);
    tooLarge(i, map[i].activations, node.outputBytes, range.first);
    delta[range.first][int(map[i].activations)] += node.outputBytes;
    delta[range.last + 1][int(map[i].activations)] -= node.outputBytes;
  }
  std::array<int64_t, kNumMemoryLevels> live{};
  for (size_t step = 0; step < count; ++step) {
    for (int level = 0; level < kNumMemoryLevels; ++level) {
      live[level] += delta[step][level];
      int64_t used = weights[level] + live[level];
      verdict.peakBytes[level] = std::max(verdict.peakBytes[level], used);
      if (used > capacity[level] && verdict.valid) {
        verdict.valid = false;
        verdict.step = int64_t(step);
        verdict.level = MemoryLevel(level);
        verdict.usedBytes = used;
        verdict.capacityBytes = capacity[level];
      }
    }
  }
  // Weights are live even in a graph without steps.
  for (int level = 0; level < kNumMemoryLevels; ++level)
    verdict.peakBytes[level] =
        std::max(verdict.peakBytes[level], weights[level]);
  return verdict;
}

bool CapacityChecker::isValid(const MemoryMap &map) const {
  return check(map).valid;
}
