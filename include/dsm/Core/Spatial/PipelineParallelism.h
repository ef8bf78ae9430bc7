//===- PipelineParallelism.h - Layer runs as pipeline stages ----*- C++ -*-===//
//
// Pipeline parallelism (GPipe: Huang et al., NeurIPS 2019; 1F1B: Narayanan et
// al., "PipeDream", SOSP 2019, and Megatron-LM, SC 2021): the layers, in
// order, are cut into `stages` runs; each runs on its own block of
// consecutive torus rows (every X column); the minibatch is split into
// `microbatches` that flow through the stages one after another, the
// activations (FWD) and errors (BWD) crossing each stage boundary on the Y
// links between two blocks. A stage holds only its layers' weights, gradients
// and optimizer state: what makes a model that no plan over the whole torus
// can hold fit, and what shrinks the data-parallel reductions to a stage's
// chips.
//
// Timing is DeepSpatialMatrix §III-D's rule for timestep pipe groups
// (pipelineTiming, TimestepPipelining.h) with microbatches for timesteps: a
// pass over m microbatches through stages of per-microbatch cycles s_i and
// boundaries b_j takes fill + (m - 1) * period. GPipe runs every forward,
// then every backward; 1F1B alternates them in the steady state, so a stage's
// period is its forward plus its backward. With equal stages and free links
// both take (m + p - 1) / m of the ideal time: the bubble is (p - 1) / (m +
// p - 1) of the step. Gradients accumulate over the microbatches and are
// reduced, and the weights updated, once per step, every stage at once.
//
// Memory: GPipe keeps the activations of all m microbatches until their
// backward passes; 1F1B keeps at most p - s on stage s (the first stage the
// most), which is why the search uses 1F1B: the same time, less memory.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SPATIAL_PIPELINEPARALLELISM_H
#define DSM_CORE_SPATIAL_PIPELINEPARALLELISM_H

#include "dsm/Core/Spatial/LayerGraph.h"
#include "dsm/Core/Spatial/Mapping.h"
#include "dsm/Core/Spatial/StepMemory.h"
#include "dsm/Core/Spatial/TimestepPipelining.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace dsm::core {

enum class PipelineSchedule { GPipe, OneFOneB };
llvm::StringRef stringifyPipelineSchedule(PipelineSchedule schedule);
std::optional<PipelineSchedule> symbolizePipelineSchedule(llvm::StringRef);

/// A pipeline as a user names it: `stages` runs of layers on as many blocks
/// of torus rows, the minibatch as `microbatches` (0: the search decides).
struct GivenPipeline {
  int64_t stages = 0;
  int64_t microbatches = 0;
  PipelineSchedule schedule = PipelineSchedule::OneFOneB;
  /// Instead of `microbatches`: Megatron-LM's micro-batch size, the samples
  /// a data-parallel replica runs at once, with the data degree; the
  /// microbatches are the minibatch over their product.
  int64_t microbatchSize = 0, dataDegree = 0;
  /// The layers of each stage, first to last (empty: cut at block
  /// boundaries, balanced on the layers' cycles).
  std::vector<int64_t> stageLayers;
  bool given() const { return stages > 0; }
};

/// The samples every layer that carries the minibatch has a multiple of
/// along its minibatch dimension: the greatest common divisor of the layers'
/// minibatch sizes above 1 (1 when none carries one). Microbatch counts
/// divide it.
int64_t graphBatch(const LayerGraph &graph);

/// `shape` for one of `microbatches` equal parts of its minibatch: the
/// minibatch dimension and the auxiliary work divided, when the dimension is
/// a multiple of the count (a layer without samples, such as a position
/// embedding, stays whole).
LayerShape microbatchShape(const LayerShape &shape, int64_t microbatches);

/// `graph` for one microbatch: each layer's shape by microbatchShape, and the
/// activations of the layers whose shape was divided divided too.
LayerGraph microbatchGraph(const LayerGraph &graph, int64_t microbatches);

