//===- SpatialMapper.h - Mapping a whole network onto the system -*- C++
//-*-===//
//
// Maps every layer and pass of a network (000 §II): explores each (layer,
// pass, parallelism) with the DesignSpaceExplorer -- memoized by layer shape,
// spread over a thread pool -- then chooses one parallelism per layer jointly
// over the graph, since switching parallelism between a producer and its
// consumer costs a relayout of the activations (and, in training, of the
// errors flowing back). The choice is an exact dynamic program over the layers
// in order whose state is the parallelism of every layer whose output is
// still to be read (residual shortcuts, attention memories), or, where those
// states are too many (nested skips), variable elimination
// (ParallelismSelection.h); see docs/performance-model.md.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SPATIAL_SPATIALMAPPER_H
#define DSM_CORE_SPATIAL_SPATIALMAPPER_H

#include "dsm/Core/Spatial/DesignSpaceExplorer.h"
#include "dsm/Core/Spatial/TimestepPipelining.h"
#include "dsm/Core/Support/Executor.h"
#include "dsm/Core/Support/Progress.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <vector>

namespace dsm::core {

/// A layer to map and the passes it runs.
struct LayerNode {
  LayerShape shape;
  bool fwd = true;
  bool bwd = false;
  bool upd = false;
  /// A result of the network (returned): always written to external memory.
  bool networkOutput = false;
};

/// An activation flowing from one layer to another.
struct LayerEdge {
  int producer = 0;
  int consumer = 0;
  double elements = 0; ///< the whole tensor (all samples)
  /// Training: the consumer's BWD sends the error of this tensor back, and
  /// it is re-laid out too when the parallelisms differ.
  bool carriesError = false;
  /// The consumer's primary input (not a shortcut read by auxiliary work).
  bool primaryInput = false;
};

/// Layers in a topological order (every edge goes forward).
struct LayerGraph {
  std::vector<LayerNode> layers;
  std::vector<LayerEdge> edges;

