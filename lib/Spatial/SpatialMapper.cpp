//===- SpatialMapper.cpp - Mapping a whole network onto the system --------===//
//
// SpatialMapper::map and the driver's strategies over the whole torus
// (MappingDriver.h): one MappingProblem solved (MappingSolver.h), in
// inference with weight preloading the sweep of reservations over whole
// mappings, and the blocks of the torus.
//
//===----------------------------------------------------------------------===//

#include "dsm/Core/Spatial/SpatialMapper.h"

#include "MappingDriver.h"
#include "dsm/Core/Spatial/ChipBlocks.h"
#include "dsm/Core/Spatial/PlanBounds.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace dsm::core;

SpatialMapper::SpatialMapper(const MultiChipSystem &system,
                             MapperOptions options)
    : model(system), options(options) {}

/// Scratchpad reservations tried for preloaded weights: k/8 of the
/// scratchpad for k = 0..7 (0: no preloading; the whole scratchpad would
/// leave no room to work).
static constexpr int kPreloadSweepSteps = 8;
/// The mappings of a preloading sweep: one without, then three per
/// reservation (a scenario whose working sets do not fit stops early).
static constexpr int kPreloadSweepMappings = 1 + 3 * (kPreloadSweepSteps - 1);

llvm::Expected<MappingPlan>
MappingDriver::mapOnce(const MappingRequest &request) const {
  llvm::Expected<MappingProblem> problem = MappingProblem::create(
      request.costModel, request.graph,
      request.options ? *request.options : options, request.preloadBudgets);
  if (!problem)
    return problem.takeError();
  problem->setCyclesToBeat(request.cyclesToBeat);
  problem->setActivationCopies(request.microbatchesInFlight);
  problem->setStepMicrobatches(request.stepMicrobatches);
  problem->setChoosesSavers(request.choosesSavers);
  return solveMapping(*problem, executor, progress, request.memo);
}

static bool isInference(const LayerGraph &graph) {
  return llvm::none_of(graph.layers, [](const LayerNode &layer) {
    return layer.bwd || layer.upd;
  });
}

/// Whether inference with weight preloading sweeps reservations.
static bool sweepsPreloads(const MapperOptions &options,
                           const LayerGraph &graph) {
  bool anyWeights = llvm::any_of(graph.layers, [](const LayerNode &layer) {
    return layer.shape.hasPrimary && layer.shape.hasWeights;
  });
  return options.preloadWeights && isInference(graph) && anyWeights;
}

/// Whether `plan` beats `best` (none: any plan does): a plan that fits
/// beats one that does not, then fewer cycles.
static bool beats(const MappingPlan &plan, const MappingPlan *best) {
  return !best || (plan.fitsMemory() != best->fitsMemory()
                       ? plan.fitsMemory()
                       : plan.totals.cycles.total < best->totals.cycles.total);
}

/// Fastest first; a plan that fits before one that does not.
static void orderRejected(std::vector<RejectedStrategy> &rejected) {
  llvm::stable_sort(rejected,
                    [](const RejectedStrategy &a, const RejectedStrategy &b) {
                      const bool aFits = !a.complete || a.memory.fits(),
                                 bFits = !b.complete || b.memory.fits();
                      if (aFits != bFits)
                        return aFits;
                      return a.cycles < b.cycles;
                    });
}