/// The layers [first, last) of `graph` as a graph of their own: the edges
/// among them; a layer whose output is read beyond `last` is an output of
/// the stage (sent on, so written out). Passes as in `graph`.
LayerGraph stageGraph(const LayerGraph &graph, int first, int last);

/// Cuts `cost` (per layer, in order) into `stages` non-empty runs whose
/// largest sum is least; returns the first layer of each run. Requires
/// 1 <= stages <= cost.size().
std::vector<int> balanceStages(llvm::ArrayRef<double> cost, int stages);
/// The same, cutting only between the runs that start at `blockStarts`
/// (LayerGraph::blockStarts: a transformer layer is not cut) where there
/// are at least `stages` of them; else between any layers.
std::vector<int> balanceStagesAtBlocks(llvm::ArrayRef<double> cost,
                                       llvm::ArrayRef<int> blockStarts,
                                       int stages);

/// The microbatch counts the search prices for `stages` stages of
/// `stageRows` torus rows each over a minibatch of `batch`, fewest first: p,
/// 2p, 4p and 8p up to the first that does not divide the minibatch, and the
/// counts that give each of a stage's rows one or two samples of a
/// microbatch (Megatron-LM's microbatch of one on every data-parallel
/// replica) where they divide it and are at least p: gradient accumulation
/// up to the minibatch.
std::vector<int64_t> microbatchCounts(int64_t batch, int64_t stages,
                                      int64_t stageRows);

/// Microbatches whose activations stage `stage` of `stages` keeps at once.
int64_t microbatchesInFlight(PipelineSchedule schedule, int stage, int stages,
                             int64_t microbatches);

/// A training step (or inference) of a pipeline, in cycles.
struct PipelineStepTiming {
  /// GPipe: the forward and backward passes over the microbatches; 1F1B:
  /// `forward` holds the interleaved passes, `backward` nothing.
  PipelineTiming forward, backward;
  /// Gradient reduction and weight update: the slowest stage's.
  double update = 0;
  double total = 0;
  /// The stages' busy time per microbatch (forward + backward), summed
  /// over microbatches, against the time the step gives each: idle
  /// (fill, drain, waiting for a slower stage or a link) over the step.
  double bubbleFraction = 0;
};

/// The step's timing: per stage, its cycles per microbatch forward
/// (`forward`) and backward (`backward`: BWD and the UPD work), and once per
/// step (`update`); per boundary between consecutive stages, the cycles of
/// one microbatch's activations (`forwardLinks`) and errors
/// (`backwardLinks`). The links are full duplex: activations and errors
/// cross a boundary in opposite directions at once.
PipelineStepTiming pipelineStepTiming(PipelineSchedule schedule,
                                      llvm::ArrayRef<double> forward,
                                      llvm::ArrayRef<double> backward,
                                      llvm::ArrayRef<double> update,
                                      llvm::ArrayRef<double> forwardLinks,
                                      llvm::ArrayRef<double> backwardLinks,
                                      int64_t microbatches);

/// The cycles of a pass a pipeline spends once per step, however many
/// microbatches: a UPD's reduction of the accumulated gradients and weight
/// update (its transfer group `grad_reduce+weight_broadcast` or
/// `weight_update`), at most `total`; 0 for FWD and BWD.
double oncePerStepCycles(TrainingPass pass,
                         llvm::ArrayRef<TransferGroup> transfers, double total);

/// A pipeline stage's pass over a step, as the plan records it: its cycles
/// for one microbatch (`perMicrobatch`) for every microbatch, the
/// once-per-step cycles once, scaled by `share`, the stage's share of the
/// system's chips (the stage's wait for the pipeline aside).
CycleBreakdown pipelinedPassCycles(CycleBreakdown perMicrobatch,
                                   double oncePerStep, int64_t microbatches,
                                   double share);

