//===- MemoryTestHelpers.h - Small systems and graphs for the tests -------===//

#ifndef DSM_UNITTESTS_MEMORY_MEMORYTESTHELPERS_H
#define DSM_UNITTESTS_MEMORY_MEMORYTESTHELPERS_H

#include "dsm/Core/Memory/MemoryGraph.h"
#include "dsm/Core/System/SystemDescription.h"

#include "gtest/gtest.h"

namespace dsm::core::memory::test {

/// One engine of 20 MACs/cycle at 1 Hz (20 ops/s); DRAM 1 B/s, LLC 10 B/s,
/// SRAM 100 B/s -- numbers easy to divide by. One engine, so that its SRAM
/// holds any tensor that fits the level (`engines` splits `sram` evenly:
/// the largest tensor SRAM takes is then one engine's share).
inline MemoryHierarchySystem makeTinySystem(double sram = 20, double llc = 30,
                                            double dram = 1000,
                                            int64_t engines = 1) {
  MemoryHierarchySystem system;
  system.engines = engines;
  system.macsPerCycle = 20 / engines;
  system.frequencyHz = 1;
  system.sram = {sram / double(engines), 100};
  system.llc = {llc, 10};
  system.dram = {dram, 1};
  return system;
}

inline MemoryNode makeNode(std::string name, int64_t weights, int64_t output,
                           int64_t macs, std::vector<int32_t> inputs = {},
                           int64_t external = 0) {
  MemoryNode node;
  node.name = std::move(name);
  node.weightBytes = weights;
  node.outputBytes = output;
  node.macs = macs;
  node.inputs.assign(inputs.begin(), inputs.end());
  node.externalInputBytes = external;
  return node;
}

inline MemoryGraph makeGraph(std::vector<MemoryNode> nodes) {
  auto graph = MemoryGraph::create(std::move(nodes));
  EXPECT_TRUE(bool(graph)) << llvm::toString(graph.takeError());
  return std::move(*graph);
}

} // namespace dsm::core::memory::test

#endif // DSM_UNITTESTS_MEMORY_MEMORYTESTHELPERS_H
