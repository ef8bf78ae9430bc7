//===- CapacityFit.cpp - Plans that fit a chip's memory -------------------===//
//
// A layer's parameters take a chip's memory according to its parallelism:
// data parallelism keeps them whole on every chip, model parallelism a
// 1/chips share. The selection weighs cycles only, so at scale it picks plans
// no chip can hold (Llama-2-7B training on 64 chips: 107 GB per 8 GB chip).
// When the selected plan does not fit, the memory savers of StepMemory.h
// are tried, the free one first:
//   1. the gradients and optimizer state sharded over the chips that hold
//      copies of each weight (ZeRO stage 2: no added traffic);
//   2. then plans priced in tiers, the cheaper savers first, the fastest
//      plan that fits of every tier kept: without and with activations
//      recomputed -- the attention cores (selective), or the segments that
//      leave the fewest alive -- each recomputed layer's FWD added to its
//      costs; then all again with
//      the weights sharded too (ZeRO stage 3: each pass that reads a
//      layer's weights gathers its share first, added to its costs; where
//      the parameters' price is high, faster than the cheaper tier's plan).
//      In each, every byte of parameters (with its state) is priced in
//      cycles and the selection made again; the least price whose plan
//      fits is found by bisection. A tier's candidates go most room for
//      parameters first; the plan found bounds the later searches, which
//      end once the Lagrangian dual shows no plan of theirs beats it.
// Where the system declares a host link, each candidate of a tier comes
// also with its optimizer state offloaded to the host (ZeRO-Offload).
// Savers the user names (MapperOptions::savers) apply first, needed or not,
// and only the others are chosen.
// In training, each layer keeps its saved activations (LayerShape::saved)
// at its option's layout (savedBytesPerChip) from its FWD to its backward
// passes: at the turn of the step all are alive, so a chip holds their sum,
// which is priced with the parameters option by option. The rest -- the
// errors, what earlier pipeline stages send, the network's results and a
// recomputed run brought back -- is a constant of each plan's check. In
// inference, the layers' outputs spread over every chip, from their
// producer to their last reader.
//
//===----------------------------------------------------------------------===//

#include "MappingSolver.h"
#include "dsm/Core/Spatial/PlanBounds.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/SmallVector.h"

#include <cmath>
#include <limits>

using namespace dsm::core;

namespace dsm::core {
struct ChipMemory;
} // namespace dsm::core

namespace {
/// Whole-step memory per chip as a constraint: when the selection's plan
/// needs more memory per chip than a chip has (its parameters under their
/// parallelisms, their gradients and optimizer state in training, and the
/// activations alive at once), the memory savers of StepMemory.h are
/// chosen: the training state sharded (free), then, of the plans with and
/// without activation recomputation, the faster that fits once every byte
/// of parameters a chip holds is given a price in cycles, found by
/// bisection, and the selection made again (a Lagrangian relaxation of the
/// capacity: it fits, it is not proven the cheapest plan that fits). The
/// price and the recomputations stay in state.layerCost, so the revisions
/// after keep to them. Plans that fit as selected are not touched. Writes
/// properties.memoryConstrained.
class CapacityFit : public MappingAddOn {
public:
  CapacityFit();
  ~CapacityFit() override;
  llvm::Error boundBeforeSelection(const MappingState &state) override;
  llvm::Error reviseChoice(MappingState &state, Executor &executor) override;
  /// Records the plan's memory per chip and the savers on its passes.
  bool refinePlan(MappingState &state) override;

private:
  /// What a chip holds, under the savers chosen.
  std::unique_ptr<ChipMemory> memory;
};
} // namespace

std::unique_ptr<MappingAddOn> dsm::core::makeCapacityFit() {
  return std::make_unique<CapacityFit>();
}

/// What a chip holds per layer and option, and what it holds anyway, under
/// the memory savers chosen.
struct dsm::core::ChipMemory {
  /// Parameter elements a chip holds per (layer, option); 0 where the
  /// option is unusable. The same under every saver: the candidates share
  /// one table (on 130,000 layers, 40 MB each). Null where no explorations
  /// tell them (stepMemoryOf): the *Of members take the elements instead.
  std::shared_ptr<const std::vector<std::vector<double>>> elementsTable;
  double parameterElements(size_t layer, int option) const {
    return (*elementsTable)[layer][size_t(option)];
  }
  /// Per layer: its parameters, whose state a chip shares out when sharded.
  std::vector<double> parameters;
  double elementBytes = 0;
  /// Training: bytes of gradient and optimizer state per element; 0 in
  /// inference.
  double gradientBytes = 0, optimizerBytes = 0;
  double chips = 1;
  double capacity = 0;
  /// Host memory the chip may fill (its host link's; 0: none declared).
  double hostCapacity = 0;
  /// Microbatches whose activations the chip keeps at once (a pipeline
  /// stage's; 1 otherwise): each activation counts that many times.
  double copies = 1;
  /// The activations (producer order) and the layer producing each; the
  /// errors and the activations received from earlier pipeline stages,
  /// never recomputed, over the step.
  std::vector<ActivationUse> activations;
  std::vector<int> producerOf;
  LiveBytes errorsAndReceived{0};

  /// Training: per (layer, option), the bytes a chip keeps for one
  /// microbatch of the layer's saved activations, and of its saved inputs
  /// alone (the checkpoint of a recomputed run it starts); per layer, the
  /// least of each over its options. Null where no
  /// explorations tell the layouts (stepMemoryOf), or in inference.
  struct KeptTables {
    std::vector<std::vector<double>> saved, checkpoint;
    std::vector<double> least, leastCheckpoint;
  };
  std::shared_ptr<const KeptTables> kept;

  /// The savers.
  bool shardState = false, shardWeights = false, offloadState = false;
  /// ZeRO stage 1 (named only): the optimizer state sharded, not the
  /// gradients.
  bool shardOptimizer = false;
  std::vector<bool> recomputed;
  /// Per layer: recomputed, and the first of its run (keeps its checkpoint).
  std::vector<bool> startsRun;
  /// Per layer: the first of a repeated block (LayerGraph::blockStarts). A
  /// recomputed run ends with its block: each block keeps its checkpoint.
  std::vector<bool> blockStart;
  bool opensRun(const std::vector<bool> &layers, size_t i) const {
    return layers[i] && (i == 0 || !layers[i - 1] || blockStart[i]);
  }
  /// The peak of the tensors alive at once besides the saved activations
  /// (all of them in inference), under the savers.
  double activationBytes = 0;
  /// That and the saved activations at each layer's least: what comparing
  /// recomputations goes by.
  double leastActivationBytes = 0;