llvm::Expected<NetworkPlan>
dsm::core::mapOnRegroupings(const MultiChipSystem &system,
                            const MapperOptions &options,
                            const LayerGraph &graph, Executor &executor) {
  // The whole node first: a regrouping must be faster to be taken.
  std::vector<MultiChipSystem> networks = {system};
  const NetworkDimension &node = system.torus.x;
  if (node.topology == NetworkTopology::Switch)
    for (int64_t columns = node.size / 2; columns >= 1; --columns)
      if (node.size % columns == 0)
        networks.push_back(cantFail(regroupInnermost(system, columns)));
  auto rejectedOf = [](const NetworkPlan &other) {
    return RejectedStrategy{"tensor groups of " +
                                std::to_string(other.system.torus.x.size) +
                                ": " + describeStrategy(other.plan),
                            other.plan.totals.cycles.total, other.plan.memory,
                            /*complete=*/true};
  };
  std::optional<NetworkPlan> best;
  llvm::Error wholeNodeError = llvm::Error::success();
  std::vector<RejectedStrategy> others;
  for (const MultiChipSystem &network : networks) {
    // A regrouping is priced only as far as it could beat the best so far.
    MapperOptions bounded = options;
    if (best && best->plan.fitsMemory())
      bounded.cyclesToBeat =
          std::min(options.cyclesToBeat, best->plan.totals.cycles.total);
    llvm::Expected<MappingPlan> plan =
        SpatialMapper(network, bounded).map(graph, executor);
    if (!plan) {
      // The whole node's error is the one to report when nothing maps.
      if (&network == &networks.front())
        wholeNodeError = plan.takeError();
      else
        llvm::consumeError(plan.takeError());
      continue;
    }
    NetworkPlan candidate{network, std::move(*plan)};
    if (!beats(candidate.plan, best ? &best->plan : nullptr)) {
      others.push_back(rejectedOf(candidate));
      continue;
    }
    if (best)
      others.push_back(rejectedOf(*best));
    best = std::move(candidate);
  }
  if (!best)
    return std::move(wholeNodeError);
  llvm::consumeError(std::move(wholeNodeError));
  std::vector<RejectedStrategy> &rejected = best->plan.rejected;
  rejected.insert(rejected.end(), others.begin(), others.end());
  orderRejected(rejected);
  return std::move(*best);
}

llvm::Expected<MappingPlan> SpatialMapper::map(const LayerGraph &graph,
                                               Executor &executor) const {
  ExplorationProgress progress(*options.progress, sweepsPreloads(options, graph)
                                                      ? kPreloadSweepMappings
                                                      : 1);
  llvm::Expected<MappingPlan> plan =
      MappingDriver(model, options, graph, executor, progress).run();
  if (!plan)
    return plan;
  // A plan that is not one is the mapper's bug, never a user's answer.
  if (llvm::Error error = verifyPlan(model, graph, *plan))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "internal error: the mapper's plan fails its verification: " +
            llvm::toString(std::move(error)));
  progress.finish();
  return plan;
}

MappingDriver::MappingDriver(const PerformanceModel &model,
                             const MapperOptions &options,
                             const LayerGraph &graph, Executor &executor,
                             ExplorationProgress &progress)
    : model(model), options(options), stageOptions(options), graph(graph),
      executor(executor), progress(progress) {
  stageOptions.pipelineTimesteps = false;
}

llvm::Expected<MappingPlan> MappingDriver::run() {
  // A pipeline as named: only its stages are mapped.
  if (options.givenPipeline.given())
    return mapGivenPipeline();
  // Training with pipelines searched, and the whole torus and its blocks
  // in the order the memory savers call for.
  if (options.pipelineStages && !isInference(graph))
    return mapWithPipelines();
  // The whole torus, then the blocks that could beat it.
  Incumbent incumbent(mapOnTorus(model, options.cyclesToBeat));
  incumbent.boundBy(options.cyclesToBeat);
  if (options.chipBlocks)
    if (llvm::Error stopped = mapOnBlocks(incumbent))
      return std::move(stopped);
  return incumbent.take();
}

Incumbent::Incumbent(llvm::Expected<MappingPlan> first) {
  if (first)
    best = std::move(*first);
  else
    whyNone = first.takeError();
}

std::string dsm::core::describeStrategy(const MappingPlan &plan) {
  std::string name;
  if (plan.pipeline.stages.size() == 1)
    name = llvm::formatv("gradient accumulation of {0} microbatches",
                         plan.pipeline.microbatches)
               .str();
  else if (plan.pipeline.pipelined())
    name =
        llvm::formatv("{0} stages x {1} microbatches ({2})",
                      plan.pipeline.stages.size(), plan.pipeline.microbatches,
                      stringifyPipelineSchedule(plan.pipeline.schedule))
            .str();
  else if (!plan.block.whole())
    name =
        llvm::formatv("a {0} x {1} block", plan.block.rows, plan.block.columns)
            .str();
  else
    name = "the whole torus";
  if (!plan.fastestMemory.fits() && !plan.pipeline.pipelined())
    name += plan.memory.total() < plan.fastestMemory.total()
                ? ", memory savers chosen"
                : ", no memory savers";
  return name;
}

