//===- StepMemory.cpp - What a chip's memory holds over a step ------------===//

#include "dsm/Core/Spatial/StepMemory.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
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

double dsm::core::peakLiveBytes(llvm::ArrayRef<LiveTensor> tensors) {
  // Each tensor starts at `first` and ends after `last`: a sweep over the
  // events in step order, ends after starts at the same step, the larger
  // first among either. Steps are small integers (a graph's FWD and BWD
  // steps), so the events are bucketed by step -- a CapacityFit tries a
  // dozen recomputations of tens of thousands of layers -- and only a
  // bucket's own are sorted; where they are not, the whole list is.
  int latest = 0;
  bool bucketed = true;
  for (const LiveTensor &t : tensors) {
    bucketed = bucketed && t.first >= 0 && t.last >= 0;
    latest = std::max({latest, t.first, t.last});
  }
  const size_t numBuckets = 2 * size_t(latest) + 2;
  bucketed = bucketed && numBuckets <= 8 * tensors.size() + 64;
  using Event = std::pair<int, double>;
  std::vector<Event> events(2 * tensors.size());
  auto larger = [](const Event &a, const Event &b) {
    return a.second > b.second;
  };
  if (bucketed) {
    std::vector<uint32_t> start(numBuckets + 1, 0);
    for (const LiveTensor &t : tensors) {
      ++start[2 * size_t(t.first) + 1];
      ++start[2 * size_t(t.last) + 2];
    }
    for (size_t b = 0; b < numBuckets; ++b)
      start[b + 1] += start[b];
    std::vector<uint32_t> next(start.begin(), start.end() - 1);
    for (const LiveTensor &t : tensors) {
      events[next[2 * size_t(t.first)]++] = {2 * t.first, t.bytes};
      events[next[2 * size_t(t.last) + 1]++] = {2 * t.last + 1, -t.bytes};
    }
    for (size_t b = 0; b < numBuckets; ++b)
      if (start[b + 1] - start[b] > 1)
        std::sort(events.begin() + start[b], events.begin() + start[b + 1],
                  larger);
  } else {
    events.clear();
    for (const LiveTensor &t : tensors) {
      events.push_back({2 * t.first, t.bytes});
      events.push_back({2 * t.last + 1, -t.bytes});
    }
    llvm::sort(events, [&](const Event &a, const Event &b) {
      return a.first < b.first || (a.first == b.first && larger(a, b));
    });
  }
  double live = 0, peak = 0;
  for (const auto &[when, bytes] : events) {
    live += bytes;
    peak = std::max(peak, live);
  }
  return peak;
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
  for (size_t i = 0; i < uses.size();) {
    const ActivationUse &use = uses[i];
    if (!use.recomputed || use.firstBackward < 0) {
      int last = use.lastBackward >= 0 ? use.lastBackward : use.lastForward;
      tensors.push_back({use.bytes, use.produced, last});
      ++i;
      continue;
    }
    // A run of recomputed activations: recomputed together, before the
    // first backward step that reads one of them.
    size_t end = i;
    int recomputedAt = use.firstBackward;
    while (end < uses.size() && uses[end].recomputed &&
           uses[end].firstBackward >= 0) {
      recomputedAt = std::min(recomputedAt, uses[end].firstBackward);
      ++end;
    }
    for (; i < end; ++i) {
      tensors.push_back({uses[i].bytes, uses[i].produced, uses[i].lastForward});
      tensors.push_back({uses[i].bytes, recomputedAt, uses[i].lastBackward});
    }
  }
  return tensors;
}