  double weightElements(size_t layer, int option) const {
    return weightElementsOf(parameterElements(layer, option),
                            parameters[layer]);
  }
  double stateElements(size_t layer, int option) const {
    return stateElementsOf(parameterElements(layer, option), parameters[layer]);
  }
  /// Of a layer of `layerParameters` whose option holds `elements` of them
  /// on a chip.
  HeldParameters heldOf(double elements, double layerParameters) const {
    return heldParameters(elements, layerParameters, chips, shardWeights,
                          shardState, shardOptimizer);
  }
  double weightElementsOf(double elements, double layerParameters) const {
    return heldOf(elements, layerParameters).weights;
  }
  double stateElementsOf(double elements, double layerParameters) const {
    return heldOf(elements, layerParameters).state;
  }
  double optimizerElements(size_t layer, int option) const {
    return heldOf(parameterElements(layer, option), parameters[layer])
        .optimizer;
  }
  /// The optimizer state a chip keeps on chip (none when offloaded).
  double chipOptimizerBytes() const {
    return offloadState ? 0 : optimizerBytes;
  }
  double parameterBytes(size_t layer, int option) const {
    return parameterBytesOf(parameterElements(layer, option),
                            parameters[layer]);
  }
  /// The saved activations a chip keeps of `layer` at `option`, for the
  /// microbatches in flight.
  double keptBytes(size_t layer, int option) const {
    if (!kept)
      return 0;
    if (!recomputed[layer])
      return kept->saved[layer][size_t(option)] * copies;
    return startsRun[layer] ? kept->checkpoint[layer][size_t(option)] * copies
                            : 0;
  }
  /// What a layer's option takes that the selection can change: its
  /// parameters (with their state) and its saved activations.
  double layerBytes(size_t layer, int option) const {
    return parameterBytes(layer, option) + keptBytes(layer, option);
  }
  double parameterBytesOf(double elements, double layerParameters) const {
    const HeldParameters held = heldOf(elements, layerParameters);
    return held.weights * elementBytes + held.state * gradientBytes +
           held.optimizer * chipOptimizerBytes();
  }
  /// The optimizer state a chip offloads to its host: its shard's.
  double hostBytes() const {
    if (!offloadState)
      return 0;
    double elements = 0;
    for (double p : parameters)
      elements += p / chips;
    return elements * optimizerBytes;
  }
  /// With sharded weights: the largest share a pass gathers at once.
  double bufferBytes(llvm::ArrayRef<int> choice) const {
    double largest = 0;
    if (shardWeights)
      for (size_t i = 0; i < choice.size(); ++i)
        largest =
            std::max(largest, parameterElements(i, choice[i]) * elementBytes);
    return largest;
  }
  double of(llvm::ArrayRef<int> choice) const {
    double total = activationBytes + bufferBytes(choice) + runBytes(choice);
    for (size_t i = 0; i < choice.size(); ++i)
      total += layerBytes(i, choice[i]);
    return total;
  }
  bool fits(llvm::ArrayRef<int> choice) const {
    return of(choice) <= capacity && hostBytes() <= hostCapacity;
  }
  /// The most layer bytes (layerBytes summed) of a plan that fits: the
  /// capacity less the activations every plan holds.
  double parameterRoom() const { return capacity - activationBytes; }
  /// The room were each layer's saved activations at their least.
  double leastRoom() const { return capacity - leastActivationBytes; }

  /// The peak of the tensors besides the saved activations were the layers
  /// `layers` marks recomputed.
  double peakRecomputing(const std::vector<bool> &layers) const {
    LiveBytes live = errorsAndReceived;
    addActivationLiveTensors(
        activations, [&](size_t a) { return bool(layers[producerOf[a]]); },
        [&](const LiveTensor &t) { live.add(t); });
    return live.peak();
  }
  /// A recomputed run brought back lives beside them: the largest, one
  /// microbatch of it, at the layers' `bytes(layer)`.
  template <typename Bytes> double largestRun(Bytes &&bytes) const {
    double largest = 0, run = 0;
    if (kept)
      for (size_t i = 0; i < recomputed.size(); ++i) {
        run = !recomputed[i]            ? 0
              : opensRun(recomputed, i) ? bytes(i)
                                        : run + bytes(i);
        largest = std::max(largest, run);
      }
    return largest;
  }
  double runBytes(llvm::ArrayRef<int> choice) const {
    return largestRun(
        [&](size_t i) { return kept->saved[i][size_t(choice[i])]; });
  }
  /// Recomputes the layers `layers` marks, and the peaks under it.
  void recompute(std::vector<bool> layers) {
    recomputed = std::move(layers);
    startsRun.assign(recomputed.size(), false);
    for (size_t i = 0; i < recomputed.size(); ++i)
      startsRun[i] = opensRun(recomputed, i);
    for (size_t a = 0; a < activations.size(); ++a)
      activations[a].recomputed = recomputed[producerOf[a]];
    activationBytes = peakRecomputing(recomputed);
    leastActivationBytes = leastRecomputing(recomputed);
  }
  /// peakRecomputing, the largest run and the saved activations, each
  /// layer's at its least.
  double leastRecomputing(const std::vector<bool> &layers) const {
    double bytes = peakRecomputing(layers);
    if (kept) {
      double largest = 0, run = 0;
      for (size_t i = 0; i < layers.size(); ++i) {
        const bool starts = opensRun(layers, i);
        bytes += (layers[i] ? (starts ? kept->leastCheckpoint[i] : 0)
                            : kept->least[i]) *
                 copies;
        run = !layers[i] ? 0 : starts ? kept->least[i] : run + kept->least[i];
        largest = std::max(largest, run);
      }
      bytes += largest;
    }
    return bytes;
  }

  MemoryPerChip categories(llvm::ArrayRef<int> choice) const {
    MemoryPerChip memory;
    for (size_t i = 0; i < choice.size(); ++i) {
      memory.weights += weightElements(i, choice[i]) * elementBytes;
      memory.gradients += stateElements(i, choice[i]) * gradientBytes;
      memory.optimizer +=
          optimizerElements(i, choice[i]) * chipOptimizerBytes();
    }
    memory.offloaded = hostBytes();
    memory.activations = activationBytes + runBytes(choice);
    for (size_t i = 0; i < choice.size(); ++i)
      memory.activations += keptBytes(i, choice[i]);
    memory.buffers = bufferBytes(choice);
    memory.capacity = capacity;
    memory.hostCapacity = hostCapacity;
    return memory;
  }
};