/// One stage of a planned pipeline.
struct PipelineStageRecord {
  int firstLayer = 0, lastLayer = 0; ///< layers [firstLayer, lastLayer)
  int64_t firstRow = 0, rows = 0;    ///< its torus rows
  double forward = 0, backward = 0, update = 0; ///< as pipelineStepTiming
  int64_t inFlight = 0; ///< microbatches whose activations it keeps
  MemoryPerChip memory; ///< its fullest chip, in flight included
};

/// The least step of a pipeline of `numStages` stages whose first are
/// `planned` (the others not yet), each later stage taking at least its
/// `leastStageCycles` (by stage; empty: 0) for a microbatch's forward and
/// backward passes, with free links, on either schedule: the search ends a
/// pipeline whose stages planned so far show it cannot beat the plan in
/// hand.
double pipelineStepLowerBound(llvm::ArrayRef<PipelineStageRecord> planned,
                              int numStages,
                              llvm::ArrayRef<double> leastStageCycles,
                              int64_t microbatches);

/// The step the stages `planned` foretell for a pipeline of `numStages`
/// stages on `schedule`, with free links: the others as busy as they are on
/// average (what a pipeline cut short is taken to take).
double foretoldPipelineStep(llvm::ArrayRef<PipelineStageRecord> planned,
                            int numStages, PipelineSchedule schedule,
                            int64_t microbatches);

/// One microbatch's forward or backward half on a stage, from `start` to
/// `end` cycles into the step.
struct ScheduledPass {
  int stage = 0;
  int64_t microbatch = 0;
  bool backward = false;
  double start = 0, end = 0;
};

/// The passes of a pipeline whose stage `s` takes `forward[s]` and
/// `backward[s]` cycles a microbatch, on `schedule`, with free links, in
/// the order each stage runs them: GPipe every forward, then every
/// backward; 1F1B (Narayanan et al., PipeDream-Flush) p - s forwards on
/// stage s, then one backward and one forward in turn, then the backwards
/// left. A pass starts once its stage is free and its input is there (the
/// microbatch's forward on the stage before, its backward on the stage
/// after). What the HTML report draws, as Megatron-LM's and PipeDream's
/// papers draw a schedule.
std::vector<ScheduledPass> pipelineSchedule(llvm::ArrayRef<double> forward,
                                            llvm::ArrayRef<double> backward,
                                            int64_t microbatches,
                                            PipelineSchedule schedule);

/// The cycles a pipelined step's chips spend in no pass, as a share of the
/// system (as a pass's cycles are): `bubble`, waiting for the pipeline to
/// fill and drain and for slower stages, were the links between stages
/// free; `sends`, what the links add to that.
struct PipelineIdle {
  double bubble = 0, sends = 0;
  double total() const { return bubble + sends; }
};

/// A plan's pipeline (MappingPlan::pipeline); stages empty when the plan is
/// not pipelined.
struct PipelineRecord {
  PipelineSchedule schedule = PipelineSchedule::OneFOneB;
  int64_t microbatches = 1;
  std::vector<PipelineStageRecord> stages;
  /// Per boundary: one microbatch's activations and errors.
  std::vector<double> forwardLinks, backwardLinks;
  PipelineStepTiming timing;
  /// The step's idle time (pipelineIdle), outside every pass's cycles.
  PipelineIdle idle;
  bool pipelined() const { return !stages.empty(); }
};

/// The idle time of `record`'s step, whose stage s runs on its rows of
/// `torusRows` and is busy `busy[s]` cycles of it: each stage's wait for
/// the step with free links (the bubble) and for the step as timed (less
/// the bubble: the sends), scaled by its share of the rows.
PipelineIdle pipelineIdle(const PipelineRecord &record,
                          llvm::ArrayRef<double> busy, int64_t torusRows);

} // namespace dsm::core

#endif // DSM_CORE_SPATIAL_PIPELINEPARALLELISM_H
