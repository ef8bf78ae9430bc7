//===- PlanBounds.cpp - What no plan of a problem can beat ----------------===//

#include "dsm/Core/Spatial/PlanBounds.h"

#include "llvm/ADT/StringMap.h"

#include <algorithm>
#include <limits>

using namespace dsm::core;

static constexpr double kInfinity = std::numeric_limits<double>::infinity();

/// Per layer, at most the cycles of each pass under every option: its
/// compute (infinity when no option can split it). Layers of equal shape
/// have equal bounds: one per (shape, pass).
static std::vector<std::array<double, kNumPasses>>
computeBounds(const MappingProblem &problem) {
  const MapperOptions &options = problem.options();
  DesignSpaceExplorer explorer(problem.model(), options.search,
                               options.reuseWeightsAcrossSteps);
  llvm::StringMap<std::array<double, kNumPasses>> byShape;
  std::vector<std::array<double, kNumPasses>> bounds(problem.numLayers());
  for (size_t i = 0; i < problem.numLayers(); ++i) {
    const LayerNode &layer = problem.layer(int(i));
    std::array<double, kNumPasses> unknown;
    unknown.fill(-1);
    std::array<double, kNumPasses> &bound =
        byShape.try_emplace(layerShapeKey(layer.shape), unknown).first->second;
    const bool runs[kNumPasses] = {layer.fwd, layer.bwd, layer.upd};
    for (int pass = 0; pass < kNumPasses; ++pass) {
      if (!runs[pass]) {
        bounds[i][pass] = 0;
        continue;
      }
      if (bound[pass] < 0) {
        bound[pass] = kInfinity;
        for (int o = 0; o < problem.numOptions(); ++o) {
          if (!problem.usable(int(i), o))
            continue;
          MemoryDecision memory;
          memory.spatialMinibatches = problem.factorOf(o);
          bound[pass] =
              std::min(bound[pass],
                       explorer.computeBound(layer.shape, TrainingPass(pass),
                                             problem.parallelismOf(o), memory));
        }
      }
      bounds[i][pass] = bound[pass];
    }
  }
  return bounds;
}

double dsm::core::planCyclesLowerBound(const MappingProblem &problem) {
  const MapperOptions &options = problem.options();
  const PerformanceModel &model = problem.model();
  const std::vector<std::array<double, kNumPasses>> compute =
      computeBounds(problem);
  const double chips = double(model.numChips());
  // A memory bus without bandwidth: the compute alone.
  const bool trafficCounts = model.linkCycles(1, Link::MemoryBus) < kInfinity;
  double computeTotal = 0, withTraffic = 0, weightBytesPerChip = 0;
  for (size_t i = 0; i < problem.numLayers(); ++i) {
    const LayerNode &layer = problem.layer(int(i));
    if (options.pipelineTimesteps && layer.shape.timesteps > 1)
      continue;
    const std::array<double, kNumPasses> &bound = compute[i];
    computeTotal += bound[0] + bound[1] + bound[2];
    double fwd = bound[int(TrainingPass::FWD)];
    if (trafficCounts && layer.fwd) {
      // A network input has no producer to leave it on chip; a network
      // output, or one nobody reads, is written (OutputElision).
      const bool inputFromMemory =
          llvm::none_of(problem.incoming(int(i)),
                        [&](int e) { return problem.edge(e).primaryInput; });
      const bool outputToMemory =
          layer.networkOutput || problem.outgoing(int(i)).empty();
      const ForwardTraffic traffic = model.leastForwardTraffic(
          layer.shape, inputFromMemory, outputToMemory);
      weightBytesPerChip += traffic.weightBytes / chips;
      // The memory streams are part of the pass's cycles (TotCy >= Ovldt),
      // over the chips' buses at once.
      fwd = std::max(
          fwd,
          model.linkCycles((traffic.weightBytes + traffic.otherBytes) / chips,
                           Link::MemoryBus));
    }
    withTraffic +=
        fwd + bound[int(TrainingPass::BWD)] + bound[int(TrainingPass::UPD)];
  }
  if (!trafficCounts)
    return computeTotal;
  // Preloaded weights are not fetched: a chip's cores hold at most a
  // scratchpad each of them, whichever layers they belong to. Since
  // max(c, t - s) >= max(c, t) - s, the saving comes off the sum.
  if (options.preloadWeights && problem.inferenceOnly()) {
    const MultiChipSystem &system = model.getSystem();
    const double preloadable =
        double(system.chip.cores) * system.chip.core.scratchpad.capacityBytes;
    withTraffic -= model.linkCycles(std::min(weightBytesPerChip, preloadable),
                                    Link::MemoryBus);
  }
  return std::max(computeTotal, withTraffic);
}
