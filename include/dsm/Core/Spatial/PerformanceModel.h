//===- PerformanceModel.h - The bandwidth-centric model ---------*- C++ -*-===//
//
// Estimates the cycles one layer and pass takes on a multi-chip system for one
// mapping configuration, as DeepSpatialMatrix §II-D describes it:
//
//   TotCy = MAX(PriComp, Ovldt) + AuxComp + NonOvldt
//
// PriComp is the PE-array time of a core's work (with the under-use of a
// partly filled array, uneven splits and the startup latency); AuxComp the
// special-function time of the fused auxiliary computations; Ovldt and
// NonOvldt the data-transfer groups of Fig. 5, each as long as its slowest
// link. docs/performance-model.md gives every formula and its assumptions.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SPATIAL_PERFORMANCEMODEL_H
#define DSM_CORE_SPATIAL_PERFORMANCEMODEL_H

#include "dsm/Core/Spatial/Mapping.h"
#include "dsm/Core/System/SystemDescription.h"

#include <algorithm>
#include <array>
#include <optional>
#include <string>

namespace dsm::core {

/// The terms of TotCy a configuration's chip and core splits fix whatever
/// its array mapping: the data-transfer groups (Ovldt, NonOvldt), AuxComp,
/// and what PriComp needs besides the mapping. Only PriComp and the working
/// set depend on how a core's work goes onto the PE array, so the
/// exhaustive search costs every mapping of a split from one of these and
/// skips the mappings -- and the splits -- that cannot beat its best.
struct SplitCycles {
  double ovldt = 0, nonOvldt = 0, auxComp = 0;
  bool hasPrimary = false;
  DimSizes coreD = {1, 1, 1, 1, 1};
  double steps = 1, feedCycles = 0, startupCycles = 0;
  int64_t arrayRows = 1, arrayColumns = 1;
  /// CoreSpec::matrixEfficiency: the array's work takes 1/this of its cycles.
  double matrixEfficiency = 1;

  /// PriComp under `array` (DeepSpatialMatrix §II-D), as evaluate() charges it.
  double primaryCycles(const ArrayMapping &array) const;
  /// TotCy under `array`, were its working set to fit: evaluate()'s total.
  double totalCycles(const ArrayMapping &array) const {
    return std::max(primaryCycles(array), ovldt) + auxComp + nonOvldt;
  }
  /// At most totalCycles() for every array mapping: PriComp is at least the
  /// busiest core's work in whole-array passes, with the scratchpad feed
  /// and the startup.
  double lowerBound() const;
  /// At most totalCycles() for every array mapping and every memory
  /// decision besides the DySM factor (preloading, data on chip, a smaller
  /// scratchpad): the busiest core's work in whole-array passes with the
  /// startup, and AuxComp -- the compute, which no transfer hides.
  double computeBound() const;

private:
  /// The busiest core's work in whole-array passes, however it is tiled (a
  /// tile is at most the array).
  double wholeArrayPasses() const;
};

/// What evaluate() makes of a legal configuration, short of the transfers
/// it records for the report: what a search compares candidates by.
struct CandidateCost {
  CycleBreakdown cycles;
  double ovldt = 0; ///< Ovldt, before PriComp hides it
  double scratchpadBytes = 0;
};

/// A configuration's chip and core splits and memory decisions, checked and
/// costed once for every array mapping a search tries on them. A search
/// tries dozens of mappings per split, and checking the splits and costing
/// their transfers is most of evaluate()'s work; evaluate() goes through a
/// SplitCost too, so the figures are its own to the bit. It refers to the
/// layer it was made for, which must outlive it.
class SplitCost {
public:
  /// The terms of TotCy the splits fix (splitCycles()).
  const SplitCycles &cycles() const { return terms; }
  /// evaluate()'s figures for these splits with `array`, or nullopt where
  /// evaluate() rejects the configuration (evaluate() says why).
  std::optional<CandidateCost> evaluate(const ArrayMapping &array) const;

private:
  friend class PerformanceModel;
  SplitCost() = default;

  /// The figures, legal or not.
  CandidateCost figures(const ArrayMapping &array) const;
  /// Bytes a core's scratchpad needs under `array`.
  double scratchpadBytes(const ArrayMapping &array) const;

  /// The chunks a library-tiled chip (ChipSpec::libraryTiling) works the
  /// stationary operand in under `array`, for a working set of `bytes`
  /// (scratchpadBytes()): 1 where it fits, 0 where no chunk would.
  double stationaryChunks(double bytes) const;

