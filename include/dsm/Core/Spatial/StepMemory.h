//===- StepMemory.h - What a chip's memory holds over a step ----*- C++ -*-===//
//
// The external memory a plan needs on its fullest chip over a whole
// training step (or inference), by category:
//
//   weights      each distinct parameter once, the chip's share of it under
//                the parallelism of the layers that read it;
//   gradients    in training, one per weight element the chip holds, or, with
//                the state sharded, per element of its shard;
//   optimizer    in training, the optimizer's state per such element;
//   activations  in training, each layer's saved activations (what its
//                backward pass reads, savedBytesPerChip) from its FWD to
//                its backward passes -- all alive at the turn of the step --
//                unless recomputed, beside the peak of the other tensors
//                alive at once (errors, what earlier stages send, results);
//                in inference, the peak of the outputs alive at once;
//   buffers      what the plan stages in external memory besides: with
//                sharded weights, the largest share a pass gathers (the
//                DeepSpatialMatrix §III buffers live in the cores'
//                scratchpads, which the explorer checks layer by layer).
//
// Optimizer state, by default mixed-precision Adam: a 16-bit weight and
// gradient and, per parameter, a 32-bit master weight and two 32-bit
// moments -- 2 + 2 + 12 = 16 bytes per parameter, the accounting of
// Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training Trillion
// Parameter Models" (SC 2020), Section 3.1. Momentum SGD keeps a master
// weight and one moment (8 bytes), plain SGD the master weight (4).
//
// Four memory savers change the count (chosen by CapacityFit where a plan
// does not fit otherwise, or named, SaverChoices):
//   sharded state  ZeRO stage 2 (ZeRO, Section 5.2): the chips that hold
//                  copies of a weight each keep the gradient and optimizer
//                  state of a 1/copies shard of it. The plan already reduces
//                  the gradients and broadcasts the weights (DeepSpatialMatrix
//                  Fig. 5 SumofGrad, BroadcastW): a reduce-scatter and an
//                  all-gather of the same volume, each chip updating its
//                  shard in between, so it adds no traffic ("ZeRO-DP stage 1
//                  and 2 incur no additional communication"). A chip then
//                  keeps state for parameters / chips elements.
//   sharded        ZeRO stage 3 (ZeRO, Section 5.3): a chip keeps a 1/chips
//   weights        shard of every weight too, and each pass that reads a
//                  layer's weights first all-gathers the chip's share of
//                  them (PerformanceModel::weightGather: 1.5x the traffic
//                  of the data-parallel reduction, as ZeRO counts it);
//                  the largest share gathered at once is a buffer.
//   recomputation  Chen et al., "Training Deep Nets with Sublinear Memory
//                  Cost" (2016): the layers are cut into segments; an
//                  activation all of whose readers are in its producer's
//                  segment is dropped after the forward half and recomputed,
//                  with the rest of its run of recomputed activations, just
//                  before the backward half first needs one of them; each
//                  recomputed layer runs its FWD once more.
//   offloaded      ZeRO-Offload (Ren et al., USENIX ATC 2021), on the
//   state          sharded state, where the system declares a host link
//                  (HostLinkSpec): the optimizer state of the chip's shard
//                  lives in host memory (MemoryPerChip::offloaded), and the
//                  UPD sends the shard's gradients there and takes the
//                  updated weights back (PerformanceModel::hostUpdate).
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SPATIAL_STEPMEMORY_H
#define DSM_CORE_SPATIAL_STEPMEMORY_H

#include "dsm/Core/Spatial/LayerShape.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace dsm::core {

enum class Optimizer { SGD, Momentum, Adam };
llvm::StringRef stringifyOptimizer(Optimizer optimizer);
std::optional<Optimizer> symbolizeOptimizer(llvm::StringRef name);

/// Bytes of optimizer state per parameter (master weights and moments).
double optimizerBytesPerParameter(Optimizer optimizer);