/// What a chip of `problem` holds, all but the parameter elements of each
/// option, which its explorations tell (chipMemoryOf).
static ChipMemory stepMemoryOf(const MappingProblem &problem) {
  const PerformanceModel &model = problem.model();
  const LayerGraph &graph = problem.graph();
  const size_t n = problem.numLayers();
  const bool training = !problem.inferenceOnly();
  ChipMemory memory;
  memory.elementBytes = model.bytesPerElement();
  if (training) {
    memory.gradientBytes = memory.elementBytes;
    memory.optimizerBytes =
        optimizerBytesPerParameter(problem.options().optimizer);
  }
  memory.chips = double(model.numChips());
  memory.copies = double(problem.activationCopies());
  memory.capacity = model.getSystem().chip.externalMemory.capacityBytes;
  if (const std::optional<HostLinkSpec> &host = model.getSystem().chip.hostLink)
    memory.hostCapacity = host->memoryBytes;
  memory.parameters = graph.heldParameters();
  memory.blockStart.assign(n, false);
  for (int first : graph.blockStarts())
    memory.blockStart[size_t(first)] = true;
  // Activations: each layer's outputs (all its FWD's results, with the
  // union of their readers: at least what the IR count of
  // --dsm-verify-mapping finds) from its FWD to its last reader -- a
  // result of the network to the end of the step -- and in training each
  // error from the BWD that sends it to the passes of its producer, spread
  // over every chip.
  auto share = [&](double elements) {
    return std::ceil(elements / memory.chips) * memory.elementBytes;
  };
  std::vector<double> outputElements(n, 0);
  std::vector<int> lastForward(n, -1), firstReader(n, int(n)),
      lastReader(n, -1);
  for (size_t p = 0; p < n; ++p)
    outputElements[p] = problem.layer(int(p)).outputElements;
  for (const LayerEdge &edge : graph.edges) {
    outputElements[edge.producer] =
        std::max(outputElements[edge.producer], edge.elements);
    lastForward[edge.producer] =
        std::max(lastForward[edge.producer], edge.consumer);
    const LayerNode &consumer = problem.layer(edge.consumer);
    if (consumer.bwd || consumer.upd) {
      firstReader[edge.producer] =
          std::min(firstReader[edge.producer], edge.consumer);
      lastReader[edge.producer] =
          std::max(lastReader[edge.producer], edge.consumer);
    }
  }
  const int end = 2 * int(n);
  memory.errorsAndReceived = LiveBytes(end);
  // In training, a graph whose layers tell what they keep (LayerShape::
  // saved) keeps those instead (chipMemoryOf), and here only the network's
  // results, to the end of the step.
  const bool keepsSaved = training && graph.tellsSavedActivations();
  for (size_t p = 0; p < n; ++p) {
    // (A layer no other reads is the network's too: a pipeline's last
    // stage ends in it.)
    const bool result =
        problem.layer(int(p)).networkOutput ||
        (lastForward[p] < 0 && !problem.layer(int(p)).sentToLaterStage);
    if (outputElements[p] <= 0 || (keepsSaved && !result))
      continue;
    ActivationUse use;
    // Kept for each microbatch in flight; an error lives for one.
    use.bytes = share(outputElements[p]) * memory.copies;
    use.produced = graph.forwardStep(int(p));
    use.lastForward =
        lastForward[p] >= 0 ? graph.forwardStep(lastForward[p]) : use.produced;
    if (lastReader[p] >= 0) {
      use.firstBackward = graph.backwardStep(lastReader[p]);
      use.lastBackward = graph.backwardStep(firstReader[p]);
    }
    if (problem.layer(int(p)).networkOutput || (keepsSaved && result))
      use.lastBackward = end;
    memory.activations.push_back(use);
    memory.producerOf.push_back(int(p));
  }
  // A pipeline stage keeps what earlier stages send it, one copy per
  // microbatch in flight, from the step's start to its reader's backward
  // passes (to its FWD in inference).
  for (size_t c = 0; c < n; ++c) {
    const LayerNode &layer = problem.layer(int(c));
    if (layer.receivedElements <= 0)
      continue;
    int last = layer.bwd || layer.upd ? graph.backwardStep(int(c))
                                      : graph.forwardStep(int(c));
    // What the layer keeps as its saved inputs it counts itself.
    const double received =
        keepsSaved
            ? std::max(layer.receivedElements - layer.shape.saved.inputs, 0.0)
            : layer.receivedElements;
    if (received > 0)
      memory.errorsAndReceived.add({share(received) * memory.copies, 0, last});
    // Its BWD computes the error of what it received, for one microbatch,
    // and sends it back (beside its saved activations, still held then).
    if (keepsSaved && layer.bwd)
      memory.errorsAndReceived.add({share(layer.receivedElements),
                                    graph.backwardStep(int(c)),
                                    graph.backwardStep(int(c))});
  }
  for (const LayerEdge &edge : graph.edges)
    if (edge.carriesError)
      memory.errorsAndReceived.add({share(edge.elements),
                                    graph.backwardStep(edge.consumer),
                                    graph.backwardStep(edge.producer)});
  memory.recompute(std::vector<bool>(n, false));
  return memory;
}

static ChipMemory chipMemoryOf(const MappingState &state) {
  const MappingProblem &problem = state.problem;
  const PerformanceModel &model = problem.model();
  ChipMemory memory = stepMemoryOf(problem);
  std::vector<std::vector<double>> elements(
      problem.numLayers(), std::vector<double>(problem.numOptions(), 0));
  // Layers of one shape share their explorations: one count per evaluation.
  llvm::DenseMap<const Evaluation *, double> perEvaluation;
  for (size_t i = 0; i < problem.numLayers(); ++i) {
    const LayerShape &shape = problem.layer(int(i)).shape;
    if (shape.params <= 0 || !(memory.parameters[i] > 0))
      continue;
    // The layer's share of the parameters it holds (not those an earlier
    // layer holds for it).
    const double held = memory.parameters[i] / shape.params;
    for (int o = 0; o < problem.numOptions(); ++o)
      if (const Evaluation *fwd = state.plain(int(i), TrainingPass::FWD, o)) {
        auto [it, inserted] = perEvaluation.try_emplace(fwd, 0.0);
        if (inserted)
          it->second = model.parameterElementsPerChip(shape, TrainingPass::FWD,
                                                      fwd->config);
        elements[i][o] = it->second * held;
      }
  }
  memory.elementsTable =
      std::make_shared<const std::vector<std::vector<double>>>(
          std::move(elements));
  if (problem.inferenceOnly() || !problem.graph().tellsSavedActivations())
    return memory;
  // The saved activations a chip keeps at each option's layout.
  auto kept = std::make_shared<ChipMemory::KeptTables>();
  const size_t n = problem.numLayers(), options = problem.numOptions();
  kept->saved.assign(n, std::vector<double>(options, 0.0));
  kept->checkpoint = kept->saved;
  kept->least.assign(n, 0.0);
  kept->leastCheckpoint.assign(n, 0.0);
  const bool sequence = problem.options().sequenceParallel;
  for (size_t i = 0; i < n; ++i) {
    const LayerNode &layer = problem.layer(int(i));
    if (!(layer.bwd || layer.upd) || layer.shape.saved.empty())
      continue;
    double least = kInfinityCost, leastCheckpoint = kInfinityCost;
    for (size_t o = 0; o < options; ++o)
      if (const Evaluation *fwd =
              state.plain(int(i), TrainingPass::FWD, int(o))) {
        const DimSizes &split = fwd->config.chipSplit;
        double saved = savedBytesPerChip(layer.shape, split,
                                         memory.elementBytes, {sequence});
        double checkpoint = checkpointBytesPerChip(
            layer.shape, split, memory.elementBytes, sequence);
        kept->saved[i][o] = saved;
        kept->checkpoint[i][o] = checkpoint;
        least = std::min(least, saved);
        leastCheckpoint = std::min(leastCheckpoint, checkpoint);
      }
    kept->least[i] = least < kInfinityCost ? least : 0;
    kept->leastCheckpoint[i] =
        leastCheckpoint < kInfinityCost ? leastCheckpoint : 0;
  }
  memory.kept = std::move(kept);
  memory.recompute(memory.recomputed);
  return memory;
}

/// Layers cut into segments of consecutive layers (recomputedInSegments):
/// which layers' outputs are read in the backward half, and each one's
/// last reader.
struct SegmentReaders {
  std::vector<bool> readBackward;
  std::vector<int> lastReader;
};

static SegmentReaders segmentReaders(const MappingProblem &problem) {
  const size_t n = problem.numLayers();
  SegmentReaders readers{std::vector<bool>(n, false), std::vector<int>(n, -1)};
  for (int e = 0; e < int(problem.graph().edges.size()); ++e) {
    const LayerEdge &edge = problem.edge(e);
    readers.lastReader[edge.producer] =
        std::max(readers.lastReader[edge.producer], edge.consumer);
    const LayerNode &consumer = problem.layer(edge.consumer);
    readers.readBackward[edge.producer] =
        readers.readBackward[edge.producer] || consumer.bwd || consumer.upd;
  }
  return readers;
}

