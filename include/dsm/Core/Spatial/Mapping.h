//===- Mapping.h - Mapping configurations and their cost --------*- C++ -*-===//
//
// The design space of DeepSpatialMatrix Fig. 4 for one layer and pass: how the
// work is split over the chips of the torus (the parallelism fixes ChipD), over
// the cores of a chip (CoreD) and onto the PE array of a core (ArrayD); and
// what the performance model charges for it (DeepSpatialMatrix §II-D): the
// cycle breakdown of Fig. 13 and every data-transfer group of Fig. 5.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SPATIAL_MAPPING_H
#define DSM_CORE_SPATIAL_MAPPING_H

#include "dsm/Core/Spatial/LayerShape.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace dsm::core {

/// Parallelism on the 2D torus of X columns (M) and Y rows (N)
/// (DeepSpatialMatrix §II-D, §III-A). `Data` splits the minibatch over all
/// chips; `Model` the output features (input features rotate around the torus);
/// the hybrids split the minibatch along one direction and the features along
/// the other.
enum class Parallelism { Data = 0, Model, DataXModelY, ModelXDataY };
constexpr int kNumParallelisms = 4;
llvm::StringRef stringifyParallelism(Parallelism p);

/// The degrees of tensor (weight) and data (minibatch) parallelism `p` gives
/// a layer on `columns` x `rows` chips (the torus, or a pipeline stage's
/// rows): model_x_data_y splits the weights over the X columns and the
/// minibatch over the rows; data_x_model_y the other way round; model and
/// data over every chip.
struct ParallelismDegrees {
  int64_t tensor = 1, data = 1;
  bool operator==(const ParallelismDegrees &o) const {
    return tensor == o.tensor && data == o.data;
  }
};
ParallelismDegrees degreesOf(Parallelism p, int64_t columns, int64_t rows);

/// The parallelism whose degrees on `columns` x `rows` chips are `tensor`
/// and `data` (0: either, so long as their product is the chip count), as a
/// user names a strategy (the pass options tensor= and data=). An error
/// lists the degrees the chips offer when none matches, and asks for
/// parallelism= when two do (a square stage).
llvm::Expected<Parallelism> parallelismOfDegrees(int64_t columns, int64_t rows,
                                                 int64_t tensor, int64_t data);

/// What one torus direction partitions in a parallelism (for relayouts).
enum class TorusRole { Minibatch, Features };
TorusRole roleAlongX(Parallelism p);
TorusRole roleAlongY(Parallelism p);

/// How the PE array of a core (rows x columns of PEs, each a SIMD array of
/// MACs) takes its ArrayD work: `rowDim` is laid across the rows in chunks of
/// `rowTile`, `colDim` across the columns (times the SIMD width) in chunks of
/// `colTile`; the other dimensions stream through in time.
struct ArrayMapping {
  Dim rowDim = Dim::Out;
  Dim colDim = Dim::IJ;
  int64_t rowTile = 1;
  int64_t colTile = 1;

  /// ArrayD: the work on the array at once (1 along the streamed dims).
  DimSizes arrayD() const;
  bool operator==(const ArrayMapping &o) const {
    return rowDim == o.rowDim && colDim == o.colDim && rowTile == o.rowTile &&
           colTile == o.colTile;
  }
};

