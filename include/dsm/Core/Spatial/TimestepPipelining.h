//===- TimestepPipelining.h - LSTM pipe groups (DSM §III-D) -----*- C++ -*-===//
//
// Timestep pipelining (DeepSpatialMatrix §III-D, Fig. 9): consecutive
// unidirectional LSTM layers form a pipe group; each layer gets its own group
// of chips, sized by its work, and the layers run different timesteps at once
// -- layer i on timestep t while layer i+1 runs t-1 -- passing each timestep's
// output to the next group of chips ("a fourth chip-to-chip communication
// pattern").
//
// The chip groups are blocks of consecutive torus rows (every X column), so
// adjacent stages share one boundary of X links along Y. A sequential pass
// (FWD, or BWD in reverse) of a group of stages with per-timestep cycles s_i
// and per-timestep boundary transfers b_j over T timesteps takes
//
//   fill + (T - 1) * period,  fill = sum s_i + sum b_j,
//   period = max(max s_i, max b_j)
//
// (transfers are double buffered against the next timestep's compute). UPD
// sums over all timesteps at once: every stage updates its weights on its own
// chips, concurrently. docs/performance-model.md gives the terms and their
// assumptions.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SPATIAL_TIMESTEPPIPELINING_H
#define DSM_CORE_SPATIAL_TIMESTEPPIPELINING_H

#include "dsm/Core/Spatial/DesignSpaceExplorer.h"
#include "dsm/Core/Spatial/LayerGraph.h"
#include "dsm/Core/Support/Executor.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <vector>

namespace dsm::core {

/// The torus a pipe stage of `rows` consecutive rows of `system` runs on:
/// every X column, `rows` rows. A block of rows has no wrap-around link
/// along Y (unless it is the whole torus): a line of chips has half the
/// bisection of a ring, so the stage sees half the Y bandwidth.
MultiChipSystem pipeStageSystem(const MultiChipSystem &system, int64_t rows);

/// Candidate pipe groups of `graph`, each a list of layer indices: maximal
/// runs of consecutive unidirectional recurrent layers (timesteps > 1, one
/// direction, a primary computation) with the same timestep count, each
/// reading the previous one as its primary input; runs longer
/// than `maxStages` are cut into pieces of at most that many. Bidirectional
/// layers are never part of a group (DeepSpatialMatrix Fig. 9: "not amenable to
/// pipelining").
std::vector<std::vector<int>> findPipeGroupCandidates(const LayerGraph &graph,
                                                      int64_t maxStages);

/// Rows per stage proportional to `work` (largest remainder), at least one
/// each; requires 1 <= work.size() <= rows. "We allocate chips based on
/// their OPS complexity" (DeepSpatialMatrix §III-D).
std::vector<int64_t> rowsByWork(llvm::ArrayRef<double> work, int64_t rows);

/// One sequential pass of a pipe group.
struct PipelineTiming {
  double fill = 0;          ///< one timestep through every stage and boundary
  double period = 0;        ///< the steady state's cycles per timestep
  double computePeriod = 0; ///< max s_i: the period were links free
  double total = 0;         ///< fill + (T - 1) * period
};

/// The timing of a sequential pass over `timesteps` timesteps whose stages
/// take `stageStepCycles` per timestep and whose boundaries take
/// `boundaryStepCycles` per timestep: entry j < k-1 lies between stages j
/// and j+1, on every timestep's path; further entries (the wrap boundary)
/// only bound the period.
PipelineTiming pipelineTiming(llvm::ArrayRef<double> stageStepCycles,
                              llvm::ArrayRef<double> boundaryStepCycles,
                              int64_t timesteps);

/// Where a pipe stage runs.
struct PipeAssignment {
  int group = -1;       ///< the pipe group (-1: not pipelined)
  int64_t firstRow = 0; ///< its chips: rows [firstRow, firstRow + rows)
  int64_t rows = 0;
  int stage = 0; ///< position in the group
  bool pipelined() const { return group >= 0; }
};

/// Per-timestep bytes crossing the boundaries of a pipe group's stages, one
/// direction of one sequential pass: every stage occupies a block of rows
/// and the blocks close the torus's Y ring, so stage i borders i-1 and i+1,
/// and the last the first.
class PipeFlows {
public:
  explicit PipeFlows(llvm::ArrayRef<int64_t> stageRows);

