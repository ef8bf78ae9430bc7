//===- MemoryGraph.cpp - Nodes whose tensors get a memory level -----------===//

#include "dsm/Core/Memory/MemoryGraph.h"
#include "dsm/Core/Support/NodeError.h"

#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace dsm::core;
using namespace dsm::core::memory;

llvm::Expected<MemoryGraph> MemoryGraph::create(std::vector<MemoryNode> nodes) {
  if (nodes.size() >= size_t(std::numeric_limits<int32_t>::max()))
    return llvm::createStringError(llvm::Twine("a graph of ") +
                                   llvm::Twine(nodes.size()) +
                                   " nodes is too large");
  MemoryGraph graph;
  int64_t total = 0;
  size_t count = nodes.size();
  graph.ranges.resize(count);
  graph.inputBegin.reserve(count + 1);
  for (size_t i = 0; i < count; ++i) {
    const MemoryNode &node = nodes[i];
    if (node.weightBytes < 0 || node.outputBytes < 0 ||
        node.externalInputBytes < 0 || node.macs < 0 ||
        !std::isfinite(node.auxOps) || node.auxOps < 0)
      return makeNodeError(int64_t(i), "'", node.name,
                           "' has a negative or non-finite size");
    // Checked once here, so every later sum of a subset of these bytes fits.
    for (int64_t bytes : {node.weightBytes, node.outputBytes})
      if (llvm::AddOverflow(total, bytes, total))
        return makeNodeError(int64_t(i), "'", node.name,
                             "' brings the model's bytes past 2^63");
    graph.ranges[i] = {int32_t(i),
                       node.isModelOutput ? int32_t(count - 1) : int32_t(i)};
    graph.inputBegin.push_back(uint32_t(graph.flatInputs.size()));
    for (int32_t input : node.inputs) {
      if (input < 0 || size_t(input) >= i)
        return makeNodeError(int64_t(i), "'", node.name, "' reads node ", input,
                             ", which does not run before it");
      graph.flatInputs.push_back(input);
      LiveRange &range = graph.ranges[input];
      range.last = std::max(range.last, int32_t(i));
    }
  }
  graph.inputBegin.push_back(uint32_t(graph.flatInputs.size()));
  graph.totalBytes = total;
  graph.nodes = std::move(nodes);
  return graph;
}