void Incumbent::reject(const MappingPlan &plan) {
  rejected.push_back({describeStrategy(plan), plan.totals.cycles.total,
                      plan.memory, /*complete=*/true});
}

void Incumbent::noteCutShort(std::string name, double cycles) {
  rejected.push_back({std::move(name), cycles, MemoryPerChip(),
                      /*complete=*/false});
}

void Incumbent::replace(MappingPlan plan) {
  llvm::consumeError(std::move(whyNone));
  whyNone = llvm::Error::success();
  if (best)
    reject(*best);
  best = std::move(plan);
}

void Incumbent::offer(MappingPlan plan) {
  const bool better = beats(plan, best ? &*best : nullptr);
  if (better)
    replace(std::move(plan));
  else
    reject(plan);
}

void Incumbent::challengeWith(llvm::Expected<MappingPlan> whole) {
  const bool wholeAtLeastAsFast =
      whole && whole->fitsMemory() && best &&
      whole->totals.cycles.total <= best->totals.cycles.total;
  if (fits() && !wholeAtLeastAsFast) {
    if (whole)
      reject(*whole);
    else
      llvm::consumeError(whole.takeError());
    return;
  }
  if (whole) {
    replace(std::move(*whole));
    return;
  }
  if (best)
    reject(*best);
  best.reset();
  llvm::consumeError(std::move(whyNone));
  whyNone = whole.takeError();
}

llvm::Expected<MappingPlan> Incumbent::take() {
  if (!best)
    return std::move(whyNone);
  orderRejected(rejected);
  best->rejected.insert(best->rejected.end(), rejected.begin(), rejected.end());
  rejected.clear();
  return std::move(*best);
}

llvm::Expected<MappingPlan>
MappingDriver::mapOnTorus(const PerformanceModel &costModel,
                          double cyclesToBeat) const {
  if (sweepsPreloads(options, graph))
    return mapWithPreloading(costModel, cyclesToBeat);
  MappingRequest request(costModel, graph);
  request.cyclesToBeat = cyclesToBeat;
  return mapOnce(request);
}

/// Records that `plan` runs on `block`, `activeShare` of the system's chips:
/// every configuration names the block, and the idle chips' time is
/// under-use (chargeIdleChips).
static void placeOnBlock(MappingPlan &plan, ChipBlock block,
                         double activeShare) {
  plan.block = block;
  plan.totals.cycles = CycleBreakdown();
  for (LayerPlan &layer : plan.layers)
    for (PassPlan &pass : layer.passes) {
      pass.eval.config.block = block;
      pass.cycles = chargeIdleChips(pass.cycles, activeShare);
      plan.totals.cycles += pass.cycles;
    }
  plan.totals.utilization =
      plan.totals.cycles.total > 0
          ? plan.totals.cycles.useful / plan.totals.cycles.total
          : 0;
}

/// Whether a plan on `blockModel`'s torus might fit its chips' memory and
/// take fewer than `cycles`: not when even its parameter state sharded
/// over every chip overfills one (mayFitMemory), nor when its compute and
/// its unavoidable memory traffic do not (planCyclesLowerBound), so neither
/// does any mapping of it, with or without a preloading sweep. The margin
/// keeps a bound that only rounding puts above the plan from skipping it.
bool MappingDriver::canBeat(const PerformanceModel &blockModel,
                            double cycles) const {
  llvm::Expected<MappingProblem> problem =
      MappingProblem::create(blockModel, graph, options, /*preloadBudgets=*/{});
  if (!problem) {
    llvm::consumeError(problem.takeError());
    return true;
  }
  return mayFitMemory(*problem) &&
         planCyclesLowerBound(*problem) < cycles * (1 + 1e-9);
}

