//===- StepMemory.cpp - What a chip's memory holds over a step ------------===//

#include "dsm/Core/Spatial/StepMemory.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

using namespace dsm::core;

llvm::StringRef dsm::core::stringifyOptimizer(Optimizer optimizer) {
  switch (optimizer) {
  case Optimizer::SGD:
    return "sgd";
  case Optimizer::Momentum:
    return "momentum";
  case Optimizer::Adam:
    return "adam";
  }
  return "adam";
}

std::optional<Optimizer> dsm::core::symbolizeOptimizer(llvm::StringRef name) {
  for (Optimizer o : {Optimizer::SGD, Optimizer::Momentum, Optimizer::Adam})
    if (stringifyOptimizer(o) == name)
      return o;
  return std::nullopt;
}

llvm::StringRef dsm::core::stringifyRecomputeChoice(RecomputeChoice choice) {
  switch (choice) {
  case RecomputeChoice::Auto:
    return "auto";
  case RecomputeChoice::None:
    return "none";
  case RecomputeChoice::Selective:
    return "selective";
  case RecomputeChoice::Full:
    return "full";
  }
  return "auto";
}

llvm::StringRef dsm::core::stringifyShardChoice(ShardChoice choice) {
  switch (choice) {
  case ShardChoice::Auto:
    return "auto";
  case ShardChoice::None:
    return "none";
  case ShardChoice::State:
    return "state";
  case ShardChoice::Optimizer:
    return "optimizer";
  case ShardChoice::Weights:
    return "weights";
  }
  return "auto";
}

llvm::StringRef dsm::core::stringifyOffloadChoice(OffloadChoice choice) {
  switch (choice) {
  case OffloadChoice::Auto:
    return "auto";
  case OffloadChoice::None:
    return "none";
  case OffloadChoice::State:
    return "state";
  }
  return "auto";
}

std::string SaverChoices::describeNamed() const {
  std::string named;
  if (recompute != RecomputeChoice::Auto)
    named = "recompute=" + stringifyRecomputeChoice(recompute).str();
  if (shard != ShardChoice::Auto)
    named += (named.empty() ? "" : " ") + std::string("shard=") +
             stringifyShardChoice(shard).str();
  if (offload != OffloadChoice::Auto)
    named += (named.empty() ? "" : " ") + std::string("offload=") +
             stringifyOffloadChoice(offload).str();
  return named;
}

double dsm::core::optimizerBytesPerParameter(Optimizer optimizer) {
  // A 32-bit master weight, and 32-bit moments: one for momentum, two for
  // Adam (ZeRO, Section 3.1).
  switch (optimizer) {
  case Optimizer::SGD:
    return 4;
  case Optimizer::Momentum:
    return 8;
  case Optimizer::Adam:
    return 12;
  }
  return 12;
}

std::string dsm::core::formatBytes(double bytes) {
  if (bytes >= 1e9)
    return llvm::formatv("{0:F2} GB", bytes / 1e9).str();
  if (bytes >= 1e6)
    return llvm::formatv("{0:F2} MB", bytes / 1e6).str();
  return llvm::formatv("{0:F0} B", bytes).str();
}

std::string dsm::core::describeMemory(const MemoryPerChip &m) {
  std::string text =
      formatBytes(m.total()) + " of " + formatBytes(m.capacity) + " (weights " +
      formatBytes(m.weights) + ", gradients " + formatBytes(m.gradients) +
      ", optimizer " + formatBytes(m.optimizer) + ", activations " +
      formatBytes(m.activations) + ", buffers " + formatBytes(m.buffers) + ")";
  if (m.offloaded > 0)
    text += "; optimizer state on the host " + formatBytes(m.offloaded) +
            " of " + formatBytes(m.hostCapacity);
  return text;
}

double dsm::core::LiveBytes::peak() const {
  // The bytes are whole (element counts times element sizes), so the sums
  // are exact in any order.
  double live = 0, peak = 0;
  for (double c : change) {
    live += c;
    peak = std::max(peak, live);
  }
  return peak;
}

double dsm::core::peakLiveBytes(llvm::ArrayRef<LiveTensor> tensors) {
  // Steps are small integers (a graph's FWD and BWD steps): counted per
  // step. Where they are not, the events are sorted, ends after starts at
  // the same step.
  int latest = 0;
  bool counted = true;
  for (const LiveTensor &t : tensors) {
    counted = counted && t.first >= 0 && t.last >= 0;
    latest = std::max({latest, t.first, t.last});
  }
  if (counted && size_t(latest) <= 4 * tensors.size() + 32) {
    LiveBytes live(latest);
    for (const LiveTensor &t : tensors)
      live.add(t);
    return live.peak();
  }
  using Event = std::pair<int, double>;
  std::vector<Event> events;
  events.reserve(2 * tensors.size());
  for (const LiveTensor &t : tensors) {
    events.push_back({2 * t.first, t.bytes});
    events.push_back({2 * t.last + 1, -t.bytes});
  }
  llvm::sort(events, [](const Event &a, const Event &b) {
    return a.first < b.first || (a.first == b.first && a.second > b.second);
  });
  double live = 0, peak = 0;
  for (const auto &[when, bytes] : events) {
    live += bytes;
    peak = std::max(peak, live);
  }
  return peak;
}