/// The memory savers as a user names them (the pass options recompute= and
/// shard=) to evaluate a strategy instead of searching one: Auto leaves the
/// choice to CapacityFit (a saver only where the plan does not fit without
/// it); the others apply, or rule out, the saver whether or not it is needed.
enum class RecomputeChoice {
  Auto,
  None,
  /// The attention cores' (Korthikanti et al. 2022, Section 4.2): each layer
  /// keeping attention's probabilities (SavedActivations::attention) keeps
  /// its inputs instead and runs its FWD again before its backward passes.
  Selective,
  /// Activations recomputed in the segments that leave the fewest alive
  /// (Megatron-LM's full recomputation keeps each transformer layer's input).
  Full,
};
enum class ShardChoice {
  Auto,
  None,
  /// Gradients and optimizer state (ZeRO stage 2).
  State,
  /// The optimizer state alone (ZeRO stage 1, Megatron-LM's distributed
  /// optimizer): named only, since stage 2 moves as much and holds less.
  Optimizer,
  /// Those and the weights (ZeRO stage 3).
  Weights,
};
enum class OffloadChoice {
  Auto,
  None,
  /// The optimizer state of each chip's shard on its host (ZeRO-Offload;
  /// the system must declare a host link).
  State,
};
llvm::StringRef stringifyRecomputeChoice(RecomputeChoice choice);
llvm::StringRef stringifyShardChoice(ShardChoice choice);
llvm::StringRef stringifyOffloadChoice(OffloadChoice choice);
struct SaverChoices {
  RecomputeChoice recompute = RecomputeChoice::Auto;
  ShardChoice shard = ShardChoice::Auto;
  OffloadChoice offload = OffloadChoice::Auto;
  /// "recompute=full shard=none": the savers named, "" when none is.
  std::string describeNamed() const;
};

/// A tensor in a chip's memory during part of the step: `bytes` from step
/// `first` to step `last` (inclusive) of the schedule.
struct LiveTensor {
  double bytes = 0;
  int first = 0;
  int last = 0;
};

struct MemoryPerChip {
  double weights = 0, gradients = 0, optimizer = 0, activations = 0,
         buffers = 0;
  double capacity = 0;
  /// Optimizer state offloaded to the chip's host (not in the total), and
  /// the host memory the chip may fill.
  double offloaded = 0, hostCapacity = 0;
  double total() const {
    return weights + gradients + optimizer + activations + buffers;
  }
  bool fits() const { return total() <= capacity && offloaded <= hostCapacity; }
};

/// A layer's parameter elements on a chip: the weights it holds, those
/// whose gradient it keeps (`state`) and those whose optimizer state it
/// keeps. The layer has `parameters` elements, of which its plan puts
/// `chipElements` on each of `chips` chips; sharded weights (ZeRO stage 3),
/// sharded state (stage 2: gradients and optimizer state) or a sharded
/// optimizer (stage 1) keep a 1/chips shard instead. The one count of the
/// mapper (CapacityFit) and of the IR (--dsm-verify-mapping). A layer's
/// parameters are its trained weights; running statistics (batch norm's mean
/// and variance, 2 elements a channel) are not counted.
struct HeldParameters {
  double weights = 0, state = 0, optimizer = 0;
};
inline HeldParameters heldParameters(double chipElements, double parameters,
                                     double chips, bool shardWeights,
                                     bool shardState,
                                     bool shardOptimizer = false) {
  const double shard = parameters / chips;
  return {shardWeights ? shard : chipElements,
          shardState ? shard : chipElements,
          shardState || shardOptimizer ? shard : chipElements};
}

/// Where a layer's parameters live: on every chip, or, for a stage of a
/// timestep pipe group (TimestepPipelining.h), only on the chips of its
/// torus rows [firstRow, firstRow + rows).
struct PlacedParameters {
  HeldParameters held;
  int64_t firstRow = 0, rows = 0; ///< rows 0: every row
};
/// The parameters a chip of the fullest row holds -- every layer's on all
/// rows and the stages' on that row -- the fullest being the one with the
/// most bytes at `weightBytes` a weight element, `gradientBytes` a state
/// element and `optimizerBytes` an optimizer element.
HeldParameters fullestRowParameters(llvm::ArrayRef<PlacedParameters> layers,
                                    double weightBytes, double gradientBytes,
                                    double optimizerBytes);

/// The memory of one chip: `weightElements` are the chip's elements of each
/// distinct parameter, of `elementBytes` each; `stateElements` those whose
/// gradient and optimizer state it keeps (the weight elements, or with the
/// state sharded, its shards); `tensors` the activations (and errors) with
/// their live ranges; in `training`, gradients and `optimizer` state for
/// every state element.
MemoryPerChip memoryPerChip(llvm::ArrayRef<double> weightElements,
                            llvm::ArrayRef<double> stateElements,
                            llvm::ArrayRef<LiveTensor> tensors,
                            double elementBytes, bool training,
                            Optimizer optimizer, double capacity);

