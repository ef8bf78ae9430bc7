//===- MappingProblem.h - What the spatial mapper solves --------*- C++ -*-===//
//
// The spatial mapper as problem -> solve -> plan (SpatialMapper.h): a
// MappingProblem holds what is given -- the layer graph, the cost model, the
// options -- and the vocabulary the solver speaks: the options a layer may
// take (a parallelism with a DySM factor) and the data a pass may find on
// chip. Every exploration the solver asks for lives in one ExplorationTable
// keyed by (layer, pass, option, OnChip), memoized by layer shape, so two
// layers of equal shape are explored once.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SPATIAL_MAPPINGPROBLEM_H
#define DSM_CORE_SPATIAL_MAPPINGPROBLEM_H

#include "dsm/Core/Spatial/DesignSpaceExplorer.h"
#include "dsm/Core/Spatial/LayerGraph.h"
#include "dsm/Core/Spatial/PipelineParallelism.h"
#include "dsm/Core/Spatial/StepMemory.h"
#include "dsm/Core/Support/Executor.h"
#include "dsm/Core/Support/Progress.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"

#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace dsm::core {

/// The cycles to beat while no plan is in hand (MappingProblem::cyclesToBeat).
constexpr double kNoPlanYet = std::numeric_limits<double>::infinity();

struct MapperOptions {
  SearchMode search = SearchMode::Heuristic;
  /// A plan must take fewer cycles than this to be returned (a caller that
  /// compares plans on several networks: mapOnRegroupings): the strategies
  /// that cannot are cut short, and the mapping fails when none can.
  double cyclesToBeat = kNoPlanYet;
  /// The parallelisms layers may use (those the torus offers among them);
  /// empty means all. One entry forces it on every layer; {Data, Model} is
  /// the symmetric-torus baseline of DeepSpatialMatrix Fig. 11.
  std::vector<Parallelism> parallelisms;
  /// A parallelism named for every layer (the pass option parallelism=): a
  /// layer takes it, or falls back to the allowed ones where it cannot split
  /// the layer over the chips (PerformanceModel::chipSplit, every pass the
  /// layer runs) whatever the minibatch, or where the layer has no minibatch
  /// to split (a position embedding). A minibatch too small for it (a
  /// pipeline's microbatch) leaves the layer no legal mapping.
  std::optional<Parallelism> namedParallelism;
  /// Kernel/weight reuse across LSTM timesteps (DeepSpatialMatrix §III-B2),
  /// decided per layer and pass by the explorer (MappingConfig::memory).
  bool reuseWeightsAcrossSteps = false;
  /// Activation reuse (DeepSpatialMatrix §III-B1): a layer whose only
  /// consumer comes next and uses the same parallelism leaves its output in
  /// the scratchpads, and the consumer's FWD does not read it from external
  /// memory. Chosen jointly with the parallelisms (the saving is an edge
  /// term of the selection) and recorded as MemoryDecision::inputOnChip.
  /// Also enables keeping residual shortcuts (and their errors) on chip.
  bool reuseActivations = false;
  /// Dynamic spatial minibatching (DeepSpatialMatrix §III-C): a layer may
  /// run its chips' minibatch shares as 2, 4 or 8 spatial minibatches,
  /// chosen jointly with the parallelisms (reuse between two layers needs
  /// the same factor) and recorded as MemoryDecision::spatialMinibatches.
  bool spatialMinibatching = false;
  /// Weight preloading for inference (DeepSpatialMatrix §III-B2): part of
  /// every core's scratchpad holds weights from before the job, the layers
  /// most sensitive to fetching weights first; the reservation is swept and
  /// the best plan kept (MemoryDecision::preloadedWeightBytes). No effect in
  /// training, whose weights change every step.
  bool preloadWeights = false;
  /// Timestep pipelining (DeepSpatialMatrix §III-D): runs of unidirectional
  /// LSTM layers become pipe groups on blocks of torus rows when the network
  /// is faster so than with them one after another on the whole torus.
  /// Chosen with the other layers' parallelisms: every set of candidate
  /// groups (up to eight; beyond, one group at a time) is priced with the
  /// selection of the rest (MemoryDecision::pipeGroup).
  bool pipelineTimesteps = false;
  /// Plans on part of the torus (ChipBlocks.h): the network may run on a
  /// block of the torus, the other chips idle, when no plan splits every
  /// layer over every chip or a block's plan is faster. Off, every layer
  /// splits over every chip, as in DeepSpatialMatrix.
  bool chipBlocks = false;
  /// Pipeline parallelism (PipelineParallelism.h): runs of layers as stages
  /// on blocks of torus rows with microbatches, where the fastest plan over
  /// the whole torus needs memory savers or does not fit.
  bool pipelineStages = false;
  /// A pipeline the user names instead of the search (PipelineParallelism.h):
  /// the plan is that pipeline, or none when it does not divide or fit.
  GivenPipeline givenPipeline;
  /// Told of every (layer, pass, parallelism) exploration done, in steps of
  /// those planned, and asked before each -- and in the solver's longer
  /// loops -- whether to stop; stopped, map() fails with an
  /// InterruptedError (a partial plan is no plan).
  Progress *progress = &Progress::none();
  /// The optimizer whose state a training step keeps per parameter
  /// (StepMemory.h). A plan whose parameters, gradients, optimizer state and
  /// activations need more memory than a chip has is re-selected with every
  /// byte of parameters priced (CapacityFit in lib/Spatial/CapacityFit.cpp).
  Optimizer optimizer = Optimizer::Adam;
  /// The memory savers chosen where plans need them, or named (StepMemory.h).
  SaverChoices savers;
  /// Training: each layer keeps its saved activations as under Megatron-LM's
  /// sequence parallelism (ActivationKeeping::sequenceParallel), named by
  /// the user. Its collectives carry what tensor parallelism's all-reduces
  /// did (an all-gather and a reduce-scatter of the same volume), so no
  /// cycles change.
  bool sequenceParallel = false;
};