  const LayerShape *layer = nullptr;
  /// Whether checkSplits() accepts the splits and memory decisions, the
  /// array mapping aside.
  bool legal = false;
  bool libraryTiling = false;
  /// Memory-bus cycles of streaming the non-stationary input once more over
  /// the pass (every core's share, every step): what each further chunk of
  /// a library-tiled stationary operand costs.
  double restreamCycles = 0;
  SplitCycles terms;
  double macs = 0, usefulCycles = 0;
  double scratchpadCapacity = 0;
  double externalMemoryBytes = 0, externalMemoryCapacity = 0;
  double elementBytes = 0;
  /// The working set's parts that do not depend on the array mapping (the
  /// order of the additions is evaluate()'s, so the sums are too): the
  /// operands in pass order, whether each is a wholly preloaded Kernel, its
  /// CoreD elements, the stationary one, the block of the streamed ones
  /// before the array's tiles, and the data kept whole besides (weights
  /// across timesteps, a reused Input, a reused error, a retained shortcut;
  /// 0 where not).
  std::array<Operand, 3> operands = {};
  std::array<bool, 3> resident = {};
  std::array<double, 3> sizes = {};
  int stationary = 0;
  DimSizes block = {1, 1, 1, 1, 1};
  std::array<double, 4> keptWhole = {};
  /// The transfer groups per step (gradients: per pass), unnamed: evaluate()
  /// names the ones it records.
  TransferGroup stream, rotation, partialSums, gradients;
  bool gradientsCrossChips = false; ///< the gradients are reduced
};

/// External-memory traffic of a pass that no memory decision avoids
/// (PerformanceModel::leastForwardTraffic), in bytes.
struct ForwardTraffic {
  /// The learnable weights: weight preloading may keep some of them on chip.
  double weightBytes = 0;
  /// What stays in external memory whatever the plan: an auxiliary-only
  /// layer's inputs and result, the second activation of an activation x
  /// activation product (a KV cache), a network input or output.
  double otherBytes = 0;
};

class PerformanceModel {
public:
  explicit PerformanceModel(const MultiChipSystem &system);

  const MultiChipSystem &getSystem() const { return system; }
  int64_t numChips() const { return system.chips; }
  int64_t numCores() const { return system.chip.cores; }
  /// Rows and columns (columns times the SIMD width) of the PE array.
  int64_t arrayRows() const { return rows; }
  int64_t arrayColumns() const { return columns; }
  double bytesPerElement() const { return elementBytes; }
  double frequency() const { return system.chip.core.frequencyHz; }

  /// Whether a parallelism exists on this torus: model parallelism needs two
  /// chips, the hybrids a torus with more than one chip in both directions.
  bool isAvailable(Parallelism p) const;

  /// ChipD split factors of a parallelism for `pass` of `layer`, or nullopt
  /// (with the reason) if a factor would exceed its dimension.
  std::optional<DimSizes> chipSplit(const LayerShape &layer, TrainingPass pass,
                                    Parallelism p,
                                    std::string *whyNot = nullptr) const;

  /// Whether model parallelism splits `layer`'s input features rather than
  /// its output features (Megatron-LM's row-parallel linear layer): on a
  /// chip whose tensor parallelism is Megatron-LM's
  /// (ChipSpec::megatronTensorParallel), a linear layer whose output is no
  /// wider than its input: the attention's output projection and the MLP's
  /// second layer, as Megatron-LM splits them. Its chips reduce their
  /// partial outputs (reduce_outputs) instead of rotating the input.
  bool isRowParallel(const LayerShape &layer) const;

  /// The layer's dimensions as `pass` sees them: UPD of an LSTM sums over all
  /// timesteps at once, so its minibatch grows by the timestep count.
  DimSizes passDims(const LayerShape &layer, TrainingPass pass) const;

  /// The dimension dynamic spatial minibatching divides under `chipSplit`:
  /// the minibatch (DeepSpatialMatrix §III-C), or, where a chip's share of it
  /// is a single sample, the positions of a layer without a kernel window --
  /// a transformer's token rows at a pipeline's microbatch, which the layer
  /// computes independently as it does samples.
  Dim spatialMinibatchDim(const LayerShape &layer, TrainingPass pass,
                          const DimSizes &chipSplit) const;

  /// The dimensions one spatial minibatch of `pass` works on: passDims with
  /// spatialMinibatchDim divided by the DySM factor; what ChipD and CoreD are
  /// computed from (with `chipSplit`).
  DimSizes spatialPassDims(const LayerShape &layer, TrainingPass pass,
                           const MemoryDecision &memory,
                           const DimSizes &chipSplit) const;

  /// Evaluates one configuration; nullopt (with the reason) if it is not
  /// legal: split products that do not match the chip and core counts, a
  /// split larger than its dimension, an array tile larger than the array or
  /// its work, or a working set that does not fit the scratchpad.
  std::optional<Evaluation> evaluate(const LayerShape &layer, TrainingPass pass,
                                     const MappingConfig &config,
                                     std::string *whyNot = nullptr) const;