  /// Bytes per timestep from stage `from` to stage `to` (the short way:
  /// through every boundary between them).
  void addBetweenStages(int from, int to, double bytes);
  /// Bytes per timestep of a tensor spread over the whole torus flowing into
  /// (or out of) a stage: the part not already on its rows, half through
  /// each of its two boundaries.
  void addFromOutside(int to, double bytes);
  void addToOutside(int from, double bytes);

  /// Cycles per timestep of each boundary between consecutive stages (the
  /// busier direction over the X links a boundary has, each carrying half a
  /// chip's Y bandwidth), and of the wrap boundary last -> first, last.
  std::vector<double> boundaryCycles(const MultiChipSystem &system) const;

private:
  std::vector<int64_t> rows;
  int64_t totalRows = 0;
  /// Bytes per boundary j (stage j -> j+1, the last wrapping to 0), forward
  /// (increasing stage) and backward.
  std::vector<double> forward, backward;
};

/// One stage of a planned pipe group: where it runs and each pass's
/// evaluation on its rows, with the pass's cycles as the plan records them
/// (the stage's share of the group's wall-clock time; see plan()).
struct PipeStagePlan {
  int layer = 0;
  PipeAssignment assignment;
  std::vector<Evaluation> passes; ///< FWD, BWD, UPD: those the layer runs
  std::vector<CycleBreakdown> cycles;
};

/// A pipe group as planned: its stages and each pass's timing.
struct PipeGroupPlan {
  std::vector<PipeStagePlan> stages;
  PipelineTiming forward, backward; ///< backward.total 0 in inference
  double update = 0;                ///< UPD: the slowest stage
  double cycles = 0;                ///< wall-clock cycles of all passes
  uint64_t configurationsEvaluated = 0;
  uint64_t explorations = 0;
};

/// Which of `count` candidate pipe groups to adopt: the set of candidates
/// among `plannable` (the others are never adopted) of least `price`. Every
/// set is priced when there are at most `maxJoint` plannable candidates
/// (2^n prices); beyond, candidates join in order while each lowers the
/// price. A set must be cheaper by a relative 1e-12 to replace the one
/// found before it, the empty set first: the same prices, the same set.
std::vector<bool>
choosePipeGroups(size_t count, llvm::ArrayRef<size_t> plannable,
                 llvm::function_ref<double(const std::vector<bool> &)> price,
                 size_t maxJoint = 8);

/// Plans pipe groups on one system: explores every stage layer on every
/// block of rows it could get (memoized by layer shape), starts from rows
/// proportional to the layers' MACs and moves rows between stages while the
/// group gets faster.
class TimestepPipeliner {
public:
  /// `parallelisms`: those layers may use (empty: all the stage offers).
  TimestepPipeliner(const PerformanceModel &model, SearchMode search,
                    bool reuseWeightsAcrossSteps,
                    std::vector<Parallelism> parallelisms);

  /// The best plan of `group` (a candidate of findPipeGroupCandidates), or
  /// nullopt when some stage has no legal mapping on any block of rows the
  /// group leaves it. A stage's cycles are its chips' share of the group's
  /// wall-clock time (rows / torus rows): its own evaluation scaled to the
  /// whole system, the boundary transfers no compute hides as ovldt_visible,
  /// and the rest -- fill, drain and waiting for a slower stage -- as
  /// underuse; the stages' cycles add up to the group's.
  std::optional<PipeGroupPlan> plan(const LayerGraph &graph,
                                    llvm::ArrayRef<int> group,
                                    Executor &executor) const;

private:
  const PerformanceModel &model;
  SearchMode search;
  bool reuseWeightsAcrossSteps;
  std::vector<Parallelism> parallelisms;
};

} // namespace dsm::core

#endif // DSM_CORE_SPATIAL_TIMESTEPPIPELINING_H
