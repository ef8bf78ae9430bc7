//===- SpatialMapper.cpp - Mapping a whole network onto the system --------===//
//
// The driver: one MappingProblem solved (MappingSolver.h), or in inference
// with weight preloading, the sweep of reservations over whole mappings.
//
//===----------------------------------------------------------------------===//

#include "dsm/Core/Spatial/SpatialMapper.h"

#include "MappingSolver.h"
#include "dsm/Core/Spatial/ChipBlocks.h"
#include "dsm/Core/Spatial/PlanBounds.h"

#include "llvm/ADT/STLExtras.h"

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

llvm::Expected<MappingPlan> SpatialMapper::mapOnce(
    const PerformanceModel &costModel, const LayerGraph &graph,
    Executor &executor, llvm::ArrayRef<int64_t> preloadBudgets,
    ExplorationProgress &progress, SweepMemo *memo, double cyclesToBeat,
    int64_t microbatchesInFlight, const MapperOptions *stageOptions,
    bool choosesSavers) const {
  llvm::Expected<MappingProblem> problem = MappingProblem::create(
      costModel, graph, stageOptions ? *stageOptions : options, preloadBudgets);
  if (!problem)
    return problem.takeError();
  problem->setCyclesToBeat(cyclesToBeat);
  problem->setActivationCopies(microbatchesInFlight);
  problem->setChoosesSavers(choosesSavers);
  return solveMapping(*problem, executor, progress, memo);
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

llvm::Expected<MappingPlan> SpatialMapper::map(const LayerGraph &graph,
                                               Executor &executor) const {
  ExplorationProgress progress(*options.progress, sweepsPreloads(options, graph)
                                                      ? kPreloadSweepMappings
                                                      : 1);
  llvm::Expected<MappingPlan> plan = [&]() -> llvm::Expected<MappingPlan> {
    if (options.pipelineStages && !options.givenPipeline.given() &&
        !isInference(graph))
      return mapWithPipelines(graph, executor, progress);
    // A pipeline as named is priced whatever the plans over the whole
    // torus and the blocks, which are not mapped.
    if (options.givenPipeline.given())
      return mapAsPipeline(
          llvm::createStringError("a named pipeline maps only its stages"),
          graph, executor, progress);
    llvm::Expected<MappingPlan> plan =
        mapOnTorus(model, graph, executor, progress);
    if (options.chipBlocks)
      plan = mapOnBlocks(std::move(plan), graph, executor, progress);
    return plan;
  }();
  if (plan)
    progress.finish();
  return plan;
}

llvm::Expected<MappingPlan>
SpatialMapper::mapWithPipelines(const LayerGraph &graph, Executor &executor,
                                ExplorationProgress &progress) const {
  // The fastest plan as selected, with the savers the user named and the
  // free one (the state sharded, which changes no cycles). Where it fits,
  // or there is none, the search goes on as without the order below: the
  // blocks, then the pipelines where the fastest plan needed savers (a
  // pipeline's smaller reductions may still beat it).
  SweepMemo memo;
  llvm::Expected<MappingPlan> fastest =
      mapOnce(model, graph, executor, /*preloadBudgets=*/{}, progress, &memo,
              kNoPlanYet, /*microbatchesInFlight=*/1,
              /*stageOptions=*/nullptr, /*choosesSavers=*/false);
  if (!fastest || fastest->fitsMemory()) {
    if (options.chipBlocks)
      fastest = mapOnBlocks(std::move(fastest), graph, executor, progress);
    return mapAsPipeline(std::move(fastest), graph, executor, progress);
  }
  // It needs memory savers: the whole torus with them, and the pipelines.
  // Where the network repeats its layers, a pipeline's stage mappings cost
  // the most: the whole torus comes first, a plan that fits for the
  // pipelines to beat from their first stages. Elsewhere the pipelines
  // come first: the fastest that fits is then the plan to beat for the
  // whole torus, whose pricing (CapacityFit) ends as soon as it cannot.
  // The same plan either way.
  auto wholeTorus = [&](double cyclesToBeat) {
    return mapOnce(model, graph, executor, /*preloadBudgets=*/{}, progress,
                   &memo, cyclesToBeat);
  };
  // The faster plan that fits; without one, the whole torus's closest.
  auto fasterThatFits =
      [&](llvm::Expected<MappingPlan> pipelined,
          llvm::Expected<MappingPlan> whole) -> llvm::Expected<MappingPlan> {
    if (progress.wasStopped()) {
      llvm::consumeError(pipelined.takeError());
      llvm::consumeError(whole.takeError());
      return progress.makeError();
    }
    const bool wholeAtLeastAsFast =
        whole && whole->fitsMemory() && pipelined &&
        whole->totals.cycles.total <= pipelined->totals.cycles.total;
    if (pipelined && pipelined->fitsMemory() && !wholeAtLeastAsFast) {
      if (!whole)
        llvm::consumeError(whole.takeError());
      return pipelined;
    }
    if (!pipelined)
      llvm::consumeError(pipelined.takeError());
    return whole;
  };
  llvm::Expected<MappingPlan> best = [&]() -> llvm::Expected<MappingPlan> {
    if (repeatsItsLayers(graph, *fastest)) {
      llvm::Expected<MappingPlan> whole = wholeTorus(kNoPlanYet);
      if (!whole && progress.wasStopped())
        return whole;
      if (whole && whole->fitsMemory())
        return mapAsPipeline(std::move(*fastest), graph, executor, progress,
                             std::move(*whole));
      return fasterThatFits(
          mapAsPipeline(std::move(*fastest), graph, executor, progress),
          std::move(whole));
    }
    llvm::Expected<MappingPlan> pipelined =
        mapAsPipeline(std::move(*fastest), graph, executor, progress);
    if (!pipelined)
      return pipelined;
    const double toBeat =
        pipelined->fitsMemory() ? pipelined->totals.cycles.total : kNoPlanYet;
    return fasterThatFits(std::move(pipelined), wholeTorus(toBeat));
  }();
  if (options.chipBlocks)
    best = mapOnBlocks(std::move(best), graph, executor, progress);
  return best;
}

llvm::Expected<MappingPlan>
SpatialMapper::mapOnTorus(const PerformanceModel &costModel,
                          const LayerGraph &graph, Executor &executor,
                          ExplorationProgress &progress,
                          double cyclesToBeat) const {
  if (sweepsPreloads(options, graph))
    return mapWithPreloading(costModel, graph, executor, progress,
                             cyclesToBeat);
  return mapOnce(costModel, graph, executor, /*preloadBudgets=*/{}, progress,
                 /*memo=*/nullptr, cyclesToBeat);
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
bool SpatialMapper::canBeat(const PerformanceModel &blockModel,
                            const LayerGraph &graph, double cycles) const {
  llvm::Expected<MappingProblem> problem =
      MappingProblem::create(blockModel, graph, options, /*preloadBudgets=*/{});
  if (!problem) {
    llvm::consumeError(problem.takeError());
    return true;
  }
  return mayFitMemory(*problem) &&
         planCyclesLowerBound(*problem) < cycles * (1 + 1e-9);
}

llvm::Expected<MappingPlan>
SpatialMapper::mapOnBlocks(llvm::Expected<MappingPlan> whole,
                           const LayerGraph &graph, Executor &executor,
                           ExplorationProgress &progress) const {
  std::optional<MappingPlan> best;
  llvm::Error wholeError = llvm::Error::success();
  if (whole) {
    // A block holds the network on fewer chips, each with a larger share:
    // if the whole torus cannot hold it, no block can.
    if (!whole->fitsMemory())
      return whole;
    best = std::move(*whole);
  } else {
    wholeError = whole.takeError();
    if (progress.wasStopped())
      return std::move(wholeError);
  }
  const MultiChipSystem &system = model.getSystem();
  const double macsPerChipCycle = double(model.numCores()) *
                                  double(model.arrayRows()) *
                                  double(model.arrayColumns());
  SearchEffort effort;
  if (best)
    effort.add(*best);
  for (const ChipBlock &block : candidateBlocks(system.torus)) {
    const double chips = double(block.rows * block.columns);
    // The block's plan takes at least its MACs at the block's peak; the
    // blocks come largest first, so none after this one can do better.
    if (best && best->totals.macs / (chips * macsPerChipCycle) >=
                    best->totals.cycles.total)
      break;
    PerformanceModel blockModel(blockSystem(system, block.rows, block.columns));
    if (!canBeat(blockModel, graph,
                 best ? best->totals.cycles.total : kNoPlanYet))
      continue;
    llvm::Expected<MappingPlan> plan =
        mapOnTorus(blockModel, graph, executor, progress,
                   best ? best->totals.cycles.total : kNoPlanYet);
    if (!plan) {
      if (progress.wasStopped()) {
        llvm::consumeError(std::move(wholeError));
        return plan.takeError();
      }
      llvm::consumeError(plan.takeError());
      continue;
    }
    effort.add(*plan);
    if (!plan->fitsMemory())
      continue;
    placeOnBlock(*plan, block, chips / double(system.chips));
    if (!best || plan->totals.cycles.total < best->totals.cycles.total)
      best = std::move(*plan);
  }
  if (!best)
    return std::move(wholeError);
  llvm::consumeError(std::move(wholeError));
  effort.recordIn(*best);
  return std::move(*best);
}

llvm::Expected<MappingPlan>
SpatialMapper::mapWithPreloading(const PerformanceModel &costModel,
                                 const LayerGraph &graph, Executor &executor,
                                 ExplorationProgress &progress,
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
  llvm::Expected<MappingPlan> best =
      mapOnce(costModel, graph, executor, /*preloadBudgets=*/{}, progress,
              &memo, cyclesToBeat);
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
    llvm::Expected<MappingPlan> plan = mapOnce(
        reduced, graph, executor, budgets, progress, &memo, cyclesToBeat);
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
