//===- MappingDriver.h - The strategies of one mapping run ------*- C++ -*-===//
//
// Internal to lib/Spatial: SpatialMapper::map runs one MappingDriver over
// one network. The driver tries the mapper's strategies in one visible
// order (MappingDriver::run) -- a pipeline as the user named it; training
// with pipelines searched; the whole torus, once or as a weight-preloading
// sweep; blocks of the torus -- each solving MappingProblems
// (MappingSolver.h) and each trying to beat the Incumbent, the best plan so
// far. SpatialMapper.cpp holds the whole-torus strategies, PipelineSearch.cpp
// the pipelines.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_LIB_SPATIAL_MAPPINGDRIVER_H
#define DSM_LIB_SPATIAL_MAPPINGDRIVER_H

#include "MappingSolver.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <optional>

namespace dsm::core {

/// One mapping to solve: the layers on a cost model's chips, and what the
/// driver asks of the solver beyond the options (MappingProblem's setters).
struct MappingRequest {
  MappingRequest(const PerformanceModel &costModel, const LayerGraph &graph)
      : costModel(costModel), graph(graph) {}

  const PerformanceModel &costModel;
  const LayerGraph &graph;
  /// Explorations shared with the other mappings of a sweep.
  SweepMemo *memo = nullptr;
  /// MappingProblem::cyclesToBeat.
  double cyclesToBeat = kNoPlanYet;
  /// Per layer, the preloaded weight bytes per core at most (a preloading
  /// sweep's scenario; empty: none).
  llvm::ArrayRef<int64_t> preloadBudgets;
  /// MappingProblem::activationCopies (a pipeline stage's microbatches in
  /// flight).
  int64_t microbatchesInFlight = 1;
  /// MappingProblem::stepMicrobatches (a pipeline stage's microbatches).
  int64_t stepMicrobatches = 1;
  /// Instead of the mapper's options (a pipeline stage's).
  const MapperOptions *options = nullptr;
  /// MappingProblem::choosesSavers.
  bool choosesSavers = true;
};

/// The best plan so far -- the plan every later strategy must beat -- or,
/// while there is none, why.
class Incumbent {
public:
  Incumbent() = default;
  /// The first strategy's plan, or why it has none.
  explicit Incumbent(llvm::Expected<MappingPlan> first);
  Incumbent(const Incumbent &) = delete;
  Incumbent &operator=(const Incumbent &) = delete;
  ~Incumbent() { llvm::consumeError(std::move(whyNone)); }

  bool has() const { return best.has_value(); }
  const MappingPlan &plan() const { return *best; }
  MappingPlan &plan() { return *best; }
  bool fits() const { return best && best->fitsMemory(); }
  /// The cycles a plan must take fewer of to matter: the incumbent's where
  /// it fits (one that does not fit bounds nothing).
  double cyclesToBeat() const {
    return std::min(bound, fits() ? best->totals.cycles.total : kNoPlanYet);
  }
  /// Plans must also beat `cycles` (MapperOptions::cyclesToBeat).
  void boundBy(double cycles) { bound = cycles; }

  /// Takes `plan` if it is better: a plan that fits beats one that does
  /// not, then the fewer cycles.
  void offer(MappingPlan plan);
  /// Becomes `plan` whatever it is.
  void replace(MappingPlan plan);
  /// The whole torus with memory savers against a searched pipeline (the
  /// incumbent): the pipeline stays where it fits and `whole` is not a
  /// plan that fits at least as fast; otherwise `whole`, plan or error.
  void challengeWith(llvm::Expected<MappingPlan> whole);
  /// A pipeline cut short at `cycles` (the step its planned stages
  /// foretell), which no plan stands for.
  void noteCutShort(std::string name, double cycles);
  /// The plan, or why there is none; the plan with the strategies it beat.
  llvm::Expected<MappingPlan> take();

private:
  /// `plan` priced and not taken (or no longer the best).
  void reject(const MappingPlan &plan);

  std::optional<MappingPlan> best;
  llvm::Error whyNone = llvm::Error::success();
  std::vector<RejectedStrategy> rejected;
  double bound = kNoPlanYet;
};

/// One run of SpatialMapper::map over one network.
class MappingDriver {
public:
  MappingDriver(const PerformanceModel &model, const MapperOptions &options,
                const LayerGraph &graph, Executor &executor,
                ExplorationProgress &progress);