/// What a pass finds in the cores' scratchpads instead of external memory
/// (DeepSpatialMatrix §III-B1, §III-C). "Own" data is a FWD pass's input
/// (activation reuse) or a BWD/UPD pass's output error (error reuse); a
/// shortcut is a residual shortcut a FWD pass adds, or in BWD the error it
/// passes back to it; "spatial" shortcuts are those of one spatial minibatch
/// (the residual block runs as one DySM group).
enum class OnChip : uint8_t {
  Nothing,
  Own,
  Shortcut,
  OwnAndShortcut,
  SpatialShortcut,
  OwnAndSpatialShortcut,
};
constexpr int kNumOnChip = 6;

/// The memory decisions of `pass` finding `what` on chip.
MemoryDecision onChipDecision(OnChip what, TrainingPass pass);

/// The cost of `pass` of `shape` under `config` as the mapper records it
/// (PassPlan::eval): the model's evaluation and, for the BWD of an
/// activation x activation product, the half that computes the second
/// operand's error. nullopt (with `whyNot`) when the configuration is illegal.
std::optional<Evaluation> evaluateMappedPass(const PerformanceModel &model,
                                             const LayerShape &shape,
                                             TrainingPass pass,
                                             const MappingConfig &config,
                                             std::string *whyNot = nullptr);

/// The problem of one mapping: a graph whose edges go forward, a cost model
/// and the options. `preloadBudgets`, when not empty, caps each layer's
/// preloaded weight bytes per core (weight preloading, SpatialMapper.h).
class MappingProblem {
public:
  /// Checks `graph` and the options against `model` first: every edge goes
  /// forward, some allowed parallelism is available.
  static llvm::Expected<MappingProblem>
  create(const PerformanceModel &model, const LayerGraph &graph,
         const MapperOptions &options, llvm::ArrayRef<int64_t> preloadBudgets);

