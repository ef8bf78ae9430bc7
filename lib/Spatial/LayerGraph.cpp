//===- LayerGraph.cpp - The layers a spatial mapping plans ----------------===//

#include "dsm/Core/Spatial/LayerGraph.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>

using namespace dsm::core;

void LayerGraph::assignTrainingPasses(bool training) {
  std::vector<bool> needsError(layers.size(), false);
  std::vector<std::vector<int>> producers(layers.size());
  for (const LayerEdge &edge : edges)
    producers[edge.consumer].push_back(edge.producer);
  for (size_t i = 0; i < layers.size(); ++i) {
    LayerNode &layer = layers[i];
    layer.fwd = true;
    layer.upd = training && layer.shape.params > 0;
    layer.bwd = false;
    if (training)
      for (int p : producers[i])
        layer.bwd |= needsError[p];
    needsError[i] = layer.upd || layer.bwd;
  }
  for (LayerEdge &edge : edges)
    edge.carriesError = training && needsError[edge.producer];
}

llvm::Error LayerGraph::check() const {
  for (const LayerEdge &edge : edges)
    if (edge.producer < 0 || edge.consumer <= edge.producer ||
        size_t(edge.consumer) >= layers.size())
      return llvm::createStringError(
          "layer graph edges must go forward between existing layers");
  return llvm::Error::success();
}

std::vector<LiveRange> LayerGraph::activationLiveRanges() const {
  const int n = int(layers.size());
  // Per producer: the last forward reader and the earliest consumer that
  // reads it again in its backward passes.
  std::vector<int> lastForward(n, -1), firstBackward(n, n);
  for (const LayerEdge &edge : edges) {
    lastForward[edge.producer] =
        std::max(lastForward[edge.producer], edge.consumer);
    const LayerNode &consumer = layers[edge.consumer];
    if (consumer.bwd || consumer.upd)
      firstBackward[edge.producer] =
          std::min(firstBackward[edge.producer], edge.consumer);
  }
  std::vector<LiveRange> ranges;
  for (int p = 0; p < n; ++p) {
    if (lastForward[p] < 0)
      continue;
    LiveRange range;
    range.producer = p;
    range.firstStep = forwardStep(p);
    range.lastStep = firstBackward[p] < n ? backwardStep(firstBackward[p])
                                          : forwardStep(lastForward[p]);
    ranges.push_back(range);
  }
  return ranges;
}

std::vector<double> LayerGraph::heldParameters() const {
  std::vector<double> held(layers.size());
  for (size_t i = 0; i < layers.size(); ++i)
    held[i] = std::max(layers[i].shape.params, 0.0);
  for (const SharedParameters &shared : sharedParameters)
    held[shared.reader] = std::max(held[shared.reader] - shared.elements, 0.0);
  return held;
}

bool LayerGraph::tellsSavedActivations() const {
  return llvm::any_of(layers, [](const LayerNode &layer) {
    return !layer.shape.saved.empty();
  });
}

llvm::StringRef dsm::core::blockPathOf(llvm::StringRef name) {
  size_t begin = 0;
  while (begin < name.size()) {
    size_t end = std::min(name.find('.', begin), name.size());
    llvm::StringRef part = name.slice(begin, end);
    if (!part.empty() && llvm::all_of(part, llvm::isDigit))
      return name.take_front(end);
    begin = end + 1;
  }
  return "";
}

std::vector<int> LayerGraph::blockStarts() const {
  std::vector<int> starts = {0};
  llvm::StringRef current;
  for (size_t i = 0; i < layers.size(); ++i) {
    llvm::StringRef block = blockPathOf(layers[i].shape.name);
    if (block.empty() || block == current)
      continue;
    if (!current.empty())
      starts.push_back(int(i));
    current = block;
  }
  return starts;
}