  /// Decides the passes: FWD always; in training, UPD for layers with
  /// parameters and BWD for layers whose inputs need an error (some producer
  /// runs BWD or UPD). Also sets the edges' carriesError.
  void assignTrainingPasses(bool training);
};

struct PassPlan {
  TrainingPass pass = TrainingPass::FWD;
  Evaluation eval;
  /// Relayout of this layer's inputs (FWD) or of the errors it sends back
  /// (BWD) when its producers use another parallelism.
  TransferGroup relayout;
  /// eval.cycles plus the relayout (non-overlapped).
  CycleBreakdown cycles;
};

struct LayerPlan {
  Parallelism parallelism = Parallelism::Data;
  std::vector<PassPlan> passes;
  /// The layer's cycles (all passes, relayouts aside) under each
  /// parallelism; infinity where it has no legal mapping or the torus lacks
  /// that parallelism. The choice weighs these against the relayouts.
  std::array<double, kNumParallelisms> alternatives;
};

struct MappingTotals {
  CycleBreakdown cycles;
  double seconds = 0;
  double macs = 0;
  double utilization = 0;
};

/// A candidate pipe group (000 §III-D) and the mapper's verdict on it.
struct PipeGroupRecord {
  std::vector<int> layers; ///< stage order
  /// Whether the plan pipelines it: when the network is faster so, the
  /// other layers' parallelisms chosen around it.
  bool adopted = false;
  /// Torus rows per stage (empty when no block of rows could hold a stage).
  std::vector<int64_t> rows;
  PipelineTiming forward, backward;
  double update = 0;
  double cycles = 0; ///< all passes, wall clock (infinity: impossible)
  /// The same layers on the whole torus, one after another, with the
  /// relayouts (or reuse) on the edges that touch them.
  double cyclesUnpipelined = 0;
};

struct MappingPlan {
  std::vector<LayerPlan> layers;
  /// Every candidate pipe group, adopted or not (pipelining enabled only).
  std::vector<PipeGroupRecord> pipeGroups;
  MappingTotals totals;
  uint64_t configurationsEvaluated = 0;
  uint64_t explorations = 0; ///< (shape, pass, parallelism) searches run
  uint64_t memoizedExplorations = 0; ///< served from the memo instead
  /// False when the graph-level selection had to drop states (a layer
  /// graph too dense for exact selection, docs/scaling.md): the
  /// parallelisms are then the best of those kept, not proven optimal.
  bool selectionExact = true;
  /// When not exact: the states the selection kept per layer (the bound).
  size_t selectionStatesKept = 0;
  /// Weight preloading (inference): scratchpad bytes per core the plan
  /// reserves for preloaded weights (0: none).
  int64_t preloadReservedBytes = 0;
};

struct MapperOptions {
  SearchMode search = SearchMode::Heuristic;
  /// The parallelisms layers may use (those the torus offers among them);
  /// empty means all. One entry forces it on every layer; {Data, Model} is
  /// the symmetric-torus baseline of 000 Fig. 11.
  std::vector<Parallelism> parallelisms;
  /// Kernel/weight reuse across LSTM timesteps (000 §III-B2), decided per
  /// layer and pass by the explorer (MappingConfig::memory).
  bool reuseWeightsAcrossSteps = false;
  /// Activation reuse (000 §III-B1): a layer whose only consumer comes next
  /// and uses the same parallelism leaves its output in the scratchpads, and
  /// the consumer's FWD does not read it from external memory. Chosen
  /// jointly with the parallelisms (the saving is an edge term of the
  /// selection) and recorded as MemoryDecision::inputOnChip.
  bool reuseActivations = false;
  /// Dynamic spatial minibatching (000 §III-C): a layer may run its chips'
  /// minibatch shares as 2, 4 or 8 spatial minibatches, chosen jointly with
  /// the parallelisms (reuse between two layers needs the same factor) and
  /// recorded as MemoryDecision::spatialMinibatches.
  bool spatialMinibatching = false;
  /// Weight preloading for inference (000 §III-B2): part of every core's
  /// scratchpad holds weights from before the job, the layers most
  /// sensitive to fetching weights first; the reservation is swept and the
  /// best plan kept (MemoryDecision::preloadedWeightBytes). No effect in
  /// training, whose weights change every step.
  bool preloadWeights = false;
  /// Timestep pipelining (000 §III-D): runs of unidirectional LSTM layers
  /// become pipe groups on blocks of torus rows when the network is faster
  /// so than with them one after another on the whole torus. Chosen with
  /// the other layers' parallelisms: every set of candidate groups (up to
  /// eight; beyond, one group at a time) is priced with the selection of
  /// the rest (MemoryDecision::pipeGroup).
  bool pipelineTimesteps = false;
  /// Told of every (layer, pass, parallelism) exploration done, in steps of
  /// those planned, and asked before each whether to stop; stopped, map()
  /// fails with an InterruptedError (a partial plan is no plan).
  Progress *progress = &Progress::none();
};

/// The cost of `pass` of `shape` under `config` as the mapper records it
/// (PassPlan::eval): the model's evaluation and, for the BWD of an
/// activation x activation product, the half that computes the second
/// operand's error. nullopt (with `whyNot`) when the configuration is illegal.
std::optional<Evaluation> evaluateMappedPass(const PerformanceModel &model,
                                             const LayerShape &shape,
                                             TrainingPass pass,
                                             const MappingConfig &config,
                                             std::string *whyNot = nullptr);

class SpatialMapper {
public:
  SpatialMapper(const MultiChipSystem &system, MapperOptions options);

  const PerformanceModel &getModel() const { return model; }

  /// Maps `graph`, exploring layers in parallel on `executor` (the plan is
  /// the same for any executor). When some layer has no legal mapping under
  /// any parallelism, fails with a NodeError carrying that layer's index.
  llvm::Expected<MappingPlan> map(const LayerGraph &graph,
                                  Executor &executor) const;

private:
  /// Explorations done of those planned over one map() (ExplorationProgress
  /// in SpatialMapper.cpp).
  struct ExplorationProgress;

  /// One mapping with `costModel` (the system's, or one whose scratchpad
  /// is reduced by a preload reservation); `preloadBudgets`, when given,
  /// caps each layer's preloaded weight bytes per core.
  llvm::Expected<MappingPlan>
  mapWithModel(const PerformanceModel &costModel, const LayerGraph &graph,
               Executor &executor, llvm::ArrayRef<int64_t> preloadBudgets,
               ExplorationProgress &progress) const;
  /// Inference with weight preloading: the sweep of 000 §III-B2.
  llvm::Expected<MappingPlan>
  mapWithPreloading(const LayerGraph &graph, Executor &executor,
                    ExplorationProgress &progress) const;

  PerformanceModel model;
  MapperOptions options;
};

} // namespace dsm::core

#endif // DSM_CORE_SPATIAL_SPATIALMAPPER_H