  const PerformanceModel &model() const { return *costModel; }
  const LayerGraph &graph() const { return *layerGraph; }
  const MapperOptions &options() const { return *mapperOptions; }
  llvm::ArrayRef<int64_t> preloadBudgets() const { return budgets; }
  /// The cycles of a plan found already (the driver's incumbent,
  /// lib/Spatial/MappingDriver.h): a plan that would need memory savers is
  /// not priced when even its unpriced selection takes longer (kNoPlanYet:
  /// none).
  double cyclesToBeat() const { return toBeat; }
  void setCyclesToBeat(double cycles) { toBeat = cycles; }
  /// Microbatches whose activations a chip keeps at once (a pipeline
  /// stage's, PipelineParallelism.h; 1 otherwise); 0: the plan's memory is
  /// not counted and capacity not enforced (a profile of the layers' costs).
  int64_t activationCopies() const { return copies; }
  void setActivationCopies(int64_t microbatches) { copies = microbatches; }
  /// The microbatches a training step runs through these layers one after
  /// another (a pipeline stage's, gradient accumulation's; 1 otherwise):
  /// the selection prices what a pass spends once a step (the UPD's
  /// gradient reduction, oncePerStepCycles) at its share of one of them,
  /// as the step pays it.
  int64_t stepMicrobatches() const { return stepParts; }
  void setStepMicrobatches(int64_t microbatches) { stepParts = microbatches; }
  /// Whether a plan that does not fit gets memory savers (CapacityFit).
  /// False: the plan as selected, with the savers the user named and the
  /// free one (the state sharded, which changes no cycles), fitting or not
  /// -- the fastest plan, which SpatialMapper maps first to decide whether
  /// pipelines are priced before the savers.
  bool choosesSavers() const { return chooseSavers; }
  void setChoosesSavers(bool choose) { chooseSavers = choose; }
  size_t numLayers() const { return layerGraph->layers.size(); }
  const LayerNode &layer(int i) const { return layerGraph->layers[i]; }
  const LayerEdge &edge(int e) const { return layerGraph->edges[e]; }
  /// Whether no layer runs a backward pass.
  bool inferenceOnly() const { return inference; }

  /// A layer's options: every parallelism with every DySM factor (1 alone
  /// without dynamic spatial minibatching), numbered factor-major.
  int numOptions() const { return kNumParallelisms * int(factors.size()); }
  Parallelism parallelismOf(int option) const {
    return Parallelism(option % kNumParallelisms);
  }
  int64_t factorOf(int option) const {
    return factors[option / kNumParallelisms];
  }
  /// The parallelisms layers may use (allowed and available).
  llvm::ArrayRef<Parallelism> parallelisms() const {
    return allowedParallelisms;
  }
  /// Whether `layer` may take `option`: its parallelism is allowed (and is
  /// the named one where the layer can take that), and, for a DySM factor
  /// above 1, the layer has a primary computation that does
  /// not step through time (DySM divides the feature-dominant layers).
  /// Inline: asked of every option of every pass of every layer.
  bool usable(int layer, int option) const {
    if (!allowed[option] ||
        (named[layer] && parallelismOf(option) != *named[layer]))
      return false;
    const LayerShape &shape = layerGraph->layers[layer].shape;
    return factorOf(option) == 1 || (shape.hasPrimary && shape.timesteps == 1);
  }
  /// The options `layer` may take, a bit each (1 << option); those of them
  /// with a DySM factor above 1 (a DySM group's).
  uint64_t usableOptions(int layer) const;
  uint64_t groupingOptions(int layer) const;
  /// Whether `option`'s parallelism is allowed (whatever the layer).
  bool allowedOption(int option) const { return allowed[option]; }

  /// Edges into and out of each layer (indices into graph().edges).
  llvm::ArrayRef<int> incoming(int layer) const { return in[layer]; }
  llvm::ArrayRef<int> outgoing(int layer) const { return out[layer]; }

  /// Bytes of a core's scratchpad.
  double scratchpadCapacity() const { return capacity; }
  /// A core's share of a tensor spread over every core of the system.
  double shareOfEveryCore(double elements) const;

private:
  MappingProblem() = default;

  const PerformanceModel *costModel = nullptr;
  const LayerGraph *layerGraph = nullptr;
  const MapperOptions *mapperOptions = nullptr;
  llvm::ArrayRef<int64_t> budgets;
  double toBeat = kNoPlanYet;
  int64_t copies = 1;
  int64_t stepParts = 1;
  bool chooseSavers = true;
  bool inference = false;
  std::vector<int64_t> factors;
  std::vector<Parallelism> allowedParallelisms;
  std::vector<bool> allowed; ///< per option
  /// Per layer, the named parallelism when the layer takes it.
  std::vector<std::optional<Parallelism>> named;
  std::vector<std::vector<int>> in, out;
  double capacity = 0, coresInSystem = 1;
};

/// Explorations run over one mapping, reported to the options' Progress
/// (SpatialMapper.h) from whichever thread ran them. Also polled by the
/// solver's longer loops, so that an interrupt stops a mapping anywhere.
class ExplorationProgress {
public:
  ExplorationProgress(Progress &sink, int64_t mappings)
      : sink(sink), mappings(mappings) {}