/// Layers cut into segments of `length` consecutive layers: the layers
/// whose output is read in the backward half, all of whose readers are in
/// their own segment.
static std::vector<bool> recomputedInSegments(const SegmentReaders &readers,
                                              size_t length) {
  const size_t n = readers.lastReader.size();
  std::vector<bool> recomputed(n, false);
  for (size_t i = 0; i < n; ++i)
    recomputed[i] = readers.readBackward[i] && readers.lastReader[i] >= 0 &&
                    size_t(readers.lastReader[i]) / length == i / length;
  return recomputed;
}

/// The recomputation that leaves the fewest bytes alive: segments of 2, 4,
/// 8, ... layers and of about the square root of the layer count (Chen et
/// al.'s choice); ties keep the shorter segments. None when no segments
/// leave fewer alive than keeping every activation, unless `named`
/// (recompute=full: segments whatever they save).
static std::vector<bool> fewestAliveRecomputation(const MappingProblem &problem,
                                                  const ChipMemory &memory,
                                                  bool named) {
  const size_t n = problem.numLayers();
  // Where the network repeats blocks, a named recompute=full recomputes the
  // blocks themselves (Megatron-LM's full recomputation: each transformer
  // layer keeps its input). (Searched, fewer bytes alive would favour them
  // over the segments, which recompute less.)
  std::vector<bool> everyBlock(n, false);
  const bool blocks = llvm::count(memory.blockStart, true) > 1;
  for (size_t i = 0; i < n; ++i)
    everyBlock[i] = problem.layer(int(i)).bwd || problem.layer(int(i)).upd;
  if (named && blocks && memory.kept)
    return everyBlock;
  const SegmentReaders readers = segmentReaders(problem);
  std::vector<std::vector<bool>> candidates;
  for (size_t length = 2; length < 2 * n; length *= 2)
    candidates.push_back(recomputedInSegments(readers, length));
  candidates.push_back(recomputedInSegments(
      readers, std::max<size_t>(2, size_t(std::sqrt(double(n))))));
  std::vector<bool> best(n, false);
  double bestBytes = named ? std::numeric_limits<double>::infinity()
                           : memory.leastActivationBytes;
  for (std::vector<bool> &recomputed : candidates) {
    const double bytes = memory.leastRecomputing(recomputed);
    if (bytes < bestBytes) {
      bestBytes = bytes;
      best = std::move(recomputed);
    }
  }
  return best;
}

using Fit = PricedSelection;

/// The selection over `base` costs at the least price on parameter bytes
/// whose plan fits `memory` (selectByPricing); nullopt when no price makes
/// one fit, or when even the unpriced selection takes at least `bound`
/// cycles. `unpriced`: the selection over `base` when it is made already.
static llvm::Expected<std::optional<Fit>>
fitByPricing(MappingState &state, const ChipMemory &memory,
             const std::vector<OptionCosts> &base, double bound,
             const Selection *unpriced) {
  // Even every layer's cheapest option and every edge's cheapest switch
  // take `bound`: so would the unpriced selection, and a price only adds.
  if (!unpriced && selectionCostLowerBound(base, state.switches) >= bound)
    return std::optional<Fit>();
  return selectByPricing(
      base,
      [&](const std::vector<OptionCosts> &costs) {
        return selectWithStates(costs, state.switches);
      },
      [&](size_t node, int option) { return memory.layerBytes(node, option); },
      [&](llvm::ArrayRef<int> choice) { return memory.fits(choice); },
      memory.capacity, memory.parameterRoom(), bound, unpriced,
      [&]() -> llvm::Error {
        if (state.progress.shouldStop())
          return state.progress.makeError();
        return llvm::Error::success();
      });
}

namespace {
/// The least cycles a plan that fits takes under a candidate's savers:
/// infinity when even the least parameters of every layer do not fit beside
/// the activations; else the least of the explorations
/// (MappingState::leastCycles) and, of what the savers add as refinePlan
/// charges it, what no option avoids: each recomputed layer's FWD again, at
/// least its least explored, and each offloaded update. (The weight gathers
/// depend on the configuration realised: not counted.)
class SaverLeastCycles {
public:
  explicit SaverLeastCycles(const MappingState &state) : state(state) {
    const MappingProblem &problem = state.problem;
    const size_t n = problem.numLayers();
    counted.assign(n, false);
    leastForward.assign(n, 0.0);
    for (size_t i = 0; i < n; ++i) {
      const LayerNode &layer = problem.layer(int(i));
      // Passes that overlap in a timestep pipe group count nothing.
      counted[i] =
          !(problem.options().pipelineTimesteps && layer.shape.timesteps > 1);
      if (!counted[i] || !layer.fwd || !(layer.bwd || layer.upd))
        continue;
      double least = kInfinityCost;
      for (int what = 0; what < kNumOnChip; ++what)
        for (const Evaluation *eval :
             state.explorations.bests(int(i), TrainingPass::FWD, OnChip(what)))
          if (eval)
            least = std::min(least, eval->cycles.total);
      leastForward[i] = std::isfinite(least) ? least : 0.0;
    }
  }

  double of(const ChipMemory &memory) const {
    const MappingProblem &problem = state.problem;
    if (!mayFit(memory))
      return kInfinityCost;
    double cycles = state.leastCycles;
    for (size_t i = 0; i < leastForward.size(); ++i) {
      if (memory.recomputed[i])
        cycles += leastForward[i];
      if (counted[i] && memory.offloadState && memory.parameters[i] > 0 &&
          problem.layer(int(i)).upd)
        cycles += problem.model()
                      .hostUpdate(memory.parameters[i] / memory.chips)
                      .cycles;
    }
    return cycles;
  }

private:
  bool mayFit(const ChipMemory &memory) const {
    if (memory.hostBytes() > memory.hostCapacity)
      return false;
    double bytes = memory.activationBytes;
    for (size_t i = 0; i < state.layerCost.size(); ++i) {
      double least = kInfinityCost;
      for (size_t o = 0; o < state.layerCost[i].size(); ++o)
        if (state.layerCost[i][o] < kInfinityCost)
          least = std::min(least, memory.layerBytes(i, int(o)));
      if (least < kInfinityCost)
        bytes += least;
    }
    return bytes <= memory.capacity;
  }

  const MappingState &state;
  /// Per layer: whether its passes count (not a timestep pipe stage's), and
  /// its least explored FWD where it has a backward pass to recompute for.
  std::vector<bool> counted;
  std::vector<double> leastForward;
};
} // namespace

namespace {
/// A way to fit: what a chip holds under some savers and the selection's
/// costs under them (empty: the memory alone is asked about).
struct Candidate {
  std::unique_ptr<ChipMemory> memory;
  std::vector<OptionCosts> costs;
};

/// The savers a mapping may take, each turning a candidate into another:
/// its memory, and the cycles it adds to the costs where they are kept.
class Savers {
public:
  explicit Savers(const MappingState &state) : Savers(state.problem, &state) {}
  /// Savers of memory alone: the candidates carry no costs.
  explicit Savers(const MappingProblem &problem,
                  const MappingState *state = nullptr)
      : state(state), problem(problem), named(problem.options().savers),
        training(!problem.inferenceOnly()) {}