/// The memory optimizations of DeepSpatialMatrix §III a configuration uses:
/// which data stay in the cores' scratchpads instead of going back to external
/// memory, and the memory savers and stage of a training plan. Each field
/// belongs to a record of DecisionRecords.cpp, which names it and says how
/// it reads: a new decision is a field here, one in its record, and the
/// add-on that decides it.
struct MemoryDecision {
  /// Kernel/weight reuse across timesteps (DeepSpatialMatrix §III-B2): an
  /// LSTM's FWD or BWD fetches its weights in the first timestep and keeps the
  /// cores' shares in their scratchpads for the others (once per direction).
  bool weightsAcrossSteps = false;
  /// Activation reuse (DeepSpatialMatrix §III-B1): FWD finds its Input in the
  /// cores' scratchpads, left there by the previous layer (same parallelism),
  /// and does not read it from external memory.
  bool inputOnChip = false;
  /// Error reuse (DeepSpatialMatrix §III-B1, the backward mirror): BWD and UPD
  /// find the Output's error in the scratchpads, left there by the next layer's
  /// BWD (same parallelism); UPD runs before BWD, so both read it from there.
  bool errorOnChip = false;
  /// Residual shortcut retention (DeepSpatialMatrix §III-B1: "in the case of
  /// residual layers, the outputs may need to be retained longer, as a future
  /// layer may also use the outputs for short-cut addition"): FWD finds the
  /// activations its fused auxiliary computations read (a residual
  /// shortcut) in the cores' scratchpads, kept there since their producer
  /// (same parallelism) several layers earlier, and does not read them from
  /// external memory; the cores keep their whole share of them. In BWD the
  /// error passed back to the shortcut (the Output's error) stays in the
  /// scratchpads, for the block's first layer to add to the error it
  /// computes, instead of going to external memory.
  bool shortcutOnChip = false;
  /// With shortcutOnChip: the shortcut's producer, this layer and every
  /// layer in between run as one DySM group (DeepSpatialMatrix §III-C: "We
  /// execute the first S_mb, but instead of completing the next S_mb, we
  /// proceed to the next layer"), all with this layer's DySM factor, so the
  /// cores hold the shortcut (BWD: its error) of one spatial minibatch at a
  /// time, not of all of them.
  bool shortcutPerSpatialMinibatch = false;
  /// The other half of activation reuse in inference (DeepSpatialMatrix
  /// §III-B1: "this optimization saves an external memory read and write for
  /// inference"): FWD does not write its Output to external memory, since every
  /// layer that reads it finds it in the scratchpads (the next layer's input, a
  /// kept shortcut) and nothing else needs it (no BWD or UPD, not a result
  /// of the network).
  bool outputOnChip = false;
  /// Dynamic spatial minibatching (DeepSpatialMatrix §III-C): the chip's share
  /// of the minibatch runs as this many spatial minibatches, one after the
  /// other, each through the layer (the DySM factor; 1: off). Smaller working
  /// sets, the kernel fetched once per spatial minibatch, gradients reduced
  /// once.
  int64_t spatialMinibatches = 1;
  /// Weight preloading for inference (DeepSpatialMatrix §III-B2): bytes of this
  /// layer's weights each core holds in its scratchpad from before the
  /// inference job, replicated where cores share weights (CoreD); that part is
  /// never fetched from external memory. At most the core's share of the
  /// weights; the space is taken from every layer's working set (the mapper
  /// reserves it). Given to the explorer, it is a budget: each split preloads
  /// as much of its share as fits.
  int64_t preloadedWeightBytes = 0;
  /// Timestep pipelining (DeepSpatialMatrix §III-D): the layer is a stage of
  /// pipe group `pipeGroup` (-1: not pipelined) and runs on the torus rows
  /// [pipeFirstRow, pipeFirstRow + pipeRows), every X column; its
  /// configuration splits the work over those chips only.
  int pipeGroup = -1;
  int64_t pipeFirstRow = 0;
  int64_t pipeRows = 0;
  /// Pipeline parallelism (PipelineParallelism.h): the stage runs the
  /// minibatch as this many microbatches, the configuration splitting one
  /// microbatch's work (1: the whole minibatch at once).
  int64_t microbatches = 1;
  /// With microbatches: the stage runs every forward before every backward
  /// (GPipe), keeping every microbatch's activations; otherwise one forward,
  /// one backward (1F1B).
  bool gpipe = false;
  /// Activation recomputation (StepMemory.h), on a FWD pass: its output is
  /// dropped after the forward half and recomputed before the backward half
  /// reads it; the layer's first backward pass (BWD, else UPD) is charged
  /// the FWD once more.
  bool recomputed = false;
  /// Sharded training state (ZeRO stage 2, StepMemory.h), on a FWD pass of a
  /// layer with parameters: each chip keeps the gradient and optimizer state
  /// of its shard of them only.
  bool shardedState = false;
  /// Sharded weights (ZeRO stage 3, StepMemory.h), on a FWD pass of a layer
  /// with parameters (with shardedState): each chip keeps a 1/chips shard of
  /// them, and the FWD and BWD passes first gather the chip's share
  /// (PerformanceModel::weightGather).
  bool shardedWeights = false;
  /// Sharded optimizer state (ZeRO stage 1, Megatron-LM's distributed
  /// optimizer; StepMemory.h), on a FWD pass of a layer with parameters,
  /// without shardedState: each chip keeps the optimizer state of its
  /// shard of them only, but the whole gradient of its share. Named only:
  /// it moves what stage 2 moves and holds more.
  bool shardedOptimizer = false;
  /// Offloaded optimizer state (ZeRO-Offload, StepMemory.h), on a FWD pass
  /// of a layer with parameters (with shardedState): the chip's shard of the
  /// optimizer state lives in host memory, and the UPD sends the gradient
  /// shard to the host and takes the updated weights back
  /// (PerformanceModel::hostUpdate).
  bool offloadedState = false;

  bool pipelined() const { return pipeGroup >= 0; }
  /// Field by field, as the records list them (DecisionRecords.h).
  bool operator==(const MemoryDecision &o) const;
  bool operator!=(const MemoryDecision &o) const { return !(*this == o); }
};

/// The chips a configuration uses: a block of `rows` torus rows by
/// `columns` torus columns (ChipBlocks.h), the rest of the torus idle. The
/// default, 0 x 0, is the whole torus.
struct ChipBlock {
  int64_t rows = 0;
  int64_t columns = 0;