  /// Called with the explorations of each mapping before they run; the
  /// total is the first mapping's times the mappings planned (an estimate
  /// when they differ, so `done` is capped below it until the end).
  void plan(size_t explorations);
  /// Whether to stop: the sink asked to (once asked, always).
  bool shouldStop();
  void explored();
  void finish();
  bool wasStopped() const { return stopped; }
  llvm::Error makeError() const;

private:
  Progress &sink;
  int64_t mappings;
  std::mutex mutex;
  int64_t done = 0, total = 0;
  bool stopped = false;
};

/// Explorations kept across the mappings of a weight-preloading sweep, whose
/// cost models differ only in a scratchpad that never grows (SpatialMapper):
/// a best configuration found with a larger scratchpad that fits the smaller
/// one is the best there too -- the search's best over a subset that
/// contains it -- so it is reused instead of searched again. Told the
/// scratchpads the sweep will map with, an exploration finds the best with
/// each smaller one in the same search (DesignSpaceExplorer::
/// exploreCapacities), kept for the mappings to come.
class ExplorationMemo {
public:
  /// (shape, pass, parallelism, what, factor) and the preload bytes.
  using Key = std::pair<uint64_t, int64_t>;
  /// The scratchpads (bytes per core) of the mappings to come.
  void expectCapacities(std::vector<double> capacities);
  /// Those smaller than `capacity`, largest first.
  std::vector<double> expectedBelow(double capacity) const;
  /// The result kept for `key` if it holds with `capacity` bytes of
  /// scratchpad (nullptr: explore): one found with that scratchpad, or
  /// with a larger one whose best fits.
  std::shared_ptr<const ExplorationResult> find(Key key, double capacity) const;
  void store(Key key, double capacity,
             std::shared_ptr<const ExplorationResult> result);
  /// The memo's number of `shape`: tables number shapes their own way, the
  /// memo by the shapes it has seen.
  uint64_t numberOf(const LayerShape &shape);
  /// The memo's key of an ExplorationTable's key for a layer whose shape
  /// the memo numbers `shapeNumber`.
  static Key keyOf(Key tableKey, uint64_t shapeNumber);
  /// DesignSpaceExplorer::largestWeightShare of the shape numbered
  /// `shapeNumber` (it does not depend on the scratchpad): `compute`d once.
  int64_t largestWeightShare(uint64_t shapeNumber, TrainingPass pass,
                             Parallelism parallelism, int64_t factor,
                             llvm::function_ref<int64_t()> compute);

private:
  llvm::StringMap<uint64_t> shapes;
  struct Entry {
    double capacity;
    /// The result's best's scratchpad bytes (infinity: no best), kept here
    /// so that a search for a smaller capacity reads no result.
    double bestBytes;
    std::shared_ptr<const ExplorationResult> result;
  };
  /// Per key, a result per scratchpad explored with.
  llvm::DenseMap<Key, std::vector<Entry>> entries;
  /// Per (shape number, pass, parallelism, DySM factor), packed as an
  /// ExplorationTable's key is.
  llvm::DenseMap<uint64_t, int64_t> largestShares;
  std::vector<double> expected; ///< largest first
};

/// The explorations a mapping asks for and their results: at most one per
/// (layer, pass, option, OnChip), run once per distinct layer shape.
class ExplorationTable {
public:
  /// With a `memo`, results it holds for this scratchpad are taken from it,
  /// and the others kept in it.
  explicit ExplorationTable(const MappingProblem &problem,
                            ExplorationMemo *memo = nullptr);

  /// Asks for the exploration of `pass` of `layer` under `option` finding
  /// `what` on chip (with the layer's preload budget in FWD). Asking again,
  /// for this layer or one of equal shape, is served from the memo.
  void request(int layer, TrainingPass pass, int option, OnChip what);
  /// request() under every option `layer` may take (MappingProblem::
  /// usable), in their order: the layer's row looked up once, not once
  /// per option (a mapping asks this of every pass of every layer).
  void requestUsable(int layer, TrainingPass pass, OnChip what);
  /// request() under each option `options` has a bit set for (1 << option),
  /// in their order, as requestUsable.
  void requestOptions(int layer, TrainingPass pass, OnChip what,
                      uint64_t options);

  /// Runs every exploration asked for on `executor`; each result is the
  /// same whatever the executor. Fails with an InterruptedError when
  /// `progress` is told to stop.
  llvm::Error run(Executor &executor, ExplorationProgress &progress);

