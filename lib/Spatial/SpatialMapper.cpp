//===- SpatialMapper.cpp - Mapping a whole network onto the system --------===//

#include "dsm/Core/Spatial/SpatialMapper.h"
#include "dsm/Core/Spatial/ParallelismSelection.h"

#include "dsm/Core/Support/NodeError.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>

using namespace dsm::core;

static constexpr double kInfinity = std::numeric_limits<double>::infinity();

void LayerGraph::assignTrainingPasses(bool training) {
  std::vector<bool> needsError(layers.size(), false);
  std::vector<std::vector<int>> producers(layers.size());
  for (const LayerEdge &edge : edges)
    producers[edge.consumer].push_back(edge.producer);
  for (size_t i = 0; i < layers.size(); ++i) {
    LayerNode &layer = layers[i];
    layer.fwd = true;
    layer.upd = training && layer.shape.params > 0;
    layer.bwd = false;
    if (training)
      for (int p : producers[i])
        layer.bwd |= needsError[p];
    needsError[i] = layer.upd || layer.bwd;
  }
  for (LayerEdge &edge : edges)
    edge.carriesError = training && needsError[edge.producer];
}

/// An activation x activation product computes both operands' errors in BWD:
/// the UPD-shaped half is costed with the same configuration and added.
static void addSecondOperandError(const PerformanceModel &model,
                                  const LayerShape &shape, TrainingPass pass,
                                  Evaluation &eval) {
  if (pass != TrainingPass::BWD || !shape.hasPrimary || shape.hasWeights)
    return;
  std::optional<Evaluation> other =
      model.evaluate(shape, TrainingPass::UPD, eval.config);
  if (!other)
    return;
  eval.cycles += other->cycles;
  eval.ovldt += other->ovldt;
  eval.macs += other->macs;
  mergeTransfers(eval.transfers, other->transfers);
  eval.utilization =
      eval.cycles.total > 0 ? eval.cycles.useful / eval.cycles.total : 0;
}

std::optional<Evaluation> dsm::core::evaluateMappedPass(
    const PerformanceModel &model, const LayerShape &shape, TrainingPass pass,
    const MappingConfig &config, std::string *whyNot) {
  std::optional<Evaluation> eval = model.evaluate(shape, pass, config, whyNot);
  if (eval)
    addSecondOperandError(model, shape, pass, *eval);
  return eval;
}

SpatialMapper::SpatialMapper(const MultiChipSystem &system,
                             MapperOptions options)
    : model(system), options(options) {}

namespace {
/// Identifies an exploration: two layers with equal shapes (the name aside)
/// have the same best configuration.
std::string explorationKey(const LayerShape &s, TrainingPass pass,
                           Parallelism p) {
  return layerShapeKey(s) + '/' + std::to_string(int(pass)) + '/' +
         std::to_string(int(p));
}

struct Task {
  int layer;
  TrainingPass pass;
  Parallelism parallelism;
  MemoryDecision memory;
};
} // namespace

/// Scratchpad reservations tried for preloaded weights: k/8 of the
/// scratchpad for k = 0..7 (0: no preloading; the whole scratchpad would
/// leave no room to work).
static constexpr int kPreloadSweepSteps = 8;
/// The mappings of a preloading sweep: one without, then three per
/// reservation (a scenario whose working sets do not fit stops early).
static constexpr int kPreloadSweepMappings = 1 + 3 * (kPreloadSweepSteps - 1);

/// Explorations run over one map(), reported to the options' Progress from
/// whichever thread ran them, one at a time. The total is the first
/// mapping's explorations times the mappings planned: an estimate when a
/// preloading sweep's mappings differ, so `done` is capped below it until
/// the plan is finished.
struct SpatialMapper::ExplorationProgress {
  ExplorationProgress(Progress &sink, int64_t mappings)
      : sink(sink), mappings(mappings) {}

  /// Called with the explorations of each mapping before they run.
  void plan(size_t explorations) {
    if (total == 0)
      total = int64_t(explorations) * mappings;
  }
  /// Whether to skip an exploration: the sink asked to stop.
  bool shouldStop() {
    std::lock_guard<std::mutex> lock(mutex);
    if (!stopped && sink.shouldStop())
      stopped = true;
    return stopped;
  }
  void explored() {
    std::lock_guard<std::mutex> lock(mutex);
    ++done;
    sink.step(std::min(done, total - 1), total, Progress::kNoBest);
  }
  void finish() {
    if (total > 0)
      sink.step(total, total, Progress::kNoBest);
  }
  bool wasStopped() const { return stopped; }
  llvm::Error makeError() const {
    return llvm::make_error<InterruptedError>(std::min(done, total), total,
                                              "explorations");
  }

private:
  Progress &sink;
  int64_t mappings;
  std::mutex mutex;
  int64_t done = 0, total = 0;
  bool stopped = false;
};

llvm::Expected<MappingPlan> SpatialMapper::map(const LayerGraph &graph,
                                               Executor &executor) const {
  bool inference = llvm::none_of(graph.layers, [](const LayerNode &layer) {
    return layer.bwd || layer.upd;
  });
  bool anyWeights = llvm::any_of(graph.layers, [](const LayerNode &layer) {
    return layer.shape.hasPrimary && layer.shape.hasWeights;
  });
  bool preloading = options.preloadWeights && inference && anyWeights;
  ExplorationProgress progress(*options.progress,
                               preloading ? kPreloadSweepMappings : 1);
  llvm::Expected<MappingPlan> plan =
      preloading ? mapWithPreloading(graph, executor, progress)
                 : mapWithModel(model, graph, executor,
                                /*preloadBudgets=*/{}, progress);
  if (plan)
    progress.finish();
  return plan;
}