  bool whole() const { return rows == 0 && columns == 0; }
  bool operator==(const ChipBlock &o) const {
    return rows == o.rows && columns == o.columns;
  }
  bool operator!=(const ChipBlock &o) const { return !(*this == o); }
};

/// One point of the design space.
struct MappingConfig {
  Parallelism parallelism = Parallelism::Data;
  /// Where on the torus the work runs; the splits below cover its chips.
  ChipBlock block;
  DimSizes chipSplit = {1, 1, 1, 1, 1}; ///< factors; product = chips
  DimSizes coreSplit = {1, 1, 1, 1, 1}; ///< factors; product = cores
  ArrayMapping array;
  MemoryDecision memory;
};

/// The links of DeepSpatialMatrix Fig. 5, and a chip's link to its host
/// where the system declares one (HostLinkSpec).
enum class Link { MemoryBus = 0, OnChip, TorusX, TorusY, Host };
constexpr int kNumLinks = 5;
llvm::StringRef stringifyLink(Link link);

/// Simultaneous data transfers: bytes carried by each link (per chip); the
/// group takes as long as its slowest link (DeepSpatialMatrix §II-D), each
/// link its bytes and, on the network, its collectives' steps at the
/// dimension's latency.
struct TransferGroup {
  std::string name; ///< e.g. "fetch_inp+fetch_ker+write_out", "grad_reduce"
  bool overlapped = false;
  std::array<double, kNumLinks> bytes = {};
  /// Steps each link's transfers run one after another (Collectives.h).
  std::array<double, kNumLinks> steps = {};
  double cycles = 0;
  Link bottleneck = Link::MemoryBus;
};

/// The categories of DeepSpatialMatrix Fig. 13, in the paper's terms. One
/// vocabulary for the code, the #dsm.cycles attribute, the report table and its
/// JSON: each category's name is stringifyCycleCategory's.
///   PriComp  = Useful + Underuse (the PE array's time on the work)
///   TotCy    = MAX(PriComp, Ovldt) + AuxComp + NonOvldt
///            = Useful + Underuse + OvldtVisible + NonOvldt + AuxComp
enum class CycleCategory {
  Useful,       ///< PE array busy on useful MACs
  Underuse,     ///< rest of PriComp: under-use due to data-flow, uneven splits,
                ///< startup
  OvldtVisible, ///< overlapped transfers (Ovldt) not hidden by PriComp
  NonOvldt,     ///< non-overlapped transfers (relayouts included)
  AuxComp,      ///< auxiliary computations on the special-function units
};
constexpr int kNumCycleCategories = 5;
/// "useful", "underuse", "ovldt_visible", "non_ovldt", "aux_comp".
llvm::StringRef stringifyCycleCategory(CycleCategory category);

/// The most cycles a plan may count: recorded as 64-bit integers (#dsm.cycles),
/// with headroom for sums.
constexpr double kMaxCycles = 4611686018427387904.0; // 2^62

/// Cycle breakdown of one layer and pass, by CycleCategory; the categories
/// add up to `total`.
struct CycleBreakdown {
  double useful = 0;
  double underuse = 0;
  double ovldtVisible = 0;
  double nonOvldt = 0;
  double auxComp = 0;
  double total = 0;

  /// PriComp of DeepSpatialMatrix §II-D: the PE array's time, useful or not.
  double priComp() const { return useful + underuse; }
  double get(CycleCategory category) const;
  CycleBreakdown &operator+=(const CycleBreakdown &o);
};

/// The cycles of running a FWD pass again to recompute its output
/// (activation recomputation, StepMemory.h): its MACs are no useful work the
/// second time (the model's FLOPs count once), so they count as under-use.
CycleBreakdown recomputationCycles(CycleBreakdown forward);

/// The performance model's verdict on one configuration.
struct Evaluation {
  MappingConfig config;
  CycleBreakdown cycles;
  double ovldt =
      0; ///< Ovldt: all overlapped transfers, before PriComp hides them
  std::vector<TransferGroup> transfers;
  double macs = 0;
  /// Fraction of the system's MAC-cycles doing useful work.
  double utilization = 0;
  /// Scratchpad bytes the configuration needs per core.
  double scratchpadBytes = 0;
};

/// Appends `more` to `groups`, merging groups of the same name (transfers of
/// two computations that run one after the other: bytes and cycles add up).
void mergeTransfers(std::vector<TransferGroup> &groups,
                    const std::vector<TransferGroup> &more);

/// ChipD or CoreD sizes: ceil(sizes / split), dimension by dimension.
DimSizes splitSizes(const DimSizes &sizes, const DimSizes &split);
int64_t product(const DimSizes &sizes);

} // namespace dsm::core

#endif // DSM_CORE_SPATIAL_MAPPING_H