  /// Recomputed in the segments that leave the fewest bytes alive.
  Candidate withRecomputation(const Candidate &from) const {
    return recomputing(from, fewestAliveRecomputation(
                                 problem, *from.memory,
                                 named.recompute == RecomputeChoice::Full));
  }
  /// The attention cores recomputed (selective recomputation); none where
  /// no layer keeps one.
  std::optional<Candidate>
  withAttentionRecomputed(const Candidate &from) const {
    std::vector<bool> layers(problem.numLayers(), false);
    for (size_t i = 0; i < layers.size(); ++i) {
      const LayerNode &layer = problem.layer(int(i));
      layers[i] = layer.shape.saved.attention > 0 && (layer.bwd || layer.upd);
    }
    if (llvm::none_of(layers, [](bool b) { return b; }))
      return std::nullopt;
    return recomputing(from, std::move(layers));
  }
  /// `from` with the layers `layers` marks recomputed, each one's FWD again
  /// in its costs.
  Candidate recomputing(const Candidate &from, std::vector<bool> layers) const {
    Candidate c{std::make_unique<ChipMemory>(*from.memory), from.costs};
    c.memory->recompute(std::move(layers));
    for (size_t i = 0; i < c.costs.size(); ++i)
      if (c.memory->recomputed[i])
        for (int o = 0; o < problem.numOptions(); ++o)
          if (const Evaluation *fwd =
                  state->plain(int(i), TrainingPass::FWD, o))
            c.costs[i][o] += fwd->cycles.total;
    return c;
  }

  Candidate withShardedWeights(const Candidate &from) const {
    Candidate c{std::make_unique<ChipMemory>(*from.memory), from.costs};
    c.memory->shardWeights = true;
    // Layers of one shape share their explorations: one gather each.
    llvm::DenseMap<const Evaluation *, double> gatherOf;
    for (size_t i = 0; i < c.costs.size(); ++i) {
      const LayerNode &layer = problem.layer(int(i));
      if (layer.shape.params <= 0)
        continue;
      for (int o = 0; o < problem.numOptions(); ++o)
        if (const Evaluation *fwd =
                state->plain(int(i), TrainingPass::FWD, o)) {
          auto [gather, fresh] = gatherOf.try_emplace(fwd, 0.0);
          if (fresh)
            gather->second =
                problem.model().weightGather(layer.shape, fwd->config).cycles;
          c.costs[i][o] += gather->second * (layer.bwd ? 2 : 1);
        }
    }
    return c;
  }

  // ZeRO-Offload on the sharded state: each layer's UPD sends its shard's
  // gradients to the host and takes the updated weights back.
  Candidate withOffloadedState(const Candidate &from) const {
    Candidate c{std::make_unique<ChipMemory>(*from.memory), from.costs};
    c.memory->shardState = true;
    c.memory->offloadState = true;
    for (size_t i = 0; i < c.costs.size(); ++i) {
      const LayerNode &layer = problem.layer(int(i));
      if (layer.shape.params <= 0 || !layer.upd)
        continue;
      const double update =
          problem.model()
              .hostUpdate(c.memory->parameters[i] / c.memory->chips)
              .cycles;
      for (double &cost : c.costs[i])
        cost += update;
    }
    return c;
  }

  /// `base` under the savers the user named: they apply whether the plan
  /// needs them or not.
  Candidate withNamed(Candidate base) const {
    if (!training)
      return base;
    if (named.recompute == RecomputeChoice::Full)
      base = withRecomputation(base);
    if (named.recompute == RecomputeChoice::Selective)
      if (std::optional<Candidate> selective = withAttentionRecomputed(base))
        base = std::move(*selective);
    if (named.shard == ShardChoice::State ||
        named.shard == ShardChoice::Weights)
      base.memory->shardState = true;
    if (named.shard == ShardChoice::Weights)
      base = withShardedWeights(base);
    if (named.shard == ShardChoice::Optimizer)
      base.memory->shardOptimizer = true;
    if (named.offload == OffloadChoice::State)
      base = withOffloadedState(base);
    return base;
  }

  /// Whether the state's sharding is the free saver (the choice stays).
  bool shardsStateFreely() const {
    return training && named.shard == ShardChoice::Auto;
  }

  /// The candidates priced, in tiers of the savers left to choose, the
  /// cheaper first: `base` without and with recomputation; then the same
  /// with the weights sharded too; each also with its optimizer state
  /// offloaded where the system has a host link. In a tier, the candidate
  /// with the most room for parameters first (of equal room, the one that
  /// offloads, holding fewer bytes): it fits at the least price, and its
  /// plan's cycles bound the others' searches (selectByPricing's dual
  /// bound ends them early).
  std::vector<std::vector<Candidate>> tiers(Candidate base) const {
    std::optional<Candidate> recomputing, selective;
    if (training && named.recompute == RecomputeChoice::Auto) {
      recomputing = withRecomputation(base);
      selective = withAttentionRecomputed(base);
    }
    std::vector<Candidate> first, second;
    if (training && named.shard == ShardChoice::Auto) {
      second.push_back(withShardedWeights(base));
      if (recomputing)
        second.push_back(withShardedWeights(*recomputing));
      if (selective)
        second.push_back(withShardedWeights(*selective));
    }
    first.push_back(std::move(base));
    const double kept = first.back().memory->leastActivationBytes;
    if (selective && kept > selective->memory->leastActivationBytes)
      first.push_back(std::move(*selective));
    if (recomputing && kept > recomputing->memory->leastActivationBytes)
      first.push_back(std::move(*recomputing));
    // Offloading: one transfer a step, in the same tier.
    if (training && problem.model().hasHostLink() &&
        named.shard != ShardChoice::None &&
        named.shard != ShardChoice::Optimizer &&
        named.offload == OffloadChoice::Auto)
      for (std::vector<Candidate> *tier : {&first, &second})
        for (size_t k = 0, n = tier->size(); k < n; ++k)
          tier->push_back(withOffloadedState((*tier)[k]));
    std::vector<std::vector<Candidate>> tiers;
    tiers.push_back(std::move(first));
    if (!second.empty())
      tiers.push_back(std::move(second));
    for (std::vector<Candidate> &tier : tiers)
      std::stable_sort(tier.begin(), tier.end(),
                       [](const Candidate &a, const Candidate &b) {
                         return std::make_pair(a.memory->leastRoom(),
                                               a.memory->offloadState) >
                                std::make_pair(b.memory->leastRoom(),
                                               b.memory->offloadState);
                       });
    return tiers;
  }

private:
  const MappingState *state; ///< where the candidates carry costs
  const MappingProblem &problem;
  const SaverChoices &named;
  const bool training;
};
} // namespace

