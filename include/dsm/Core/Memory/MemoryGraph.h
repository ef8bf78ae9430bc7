//===- MemoryGraph.h - Nodes whose tensors get a memory level ---*- C++ -*-===//
//
// The graph of Khadka et al. (EGRL), §3 "State": one node per operational
// layer, in a topological order that is also the execution schedule (one
// layer at a time on all engines, single-batch inference). Each node owns two
// mappable tensors, its weights and its output activation; its inputs are
// other nodes' output activations, or model inputs the host leaves in DRAM.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_MEMORY_MEMORYGRAPH_H
#define DSM_CORE_MEMORY_MEMORYGRAPH_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dsm::core::memory {

/// One operational layer.
struct MemoryNode {
  std::string name;
  /// Bytes of the weight tensor(s) the layer reads (0 when it has none).
  int64_t weightBytes = 0;
  /// Bytes of the output activation(s) the layer writes.
  int64_t outputBytes = 0;
  /// Bytes read from model inputs (not produced by any node; in DRAM).
  int64_t externalInputBytes = 0;
  /// Multiply-accumulates of its primary computation.
  int64_t macs = 0;
  /// Special-function operations (bias, activation, pooling, normalization).
  double auxOps = 0;
  /// Producers of the activations it reads: indices of earlier nodes.
  llvm::SmallVector<int32_t, 2> inputs;
  /// Its activation is a model result: it stays live to the end of the run.
  bool isModelOutput = false;
};

/// An activation's live range in schedule steps (node indices), inclusive.
struct LiveRange {
  int32_t first = 0;
  int32_t last = 0;
};

/// A validated graph: inputs point backwards, sizes are non-negative and
/// their total fits 64 bits, so later sums of bytes cannot overflow.
class MemoryGraph {
public:
  /// Checks `nodes` and computes liveness. Errors are NodeErrors naming the
  /// offending node.
  static llvm::Expected<MemoryGraph> create(std::vector<MemoryNode> nodes);

  size_t size() const { return nodes.size(); }
  const MemoryNode &getNode(size_t i) const { return nodes[i]; }
  llvm::ArrayRef<MemoryNode> getNodes() const { return nodes; }

  /// The live range of node `i`'s output activation: from its producer to
  /// its last consumer (to the last step for a model output).
  LiveRange getActivationRange(size_t i) const { return ranges[i]; }

  /// Sum of every tensor's bytes (weights and activations).
  int64_t getTotalBytes() const { return totalBytes; }

  /// Flattened inputs (CSR) for the cost model's inner loop.
  llvm::ArrayRef<int32_t> getInputsOf(size_t i) const {
    return llvm::ArrayRef<int32_t>(flatInputs)
        .slice(inputBegin[i], inputBegin[i + 1] - inputBegin[i]);
  }

private:
  std::vector<MemoryNode> nodes;
  std::vector<LiveRange> ranges;
  std::vector<int32_t> flatInputs;
  std::vector<uint32_t> inputBegin;
  int64_t totalBytes = 0;
};

} // namespace dsm::core::memory

#endif // DSM_CORE_MEMORY_MEMORYGRAPH_H