llvm::Error MappingDriver::mapOnBlocks(Incumbent &incumbent) const {
  // A block holds the network on fewer chips, each with a larger share:
  // if the whole torus cannot hold it, no block can.
  // Stopped, why the torus has no plan stays the answer.
  if ((incumbent.has() && !incumbent.fits()) ||
      (!incumbent.has() && progress.wasStopped()))
    return llvm::Error::success();
  const MultiChipSystem &system = model.getSystem();
  const double macsPerChipCycle = double(model.numCores()) *
                                  double(model.arrayRows()) *
                                  double(model.arrayColumns());
  SearchEffort effort;
  if (incumbent.has())
    effort.add(incumbent.plan());
  for (const ChipBlock &block : candidateBlocks(system.torus)) {
    const double chips = double(block.rows * block.columns);
    // The block's plan takes at least its MACs at the block's peak; the
    // blocks come largest first, so none after this one can do better.
    if (incumbent.has() &&
        incumbent.plan().totals.macs / (chips * macsPerChipCycle) >=
            incumbent.plan().totals.cycles.total)
      break;
    PerformanceModel blockModel(blockSystem(system, block.rows, block.columns));
    if (!canBeat(blockModel, incumbent.cyclesToBeat()))
      continue;
    llvm::Expected<MappingPlan> plan =
        mapOnTorus(blockModel, incumbent.cyclesToBeat());
    if (!plan) {
      if (progress.wasStopped())
        return plan.takeError();
      llvm::consumeError(plan.takeError());
      continue;
    }
    effort.add(*plan);
    if (!plan->fitsMemory())
      continue;
    placeOnBlock(*plan, block, chips / double(system.chips));
    incumbent.offer(std::move(*plan));
  }
  if (incumbent.has())
    effort.recordIn(incumbent.plan());
  return llvm::Error::success();
}

llvm::Expected<MappingPlan>
MappingDriver::mapWithPreloading(const PerformanceModel &costModel,
                                 double cyclesToBeat) const {
  // DeepSpatialMatrix §III-B2: "we sort the layers based on how sensitive their
  // utilization is to fetching weights. Then, we sweep through scenarios
  // where different fractions of weights are preloaded on to the scratchpad
  // (with appropriate replication based on CoreD), and identify which
  // configuration yields the best performance." Each scenario reserves part
  // of every core's scratchpad for weights; the layers' working sets (and
  // the activations they leave for the next layer) get the rest, which is
  // how preloading can preclude activation reuse. The scenarios' models
  // differ only in a scratchpad that shrinks from one to the next, so they
  // share their explorations, and selections over the same costs.
  const int64_t capacity =
      int64_t(costModel.getSystem().chip.core.scratchpad.capacityBytes);
  auto reservation = [&](int step) {
    return capacity / kPreloadSweepSteps * step;
  };
  SweepMemo memo;
  std::vector<double> capacities;
  for (int step = 1; step < kPreloadSweepSteps; ++step)
    capacities.push_back(double(capacity - reservation(step)));
  memo.explorations.expectCapacities(std::move(capacities));
  MappingRequest request(costModel, graph);
  request.memo = &memo;
  request.cyclesToBeat = cyclesToBeat;
  llvm::Expected<MappingPlan> best = mapOnce(request);
  if (!best)
    return best.takeError();
  const size_t n = graph.layers.size();
  SearchEffort effort;
  effort.add(*best);
  // Maps with a reduced scratchpad; a scenario whose working sets no longer
  // fit is skipped.
  auto attempt =
      [&](const PerformanceModel &reduced,
          llvm::ArrayRef<int64_t> budgets) -> std::optional<MappingPlan> {
    MappingRequest scenario(reduced, graph);
    scenario.memo = &memo;
    scenario.cyclesToBeat = cyclesToBeat;
    scenario.preloadBudgets = budgets;
    llvm::Expected<MappingPlan> plan = mapOnce(scenario);
    if (!plan) {
      llvm::consumeError(plan.takeError());
      return std::nullopt;
    }
    effort.add(*plan);
    return std::move(*plan);
  };
  for (int step = 1; step < kPreloadSweepSteps; ++step) {
    const int64_t reserved = reservation(step);
    MultiChipSystem system = costModel.getSystem();
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
  effort.recordIn(*best);
  return best;
}