  /// The exploration of (layer, pass, option, what); nullptr if never asked.
  const ExplorationResult *find(int layer, TrainingPass pass, int option,
                                OnChip what = OnChip::Nothing) const;
  /// Its best evaluation; nullptr if never asked or nothing was legal.
  const Evaluation *best(int layer, TrainingPass pass, int option,
                         OnChip what = OnChip::Nothing) const;
  /// The best evaluation of (layer, pass, what) under each option, as
  /// best() gives them; empty if none was asked for.
  llvm::ArrayRef<const Evaluation *> bests(int layer, TrainingPass pass,
                                           OnChip what) const;

  /// Once run, layers that asked alike (of one shape, the same options and
  /// kinds of reuse: a network's repeated blocks) share their rows: the
  /// number of (layer, pass, what)'s row, -1 if none was asked for, keys
  /// what is figured from its bests (fewer than the number of rows).
  int32_t rowNumber(int layer, TrainingPass pass, OnChip what) const {
    return rowOf[layer][int(pass) * kNumOnChip + int(what)];
  }
  /// Every row number of `layer`, by pass then what.
  llvm::ArrayRef<int32_t> rowNumbers(int layer) const { return rowOf[layer]; }
  size_t numRows() const { return slots.size() / size_t(problem.numOptions()); }

  /// Searches run, and requests served instead by the shape memo or by
  /// the sweep's ExplorationMemo.
  uint64_t explorations() const { return explored; }
  uint64_t memoized() const {
    return memoizedRequests + (tasks.size() - explored);
  }
  uint64_t configurationsEvaluated() const;

private:
  struct Task {
    int layer;
    TrainingPass pass;
    Parallelism parallelism;
    MemoryDecision memory;
    ExplorationMemo::Key key;
    /// Whether a sweep's later mappings may ask for it again: nothing
    /// preloaded, or everything (a budget above every share).
    bool recurs;
  };
  int32_t &slot(int layer, TrainingPass pass, int option, OnChip what);
  int32_t lookUp(int layer, TrainingPass pass, int option, OnChip what) const;
  /// The memo's number of `layer`'s shape.
  uint64_t memoShapeNumber(int layer);
  /// Makes equal rows of slots one (run() does, once every request is in).
  void shareEqualRows();

  const MappingProblem &problem;
  ExplorationMemo *memo;
  DesignSpaceExplorer explorer;
  /// DySM factors 1, 2, 4 and 8, by their logarithm.
  static constexpr size_t kFactorBitValues = 4;
  /// Per (shape, parallelism, DySM factor) of a FWD pass: the largest
  /// weight share of a core (DesignSpaceExplorer::largestWeightShare), -1
  /// until asked for.
  std::vector<int64_t> largestShare;
  /// Per layer: the row of option slots of each (pass, OnChip), -1 if none.
  std::vector<std::array<int32_t, kNumPasses * kNumOnChip>> rowOf;
  std::vector<int32_t> slots; ///< rows of numOptions task indices
  bool rowsShared = false;    ///< by layers that asked alike, once run
  /// Per row, while requests come: whether layers still to ask may take it
  /// (requestOptions), so that writing to it copies it first.
  std::vector<bool> rowIsTemplate;
  /// Per (shape, pass, what): the row requestOptions made last, and the
  /// options it asked for (a bit each).
  struct Template {
    int32_t row = -1;
    uint64_t options = 0;
  };
  std::vector<Template> templateOf;
  /// Per slot, once run: its task's best (nullptr: none), read without
  /// going through the task (the add-ons ask for bests most).
  std::vector<const Evaluation *> bestOfSlot;
  std::vector<int32_t> shapeOf; ///< per layer: a number per distinct shape
  /// Per table shape: the memo's number, once asked for.
  std::vector<std::optional<uint64_t>> memoShapeOf;
  /// The task of each key: layers of equal shape share it.
  llvm::DenseMap<ExplorationMemo::Key, int32_t> taskOfKey;
  /// Without preload budgets: the task of each (shape, pass, option,
  /// what), -1 until asked for.
  std::vector<int32_t> taskOfRequest;
  std::vector<Task> tasks;
  /// Per task: its result, shared with the sweep's memo, and whether the
  /// memo served it.
  std::vector<std::shared_ptr<const ExplorationResult>> results;
  std::vector<bool> served;
  uint64_t memoizedRequests = 0;
  uint64_t explored = 0;
};

} // namespace dsm::core

#endif // DSM_CORE_SPATIAL_MAPPINGPROBLEM_H