/// max over prices p >= 0 of the sum over groups of count x the least over
/// options of (cycles + p x bytes), less p x room: at most the least cycles
/// of a choice of one option per layer holding at most `room` bytes (weak
/// duality: every price gives a bound; the best found is kept). Infinity
/// when even each layer's fewest bytes exceed the room, or a layer has no
/// usable option. `cycles` and `bytes`: per group, per option (infinite
/// cycles: unusable).
static double dualBound(llvm::ArrayRef<double> counts,
                        llvm::ArrayRef<std::vector<double>> cycles,
                        llvm::ArrayRef<std::vector<double>> bytes,
                        double room) {
  const size_t groups = counts.size();
  // Each group's option of fewest bytes (of those, fewest cycles).
  std::vector<size_t> leanest(groups);
  double leastBytes = 0;
  for (size_t g = 0; g < groups; ++g) {
    const size_t none = cycles[g].size();
    size_t best = none;
    for (size_t o = 0; o < none; ++o)
      if (cycles[g][o] < kInfinityCost &&
          (best == none || bytes[g][o] < bytes[g][best] ||
           (bytes[g][o] == bytes[g][best] && cycles[g][o] < cycles[g][best])))
        best = o;
    if (best == none)
      return kInfinityCost;
    leanest[g] = best;
    leastBytes += counts[g] * bytes[g][best];
  }
  if (leastBytes > room)
    return kInfinityCost;
  // The dual at a price, and its slope from the right: the bytes of the
  // priced choice (of ties, the fewest) less the room.
  auto dual = [&](double price, double &slope) {
    double value = -price * room;
    slope = -room;
    for (size_t g = 0; g < groups; ++g) {
      double least = kInfinityCost, held = 0;
      for (size_t o = 0; o < cycles[g].size(); ++o) {
        if (!(cycles[g][o] < kInfinityCost))
          continue;
        const double priced = cycles[g][o] + price * bytes[g][o];
        if (priced < least || (priced == least && bytes[g][o] < held)) {
          least = priced;
          held = bytes[g][o];
        }
      }
      value += counts[g] * least;
      slope += counts[g] * held;
    }
    return value;
  };
  double slope = 0;
  double best = dual(0, slope);
  if (slope <= 0)
    return best;
  // At or above this price every group takes its fewest bytes: the slope
  // is at most 0 there, and the dual, concave, peaks below.
  double high = 0;
  for (size_t g = 0; g < groups; ++g) {
    const size_t lean = leanest[g];
    for (size_t o = 0; o < cycles[g].size(); ++o)
      if (cycles[g][o] < kInfinityCost && bytes[g][o] > bytes[g][lean])
        high = std::max(high, (cycles[g][lean] - cycles[g][o]) /
                                  (bytes[g][o] - bytes[g][lean]));
  }
  best = std::max(best, dual(high, slope));
  double low = 0;
  for (int step = 0; step < 64; ++step) {
    const double mid = low + (high - low) / 2;
    if (!(mid > low && mid < high))
      break;
    best = std::max(best, dual(mid, slope));
    (slope > 0 ? low : high) = mid;
  }
  return best;
}

// The figures of a layer's option, in LayerFitFigures::Group::figures.
enum FitFigure { kCycles, kForwardAgain, kGathers, kElements, kNumFitFigures };

LayerFitFigures dsm::core::layerFitFigures(const MappingState &state,
                                           CountedCycles counted) {
  const MappingProblem &problem = state.problem;
  const PerformanceModel &model = problem.model();
  const size_t n = problem.numLayers();
  const size_t options = size_t(problem.numOptions());
  LayerFitFigures figures;
  figures.groupOf.resize(n);
  figures.degrees.resize(n);
  // Layers with the same explorations (the same evaluations asked and
  // found: layers of one shape in the same context) and passes have the
  // same figures: grouped by those, figured once per group.
  auto evaluations = [&](size_t i, auto &&visit) {
    for (int pass = 0; pass < kNumPasses; ++pass)
      for (int what = 0; what < kNumOnChip; ++what)
        visit(
            state.explorations.bests(int(i), TrainingPass(pass), OnChip(what)));
  };
  // Layers whose passes and parameters the figures tell apart.
  auto samePasses = [&](size_t a, size_t b) {
    const LayerNode &x = problem.layer(int(a)), &y = problem.layer(int(b));
    return x.fwd == y.fwd && x.bwd == y.bwd && x.upd == y.upd &&
           x.shape.timesteps == y.shape.timesteps &&
           x.shape.params == y.shape.params;
  };
  auto sameContext = [&](size_t a, size_t b) {
    if (!samePasses(a, b))
      return false;
    for (int pass = 0; pass < kNumPasses; ++pass)
      for (int what = 0; what < kNumOnChip; ++what)
        if (state.explorations.bests(int(a), TrainingPass(pass),
                                     OnChip(what)) !=
            state.explorations.bests(int(b), TrainingPass(pass), OnChip(what)))
          return false;
    return true;
  };
  // Layers that asked alike share their rows of explorations (and so their
  // evaluations): each set of rows is looked at once, by their numbers.
  const ExplorationTable &table = state.explorations;
  auto sameRows = [&](size_t a, size_t b) {
    return samePasses(a, b) &&
           table.rowNumbers(int(a)) == table.rowNumbers(int(b));
  };
  llvm::DenseMap<uint64_t, llvm::SmallVector<uint32_t, 1>> layersByRows;
  llvm::DenseMap<uint64_t, llvm::SmallVector<uint32_t, 1>> groupsByHash;
  std::vector<size_t> firstOf;
  llvm::DenseMap<const Evaluation *, double> gathers;
  for (size_t i = 0; i < n; ++i) {
    const LayerNode &layer = problem.layer(int(i));
    figures.degrees[i] = {uint32_t(problem.incoming(int(i)).size()),
                          uint32_t(problem.outgoing(int(i)).size())};
    llvm::ArrayRef<int32_t> rows = table.rowNumbers(int(i));
    llvm::SmallVector<uint32_t, 1> &asked = layersByRows[uint64_t(
        llvm::hash_combine_range(rows.begin(), rows.end()))];
    auto seen =
        llvm::find_if(asked, [&](uint32_t j) { return sameRows(j, i); });
    if (seen != asked.end()) {
      figures.groupOf[i] = figures.groupOf[*seen];
      continue;
    }
    asked.push_back(uint32_t(i));
    llvm::hash_code hash = llvm::hash_combine(layer.fwd, layer.bwd, layer.upd,
                                              layer.shape.timesteps);
    evaluations(i, [&](llvm::ArrayRef<const Evaluation *> bests) {
      hash = llvm::hash_combine(
          hash, llvm::hash_combine_range(bests.begin(), bests.end()));
    });
    llvm::SmallVector<uint32_t, 1> &alike = groupsByHash[uint64_t(hash)];
    auto known = llvm::find_if(
        alike, [&](uint32_t g) { return sameContext(firstOf[g], i); });
    if (known != alike.end()) {
      figures.groupOf[i] = *known;
      continue;
    }
    figures.groupOf[i] = uint32_t(figures.groups.size());
    alike.push_back(figures.groupOf[i]);
    firstOf.push_back(i);
    LayerFitFigures::Group &group = figures.groups.emplace_back();
    group.parameters = std::max(layer.shape.params, 0.0);
    group.recomputable = layer.bwd || layer.upd;
    group.figures.assign(kNumFitFigures * options, 0.0);
    const bool runs[kNumPasses] = {layer.fwd, layer.bwd, layer.upd};
    // Passes that overlap in a timestep pipe group count nothing.
    const bool counts =
        !(problem.options().pipelineTimesteps && layer.shape.timesteps > 1);
    for (size_t o = 0; o < options; ++o) {
      double cycles = 0, forward = kInfinityCost, gather = kInfinityCost;
      const Evaluation *plain = state.plain(int(i), TrainingPass::FWD, int(o));
      for (int pass = 0; pass < kNumPasses; ++pass) {
        if (!runs[pass])
          continue;
        double least = kInfinityCost;
        for (int what = 0; what < kNumOnChip; ++what) {
          llvm::ArrayRef<const Evaluation *> bests = state.explorations.bests(
              int(i), TrainingPass(pass), OnChip(what));
          const Evaluation *eval = o < bests.size() ? bests[o] : nullptr;
          if (!eval)
            continue;
          least = std::min(least, counted(TrainingPass(pass), *eval));
          if (pass != int(TrainingPass::FWD))
            continue;
          forward = std::min(forward, eval->cycles.total);
          if (group.parameters > 0) {
            auto [it, fresh] = gathers.try_emplace(eval, 0.0);
            if (fresh)
              it->second = model.weightGather(layer.shape, eval->config).cycles;
            gather = std::min(gather, it->second);
          }
        }
        cycles += least;
      }
      double *figure = &group.figures[kNumFitFigures * o];
      figure[kCycles] = !(cycles < kInfinityCost) ? kInfinityCost
                        : counts                  ? cycles
                                                  : 0;
      // Realised, the FWD runs again in full before the backward passes,
      // and each pass that reads the weights gathers them: FWD and BWD.
      figure[kForwardAgain] = counts && forward < kInfinityCost ? forward : 0;
      figure[kGathers] =
          counts && gather < kInfinityCost ? gather * (layer.bwd ? 2 : 1) : 0;
      if (plain && group.parameters > 0)
        figure[kElements] = model.parameterElementsPerChip(
            layer.shape, TrainingPass::FWD, plain->config);
    }
  }
  return figures;
}