/// Bytes for people: "12.34 GB", "5.00 MB", "812 B".
std::string formatBytes(double bytes);
/// "total X of Y (weights ..., gradients ..., optimizer ..., activations
/// ..., buffers ...)", and whether it does not fit.
std::string describeMemory(const MemoryPerChip &memory);

/// The most bytes of `tensors` alive at one step.
double peakLiveBytes(llvm::ArrayRef<LiveTensor> tensors);

/// The most bytes alive at one step of tensors added one at a time, over
/// steps 0 to `lastStep`: the bytes starting and ending at each step, and a
/// sweep, with no sort (a CapacityFit tries a dozen recomputations of tens
/// of thousands of layers). A copy holds the tensors added so far: the
/// ones every recomputation shares are added once.
class LiveBytes {
public:
  explicit LiveBytes(int lastStep) : change(2 * size_t(lastStep) + 2, 0.0) {}
  /// Requires 0 <= t.first, t.last <= lastStep.
  void add(const LiveTensor &t) {
    change[2 * size_t(t.first)] += t.bytes;
    change[2 * size_t(t.last) + 1] -= t.bytes;
  }
  double peak() const;

private:
  /// At 2s, the bytes that start at step s; at 2s + 1, less those that end
  /// after it (a tensor's end comes after the starts of its last step).
  std::vector<double> change;
};

/// An activation over a step's schedule: `bytes` produced at step `produced`,
/// last read in the forward half at `lastForward`, and read again in the
/// backward half from step `firstBackward` to `lastBackward` (-1: never).
/// `recomputed`: dropped after the forward half and recomputed.
struct ActivationUse {
  double bytes = 0;
  int produced = 0;
  int lastForward = 0;
  int firstBackward = -1;
  int lastBackward = -1;
  bool recomputed = false;
};

/// The live tensors of `uses` (in producer order). A kept activation lives
/// from its producer to its last reader. A recomputed one lives to its last
/// forward reader, and again from its run's recomputation -- a run is a
/// sequence of consecutive recomputed uses, recomputed together at the
/// first backward step that reads any of them -- to its last backward
/// reader.
std::vector<LiveTensor>
activationLiveTensors(llvm::ArrayRef<ActivationUse> uses);
/// Each of those tensors to `live`, where use `a` is recomputed when
/// `recomputed(a)` says so (whatever uses[a].recomputed says).
void addActivationLiveTensors(
    llvm::ArrayRef<ActivationUse> uses,
    llvm::function_ref<bool(size_t)> recomputed,
    llvm::function_ref<void(const LiveTensor &)> live);

/// How a chip keeps a layer's saved activations (LayerShape::saved).
struct ActivationKeeping {
  /// Megatron-LM's sequence parallelism: the tensors that tensor
  /// parallelism replicates (a column-parallel layer's input, a
  /// row-parallel layer's output side) split along the sequence too, so
  /// that each is spread over all the layer's chips.
  bool sequenceParallel = false;
  /// Selective recomputation (Korthikanti et al. 2022, Section 4.2): the
  /// attention core's tensors dropped and recomputed.
  bool recomputeAttention = false;
};

/// Bytes a chip keeps of `layer`'s saved activations when the layer's FWD
/// splits its dimensions over the chips by `chipSplit` (ChipD): each tensor
/// a chip's share of it in the layout it is kept in -- a layout a dimension
/// does not index is replicated over the chips that split it -- at
/// `elementBytes` an element, dropout masks at one byte. Per microbatch: the
/// shape's (microbatchShape divides the saved elements with it).
double savedBytesPerChip(const LayerShape &layer, const DimSizes &chipSplit,
                         double elementBytes, ActivationKeeping keeping = {});
/// Bytes a chip keeps of the layer's saved inputs (and a product of two
/// activations' second operand) alone: the checkpoint of a run of recomputed
/// layers that the layer starts.
double checkpointBytesPerChip(const LayerShape &layer,
                              const DimSizes &chipSplit, double elementBytes,
                              bool sequenceParallel = false);

} // namespace dsm::core

#endif // DSM_CORE_SPATIAL_STEPMEMORY_H