llvm::Expected<MappingPlan>
SpatialMapper::mapWithPreloading(const LayerGraph &graph, Executor &executor,
                                 ExplorationProgress &progress) const {
  // 000 §III-B2: "we sort the layers based on how sensitive their
  // utilization is to fetching weights. Then, we sweep through scenarios
  // where different fractions of weights are preloaded on to the scratchpad
  // (with appropriate replication based on CoreD), and identify which
  // configuration yields the best performance." Each scenario reserves part
  // of every core's scratchpad for weights; the layers' working sets (and
  // the activations they leave for the next layer) get the rest, which is
  // how preloading can preclude activation reuse.
  llvm::Expected<MappingPlan> best =
      mapWithModel(model, graph, executor, /*preloadBudgets=*/{}, progress);
  if (!best)
    return best.takeError();
  const size_t n = graph.layers.size();
  const int64_t capacity =
      int64_t(model.getSystem().chip.core.scratchpad.capacityBytes);
  uint64_t configurations = best->configurationsEvaluated,
           explorations = best->explorations,
           memoized = best->memoizedExplorations;
  // Maps with a reduced scratchpad; a scenario whose working sets no longer
  // fit is skipped.
  auto attempt =
      [&](const PerformanceModel &reduced,
          llvm::ArrayRef<int64_t> budgets) -> std::optional<MappingPlan> {
    llvm::Expected<MappingPlan> plan =
        mapWithModel(reduced, graph, executor, budgets, progress);
    if (!plan) {
      llvm::consumeError(plan.takeError());
      return std::nullopt;
    }
    configurations += plan->configurationsEvaluated;
    explorations += plan->explorations;
    memoized += plan->memoizedExplorations;
    return std::move(*plan);
  };
  for (int step = 1; step < kPreloadSweepSteps; ++step) {
    const int64_t reserved = capacity / kPreloadSweepSteps * step;
    MultiChipSystem system = model.getSystem();
    system.chip.core.scratchpad.capacityBytes = double(capacity - reserved);
    PerformanceModel reduced(system);
    // Each layer's FWD without preloading and with as much of its weights
    // preloaded as the reservation holds: the cycles saved per byte rank
    // the layers.
    std::optional<MappingPlan> without =
        attempt(reduced, std::vector<int64_t>(n, 0));
    std::optional<MappingPlan> whole =
        attempt(reduced, std::vector<int64_t>(n, reserved));
    if (progress.wasStopped())
      return progress.makeError();
    if (!without || !whole)
      continue;
    struct Candidate {
      size_t layer;
      double savedPerByte;
      int64_t bytes;
    };
    std::vector<Candidate> candidates;
    for (size_t i = 0; i < n; ++i) {
      if (!graph.layers[i].fwd || whole->layers[i].passes.empty())
        continue;
      const PassPlan &with = whole->layers[i].passes.front();
      int64_t bytes = with.eval.config.memory.preloadedWeightBytes;
      double saved =
          without->layers[i].passes.front().cycles.total - with.cycles.total;
      if (bytes > 0 && saved > 0)
        candidates.push_back({i, saved / double(bytes), bytes});
    }
    llvm::stable_sort(candidates, [](const Candidate &a, const Candidate &b) {
      return a.savedPerByte > b.savedPerByte;
    });
    std::vector<int64_t> budgets(n, 0);
    int64_t left = reserved;
    for (const Candidate &c : candidates) {
      budgets[c.layer] = std::min(c.bytes, left);
      left -= budgets[c.layer];
      if (left == 0)
        break;
    }
    std::optional<MappingPlan> plan = attempt(reduced, budgets);
    if (progress.wasStopped())
      return progress.makeError();
    if (plan && plan->totals.cycles.total < best->totals.cycles.total) {
      plan->preloadReservedBytes = reserved;
      *best = std::move(*plan);
    }
  }
  best->configurationsEvaluated = configurations;
  best->explorations = explorations;
  best->memoizedExplorations = memoized;
  return best;
}