bool dsm::core::mayFitMemory(const MappingProblem &problem) {
  ChipMemory memory = stepMemoryOf(problem);
  memory.shardState = memory.shardWeights = true;
  memory.offloadState = memory.hostCapacity > 0;
  double least = 0;
  for (double parameters : memory.parameters)
    least += memory.parameterBytesOf(/*elements=*/0, parameters);
  return least <= memory.capacity;
}

double dsm::core::leastStageCyclesThatFit(const LayerFitFigures &figures,
                                          int first,
                                          const MappingProblem &problem) {
  const size_t n = problem.numLayers();
  const size_t options = size_t(problem.numOptions());
  const size_t numGroups = figures.groups.size();
  // A layer whose edges differ from the figures' was explored there in
  // another context (a pipeline stage's first or last layers, where the
  // network's edges leave it): its cycles count nothing, its bytes do.
  std::vector<bool> elsewhere(n);
  for (size_t i = 0; i < n; ++i)
    elsewhere[i] = figures.degrees[first + i] !=
                   std::make_pair(uint32_t(problem.incoming(int(i)).size()),
                                  uint32_t(problem.outgoing(int(i)).size()));
  // The candidates as CapacityFit prices them, each at its savers' least:
  // the least of them bounds every plan that fits.
  const Savers savers(problem);
  Candidate base = savers.withNamed(
      {std::make_unique<ChipMemory>(stepMemoryOf(problem)), {}});
  if (savers.shardsStateFreely())
    base.memory->shardState = true;
  std::vector<double> count;
  std::vector<double> counts;
  std::vector<std::vector<double>> cycles, bytes;
  auto bound = [&](const ChipMemory &memory) {
    if (memory.hostBytes() > memory.hostCapacity)
      return kInfinityCost;
    // The layers of a group by whether they are recomputed and counted.
    enum { kRecomputed = 1, kElsewhere = 2, kKinds = 4 };
    count.assign(kKinds * numGroups, 0.0);
    for (size_t i = 0; i < n; ++i)
      count[kKinds * figures.groupOf[first + i] +
            (memory.recomputed[i] ? kRecomputed : 0) +
            (elsewhere[i] ? kElsewhere : 0)] += 1;
    counts.clear();
    cycles.clear();
    bytes.clear();
    for (size_t k = 0; k < count.size(); ++k) {
      if (count[k] == 0)
        continue;
      const LayerFitFigures::Group &group = figures.groups[k / kKinds];
      const bool recomputed = (k & kRecomputed) && group.recomputable;
      const bool unknown = k & kElsewhere;
      counts.push_back(count[k]);
      std::vector<double> &c = cycles.emplace_back(options);
      std::vector<double> &b = bytes.emplace_back(options);
      for (size_t o = 0; o < options; ++o) {
        const double *figure = &group.figures[kNumFitFigures * o];
        c[o] = figure[kCycles];
        if (c[o] < kInfinityCost)
          c[o] = unknown ? 0
                         : c[o] + (recomputed ? figure[kForwardAgain] : 0) +
                               (memory.shardWeights ? figure[kGathers] : 0);
        b[o] = memory.parameterBytesOf(figure[kElements], group.parameters);
      }
    }
    return dualBound(counts, cycles, bytes, memory.parameterRoom());
  };
  double least = kInfinityCost;
  for (const std::vector<Candidate> &tier : savers.tiers(std::move(base)))
    for (const Candidate &candidate : tier)
      least = std::min(least, bound(*candidate.memory));
  return least;
}

CapacityFit::CapacityFit() = default;
CapacityFit::~CapacityFit() = default;

llvm::Error CapacityFit::boundBeforeSelection(const MappingState &state) {
  // Where a plan is to be beaten and no plan that fits under any savers
  // can, the mapping ends before its selection: the mapper keeps the plan
  // in hand. (Its memory is the selection's to start from: kept.)
  const MappingProblem &problem = state.problem;
  if (!problem.choosesSavers() || !(problem.cyclesToBeat() < kInfinityCost) ||
      !(state.leastCycles > 0))
    return llvm::Error::success();
  memory = std::make_unique<ChipMemory>(chipMemoryOf(state));
  const Savers savers(state);
  Candidate base =
      savers.withNamed({std::make_unique<ChipMemory>(*memory), {}});
  if (savers.shardsStateFreely())
    base.memory->shardState = true;
  const double beat = problem.cyclesToBeat() * (1 + 1e-9);
  const SaverLeastCycles least(state);
  for (const std::vector<Candidate> &tier : savers.tiers(std::move(base)))
    for (const Candidate &candidate : tier)
      if (least.of(*candidate.memory) < beat)
        return llvm::Error::success();
  return llvm::createStringError(
      "no plan that fits a chip's memory on this torus takes fewer cycles "
      "than the plan to beat");
}

