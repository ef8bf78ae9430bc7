//===- Rectifier.cpp - Repairing a memory map that does not fit -----------===//

#include "dsm/Core/Memory/Rectifier.h"

using namespace dsm::core;
using namespace dsm::core::memory;

Rectification Rectifier::rectify(const MemoryMap &map) const {
  const MemoryGraph &graph = checker.getGraph();
  size_t count = graph.size();
  Rectification result;
  result.map = map;
  if (checker.isValid(map))
    return result;

  // Bytes admitted so far at each level and step.
  std::array<std::vector<int64_t>, kNumMemoryLevels> used;
  for (auto &steps : used)
    steps.assign(count, 0);
  auto admit = [&](MemoryLevel wanted, LiveRange range, int64_t bytes) {
    MemoryLevel level = wanted;
    // DRAM always has room: CapacityChecker::create checked the all-DRAM map.
    while (level != MemoryLevel::DRAM) {
      int64_t capacity = checker.getCapacity(level);
      const std::vector<int64_t> &steps = used[int(level)];
      bool fits = bytes <= checker.getTensorLimit(level);
      for (int32_t t = range.first; t <= range.last && fits; ++t)
        fits = steps[t] + bytes <= capacity;
      if (fits)
        break;
      level = MemoryLevel(int(level) - 1);
    }
    for (int32_t t = range.first; t <= range.last; ++t)
      used[int(level)][t] += bytes;
    if (level != wanted)
      result.reassignedBytes += bytes;
    return level;
  };
  LiveRange wholeRun{0, int32_t(count) - 1};
  for (size_t i = 0; i < count; ++i) {
    const MemoryNode &node = graph.getNode(i);
    result.map[i].activations = admit(
        map[i].activations, graph.getActivationRange(i), node.outputBytes);
    result.map[i].weights = admit(map[i].weights, wholeRun, node.weightBytes);
  }
  if (graph.getTotalBytes() > 0)
    result.reassignedRatio =
        double(result.reassignedBytes) / double(graph.getTotalBytes());
  return result;
}