llvm::Expected<MappingPlan>
SpatialMapper::mapWithModel(const PerformanceModel &costModel,
                            const LayerGraph &graph, Executor &executor,
                            llvm::ArrayRef<int64_t> preloadBudgets,
                            ExplorationProgress &progress) const {
  const size_t n = graph.layers.size();
  for (const LayerEdge &edge : graph.edges)
    if (edge.producer < 0 || edge.consumer <= edge.producer ||
        size_t(edge.consumer) >= n)
      return llvm::createStringError(
          "layer graph edges must go forward between existing layers");

  std::vector<Parallelism> parallelisms;
  for (int q = 0; q < kNumParallelisms; ++q)
    if (costModel.isAvailable(Parallelism(q)) &&
        (options.parallelisms.empty() ||
         llvm::is_contained(options.parallelisms, Parallelism(q))))
      parallelisms.push_back(Parallelism(q));
  if (parallelisms.empty())
    return llvm::createStringError(
        "none of the allowed parallelisms is available on this system");

  // A layer's option: a parallelism and a DySM factor (000 §III-C), chosen
  // jointly over the graph because reuse between two layers needs both.
  std::vector<int64_t> factors = {1};
  if (options.spatialMinibatching)
    factors = {1, 2, 4, 8};
  const int numOptions = kNumParallelisms * int(factors.size());
  auto parallelismOf = [](int option) {
    return Parallelism(option % kNumParallelisms);
  };
  auto factorOf = [&](int option) {
    return factors[option / kNumParallelisms];
  };
  // DySM divides a layer with a primary computation that does not step
  // through time (000: the feature-dominant layers of image models).
  auto optionApplies = [&](const LayerShape &shape, int option) {
    return factorOf(option) == 1 || (shape.hasPrimary && shape.timesteps == 1);
  };

  //--- Explore every (layer, pass, option), once per distinct shape.
  std::vector<Task> tasks;
  std::vector<int> taskOf; // per (layer, pass, option) slot -> task
  llvm::StringMap<int> memo;
  auto slot = [&](int layer, TrainingPass pass, int option) {
    return (size_t(layer) * kNumPasses + int(pass)) * numOptions + option;
  };
  taskOf.assign(n * kNumPasses * numOptions, -1);
  MappingPlan plan;
  auto addTask = [&](std::vector<int> &index, int layer, TrainingPass pass,
                     int option, MemoryDecision memory, const char *what) {
    memory.spatialMinibatches = factorOf(option);
    if (pass == TrainingPass::FWD && !preloadBudgets.empty() &&
        graph.layers[layer].shape.hasWeights)
      memory.preloadedWeightBytes = preloadBudgets[layer];
    Parallelism p = parallelismOf(option);
    std::string key = explorationKey(graph.layers[layer].shape, pass, p) +
                      what + std::to_string(memory.spatialMinibatches) + '/' +
                      std::to_string(memory.preloadedWeightBytes);
    auto [it, inserted] = memo.try_emplace(key, int(tasks.size()));
    if (inserted)
      tasks.push_back({layer, pass, p, memory});
    else
      ++plan.memoizedExplorations;
    index[slot(layer, pass, option)] = it->second;
  };
  std::vector<bool> allowed(numOptions, false);
  for (Parallelism p : parallelisms)
    for (size_t f = 0; f < factors.size(); ++f)
      allowed[int(f) * kNumParallelisms + int(p)] = true;
  for (size_t i = 0; i < n; ++i) {
    const LayerNode &layer = graph.layers[i];
    bool runs[kNumPasses] = {layer.fwd, layer.bwd, layer.upd};
    for (int pass = 0; pass < kNumPasses; ++pass)
      if (runs[pass])
        for (int o = 0; o < numOptions; ++o)
          if (allowed[o] && optionApplies(layer.shape, o))
            addTask(taskOf, int(i), TrainingPass(pass), o, MemoryDecision(),
                    "/");
  }
  //--- Inter-layer reuse (000 §III-B1) along an edge whose consumer comes
  // next and reads it as its primary input: when both use the same option,
  // the consumer's FWD finds its input in the scratchpads (the producer
  // still writes it out, for BWD and UPD and any other consumer, e.g. a
  // residual shortcut). In training, if the producer has no other consumer,
  // its BWD and UPD find there the error the consumer's BWD left (with other
  // consumers the error is a sum, partly in memory).
  std::vector<int> outDegree(n, 0);
  for (const LayerEdge &edge : graph.edges)
    ++outDegree[edge.producer];
  std::vector<const LayerEdge *> reusableIn(n, nullptr),
      reusableOut(n, nullptr);
  std::vector<int> reuseTaskOf(n * kNumPasses * numOptions, -1);
  if (options.reuseActivations) {
    for (const LayerEdge &edge : graph.edges) {
      const LayerNode &producer = graph.layers[edge.producer];
      const LayerNode &consumer = graph.layers[edge.consumer];
      if (!edge.primaryInput || edge.consumer != edge.producer + 1)
        continue;
      if (consumer.shape.hasPrimary && consumer.shape.timesteps == 1) {
        reusableIn[edge.consumer] = &edge;
        MemoryDecision input;
        input.inputOnChip = true;
        for (int o = 0; o < numOptions; ++o)
          if (allowed[o] && optionApplies(consumer.shape, o))
            addTask(reuseTaskOf, edge.consumer, TrainingPass::FWD, o, input,
                    "/input-on-chip/");
      }
      if (outDegree[edge.producer] == 1 && edge.carriesError && consumer.bwd &&
          producer.shape.hasPrimary && producer.shape.timesteps == 1) {
        reusableOut[edge.producer] = &edge;
        MemoryDecision error;
        error.errorOnChip = true;
        for (int o = 0; o < numOptions; ++o) {
          if (!allowed[o] || !optionApplies(producer.shape, o))
            continue;
          if (producer.bwd)
            addTask(reuseTaskOf, edge.producer, TrainingPass::BWD, o, error,
                    "/error-on-chip/");
          if (producer.upd)
            addTask(reuseTaskOf, edge.producer, TrainingPass::UPD, o, error,
                    "/error-on-chip/");
        }
      }
    }
  }
  //--- Residual shortcuts kept on chip (000 §III-B1: "in the case of
  // residual layers, the outputs may need to be retained longer, as a
  // future layer may also use the outputs for short-cut addition"): along an
  // edge that a layer's fused auxiliary computations read (its only such
  // edge), the producer's output may stay in the scratchpads until the
  // consumer's FWD adds it, when both use the same parallelism (the same
  // layout of the tensor over the chips). The consumer's FWD is explored
  // with the shortcut on chip, with and without its input on chip too.
  std::vector<const LayerEdge *> shortcutIn(n, nullptr);
  std::vector<int> shortcutTaskOf(n * kNumPasses * numOptions, -1),
      bothTaskOf(n * kNumPasses * numOptions, -1);
  // The same with the residual block run as one DySM group (000 §III-C):
  // the cores hold the shortcut of one spatial minibatch (factors above 1).
  std::vector<int> groupShortcutTaskOf(n * kNumPasses * numOptions, -1),
      groupBothTaskOf(n * kNumPasses * numOptions, -1);
  if (options.reuseActivations) {
    std::vector<int> auxEdges(n, 0);
    for (const LayerEdge &edge : graph.edges)
      if (!edge.primaryInput)
        ++auxEdges[edge.consumer];
    for (const LayerEdge &edge : graph.edges) {
      const LayerNode &producer = graph.layers[edge.producer];
      const LayerNode &consumer = graph.layers[edge.consumer];
      if (edge.primaryInput || auxEdges[edge.consumer] != 1 ||
          !consumer.shape.hasPrimary || consumer.shape.timesteps > 1 ||
          consumer.shape.auxInputsPerOutput <= 0 ||
          // A product of two activations reads its second operand as its
          // "kernel", not as a shortcut.
          !consumer.shape.hasWeights || producer.shape.timesteps > 1)
        continue;
      // Layers that step through time in between may become pipe stages on
      // chips of their own: the shortcut stays in memory across them.
      bool recurrentBetween = false;
      for (int k = edge.producer + 1; k < edge.consumer; ++k)
        recurrentBetween |= graph.layers[k].shape.timesteps > 1;
      if (recurrentBetween)
        continue;
      shortcutIn[edge.consumer] = &edge;
      MemoryDecision shortcut;
      shortcut.shortcutOnChip = true;
      MemoryDecision both = shortcut;
      both.inputOnChip = true;
      for (int o = 0; o < numOptions; ++o) {
        if (!allowed[o] || !optionApplies(consumer.shape, o))
          continue;
        addTask(shortcutTaskOf, edge.consumer, TrainingPass::FWD, o, shortcut,
                "/shortcut-on-chip/");
        if (reusableIn[edge.consumer])
          addTask(bothTaskOf, edge.consumer, TrainingPass::FWD, o, both,
                  "/input-and-shortcut-on-chip/");
        if (factorOf(o) == 1)
          continue;
        MemoryDecision grouped = shortcut, groupedBoth = both;
        grouped.shortcutPerSpatialMinibatch = true;
        groupedBoth.shortcutPerSpatialMinibatch = true;
        addTask(groupShortcutTaskOf, edge.consumer, TrainingPass::FWD, o,
                grouped, "/spatial-shortcut-on-chip/");
        if (reusableIn[edge.consumer])
          addTask(groupBothTaskOf, edge.consumer, TrainingPass::FWD, o,
                  groupedBoth, "/input-and-spatial-shortcut-on-chip/");
      }
    }
  }
  //--- The same backwards, in training: the block's last layer leaves the
  // error of its output -- the shortcut's error -- in the scratchpads, the
  // block's first layer adds it to the error it computes for the block's
  // input, and the block input's producer finds the whole sum there (error
  // reuse, though its output has two consumers). Decided after the
  // selection, for blocks x -> first -> ... -> last (+ x) whose layers'
  // options allow it: the consumer's BWD is explored with the shortcut's
  // error on chip, the producer's BWD and UPD with their error on chip.
  // Every shortcut that could be kept (the fit check below drops some from
  // shortcutIn; a DySM group may still hold them, one spatial minibatch at
  // a time).
  const std::vector<const LayerEdge *> shortcutCandidate = shortcutIn;
  std::vector<const LayerEdge *> blockShortcut(n, nullptr);
  std::vector<int> groupErrorShortcutTaskOf(n * kNumPasses * numOptions, -1),
      groupBothErrorsTaskOf(n * kNumPasses * numOptions, -1);
  std::vector<int> errorShortcutTaskOf(n * kNumPasses * numOptions, -1),
      bothErrorsTaskOf(n * kNumPasses * numOptions, -1),
      blockErrorTaskOf(n * kNumPasses * numOptions, -1);
  for (size_t c = 0; c < n; ++c) {
    const LayerEdge *edge = shortcutIn[c];
    if (!edge || !graph.layers[c].bwd)
      continue;
    const int p = edge->producer;
    const LayerNode &producer = graph.layers[p];
    if (edge->producer + 1 >= edge->consumer || outDegree[p] != 2 ||
        !producer.shape.hasPrimary || !graph.layers[p + 1].bwd ||
        (!producer.bwd && !producer.upd))
      continue;
    bool firstReadsIt = false;
    for (const LayerEdge &other : graph.edges)
      firstReadsIt |=
          other.producer == p && other.consumer == p + 1 && other.primaryInput;
    if (!firstReadsIt)
      continue;
    blockShortcut[c] = edge;
    MemoryDecision shortcutError;
    shortcutError.shortcutOnChip = true;
    MemoryDecision both = shortcutError;
    both.errorOnChip = true;
    MemoryDecision error;
    error.errorOnChip = true;
    for (int o = 0; o < numOptions; ++o) {
      if (!allowed[o])
        continue;
      if (optionApplies(graph.layers[c].shape, o)) {
        addTask(errorShortcutTaskOf, int(c), TrainingPass::BWD, o,
                shortcutError, "/shortcut-error-on-chip/");
        // Also with its own error on chip (from the next layer, or as the
        // producer of the next block).
        addTask(bothErrorsTaskOf, int(c), TrainingPass::BWD, o, both,
                "/error-and-shortcut-error-on-chip/");
        if (factorOf(o) > 1) {
          MemoryDecision grouped = shortcutError, groupedBoth = both;
          grouped.shortcutPerSpatialMinibatch = true;
          groupedBoth.shortcutPerSpatialMinibatch = true;
          addTask(groupErrorShortcutTaskOf, int(c), TrainingPass::BWD, o,
                  grouped, "/spatial-shortcut-error-on-chip/");
          addTask(groupBothErrorsTaskOf, int(c), TrainingPass::BWD, o,
                  groupedBoth, "/error-and-spatial-shortcut-error-on-chip/");
        }
      }
      if (optionApplies(producer.shape, o)) {
        if (producer.bwd)
          addTask(blockErrorTaskOf, p, TrainingPass::BWD, o, error,
                  "/error-on-chip/");
        if (producer.upd)
          addTask(blockErrorTaskOf, p, TrainingPass::UPD, o, error,
                  "/error-on-chip/");
      }
    }
  }
  plan.explorations = tasks.size();

  DesignSpaceExplorer explorer(costModel, options.search,
                               options.reuseWeightsAcrossSteps);
  std::vector<ExplorationResult> results(tasks.size());
  progress.plan(tasks.size());
  auto run = [&](size_t t) {
    if (progress.shouldStop())
      return;
    const Task &task = tasks[t];
    results[t] = explorer.explore(graph.layers[task.layer].shape, task.pass,
                                  task.parallelism, task.memory);
    if (results[t].best)
      addSecondOperandError(costModel, graph.layers[task.layer].shape,
                            task.pass, *results[t].best);
    progress.explored();
  };
  // Each task writes its own slot, so the plan does not depend on the
  // executor.
  executor.parallelFor(tasks.size(), run);
  if (progress.wasStopped())
    return progress.makeError();
  for (const ExplorationResult &r : results)
    plan.configurationsEvaluated += r.evaluated;

  //--- Cost of each layer under each option (all its passes).
  auto best = [&](int layer, TrainingPass pass,
                  int option) -> const ExplorationResult & {
    return results[taskOf[slot(layer, pass, option)]];
  };
  std::vector<OptionCosts> layerCost(n, OptionCosts(numOptions, kInfinity));
  for (size_t i = 0; i < n; ++i) {
    const LayerNode &layer = graph.layers[i];
    bool runs[kNumPasses] = {layer.fwd, layer.bwd, layer.upd};
    std::string reasons;
    for (int o = 0; o < numOptions; ++o) {
      if (taskOf[slot(int(i), TrainingPass::FWD, o)] < 0)
        continue;
      double cost = 0;
      for (int pass = 0; pass < kNumPasses; ++pass) {
        if (!runs[pass])
          continue;
        const ExplorationResult &r = best(int(i), TrainingPass(pass), o);
        if (!r.best) {
          cost = kInfinity;
          // Why a DySM factor does not apply is no news; why a parallelism
          // does not is.
          if (factorOf(o) == 1)
            reasons += "; " + stringifyParallelism(parallelismOf(o)).str() +
                       " (" + stringifyTrainingPass(TrainingPass(pass)).str() +
                       "): " + r.whyNone;
          break;
        }
        cost += r.best->cycles.total;
      }
      layerCost[i][o] = cost;
    }
    if (std::all_of(layerCost[i].begin(), layerCost[i].end(),
                    [](double c) { return c == kInfinity; }))
      return makeNodeError(int64_t(i), "layer '", layer.shape.name,
                           "' has no legal mapping on this system", reasons);
  }

  //--- Relayout cost of an edge for each pair of parallelisms.
  auto relayoutCycles = [&](const LayerEdge &edge, Parallelism from,
                            Parallelism to) {
    double cycles = costModel.relayout(edge.elements, from, to).cycles;
    return edge.carriesError ? 2 * cycles : cycles;
  };

  //--- Reuse: the evaluation of a pass that finds its data on chip, when it
  // is faster than the pass without, and what the edge saves under an
  // option both ends use (an edge term of the selection, <= 0).
  auto reused = [&](int layer, TrainingPass pass,
                    int option) -> const Evaluation * {
    int task = reuseTaskOf[slot(layer, pass, option)];
    if (task < 0)
      return nullptr;
    const ExplorationResult &with = results[task];
    const ExplorationResult &without = best(layer, pass, option);
    if (!with.best || !without.best ||
        with.best->cycles.total >= without.best->cycles.total)
      return nullptr;
    return &*with.best;
  };
  auto saving = [&](int layer, TrainingPass pass, int option) {
    const Evaluation *with = reused(layer, pass, option);
    if (!with)
      return 0.0;
    return with->cycles.total - best(layer, pass, option).best->cycles.total;
  };
  auto edgeSaving = [&](const LayerEdge &edge, int option) {
    double total = 0;
    if (reusableIn[edge.consumer] == &edge)
      total += saving(edge.consumer, TrainingPass::FWD, option);
    if (reusableOut[edge.producer] == &edge)
      total += saving(edge.producer, TrainingPass::BWD, option) +
               saving(edge.producer, TrainingPass::UPD, option);
    return total;
  };

  //--- Shortcuts kept on chip: the shortcut's share of every core's
  // scratchpad stays taken from its producer's FWD to its consumer's. As
  // for activation reuse, the data kept are counted where they are kept
  // whole -- by the layers in between and the consumer --, not in the
  // producer's working set, which writes them block by block. The layers
  // in between may take any of their options, so a shortcut is kept only
  // where it fits beside the largest working set any FWD evaluation of
  // theirs needs (and beside every other shortcut that could be kept
  // across them): the selection may then combine the options freely. A layer
  // that keeps its input whole (input reuse) already holds its share of that
  // tensor, so a shortcut of the same tensor takes no more room there (the
  // first layer of a residual block reads the shortcut as its input).
  const double capacity =
      costModel.getSystem().chip.core.scratchpad.capacityBytes;
  const double coresInSystem =
      double(costModel.numChips() * costModel.numCores());
  auto shortcutShare = [&](const LayerEdge &edge) {
    return std::ceil(edge.elements / coresInSystem) *
           costModel.bytesPerElement();
  };
  // The largest FWD working sets, with the input kept whole or not.
  std::vector<double> largestWorkingSet(n, 0), largestWithInput(n, 0);
  for (size_t i = 0; i < n; ++i)
    for (int o = 0; o < numOptions; ++o)
      for (const std::vector<int> *index :
           {&taskOf, &reuseTaskOf, &shortcutTaskOf, &bothTaskOf,
            &groupShortcutTaskOf, &groupBothTaskOf}) {
        int task = (*index)[slot(int(i), TrainingPass::FWD, o)];
        if (task < 0 || !results[task].best)
          continue;
        double &largest =
            index == &reuseTaskOf ? largestWithInput[i] : largestWorkingSet[i];
        largest = std::max(largest, results[task].best->scratchpadBytes);
      }
  // Whether layer k keeps the tensor of a kept shortcut whole as its input.
  auto inputIsShortcut = [&](int k, const LayerEdge &shortcut) {
    return reusableIn[k] && reusableIn[k]->producer == shortcut.producer;
  };
  auto fitsAt = [&](int k, const std::vector<double> &reserved) {
    if (largestWorkingSet[k] + reserved[k] > capacity)
      return false;
    if (largestWithInput[k] <= 0)
      return true;
    double alreadyHeld = 0;
    for (size_t c = 0; c < n; ++c)
      if (const LayerEdge *edge = shortcutIn[c])
        if (edge->producer < k && k < edge->consumer &&
            inputIsShortcut(k, *edge))
          alreadyHeld += shortcutShare(*edge);
    return largestWithInput[k] + reserved[k] - alreadyHeld <= capacity;
  };
  // Drop the shortcuts that do not fit until the rest do (dropping one
  // frees room for the others).
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<double> reserved(n, 0);
    for (size_t c = 0; c < n; ++c)
      if (const LayerEdge *edge = shortcutIn[c])
        for (int k = edge->producer + 1; k < edge->consumer; ++k)
          reserved[k] += shortcutShare(*edge);
    for (size_t c = 0; c < n; ++c) {
      const LayerEdge *edge = shortcutIn[c];
      if (!edge)
        continue;
      bool fits = true;
      for (int k = edge->producer + 1; k < edge->consumer && fits; ++k)
        fits = fitsAt(k, reserved);
      if (!fits) {
        shortcutIn[c] = nullptr;
        changed = true;
      }
    }
  }
  // At the consumer: the other shortcuts kept across it beside its
  // evaluation with its own shortcut on chip.
  std::vector<double> reservedAt(n, 0);
  for (size_t c = 0; c < n; ++c)
    if (const LayerEdge *edge = shortcutIn[c])
      for (int k = edge->producer + 1; k < edge->consumer; ++k)
        reservedAt[k] += shortcutShare(*edge);
  auto onChipEval = [&](const std::vector<int> &index, int layer,
                        int option) -> const Evaluation * {
    int task = index[slot(layer, TrainingPass::FWD, option)];
    if (task < 0 || !results[task].best ||
        results[task].best->scratchpadBytes + reservedAt[layer] > capacity)
      return nullptr;
    return &*results[task].best;
  };
  // The consumer's FWD with the shortcut on chip, given whether its input
  // is on chip too (nullptr: not faster than without the shortcut).
  auto withShortcut = [&](int layer, int option,
                          bool inputOnChip) -> const Evaluation * {
    if (!shortcutIn[layer])
      return nullptr;
    const Evaluation *base =
        inputOnChip ? reused(layer, TrainingPass::FWD, option)
                    : &*best(layer, TrainingPass::FWD, option).best;
    const Evaluation *with =
        onChipEval(inputOnChip ? bothTaskOf : shortcutTaskOf, layer, option);
    if (!base || !with || with->cycles.total >= base->cycles.total)
      return nullptr;
    return with;
  };
  // What keeping the shortcut saves under the consumer's option (<= 0): the
  // saving both with and without the input on chip guarantees, since the
  // selection's edge terms are pairwise and whether the input is on chip
  // depends on the previous layer's option. The plan realizes at least it.
  auto shortcutSaving = [&](int layer, int option) {
    auto savingIn = [&](bool inputOnChip) {
      const Evaluation *with = withShortcut(layer, option, inputOnChip);
      if (!with)
        return 0.0;
      const Evaluation *base =
          inputOnChip ? reused(layer, TrainingPass::FWD, option)
                      : &*best(layer, TrainingPass::FWD, option).best;
      return with->cycles.total - base->cycles.total;
    };
    double saving = savingIn(false);
    if (reused(layer, TrainingPass::FWD, option))
      saving = std::max(saving, savingIn(true));
    return saving;
  };

  //--- One option per layer, jointly over the graph.
  std::vector<std::vector<const LayerEdge *>> incoming(n);
  std::vector<SelectionEdge> switches;
  for (const LayerEdge &edge : graph.edges) {
    incoming[edge.consumer].push_back(&edge);
    SelectionEdge s{edge.producer, edge.consumer, makeSwitchCosts(numOptions)};
    for (int from = 0; from < numOptions; ++from)
      for (int to = 0; to < numOptions; ++to)
        s.cost[from][to] =
            relayoutCycles(edge, parallelismOf(from), parallelismOf(to));
    for (int o = 0; o < numOptions; ++o)
      if (layerCost[edge.producer][o] < kInfinity &&
          layerCost[edge.consumer][o] < kInfinity)
        s.cost[o][o] += edgeSaving(edge, o);
    // A kept shortcut: the producer's parallelism (not its DySM factor)
    // must be the consumer's.
    if (shortcutIn[edge.consumer] == &edge)
      for (int from = 0; from < numOptions; ++from)
        for (int to = 0; to < numOptions; ++to)
          if (parallelismOf(from) == parallelismOf(to) &&
              layerCost[edge.producer][from] < kInfinity &&
              layerCost[edge.consumer][to] < kInfinity)
            s.cost[from][to] += shortcutSaving(edge.consumer, to);
    switches.push_back(std::move(s));
  }
  // A shortcut's cost depends on the parallelisms alone (only the next layer
  // reuses on chip; a shortcut kept on chip needs the same parallelism at
  // both ends, whatever the producer's DySM factor): remembering the
  // parallelism keeps the state space small.
  const size_t maxStates = 4096;
  Selection selection = selectOptions(layerCost, switches, maxStates,
                                      /*farClasses=*/kNumParallelisms);
  plan.selectionExact = selection.exact;
  std::vector<int> choice = std::move(selection.choice);

  //--- Residual blocks as DySM groups (000 §III-C: "We execute the first
  // S_mb, but instead of completing the next S_mb, we proceed to the next
  // layer. If we choose S_mb to be small enough to fit in the scratchpad,
  // then we can continue to hold them for the next layer"): when a
  // shortcut's producer, its consumer and every layer in between take one
  // option whose DySM factor F is above 1, they run spatial minibatch by
  // spatial minibatch, so the cores hold the shortcut of one spatial
  // minibatch -- 1/F of the share kept otherwise. Whether a block is one
  // group depends on all its layers, which the selection's pairwise terms
  // cannot see; so it is decided after the selection, block by block, each
  // block's layers moved to one option when that lowers the selection's
  // objective with the group's saving counted (the plan only gets faster).
  auto layersOfBlock = [&](const LayerEdge &edge) {
    return std::make_pair(edge.producer, edge.consumer);
  };
  // Whether the block's layers can hold the shortcut's spatial share under
  // `option` beside the largest FWD working set any of their explorations
  // under it chose, with every other shortcut that could be kept across
  // them held whole.
  auto groupFits = [&](const LayerEdge &edge, int option) {
    const double share =
        shortcutShare(edge) / double(factorOf(option)); // one spatial mb
    auto [p, c] = layersOfBlock(edge);
    for (int k = p + 1; k < c; ++k) {
      double others = 0;
      for (size_t c2 = 0; c2 < n; ++c2)
        if (const LayerEdge *other = shortcutCandidate[c2])
          if (other != &edge && other->producer < k && k < other->consumer)
            others += shortcutShare(*other);
      double largest = 0, largestInput = 0;
      for (const std::vector<int> *index :
           {&taskOf, &reuseTaskOf, &shortcutTaskOf, &bothTaskOf,
            &groupShortcutTaskOf, &groupBothTaskOf}) {
        int task = (*index)[slot(k, TrainingPass::FWD, option)];
        if (task < 0 || !results[task].best)
          continue;
        double &l = index == &reuseTaskOf ? largestInput : largest;
        l = std::max(l, results[task].best->scratchpadBytes);
      }
      if (largest + others + share > capacity)
        return false;
      // The block's first layer keeping its input whole holds the shortcut
      // already.
      double held = inputIsShortcut(k, edge) ? share : 0;
      if (largestInput > 0 && largestInput + others + share - held > capacity)
        return false;
    }
    return true;
  };
  // The consumer's FWD with the shortcut of one spatial minibatch on chip,
  // given whether its input is on chip (nullptr: not faster without it).
  auto groupedEval = [&](int layer, int option,
                         bool inputOnChip) -> const Evaluation * {
    const Evaluation *base =
        inputOnChip ? reused(layer, TrainingPass::FWD, option)
                    : &*best(layer, TrainingPass::FWD, option).best;
    const Evaluation *with = onChipEval(
        inputOnChip ? groupBothTaskOf : groupShortcutTaskOf, layer, option);
    if (!base || !with || with->cycles.total >= base->cycles.total)
      return nullptr;
    return with;
  };
  // What making block `c` one group saves under `choice` beyond what the
  // selection's terms already count (< 0), or 0 where it is not one group.
  auto groupSaving = [&](const std::vector<int> &choice, int c) {
    const LayerEdge *edge = shortcutCandidate[c];
    if (!edge)
      return 0.0;
    auto [p, c0] = layersOfBlock(*edge);
    const int option = choice[c];
    if (factorOf(option) == 1)
      return 0.0;
    for (int k = p; k < c0; ++k)
      if (choice[k] != option)
        return 0.0;
    if (!groupFits(*edge, option))
      return 0.0;
    const LayerEdge *in = reusableIn[c];
    bool inputOnChip = in && choice[in->producer] == option &&
                       reused(c, TrainingPass::FWD, option);
    const Evaluation *with = groupedEval(c, option, inputOnChip);
    if (!with)
      return 0.0;
    const Evaluation *base = inputOnChip
                                 ? reused(c, TrainingPass::FWD, option)
                                 : &*best(c, TrainingPass::FWD, option).best;
    double counted = shortcutIn[c] ? shortcutSaving(c, option) : 0.0;
    return std::min(0.0, with->cycles.total - base->cycles.total - counted);
  };
  // The shortcut's error kept on chip is decided after the selection too
  // (below); the objective of the grouping estimates what that step saves
  // under `choice`, grouped block or not, so that a group is credited with
  // the error it lets fit. The evaluation a pass takes under `choice`
  // before that step:
  auto selectedEval = [&](const std::vector<int> &choice, int k,
                          TrainingPass pass) -> const Evaluation * {
    if (taskOf[slot(k, pass, choice[k])] < 0)
      return nullptr;
    const ExplorationResult &r = best(k, pass, choice[k]);
    if (!r.best)
      return nullptr;
    const LayerEdge *out = reusableOut[k];
    if (pass != TrainingPass::FWD && out &&
        choice[out->producer] == choice[out->consumer])
      if (const Evaluation *e = reused(k, pass, choice[k]))
        return e;
    return &*r.best;
  };
  auto fasterBy = [&](const Evaluation *now, const std::vector<int> &index,
                      int k, TrainingPass pass, int option) {
    int task = index[slot(k, pass, option)];
    if (!now || task < 0 || !results[task].best)
      return 0.0;
    return std::min(0.0, results[task].best->cycles.total - now->cycles.total);
  };
  auto errorSaving = [&](const std::vector<int> &choice, int c) {
    const LayerEdge *edge = blockShortcut[c];
    if (!edge || !options.reuseActivations)
      return 0.0;
    const int p = edge->producer, first = p + 1, option = choice[c];
    if (choice[p] != choice[first] ||
        parallelismOf(choice[first]) != parallelismOf(option))
      return 0.0;
    bool grouped = factorOf(option) > 1;
    for (int k = p; k < c && grouped; ++k)
      grouped = choice[k] == option;
    const double share =
        shortcutShare(*edge) / (grouped ? double(factorOf(option)) : 1.0);
    for (int k = first; k < c; ++k) {
      double others = 0;
      for (size_t c2 = 0; c2 < n; ++c2)
        if (const LayerEdge *other = blockShortcut[c2])
          if (other != edge && other->producer < k && k < other->consumer)
            others += shortcutShare(*other);
      for (TrainingPass pass : {TrainingPass::BWD, TrainingPass::UPD}) {
        const Evaluation *e = selectedEval(choice, k, pass);
        if (e && e->scratchpadBytes + share + others > capacity)
          return 0.0;
      }
    }
    const Evaluation *bwd = selectedEval(choice, c, TrainingPass::BWD);
    if (!bwd)
      return 0.0;
    double saving = fasterBy(
        bwd,
        bwd->config.memory.errorOnChip
            ? (grouped ? groupBothErrorsTaskOf : bothErrorsTaskOf)
            : (grouped ? groupErrorShortcutTaskOf : errorShortcutTaskOf),
        c, TrainingPass::BWD, option);
    if (saving >= 0)
      return 0.0;
    for (TrainingPass pass : {TrainingPass::BWD, TrainingPass::UPD})
      saving += fasterBy(selectedEval(choice, p, pass), blockErrorTaskOf, p,
                         pass, choice[p]);
    return saving;
  };
  auto objective = [&](const std::vector<int> &choice) {
    double total = 0;
    for (size_t i = 0; i < n; ++i)
      total += layerCost[i][choice[i]];
    for (const SelectionEdge &s : switches)
      total += s.cost[choice[s.from]][choice[s.to]];
    for (size_t c = 0; c < n; ++c)
      total += groupSaving(choice, int(c)) + errorSaving(choice, int(c));
    return total;
  };
  if (options.spatialMinibatching &&
      llvm::any_of(shortcutCandidate,
                   [](const LayerEdge *edge) { return edge != nullptr; })) {
    double current = objective(choice);
    for (bool improved = true; improved;) {
      improved = false;
      for (size_t c = 0; c < n; ++c) {
        const LayerEdge *edge = shortcutCandidate[c];
        if (!edge)
          continue;
        auto [p, c0] = layersOfBlock(*edge);
        for (int o = 0; o < numOptions; ++o) {
          if (factorOf(o) == 1 || !allowed[o])
            continue;
          bool possible = true;
          for (int k = p; k <= c0 && possible; ++k)
            possible = layerCost[k][o] < kInfinity;
          if (!possible || !groupFits(*edge, o))
            continue;
          std::vector<int> trial = choice;
          std::fill(trial.begin() + p, trial.begin() + c0 + 1, o);
          double value = objective(trial);
          if (value < current * (1 - 1e-12)) {
            choice = std::move(trial);
            current = value;
            improved = true;
          }
        }
      }
    }
  }

  //--- Timestep pipelining (000 §III-D), chosen with the parallelisms. A
  // group's plan depends on its own layers only, so each candidate is
  // planned once. A set of adopted groups is then priced as its groups'
  // cycles plus the selection of every other layer with the stages fixed and
  // their edges streamed (no relayout, no reuse); the cheapest set wins, the
  // empty one being the selection above. With up to eight plannable
  // candidates every set is priced (choosePipeGroups), so groups and
  // parallelisms are chosen exactly together.
  std::vector<const PipeStagePlan *> stageOf(n, nullptr);
  std::vector<PipeGroupPlan> adopted;
  if (options.pipelineTimesteps) {
    const int64_t torusRows = costModel.getSystem().torus.y;
    TimestepPipeliner pipeliner(costModel, options.search,
                                options.reuseWeightsAcrossSteps, parallelisms);
    std::vector<std::vector<int>> candidates =
        findPipeGroupCandidates(graph, torusRows);
    std::vector<std::optional<PipeGroupPlan>> planned;
    std::vector<size_t> plannable;
    for (const std::vector<int> &group : candidates) {
      PipeGroupRecord record;
      record.layers = group;
      for (int layer : group)
        record.cyclesUnpipelined += layerCost[layer][choice[layer]];
      for (size_t e = 0; e < graph.edges.size(); ++e) {
        const LayerEdge &edge = graph.edges[e];
        if (llvm::is_contained(group, edge.producer) ||
            llvm::is_contained(group, edge.consumer))
          record.cyclesUnpipelined +=
              switches[e].cost[choice[edge.producer]][choice[edge.consumer]];
      }
      record.cycles = kInfinity;
      planned.push_back(pipeliner.plan(graph, group, executor));
      if (const std::optional<PipeGroupPlan> &groupPlan = planned.back()) {
        plannable.push_back(planned.size() - 1);
        plan.configurationsEvaluated += groupPlan->configurationsEvaluated;
        plan.explorations += groupPlan->explorations;
        record.cycles = groupPlan->cycles;
        record.forward = groupPlan->forward;
        record.backward = groupPlan->backward;
        record.update = groupPlan->update;
        for (const PipeStagePlan &stage : groupPlan->stages)
          record.rows.push_back(stage.assignment.rows);
      }
      plan.pipeGroups.push_back(std::move(record));
    }

    // The selection with the candidates in `set` pipelined, and its cost
    // with their cycles.
    auto withGroups = [&](const std::vector<bool> &set) {
      std::vector<bool> isStage(n);
      double groupCycles = 0;
      for (size_t k = 0; k < set.size(); ++k)
        if (set[k]) {
          groupCycles += planned[k]->cycles;
          for (int layer : candidates[k])
            isStage[layer] = true;
        }
      std::vector<OptionCosts> fixedCost = layerCost;
      for (size_t i = 0; i < n; ++i)
        if (isStage[i]) {
          fixedCost[i].assign(numOptions, kInfinity);
          fixedCost[i][choice[i]] = 0;
        }
      std::vector<SelectionEdge> streamed = switches;
      for (SelectionEdge &edge : streamed)
        if (isStage[edge.from] || isStage[edge.to])
          edge.cost = makeSwitchCosts(numOptions);
      Selection selected = selectOptions(fixedCost, streamed, maxStates,
                                         /*farClasses=*/kNumParallelisms);
      selected.cost += groupCycles;
      return selected;
    };
    std::vector<bool> best = choosePipeGroups(
        candidates.size(), plannable,
        [&](const std::vector<bool> &set) { return withGroups(set).cost; });
    adopted.reserve(candidates.size()); // stageOf points into it
    for (size_t k = 0; k < candidates.size(); ++k) {
      if (!best[k])
        continue;
      plan.pipeGroups[k].adopted = true;
      int groupIndex = int(adopted.size());
      adopted.push_back(std::move(*planned[k]));
      for (PipeStagePlan &stage : adopted.back().stages) {
        stage.assignment.group = groupIndex;
        for (Evaluation &eval : stage.passes) {
          eval.config.memory.pipeGroup = groupIndex;
          eval.config.memory.pipeFirstRow = stage.assignment.firstRow;
          eval.config.memory.pipeRows = stage.assignment.rows;
        }
        stageOf[stage.layer] = &stage;
      }
    }
    // The other layers take the selection made around the stages; without
    // stages, the selection above stands (with its residual DySM groups).
    if (!adopted.empty()) {
      Selection around = withGroups(best);
      plan.selectionExact = plan.selectionExact && around.exact;
      choice = std::move(around.choice);
    }
  }

  if (!plan.selectionExact)
    plan.selectionStatesKept = maxStates;

  //--- The plan.
  plan.layers.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const LayerNode &layer = graph.layers[i];
    LayerPlan &lp = plan.layers[i];
    const int option = choice[i];
    lp.parallelism = parallelismOf(option);
    // Each parallelism's cost with its best DySM factor.
    lp.alternatives.fill(kInfinity);
    for (int o = 0; o < numOptions; ++o) {
      double &alternative = lp.alternatives[int(parallelismOf(o))];
      alternative = std::min(alternative, layerCost[i][o]);
    }
    bool runs[kNumPasses] = {layer.fwd, layer.bwd, layer.upd};
    const PipeStagePlan *stage = stageOf[i];
    if (stage)
      lp.parallelism = stage->passes.front().config.parallelism;
    for (int pass = 0, stagePass = 0; pass < kNumPasses; ++pass) {
      if (!runs[pass])
        continue;
      PassPlan pp;
      pp.pass = TrainingPass(pass);
      pp.relayout.name = "relayout";
      if (stage) {
        // A pipe stage: its own chips, the group's schedule; its edges are
        // streamed timestep by timestep instead of re-laid out.
        pp.eval = stage->passes[stagePass];
        pp.cycles = stage->cycles[stagePass];
        ++stagePass;
      } else {
        pp.eval = *best(int(i), pp.pass, option).best;
        const LayerEdge *reuseEdge =
            pp.pass == TrainingPass::FWD ? reusableIn[i] : reusableOut[i];
        bool inputOnChip = false;
        if (reuseEdge &&
            choice[reuseEdge->producer] == choice[reuseEdge->consumer] &&
            !stageOf[reuseEdge->producer] && !stageOf[reuseEdge->consumer])
          if (const Evaluation *onChip = reused(int(i), pp.pass, option)) {
            pp.eval = *onChip;
            inputOnChip = pp.pass == TrainingPass::FWD;
          }
        const LayerEdge *shortcut = shortcutIn[i];
        if (pp.pass == TrainingPass::FWD && groupSaving(choice, int(i)) < 0 &&
            !stageOf[shortcutCandidate[i]->producer]) {
          if (const Evaluation *kept = groupedEval(int(i), option, inputOnChip))
            pp.eval = *kept;
        } else if (pp.pass == TrainingPass::FWD && shortcut &&
                   parallelismOf(choice[shortcut->producer]) ==
                       lp.parallelism &&
                   !stageOf[shortcut->producer]) {
          if (const Evaluation *kept =
                  withShortcut(int(i), option, inputOnChip))
            pp.eval = *kept;
        }
      }
      if (!stage && pp.pass != TrainingPass::UPD) {
        for (const LayerEdge *edge : incoming[i]) {
          if ((pp.pass == TrainingPass::BWD && !edge->carriesError) ||
              stageOf[edge->producer])
            continue;
          TransferGroup group = costModel.relayout(
              edge->elements, parallelismOf(choice[edge->producer]),
              lp.parallelism);
          for (int l = 0; l < kNumLinks; ++l)
            pp.relayout.bytes[l] += group.bytes[l];
          if (group.cycles > 0 && group.cycles >= pp.relayout.cycles / 2)
            pp.relayout.bottleneck = group.bottleneck;
          pp.relayout.cycles += group.cycles;
        }
      }
      if (!stage) {
        pp.cycles = pp.eval.cycles;
        pp.cycles.nonOvldt += pp.relayout.cycles;
        pp.cycles.total += pp.relayout.cycles;
      }
      // Cycle counts are recorded as 64-bit integers; a system with absurdly
      // slow memories or links must be an error, not a wrapped count.
      if (!(pp.cycles.total <= kMaxCycles))
        return makeNodeError(
            int64_t(i), "layer '", layer.shape.name, "' (",
            stringifyTrainingPass(pp.pass), ") would take ",
            llvm::formatv("{0:e}", pp.cycles.total).str(),
            " cycles, beyond the 2^62 a plan can count: the system's "
            "bandwidths, efficiencies or frequency are too small");
      plan.totals.cycles += pp.cycles;
      plan.totals.macs += pp.eval.macs;
      lp.passes.push_back(std::move(pp));
    }
  }

  //--- The shortcut's error kept on chip (the tasks above), where the plan's
  // options allow it: the block's first layer takes the last layer's
  // parallelism (it adds the error in place) and the producer's option
  // (error reuse), and the error fits beside the working set of every BWD
  // and UPD it waits through (with every other such error that could be
  // kept there). Each pass changes only when that makes it faster, so the
  // plan only gets faster.
  // A block that runs as one DySM group holds the error of one spatial
  // minibatch.
  auto groupedBlock = [&](size_t c) {
    const LayerEdge *edge = blockShortcut[c];
    if (!edge || factorOf(choice[c]) == 1)
      return false;
    for (int k = edge->producer; k < int(c); ++k)
      if (choice[k] != choice[c] || stageOf[k])
        return false;
    return true;
  };
  auto errorShare = [&](size_t c) {
    return shortcutShare(*blockShortcut[c]) /
           (groupedBlock(c) ? double(factorOf(choice[c])) : 1.0);
  };
  std::vector<double> errorReserved(n, 0);
  for (size_t c = 0; c < n; ++c)
    if (const LayerEdge *edge = blockShortcut[c])
      for (int k = edge->producer + 1; k < edge->consumer; ++k)
        errorReserved[k] += errorShare(c);
  auto passOf = [&](int layer, TrainingPass pass) -> PassPlan * {
    for (PassPlan &pp : plan.layers[layer].passes)
      if (pp.pass == pass)
        return &pp;
    return nullptr;
  };
  auto replaceIfFaster = [&](PassPlan *pp, const std::vector<int> &index,
                             int layer) {
    if (!pp)
      return;
    int task = index[slot(layer, pp->pass, choice[layer])];
    if (task < 0 || !results[task].best ||
        results[task].best->cycles.total >= pp->eval.cycles.total)
      return;
    pp->eval = *results[task].best;
    pp->cycles = pp->eval.cycles;
    pp->cycles.nonOvldt += pp->relayout.cycles;
    pp->cycles.total += pp->relayout.cycles;
  };
  bool reRealized = false; // some pass changed after the selection
  for (size_t c = 0; c < n; ++c) {
    const LayerEdge *edge = blockShortcut[c];
    if (!edge)
      continue;
    const int p = edge->producer, first = p + 1;
    bool pipelined = false;
    for (int k = p; k <= int(c); ++k)
      pipelined |= stageOf[k] != nullptr;
    if (pipelined || choice[p] != choice[first] ||
        parallelismOf(choice[first]) != parallelismOf(choice[c]))
      continue;
    bool fits = true;
    for (int k = first; k < int(c) && fits; ++k)
      for (const PassPlan &pp : plan.layers[k].passes)
        if (pp.pass != TrainingPass::FWD &&
            pp.eval.scratchpadBytes + errorReserved[k] > capacity)
          fits = false;
    PassPlan *bwd = passOf(int(c), TrainingPass::BWD);
    if (!fits || !bwd)
      continue;
    const bool grouped = groupedBlock(c);
    if (bwd->eval.config.memory.errorOnChip)
      replaceIfFaster(bwd, grouped ? groupBothErrorsTaskOf : bothErrorsTaskOf,
                      int(c));
    else
      replaceIfFaster(bwd,
                      grouped ? groupErrorShortcutTaskOf : errorShortcutTaskOf,
                      int(c));
    if (!bwd->eval.config.memory.shortcutOnChip)
      continue; // not faster: the error goes through memory
    // The producer finds the whole error of its output on chip; if it is
    // itself the last layer of the block before, with its shortcut's error
    // on chip too.
    PassPlan *producerBwd = passOf(p, TrainingPass::BWD);
    if (producerBwd)
      replaceIfFaster(
          producerBwd,
          !producerBwd->eval.config.memory.shortcutOnChip ? blockErrorTaskOf
          : producerBwd->eval.config.memory.shortcutPerSpatialMinibatch
              ? groupBothErrorsTaskOf
              : bothErrorsTaskOf,
          p);
    replaceIfFaster(passOf(p, TrainingPass::UPD), blockErrorTaskOf, p);
    reRealized = true;
  }

  //--- Inference: a layer whose every reader finds its output on chip (the
  // next layer's input, a kept shortcut) does not write it -- 000 §III-B1:
  // "this optimization saves an external memory read and write for
  // inference". Its configuration is evaluated again without the write and
  // takes it when faster (the output is counted where it is kept whole, by
  // its readers, so the working set does not change).
  const bool inferenceOnly =
      llvm::none_of(graph.layers, [](const LayerNode &layer) {
        return layer.bwd || layer.upd;
      });
  if (inferenceOnly && options.reuseActivations) {
    std::vector<std::vector<const LayerEdge *>> outgoing(n);
    for (const LayerEdge &edge : graph.edges)
      outgoing[edge.producer].push_back(&edge);
    for (size_t p = 0; p < n; ++p) {
      const LayerNode &layer = graph.layers[p];
      if (outgoing[p].empty() || layer.networkOutput || stageOf[p] ||
          !layer.shape.hasPrimary || layer.shape.timesteps > 1)
        continue;
      bool allOnChip = true;
      for (const LayerEdge *edge : outgoing[p]) {
        const PassPlan *reader = passOf(edge->consumer, TrainingPass::FWD);
        if (!reader) {
          allOnChip = false;
          break;
        }
        const MemoryDecision &memory = reader->eval.config.memory;
        allOnChip &=
            (reusableIn[edge->consumer] == edge && memory.inputOnChip) ||
            (shortcutIn[edge->consumer] == edge && memory.shortcutOnChip);
      }
      PassPlan *fwd = passOf(int(p), TrainingPass::FWD);
      if (!allOnChip || !fwd)
        continue;
      MappingConfig config = fwd->eval.config;
      config.memory.outputOnChip = true;
      std::optional<Evaluation> unwritten =
          evaluateMappedPass(costModel, layer.shape, TrainingPass::FWD, config);
      if (!unwritten || unwritten->cycles.total >= fwd->eval.cycles.total)
        continue;
      fwd->eval = std::move(*unwritten);
      fwd->cycles = fwd->eval.cycles;
      fwd->cycles.nonOvldt += fwd->relayout.cycles;
      fwd->cycles.total += fwd->relayout.cycles;
      reRealized = true;
    }
  }
  if (reRealized) {
    plan.totals.cycles = CycleBreakdown();
    for (const LayerPlan &lp : plan.layers)
      for (const PassPlan &pp : lp.passes)
        plan.totals.cycles += pp.cycles;
  }

  if (!(plan.totals.cycles.total <= kMaxCycles))
    return llvm::createStringError(
        "the network would take more than 2^62 cycles: the system's "
        "bandwidths, efficiencies or frequency are too small");
  plan.totals.seconds = plan.totals.cycles.total / costModel.frequency();
  plan.totals.utilization =
      plan.totals.cycles.total > 0
          ? plan.totals.cycles.useful / plan.totals.cycles.total
          : 0;
  return plan;
}