llvm::Error CapacityFit::reviseChoice(MappingState &state, Executor &) {
  if (!memory)
    memory = std::make_unique<ChipMemory>(chipMemoryOf(state));
  state.plan.fastestMemory = memory->categories(state.choice);
  const MappingProblem &problem = state.problem;
  const Savers savers(state);
  Candidate base = savers.withNamed(
      {std::make_unique<ChipMemory>(*memory), state.layerCost});
  // The costs the named savers add select again.
  if (base.costs != state.layerCost) {
    Selection selection = selectWithStates(base.costs, state.switches);
    state.layerCost = base.costs;
    state.choice = std::move(selection.choice);
    state.selectionCost = selection.cost;
    state.selectionExact = selection.exact;
  }
  auto keep = [&](Candidate &candidate) {
    memory = std::move(candidate.memory);
    return llvm::Error::success();
  };
  if (base.memory->fits(state.choice))
    return keep(base);
  state.properties.memoryConstrained = true;
  // 1. Sharded state: free, and the choice stays.
  if (savers.shardsStateFreely()) {
    base.memory->shardState = true;
    if (base.memory->fits(state.choice))
      return keep(base);
  }
  if (!problem.choosesSavers())
    return keep(base);
  // 2. Priced plans, in tiers (Savers::tiers). The fastest plan that fits
  // of all; the plans found bound the later searches.
  std::vector<std::vector<Candidate>> tiers = savers.tiers(std::move(base));
  // The selection made already is the first candidate's unpriced one (the
  // same costs select the same plan): not made again.
  const Selection selected{state.choice, state.selectionCost,
                           state.selectionExact};
  std::optional<Fit> best;
  Candidate *bestCandidate = nullptr;
  for (std::vector<Candidate> &tier : tiers) {
    for (Candidate &candidate : tier) {
      llvm::Expected<std::optional<Fit>> fit = fitByPricing(
          state, *candidate.memory, candidate.costs,
          best ? best->cycles : problem.cyclesToBeat(),
          candidate.costs == state.layerCost ? &selected : nullptr);
      if (!fit)
        return fit.takeError();
      if (*fit && (!best || (*fit)->cycles < best->cycles)) {
        best = std::move(*fit);
        bestCandidate = &candidate;
      }
    }
  }
  if (best) {
    memory = std::move(bestCandidate->memory);
    state.layerCost = std::move(best->costs);
    state.choice = std::move(best->selection.choice);
    state.selectionCost = best->selection.cost;
    state.selectionExact = state.selectionExact && best->selection.exact;
    return llvm::Error::success();
  }
  // Nothing fits: the plan closest to fitting (every saver: the most room
  // for parameters in the last tier; the least parameters of each layer),
  // for the mapper to name.
  Candidate &closest = tiers.back().front();
  memory = std::move(closest.memory);
  state.layerCost = std::move(closest.costs);
  for (size_t i = 0; i < state.choice.size(); ++i)
    for (int o = 0; o < problem.numOptions(); ++o)
      if (state.layerCost[i][o] < kInfinityCost &&
          memory->parameterBytes(i, o) +
                  memory->parameterElements(i, o) * memory->elementBytes <
              memory->parameterBytes(i, state.choice[i]) +
                  memory->parameterElements(i, state.choice[i]) *
                      memory->elementBytes)
        state.choice[i] = o;
  return llvm::Error::success();
}

/// The parameters of `plan` as a chip of its fullest row holds them: the
/// stages of timestep pipe groups hold their layer's on their rows only,
/// as planned there (not as the option chosen around them).
static HeldParameters fullestRowParametersOf(const MappingState &state,
                                             const ChipMemory &memory) {
  const MappingPlan &plan = state.plan;
  std::vector<PlacedParameters> placed;
  for (size_t i = 0; i < plan.layers.size(); ++i) {
    if (!(memory.parameters[i] > 0) || plan.layers[i].passes.empty())
      continue;
    const MappingConfig &config = plan.layers[i].passes.front().eval.config;
    const MemoryDecision &decision = config.memory;
    const bool pipeStage = decision.pipeGroup >= 0 &&
                           decision.microbatches <= 1 && decision.pipeRows > 0;
    const LayerShape &shape = state.problem.layer(int(i)).shape;
    const double chipElements =
        pipeStage ? state.problem.model().parameterElementsPerChip(
                        shape, TrainingPass::FWD, config) *
                        memory.parameters[i] / shape.params
                  : memory.parameterElements(i, state.choice[i]);
    placed.push_back({memory.heldOf(chipElements, memory.parameters[i]),
                      pipeStage ? decision.pipeFirstRow : 0,
                      pipeStage ? decision.pipeRows : 0});
  }
  return fullestRowParameters(placed, memory.elementBytes, memory.gradientBytes,
                              memory.chipOptimizerBytes());
}

bool CapacityFit::refinePlan(MappingState &state) {
  MappingPlan &plan = state.plan;
  plan.memory = memory->categories(state.choice);
  if (llvm::any_of(plan.layers, [](const LayerPlan &layer) {
        return !layer.passes.empty() &&
               layer.passes.front().eval.config.memory.pipeGroup >= 0 &&
               layer.passes.front().eval.config.memory.microbatches <= 1;
      })) {
    HeldParameters held = fullestRowParametersOf(state, *memory);
    plan.memory.weights = held.weights * memory->elementBytes;
    plan.memory.gradients = held.state * memory->gradientBytes;
    plan.memory.optimizer = held.optimizer * memory->chipOptimizerBytes();
    // A stage of a timestep pipe group keeps its saved activations at its
    // own layout, on its rows' chips (counted as if on every chip).
    if (memory->kept) {
      plan.memory.activations = memory->activationBytes;
      std::vector<double> kept(plan.layers.size(), 0.0);
      for (size_t i = 0; i < plan.layers.size(); ++i) {
        const LayerPlan &layer = plan.layers[i];
        const LayerNode &node = state.problem.layer(int(i));
        if (layer.passes.empty() || !(node.bwd || node.upd))
          continue;
        const DimSizes &split = layer.passes.front().eval.config.chipSplit;
        const bool sequence = state.problem.options().sequenceParallel;
        kept[i] = savedBytesPerChip(node.shape, split, memory->elementBytes,
                                    {sequence});
        const double checkpoint = checkpointBytesPerChip(
            node.shape, split, memory->elementBytes, sequence);
        plan.memory.activations += (!memory->recomputed[i] ? kept[i]
                                    : memory->startsRun[i] ? checkpoint
                                                           : 0) *
                                   memory->copies;
      }
      plan.memory.activations +=
          memory->largestRun([&](size_t i) { return kept[i]; });
    }
  }
  bool changed = false;
  for (size_t i = 0; i < plan.layers.size(); ++i) {
    LayerPlan &layer = plan.layers[i];
    if (layer.passes.empty() || layer.passes.front().pass != TrainingPass::FWD)
      continue;
    PassPlan &fwd = layer.passes.front();
    if (memory->shardState && memory->parameters[i] > 0)
      fwd.eval.config.memory.shardedState = true;
    if (memory->shardOptimizer && memory->parameters[i] > 0)
      fwd.eval.config.memory.shardedOptimizer = true;
    if (memory->shardWeights && memory->parameters[i] > 0) {
      // Each pass that reads the weights gathers them first.
      fwd.eval.config.memory.shardedWeights = true;
      TransferGroup gather = state.problem.model().weightGather(
          state.problem.layer(int(i)).shape, fwd.eval.config);
      for (PassPlan &pass : layer.passes)
        if (pass.pass != TrainingPass::UPD) {
          pass.cycles.nonOvldt += gather.cycles;
          pass.cycles.total += gather.cycles;
          pass.eval.transfers.push_back(gather);
        }
      changed = true;
    }
    if (memory->offloadState && memory->parameters[i] > 0) {
      // The UPD exchanges the shard with the host, once a step.
      fwd.eval.config.memory.offloadedState = true;
      TransferGroup update = state.problem.model().hostUpdate(
          memory->parameters[i] / memory->chips);
      for (PassPlan &pass : layer.passes)
        if (pass.pass == TrainingPass::UPD) {
          pass.cycles.nonOvldt += update.cycles;
          pass.cycles.total += update.cycles;
          pass.eval.transfers.push_back(update);
        }
      changed = true;
    }
    if (!memory->recomputed[i] || layer.passes.size() < 2)
      continue;
    // The FWD runs again before the backward half: charged to the
    // layer's first backward pass.
    fwd.eval.config.memory.recomputed = true;
    PassPlan &backward = layer.passes[1];
    backward.cycles += recomputationCycles(fwd.eval.cycles);
    changed = true;
  }
  return changed;
}
