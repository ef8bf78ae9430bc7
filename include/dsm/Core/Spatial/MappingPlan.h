//===- MappingPlan.h - What the spatial mapper decides ----------*- C++ -*-===//
//
// A mapping plan: each layer's parallelism and its passes' configurations,
// evaluations and relayouts, the candidate pipe groups and their verdicts,
// the pipeline (when the network runs as one), the chips it runs on and the
// fullest chip's memory. The mapper (SpatialMapper.h) and its solver
// (lib/Spatial/MappingSolver.h) produce it; the passes write it to the IR,
// the report reads it. It knows nothing of how it was found.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SPATIAL_MAPPINGPLAN_H
#define DSM_CORE_SPATIAL_MAPPINGPLAN_H

#include "dsm/Core/Spatial/Mapping.h"
#include "dsm/Core/Spatial/PipelineParallelism.h"
#include "dsm/Core/Spatial/StepMemory.h"
#include "dsm/Core/Spatial/TimestepPipelining.h"

#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace dsm::core {

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

/// A candidate pipe group (DeepSpatialMatrix §III-D) and the mapper's verdict
/// on it.
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

/// A strategy the mapper priced for a plan and did not take (explain): a
/// pipeline, gradient accumulation, the whole torus with or without memory
/// savers, a block of it.
struct RejectedStrategy {
  std::string name; ///< describeStrategy's
  /// Its step; cut short (`complete` false), the step the stages it
  /// planned foretell.
  double cycles = 0;
  MemoryPerChip memory; ///< planned whole only
  bool complete = true;
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
  /// The chips the plan runs on (MapperOptions::chipBlocks): the whole torus
  /// or a block of it.
  ChipBlock block;
  /// The step's memory on the fullest chip as the selection counts it
  /// (CapacityFit: parameters with their gradients and optimizer state under
  /// the savers chosen, the peak of live activations), and the capacity.
  MemoryPerChip memory;
  bool fitsMemory() const { return memory.fits(); }
  /// What the fastest plan, as selected before any memory saver, needs.
  MemoryPerChip fastestMemory;
  /// Pipeline parallelism (MapperOptions::pipelineStages): the stages, the
  /// microbatches and the step's timing; `memory` is then the fullest
  /// stage's.
  PipelineRecord pipeline;
  /// The other strategies priced, fastest first.
  std::vector<RejectedStrategy> rejected;
};

class PerformanceModel;
struct LayerGraph;

/// Why `plan` is not a plan of `graph` on `model`'s system (success when it
/// is): every layer planned with the passes it runs, in order; each pass's
/// split covering the chips it runs on (its stage's rows, its block, or the
/// torus) and a chip's cores; each memory decision's values going together
/// (its record's rules, DecisionRecords.h); a pipeline's stages on rows of
/// their own with one microbatch count; the memory figure counted against
/// the system's chip. The driver checks every plan it returns
/// (SpatialMapper::map), as MLIR verifies what a pass built.
llvm::Error verifyPlan(const PerformanceModel &model, const LayerGraph &graph,
                       const MappingPlan &plan);

/// What strategy `plan` is, in words: "8 stages x 96 microbatches (1F1B)",
/// "gradient accumulation of 4 microbatches", "the whole torus", "a 4 x 8
/// block".
std::string describeStrategy(const MappingPlan &plan);

} // namespace dsm::core

#endif // DSM_CORE_SPATIAL_MAPPINGPLAN_H
