//===- SpatialMapper.h - Mapping a network onto the system ------*- C++ -*-===//
//
// Maps every layer and pass of a network (DeepSpatialMatrix §II): explores
// each (layer, pass, parallelism) with the DesignSpaceExplorer -- memoized by
// layer shape, spread over a thread pool -- then chooses one parallelism per
// layer jointly over the graph, since switching parallelism between a
// producer and its consumer costs a relayout of the activations (and, in
// training, of the errors flowing back). The choice is an exact dynamic
// program over the layers in order whose state is the parallelism of every
// layer whose output is still to be read (residual shortcuts, attention
// memories), or, where those states are too many (nested skips), variable
// elimination (ParallelismSelection.h); see docs/performance-model.md.
//
// A mapping is a MappingProblem (MappingProblem.h) solved in stages, each
// memory optimization of §III an add-on of the solver (lib/Spatial/
// MappingSolver.h); weight preloading sweeps whole mappings (map()).
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SPATIAL_SPATIALMAPPER_H
#define DSM_CORE_SPATIAL_SPATIALMAPPER_H

#include "dsm/Core/Spatial/DesignSpaceExplorer.h"
#include "dsm/Core/Spatial/LayerGraph.h"
#include "dsm/Core/Spatial/MappingPlan.h"
#include "dsm/Core/Spatial/MappingProblem.h"
#include "dsm/Core/Spatial/PipelineParallelism.h"
#include "dsm/Core/Spatial/TimestepPipelining.h"
#include "dsm/Core/Support/Executor.h"
#include "dsm/Core/Support/Progress.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <limits>
#include <optional>
#include <vector>

namespace dsm::core {

struct SweepMemo;
struct SearchEffort;
struct LayerFitFigures;

class SpatialMapper {
public:
  static constexpr double kNoPlanYet = std::numeric_limits<double>::infinity();

  SpatialMapper(const MultiChipSystem &system, MapperOptions options);

  const PerformanceModel &getModel() const { return model; }

  /// Maps `graph`, exploring layers in parallel on `executor` (the plan is
  /// the same for any executor). When some layer has no legal mapping under
  /// any parallelism, fails with a NodeError carrying that layer's index.
  llvm::Expected<MappingPlan> map(const LayerGraph &graph,
                                  Executor &executor) const;

private:
  /// One mapping with `costModel` (the system's, or one whose scratchpad
  /// is reduced by a preload reservation); `preloadBudgets`, when given,
  /// caps each layer's preloaded weight bytes per core; `memo` shares
  /// explorations across the mappings of a sweep; `microbatchesInFlight`
  /// (MappingProblem::activationCopies) and `stageOptions` (instead of the
  /// mapper's) serve a pipeline's stages; `choosesSavers`:
  /// MappingProblem::choosesSavers.
  llvm::Expected<MappingPlan>
  mapOnce(const PerformanceModel &costModel, const LayerGraph &graph,
          Executor &executor, llvm::ArrayRef<int64_t> preloadBudgets,
          ExplorationProgress &progress, SweepMemo *memo = nullptr,
          double cyclesToBeat = kNoPlanYet, int64_t microbatchesInFlight = 1,
          const MapperOptions *stageOptions = nullptr,
          bool choosesSavers = true) const;
  /// Inference with weight preloading: the sweep of DeepSpatialMatrix
  /// §III-B2.
  llvm::Expected<MappingPlan>
  mapWithPreloading(const PerformanceModel &costModel, const LayerGraph &graph,
                    Executor &executor, ExplorationProgress &progress,
                    double cyclesToBeat) const;
  /// The plan on the chips of `costModel`'s torus: one mapping, or the
  /// preloading sweep.
  /// `cyclesToBeat`: MappingProblem::cyclesToBeat.
  llvm::Expected<MappingPlan>
  mapOnTorus(const PerformanceModel &costModel, const LayerGraph &graph,
             Executor &executor, ExplorationProgress &progress,
             double cyclesToBeat = kNoPlanYet) const;
  /// The fastest of `whole` (the plan on the whole torus, or why there is
  /// none) and the plans on the candidate blocks (ChipBlocks.h) whose work
  /// alone would not take longer than the best plan so far.
  llvm::Expected<MappingPlan> mapOnBlocks(llvm::Expected<MappingPlan> whole,
                                          const LayerGraph &graph,
                                          Executor &executor,
                                          ExplorationProgress &progress) const;