  /// The strategies, in order; the plan, or why there is none.
  llvm::Expected<MappingPlan> run();

private:
  struct StageCount;
  struct StepBounds;
  struct PlannedPipeline;

  llvm::Expected<MappingPlan> mapOnce(const MappingRequest &request) const;

  // The whole torus and its blocks (SpatialMapper.cpp).

  /// The plan on the chips of `costModel`'s torus: one mapping, or in
  /// inference with weight preloading, the sweep of DeepSpatialMatrix
  /// §III-B2.
  llvm::Expected<MappingPlan> mapOnTorus(const PerformanceModel &costModel,
                                         double cyclesToBeat) const;
  llvm::Expected<MappingPlan>
  mapWithPreloading(const PerformanceModel &costModel,
                    double cyclesToBeat) const;
  /// The plans on the candidate blocks (ChipBlocks.h) whose work alone
  /// would not take longer than the incumbent, offered to it; none where
  /// the incumbent does not fit (no block of fewer chips could hold it).
  /// Fails only when the mapping is stopped.
  llvm::Error mapOnBlocks(Incumbent &incumbent) const;
  /// Whether a plan on `blockModel`'s torus could fit its chips' memory
  /// and take fewer than `cycles`.
  bool canBeat(const PerformanceModel &blockModel, double cycles) const;

  // Pipelines (PipelineSearch.cpp).

  /// Training with pipelines searched: the fastest plan over the whole
  /// torus; where it needs memory savers, the pipelines and the whole torus
  /// with savers, the one found first the plan for the other to beat (the
  /// whole torus first where the network repeats its layers); then the
  /// blocks.
  llvm::Expected<MappingPlan> mapWithPipelines();
  /// The pipeline the user named (MapperOptions::givenPipeline), whatever
  /// the plans over the whole torus, which are not mapped.
  llvm::Expected<MappingPlan> mapGivenPipeline();
  /// The pipelines of the layers over blocks of torus rows that could beat
  /// the incumbent, best bound first, each offered to it. `explored`: the
  /// bounds explore the layers at each microbatch size (leastSteps). Fails
  /// only when the mapping is stopped.
  llvm::Error searchPipelines(Incumbent &incumbent, bool explored);
  /// Bounds `count`'s pipelines (leastSteps), cutting its stages where the
  /// bounds explored the layers.
  llvm::Expected<std::vector<double>> boundStageCount(StageCount &count,
                                                      double idealCycles,
                                                      bool explored,
                                                      double cyclesToBeat);
  llvm::Expected<StepBounds> leastSteps(StageCount &count, double idealCycles,
                                        bool explored, double cyclesToBeat);
  /// The first layer of each of `count`'s stages, balanced on the layers'
  /// cycles from one mapping at the fewest of its microbatch counts at
  /// which every layer has a legal mapping. Empty when none maps.
  llvm::Expected<std::vector<int>> profileStages(StageCount &count) const;
  /// One pipeline: `count`'s stages at its `k`th microbatch count.
  llvm::Expected<PlannedPipeline> planPipeline(StageCount &count, size_t k,
                                               double cyclesToBeat,
                                               SearchEffort &effort) const;
  /// The network's MACs over every pass at the torus's peak: the step of
  /// every chip busy on the work alone.
  double idealCycles() const;

  /// Whether the network repeats its layers so that a mapping of it costs
  /// far more than its explorations (`plan`'s, at least 4 layers to a fresh
  /// one: the transformer family has 13-40, the zoo's LLMs 0.5-1.4), its
  /// pipelines' stage mappings most of all.
  bool repeatsItsLayers(const MappingPlan &plan) const {
    return graph.layers.size() >= 4 * std::max<uint64_t>(plan.explorations, 1);
  }

  const PerformanceModel &model;
  const MapperOptions &options;
  /// A pipeline stage's options: no pipe groups inside it (its rows are
  /// the group's).
  MapperOptions stageOptions;
  const LayerGraph &graph;
  Executor &executor;
  ExplorationProgress &progress;
};

} // namespace dsm::core

#endif // DSM_LIB_SPATIAL_MAPPINGDRIVER_H
