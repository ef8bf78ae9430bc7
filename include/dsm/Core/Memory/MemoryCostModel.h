//===- MemoryCostModel.h - Latency of a memory map --------------*- C++ -*-===//
//
// The latency of single-batch inference on a memory_hierarchy system for a
// given memory map (docs/memory-placement.md derives each term).
//
// Khadka et al. (EGRL), App. G: "NNP-I includes twelve inference compute
// engines (ICEs) each having a 4MB Deep SRAM. A 24MB shared memory cache (LLC)
// is accessible by all ICEs. [...] the DRAM is the slowest, while the LLC and
// Deep SRAM is 10x and 100x faster than the DRAM". A layer runs on all
// engines at once, so a tensor in SRAM is spread over the engines' SRAMs and
// streams at engines x the per-engine bandwidth. For node i with weights at
// level w and output at level a:
//
//   compute(i)  = (MACs(i) + auxOps(i)) / (engines * MACs/cycle * frequency)
//   transfer(i) = W(i)/B(w) + O(i)/B(a) + sum_{j in inputs(i)} O(j)/B(a_j)
//                 + X(i)/B(DRAM)
//   latency(i)  = max(compute(i), transfer(i))
//
// with W, O, X the weight, output and model-input bytes and B(level) the
// effective bandwidth. Compute overlaps completely with the transfers
// (double-buffered streaming); the transfers of one layer share the engines'
// load/store path and serialise. The schedule runs the layers one after the
// other in topological order, so the network latency is the sum.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_MEMORY_MEMORYCOSTMODEL_H
#define DSM_CORE_MEMORY_MEMORYCOSTMODEL_H

#include "dsm/Core/Memory/MemoryGraph.h"
#include "dsm/Core/Memory/MemoryMap.h"
#include "dsm/Core/System/SystemDescription.h"

#include <array>
#include <vector>

namespace dsm::core::memory {

/// The terms of one node's latency, in seconds.
struct NodeCost {
  double compute = 0;
  double weightRead = 0;
  double inputRead = 0; ///< activations of producers and model inputs
  double outputWrite = 0;
  double transfer() const { return weightRead + inputRead + outputWrite; }
  double latency() const { return std::max(compute, transfer()); }
};

class MemoryCostModel {
public:
  /// The most seconds a node may take to compute or to move one of its
  /// tensors: about 30 million years. Beyond it (infinite when a frequency
  /// or a bandwidth is denormal) is not a plan.
  static constexpr double kMaxNodeSeconds = 1e15;

  /// Fails when the system has no compute or a level without bandwidth, or
  /// (a NodeError on the node) when a node's time is beyond kMaxNodeSeconds.
  static llvm::Expected<MemoryCostModel>
  create(const MemoryGraph &graph, const MemoryHierarchySystem &system);

  /// Bytes per second at `level` (SRAM: all engines together).
  double getBandwidth(MemoryLevel level) const { return bandwidth[int(level)]; }

  NodeCost getNodeCost(const MemoryMap &map, size_t node) const;
  /// latency(node) without building the NodeCost (the searches' inner loop).
  double getNodeLatency(const MemoryMap &map, size_t node) const;
  /// Sum of the node latencies.
  double getNetworkLatency(const MemoryMap &map) const;

  const MemoryGraph &getGraph() const { return *graph; }

private:
  MemoryCostModel(const MemoryGraph &graph) : graph(&graph) {}

  const MemoryGraph *graph;
  std::array<double, kNumMemoryLevels> bandwidth{};
  /// Per node: compute time; seconds per level for its weights and output
  /// (an output costs as much to read as to write); model-input read time.
  std::vector<double> computeTime;
  std::vector<std::array<double, kNumMemoryLevels>> weightTime;
  std::vector<std::array<double, kNumMemoryLevels>> activationTime;
  std::vector<double> externalTime;
};

} // namespace dsm::core::memory

#endif // DSM_CORE_MEMORY_MEMORYCOSTMODEL_H