  /// Training with pipelines searched: the fastest plan over the whole
  /// torus; where it needs memory savers, the pipelines and the whole torus
  /// with savers, the one found first the plan for the other to beat (the
  /// whole torus first where the network repeats its layers); then the
  /// blocks.
  llvm::Expected<MappingPlan>
  mapWithPipelines(const LayerGraph &graph, Executor &executor,
                   ExplorationProgress &progress) const;

  /// The fastest of `unpipelined`, `fitting` (a plan that fits found
  /// beside it, the whole torus with memory savers: the pipelines must
  /// beat it from the first) and the pipelines of the layers over blocks of
  /// torus rows (PipelineParallelism.h) that fit, priced where the fastest
  /// plan over the torus needs memory savers or does not fit.
  llvm::Expected<MappingPlan>
  mapAsPipeline(llvm::Expected<MappingPlan> unpipelined,
                const LayerGraph &graph, Executor &executor,
                ExplorationProgress &progress,
                std::optional<MappingPlan> fitting = std::nullopt) const;

  /// The first layer of each of `stages` stages: the layers' cycles on a
  /// stage's chips (`stageModel`), without the memory they need, balanced
  /// from one mapping at the fewest of `counts` microbatches at which every
  /// layer has a legal mapping (a larger microbatch's working sets may fit
  /// no scratchpad). Empty when none maps.
  llvm::Expected<std::vector<int>>
  profileStages(const LayerGraph &graph, const PerformanceModel &stageModel,
                SweepMemo &memo, int64_t stages, llvm::ArrayRef<int64_t> counts,
                const MapperOptions &stageOptions, Executor &executor,
                ExplorationProgress &progress) const;
  /// One pipeline: `graph`'s layers cut at `firsts` into stages of `rows`
  /// torus rows each (`stageModel`), `microbatches` microbatches through
  /// it on `schedule`. None where a stage has no plan or does not fit, or
  /// where the stages planned, with the later ones at their
  /// `leastStageCycles` (per stage, a microbatch's passes; empty: none
  /// known), show that the step takes at least `cyclesToBeat` (the stages
  /// after them are not planned); a named pipeline fails instead, naming
  /// the stage. With `fitFigures` (the layers' at this microbatch size,
  /// leastStageCyclesThatFit), the stages' least that fit their chips'
  /// memory raise those bounds first, and a pipeline they show cannot beat
  /// `cyclesToBeat` is not mapped at all. `step`: the step planned, or, cut
  /// short, the step the stages planned foretell, the others as busy as
  /// they (0: neither).
  llvm::Expected<std::optional<MappingPlan>>
  planPipeline(const LayerGraph &graph, const PerformanceModel &stageModel,
               SweepMemo &memo, llvm::ArrayRef<int> firsts, int64_t rows,
               int64_t microbatches, PipelineSchedule schedule,
               llvm::ArrayRef<double> leastStageCycles,
               const LayerFitFigures *fitFigures,
               const MapperOptions &stageOptions, double cyclesToBeat,
               SearchEffort &effort, Executor &executor,
               ExplorationProgress &progress, double &step) const;

  /// Whether `graph` repeats its layers so that a mapping of it costs far
  /// more than its explorations (`plan`'s, at least 4 layers to a fresh
  /// one: the transformer family has 13-40, the zoo's LLMs 0.5-1.4), its
  /// pipelines' stage mappings most of all.
  static bool repeatsItsLayers(const LayerGraph &graph,
                               const MappingPlan &plan) {
    return graph.layers.size() >= 4 * std::max<uint64_t>(plan.explorations, 1);
  }

  /// Whether a plan on `blockModel`'s torus could fit its chips' memory
  /// and take fewer than `cycles` (mapOnBlocks skips the blocks where none
  /// could).
  bool canBeat(const PerformanceModel &blockModel, const LayerGraph &graph,
               double cycles) const;

  PerformanceModel model;
  MapperOptions options;
};

} // namespace dsm::core

#endif // DSM_CORE_SPATIAL_SPATIALMAPPER_H