HeldParameters
dsm::core::fullestRowParameters(llvm::ArrayRef<PlacedParameters> layers,
                                double weightBytes, double gradientBytes,
                                double optimizerBytes) {
  auto add = [](HeldParameters &to, const HeldParameters &held, double sign) {
    to.weights += sign * held.weights;
    to.state += sign * held.state;
    to.optimizer += sign * held.optimizer;
  };
  HeldParameters everyRow;
  // Per row where stages start or end: what they add from there on.
  std::map<int64_t, HeldParameters> changeAt;
  for (const PlacedParameters &layer : layers) {
    if (layer.rows <= 0) {
      add(everyRow, layer.held, 1);
      continue;
    }
    add(changeAt[layer.firstRow], layer.held, 1);
    add(changeAt[layer.firstRow + layer.rows], layer.held, -1);
  }
  auto bytes = [&](const HeldParameters &held) {
    return held.weights * weightBytes + held.state * gradientBytes +
           held.optimizer * optimizerBytes;
  };
  HeldParameters fullest = everyRow, row = everyRow;
  for (const auto &[first, change] : changeAt) {
    add(row, change, 1);
    if (bytes(row) > bytes(fullest))
      fullest = row;
  }
  return fullest;
}

MemoryPerChip dsm::core::memoryPerChip(llvm::ArrayRef<double> weightElements,
                                       llvm::ArrayRef<double> stateElements,
                                       llvm::ArrayRef<LiveTensor> tensors,
                                       double elementBytes, bool training,
                                       Optimizer optimizer, double capacity) {
  MemoryPerChip memory;
  double elements = 0, state = 0;
  for (double e : weightElements)
    elements += e;
  for (double e : stateElements)
    state += e;
  memory.weights = elements * elementBytes;
  if (training) {
    memory.gradients = state * elementBytes;
    memory.optimizer = state * optimizerBytesPerParameter(optimizer);
  }
  memory.activations = peakLiveBytes(tensors);
  memory.capacity = capacity;
  return memory;
}

std::vector<LiveTensor>
dsm::core::activationLiveTensors(llvm::ArrayRef<ActivationUse> uses) {
  std::vector<LiveTensor> tensors;
  tensors.reserve(uses.size());
  addActivationLiveTensors(
      uses, [&](size_t a) { return uses[a].recomputed; },
      [&](const LiveTensor &t) { tensors.push_back(t); });
  return tensors;
}

void dsm::core::addActivationLiveTensors(
    llvm::ArrayRef<ActivationUse> uses,
    llvm::function_ref<bool(size_t)> recomputed,
    llvm::function_ref<void(const LiveTensor &)> live) {
  for (size_t i = 0; i < uses.size();) {
    const ActivationUse &use = uses[i];
    if (!recomputed(i) || use.firstBackward < 0) {
      int last = use.lastBackward >= 0 ? use.lastBackward : use.lastForward;
      live({use.bytes, use.produced, last});
      ++i;
      continue;
    }
    // A run of recomputed activations: recomputed together, before the
    // first backward step that reads one of them.
    size_t end = i;
    int recomputedAt = use.firstBackward;
    while (end < uses.size() && recomputed(end) &&
           uses[end].firstBackward >= 0) {
      recomputedAt = std::min(recomputedAt, uses[end].firstBackward);
      ++end;
    }
    for (; i < end; ++i) {
      live({uses[i].bytes, uses[i].produced, uses[i].lastForward});
      live({uses[i].bytes, recomputedAt, uses[i].lastBackward});
    }
  }
}

/// The share of one of `layer`'s tensors, in `operand`'s layout, that a chip
/// of the split `chipSplit` keeps.
static double chipShare(const LayerShape &layer, Operand operand,
                        const DimSizes &chipSplit, bool sequenceParallel) {
  double chips = 1;
  DimSizes share = layer.dims;
  for (int d = 0; d < kNumDims; ++d) {
    chips *= double(std::max<int64_t>(chipSplit[d], 1));
    share[d] =
        llvm::divideCeil(layer.dims[d], std::max<int64_t>(chipSplit[d], 1));
  }
  if (sequenceParallel)
    return 1.0 / chips;
  const double whole = operandElements(layer, operand, layer.dims);
  return whole > 0 ? operandElements(layer, operand, share) / whole : 1.0;
}

double dsm::core::savedBytesPerChip(const LayerShape &layer,
                                    const DimSizes &chipSplit,
                                    double elementBytes,
                                    ActivationKeeping keeping) {
  const SavedActivations &saved = layer.saved;
  if (saved.empty())
    return 0;
  auto share = [&](Operand operand) {
    return chipShare(layer, operand, chipSplit, keeping.sequenceParallel);
  };
  double outputs = saved.outputs * elementBytes + saved.masks;
  if (!keeping.recomputeAttention)
    outputs += saved.attention * elementBytes + saved.attentionMasks;
  return saved.inputs * elementBytes * share(Operand::Input) +
         saved.kernels * elementBytes * share(Operand::Kernel) +
         outputs * share(Operand::Output);
}

double dsm::core::checkpointBytesPerChip(const LayerShape &layer,
                                         const DimSizes &chipSplit,
                                         double elementBytes,
                                         bool sequenceParallel) {
  return elementBytes *
         (layer.saved.inputs *
              chipShare(layer, Operand::Input, chipSplit, sequenceParallel) +
          layer.saved.kernels *
              chipShare(layer, Operand::Kernel, chipSplit, sequenceParallel));
}