  /// What `config`'s chip and core splits fix of evaluate()'s cycles,
  /// whatever its array mapping (which it ignores, like capacity).
  SplitCycles splitCycles(const LayerShape &layer, TrainingPass pass,
                          const MappingConfig &config) const;

  /// `config`'s splits, checked and costed for any array mapping (which it
  /// ignores). The costs are there even when the splits are illegal, as
  /// splitCycles() gives them (a search orders the splits by their bound),
  /// but every split factor must be at least 1.
  SplitCost costSplits(const LayerShape &layer, TrainingPass pass,
                       const MappingConfig &config) const;

  /// Re-laying out an activation (or error) tensor of `elements` elements
  /// between the chip layouts of two parallelisms (non-overlapped;
  /// DeepSpatialMatrix Fig. 5 RelayoutAlongX/Y). Zero cycles when the layouts
  /// agree.
  TransferGroup relayout(double elements, Parallelism from,
                         Parallelism to) const;

  /// Bytes of the layer's weights one core works with under `config` (its
  /// CoreD share, whole where cores share it): what weight preloading can
  /// keep resident. Zero for a layer without weights.
  int64_t weightBytesPerCore(const LayerShape &layer, TrainingPass pass,
                             const MappingConfig &config) const;
  /// Elements of the layer's parameters one chip holds under `config` (its
  /// ChipD share of the Kernel's dimensions, the whole where chips
  /// replicate them), as the external-memory check counts them.
  double parameterElementsPerChip(const LayerShape &layer, TrainingPass pass,
                                  const MappingConfig &config) const;

  /// Sharded weights (ZeRO stage 3, StepMemory.h): the non-overlapped
  /// all-gather of the chip's share of the layer's weights (as `config`'s
  /// FWD holds it) from the chips holding the other pieces -- the copies
  /// along the torus directions that split the minibatch -- before a pass
  /// that reads them: a ring along X, then along Y, each chip receiving the
  /// pieces it lacks. No bytes where the share has no copies.
  TransferGroup weightGather(const LayerShape &layer,
                             const MappingConfig &config) const;

  /// Offloaded optimizer state (ZeRO-Offload, StepMemory.h): once a step
  /// the chip sends the gradients of its `stateElements` to the host and
  /// takes the updated weights back, each way over the host link (full
  /// duplex: the directions overlap), non-overlapped with the chip's work;
  /// the host's update itself is taken to hide under the transfers (ZeRO-
  /// Offload overlaps it with the next step's forward half). Infinite cycles
  /// on a system without a host link.
  TransferGroup hostUpdate(double stateElements) const;
  bool hasHostLink() const { return system.chip.hostLink.has_value(); }

  /// Cycles to move `bytes` over one `link` of one chip.
  double linkCycles(double bytes, Link link) const;
  /// Cycles `steps` of a collective wait on `link` before their bytes: the
  /// network dimension's latency per step; none on a chip's own links.
  double latencyCycles(double steps, Link link) const;

  /// The external-memory traffic of FWD of `layer` that every configuration
  /// and memory decision pays, as evaluate() counts it (the memory streams
  /// and the Input's rotation), in bytes over all chips and steps; no chip
  /// moves less than an even share of it. `inputFromMemory`: no layer can
  /// leave the Input on chip (it is a network input); `outputToMemory`: no
  /// reader finds the Output on chip (it is a network output).
  ForwardTraffic leastForwardTraffic(const LayerShape &layer,
                                     bool inputFromMemory,
                                     bool outputToMemory) const;

  /// Why `config` is not a legal split of `pass` of `layer` (products that do
  /// not match the chip and core counts, a split larger than its dimension,
  /// a chip split that is not the parallelism's, array tiles larger than the
  /// array or their work), or nullopt. Capacity is checked by evaluate().
  std::optional<std::string> checkSplits(const LayerShape &layer,
                                         TrainingPass pass,
                                         const MappingConfig &config) const;

private:
  /// checkSplits() short of the array mapping; the reason goes to `whyNot`
  /// only when asked for (a search rejects many candidates it never
  /// explains).
  bool splitsLegal(const LayerShape &layer, TrainingPass pass,
                   const MappingConfig &config, std::string *whyNot) const;

  MultiChipSystem system;
  int64_t rows;
  int64_t columns;
  double elementBytes;
};

/// Fills in a transfer group's cycles and bottleneck: the group takes as
/// long as its slowest link (DeepSpatialMatrix §II-D).
void timeGroup(const PerformanceModel &model, TransferGroup &group);

} // namespace dsm::core

#endif // DSM_CORE_SPATIAL_PERFORMANCEMODEL_H
