//===- PipelineSearch.cpp - The mapper's search over pipelines ------------===//
//
// The driver's pipeline strategies (MappingDriver.h): training with
// pipelines searched -- every (stage count, microbatch count) bounded, then
// planned best bound first until none can beat the incumbent -- and a
// pipeline named by the user planned as given. The pipeline's own arithmetic
// (stage cuts, step timing, the bubble) is PipelineParallelism.cpp's.
//
//===----------------------------------------------------------------------===//

#include "MappingDriver.h"
#include "dsm/Core/Spatial/PipelineParallelism.h"
#include "dsm/Core/Spatial/PlanBounds.h"
#include "dsm/Core/Spatial/SpatialMapper.h"
#include "dsm/Core/Support/NodeError.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <map>

using namespace dsm::core;

/// What bounding a stage count's pipelines gives (leastSteps).
struct MappingDriver::StepBounds {
  /// Per microbatch count: the least step.
  std::vector<double> least;
  /// Where explored: each layer's least cycles on a stage's chips at the
  /// fewest microbatches at which every layer has a legal mapping (empty
  /// if none), what the stages can be balanced on without a mapping.
  std::vector<double> layerCycles;
  /// Per microbatch count, where explored and every layer has a legal
  /// mapping: each layer's least cycles on a microbatch (empty if not).
  std::vector<std::vector<double>> layerCyclesByCount;
  /// Per microbatch count, likewise: what bounds a stage's plans that fit
  /// (leastStageCyclesThatFit; null if not).
  std::vector<std::shared_ptr<const LayerFitFigures>> fitFiguresByCount;
};

/// One stage count of the pipeline search: its stages' system, the
/// explorations its mappings share, its microbatch counts and the layers'
/// cut into its stages once profiled.
struct MappingDriver::StageCount {
  int64_t stages = 0, rows = 0;
  std::unique_ptr<PerformanceModel> model;
  SweepMemo memo;
  PipelineSchedule schedule = PipelineSchedule::OneFOneB;
  std::vector<int64_t> counts;
  bool profiled = false;
  std::vector<int> firsts; ///< empty once profiled: no cut maps
  /// Per microbatch count, where the bounds explored it: each stage's
  /// least cycles on a microbatch (empty if not), and what bounds them
  /// where the stages' memory binds (null if not).
  std::vector<std::vector<double>> leastStageCycles;
  std::vector<std::shared_ptr<const LayerFitFigures>> fitFigures;
  /// The steps planned, by microbatch count.
  std::map<int64_t, double> planned;
  /// Fewer microbatches than this run past the step's least (below).
  int64_t fewest = 0;
};

/// A pipeline planned (planPipeline): none where a stage has no plan or does
/// not fit, or where the stages planned show it cannot beat the plan to
/// beat. `step`: the step planned, or, cut short, the step the stages
/// planned foretell, the others as busy as they (0: neither).
struct MappingDriver::PlannedPipeline {
  std::optional<MappingPlan> plan;
  double step = 0;
};

/// The least step of a pipeline of `count.stages` stages for each of its
/// microbatch counts m: with every chip busy on the work alone (`idealCycles`,
/// the network's MACs at the torus's peak), the bubble still idles
/// (p - 1) / (m + p - 1) of it; and, where `explored`, the fill runs one
/// microbatch through every stage while each of the other periods takes
/// the busiest stage's share of the stages' work on a microbatch, at least
/// an even one, so a step takes at least (m + p - 1) / p of that work: at
/// least the layers' least explored passes at the microbatch size on a
/// stage's chips (leastPipelinedCycles; the explorations go into the stage
/// count's memo, which the stages then share). What bounds the stages that fit
/// comes with it where that least step is below `cyclesToBeat`. Fails only when
/// the mapping is stopped.
llvm::Expected<MappingDriver::StepBounds>
MappingDriver::leastSteps(StageCount &count, double idealCycles, bool explored,
                          double cyclesToBeat) {
  const llvm::ArrayRef<int64_t> counts = count.counts;
  StepBounds bounds;
  bounds.least.assign(counts.size(), 0.0);
  bounds.layerCyclesByCount.resize(counts.size());
  bounds.fitFiguresByCount.resize(counts.size());
  for (size_t k = 0; k < counts.size(); ++k) {
    const double m = double(counts[k]), p = double(count.stages);
    bounds.least[k] = idealCycles * (m + p - 1) / m;
    if (!explored)
      continue;
    // The problem points into the graph: it outlives the problem.
    const LayerGraph part = microbatchGraph(graph, counts[k]);
    llvm::Expected<MappingProblem> problem = MappingProblem::create(
        *count.model, part, stageOptions, /*preloadBudgets=*/{});
    if (!problem) {
      llvm::consumeError(problem.takeError());
      continue;
    }
    std::vector<double> layerCycles;
    std::shared_ptr<const LayerFitFigures> fitFigures;
    llvm::Expected<double> work = leastPipelinedCycles(
        *problem, executor, progress, &count.memo, &layerCycles, &fitFigures,
        cyclesToBeat * (1 + 1e-9) * p / (m + p - 1));
    if (!work) {
      if (progress.wasStopped())
        return work.takeError();
      llvm::consumeError(work.takeError());
      continue;
    }
    bounds.least[k] = std::max(bounds.least[k], *work * (m + p - 1) / p);
    if (!std::isfinite(*work))
      continue;
    if (bounds.layerCycles.empty())
      bounds.layerCycles = layerCycles;
    bounds.layerCyclesByCount[k] = std::move(layerCycles);
    bounds.fitFiguresByCount[k] = std::move(fitFigures);
  }
  return bounds;
}

/// The once-per-step cycles of a planned pass.
static double oncePerStep(const PassPlan &pass) {
  return oncePerStepCycles(pass.pass, pass.eval.transfers, pass.cycles.total);
}

/// Why the pipeline the user named cannot be planned on a torus of
/// `torusRows` rows for a network of `layers` layers and a minibatch of
/// `batch` samples (success: it can).
static llvm::Error checkGivenPipeline(const GivenPipeline &given,
                                      int64_t torusRows, int64_t layers,
                                      int64_t batch) {
  if (given.stages < 1 || torusRows % given.stages != 0)
    return llvm::createStringError(
        llvm::formatv("a pipeline of {0} stages: the stages must divide the "
                      "torus's {1} rows",
                      given.stages, torusRows)
            .str());
  if (given.stages > layers)
    return llvm::createStringError(
        llvm::formatv("a pipeline of {0} stages: the network has only {1} "
                      "layers",
                      given.stages, layers)
            .str());
  if (given.microbatches < 1 || batch % given.microbatches != 0)
    return llvm::createStringError(
        llvm::formatv("{0} microbatches: they must divide the minibatch of "
                      "{1} samples",
                      given.microbatches, batch)
            .str());
  // One microbatch through several stages is no pipeline: each stage waits
  // for the one before. The IR records a stage by its microbatches.
  if (given.stages > 1 && given.microbatches < 2)
    return llvm::createStringError(
        llvm::formatv("a pipeline of {0} stages and 1 microbatch runs its "
                      "stages one after another: give at least 2 "
                      "microbatches, or stages=1",
                      given.stages)
            .str());
  return llvm::Error::success();
}

/// `error` of the mapping of stage `stage`, whose layers start at `first`:
/// a layer's error names the layer of the whole network.
static llvm::Error inStage(llvm::Error error, int stage, int first) {
  return llvm::handleErrors(
      std::move(error), [&](const NodeError &node) -> llvm::Error {
        return makeNodeError(node.getNode() + first, "stage ", stage, ": ",
                             node.getMessage());
      });
}

namespace {
/// A pipeline under evaluation: the stage plans of one (stages,
/// microbatches) and their timing.
struct PipelineCandidate {
  std::vector<MappingPlan> stagePlans;
  PipelineRecord record;
};
} // namespace

/// The pipeline's plan as one MappingPlan: every pass on its stage's rows,
/// recording its share of the step as a pipe stage does (TimestepPipelining.h):
/// its microbatches' work scaled to the whole system and the once-per-step
/// update once. The stages' idle time (fill, drain, waiting for slower
/// stages and links) is the pipeline's own (PipelineRecord::idle), in the
/// plan's totals and no pass's cycles.
static MappingPlan assemblePipeline(PipelineCandidate candidate,
                                    int64_t torusRows) {
  MappingPlan plan;
  PipelineRecord &record = candidate.record;
  const double m = double(record.microbatches);
  std::vector<double> busyOf(record.stages.size(), 0.0);
  for (size_t s = 0; s < record.stages.size(); ++s) {
    PipelineStageRecord &stage = record.stages[s];
    MappingPlan &part = candidate.stagePlans[s];
    const double share = double(stage.rows) / double(torusRows);
    double busy = 0;
    for (LayerPlan &layer : part.layers)
      for (PassPlan &pass : layer.passes) {
        MemoryDecision &memory = pass.eval.config.memory;
        memory.pipeGroup = 0;
        memory.pipeFirstRow = stage.firstRow;
        memory.pipeRows = stage.rows;
        memory.microbatches = record.microbatches;
        memory.gpipe = record.schedule == PipelineSchedule::GPipe;
        pass.cycles = pipelinedPassCycles(pass.cycles, oncePerStep(pass),
                                          record.microbatches, share);
        busy += pass.cycles.total / share;
        pass.eval.macs *= m;
      }
    busyOf[s] = busy;
    for (LayerPlan &layer : part.layers) {
      for (const PassPlan &pass : layer.passes) {
        plan.totals.cycles += pass.cycles;
        plan.totals.macs += pass.eval.macs;
      }
      plan.layers.push_back(std::move(layer));
    }
    plan.selectionExact = plan.selectionExact && part.selectionExact;
    if (!part.selectionExact)
      plan.selectionStatesKept =
          std::max(plan.selectionStatesKept, part.selectionStatesKept);
    if (s == 0 || stage.memory.total() > plan.memory.total())
      plan.memory = stage.memory;
  }
  // The step: the passes and the stages' wait.
  record.idle = pipelineIdle(record, busyOf, torusRows);
  plan.totals.cycles.underuse += record.idle.total();
  plan.totals.cycles.total += record.idle.total();
  plan.totals.utilization =
      plan.totals.cycles.total > 0
          ? plan.totals.cycles.useful / plan.totals.cycles.total
          : 0;
  plan.pipeline = std::move(record);
  return plan;
}

namespace {
/// A pipeline the search may plan: a stage count, a microbatch count and
/// the least step it can take.
struct PipelineOption {
  size_t stageCount;
  int64_t microbatches;
  double least;
};
} // namespace

llvm::Expected<std::vector<int>>
MappingDriver::profileStages(StageCount &count) const {
  for (int64_t microbatches : count.counts) {
    if (progress.shouldStop())
      return progress.makeError();
    const LayerGraph part = microbatchGraph(graph, microbatches);
    MappingRequest request(*count.model, part);
    request.memo = &count.memo;
    request.microbatchesInFlight = 0;
    request.stepMicrobatches = microbatches;
    request.options = &stageOptions;
    llvm::Expected<MappingPlan> profile = mapOnce(request);
    if (!profile) {
      if (progress.wasStopped() || options.givenPipeline.given())
        return profile.takeError();
      llvm::consumeError(profile.takeError());
      continue;
    }
    std::vector<double> cost;
    for (const LayerPlan &layer : profile->layers) {
      double c = 0;
      for (const PassPlan &pass : layer.passes)
        c += pass.cycles.total;
      cost.push_back(c);
    }
    return balanceStagesAtBlocks(cost, graph.blockStarts(), int(count.stages));
  }
  return std::vector<int>();
}

/// With the stage count's fit figures at this microbatch size (the
/// layers' leastStageCyclesThatFit), the stages' least that fit their
/// chips' memory raise the bounds of its stages first, and a pipeline they
/// show cannot beat `cyclesToBeat` is not mapped at all. A named pipeline
/// fails instead of giving none, naming the stage.
llvm::Expected<MappingDriver::PlannedPipeline>
MappingDriver::planPipeline(StageCount &count, size_t k, double cyclesToBeat,
                            SearchEffort &effort) const {
  const bool given = options.givenPipeline.given();
  const MultiChipSystem &system = model.getSystem();
  const llvm::ArrayRef<int> firsts = count.firsts;
  const int stages = int(firsts.size());
  const int64_t rows = count.rows, microbatches = count.counts[k];
  const PipelineSchedule schedule = count.schedule;
  const LayerFitFigures *fitFigures = count.fitFigures[k].get();
  LayerGraph part = microbatchGraph(graph, microbatches);
  PipelineCandidate candidate;
  PipelineRecord &record = candidate.record;
  record.schedule = schedule;
  record.microbatches = microbatches;
  PlannedPipeline planned;
  auto firstOf = [&](int s) {
    return s < stages ? firsts[s] : int(part.layers.size());
  };
  // A stage's mapping problem points into its layers: kept for the plan.
  std::vector<std::unique_ptr<LayerGraph>> stageLayers(stages);
  auto layersOf = [&](int s) -> const LayerGraph & {
    if (!stageLayers[s])
      stageLayers[s] = std::make_unique<LayerGraph>(
          stageGraph(part, firstOf(s), firstOf(s + 1)));
    return *stageLayers[s];
  };
  // Where a plan is to be beaten: no stage takes fewer cycles than its
  // least that fits its chips' memory with its microbatches in flight
  // (leastStageCyclesThatFit), as memory binds far above the explored
  // least. Stage by stage, until the stages so bounded show the pipeline
  // cannot beat the plan: then none of it is mapped.
  std::vector<double> least = count.leastStageCycles[k];
  least.resize(stages, 0.0);
  const bool bounding = !given && cyclesToBeat < kNoPlanYet;
  if (bounding && fitFigures)
    for (int s = 0; s < stages; ++s) {
      if (progress.shouldStop())
        return progress.makeError();
      llvm::Expected<MappingProblem> problem = MappingProblem::create(
          *count.model, layersOf(s), stageOptions, /*preloadBudgets=*/{});
      if (!problem) {
        llvm::consumeError(problem.takeError());
        continue;
      }
      problem->setActivationCopies(
          microbatchesInFlight(schedule, s, stages, microbatches));
      least[s] = std::max(
          least[s], leastStageCyclesThatFit(*fitFigures, firstOf(s), *problem));
      if (pipelineStepLowerBound({}, stages, least, microbatches) >=
          cyclesToBeat * (1 + 1e-9))
        return planned;
    }
  bool fits = true;
  // A named pipeline is planned whole, so that its error names what each
  // stage needs.
  for (int s = 0; s < stages && (fits || given); ++s) {
    int first = firstOf(s), last = firstOf(s + 1);
    int64_t inFlight = microbatchesInFlight(schedule, s, stages, microbatches);
    MappingRequest request(*count.model, layersOf(s));
    request.memo = &count.memo;
    request.microbatchesInFlight = inFlight;
    request.stepMicrobatches = microbatches;
    request.options = &stageOptions;
    llvm::Expected<MappingPlan> plan = mapOnce(request);
    if (!plan) {
      if (progress.wasStopped())
        return plan.takeError();
      if (given)
        return inStage(plan.takeError(), s, first);
      llvm::consumeError(plan.takeError());
      return planned;
    }
    effort.add(*plan);
    fits = plan->fitsMemory();
    PipelineStageRecord stage;
    stage.firstLayer = first;
    stage.lastLayer = last;
    stage.firstRow = s * rows;
    stage.rows = rows;
    stage.inFlight = inFlight;
    stage.memory = plan->memory;
    for (const LayerPlan &layer : plan->layers)
      for (const PassPlan &pass : layer.passes) {
        double once = oncePerStep(pass);
        stage.update += once;
        (pass.pass == TrainingPass::FWD ? stage.forward : stage.backward) +=
            pass.cycles.total - once;
      }
    record.stages.push_back(stage);
    candidate.stagePlans.push_back(std::move(*plan));
    // The stages planned so far and the others at their least take at
    // most the step. The first stage keeps the most microbatches in flight
    // and tends to be the slowest, so a pipeline that cannot beat the plan
    // in hand usually ends after a stage or a few of many.
    if (fits && bounding && s + 1 < stages &&
        pipelineStepLowerBound(record.stages, stages, least, microbatches) >=
            cyclesToBeat * (1 + 1e-9)) {
      planned.step =
          foretoldPipelineStep(record.stages, stages, schedule, microbatches);
      return planned;
    }
  }
  if (!fits && !(given && record.stages.size() == size_t(stages)))
    return planned;
  // The activations (and errors) crossing each boundary, one microbatch.
  PipeFlows forwardFlows(std::vector<int64_t>(stages, rows)),
      backwardFlows(std::vector<int64_t>(stages, rows));
  auto stageOf = [&](int layer) {
    return int(llvm::upper_bound(firsts, layer) - firsts.begin()) - 1;
  };
  for (const LayerEdge &edge : part.edges) {
    int from = stageOf(edge.producer), to = stageOf(edge.consumer);
    if (from == to)
      continue;
    double bytes = edge.elements * model.bytesPerElement();
    forwardFlows.addBetweenStages(from, to, bytes);
    if (edge.carriesError)
      backwardFlows.addBetweenStages(to, from, bytes);
  }
  record.forwardLinks = forwardFlows.boundaryCycles(system);
  record.backwardLinks = backwardFlows.boundaryCycles(system);
  // The wrap boundary (last to first) carries nothing.
  record.forwardLinks.pop_back();
  record.backwardLinks.pop_back();
  std::vector<double> forward, backward, update;
  for (const PipelineStageRecord &stage : record.stages) {
    forward.push_back(stage.forward);
    backward.push_back(stage.backward);
    update.push_back(stage.update);
  }
  record.timing = pipelineStepTiming(schedule, forward, backward, update,
                                     record.forwardLinks, record.backwardLinks,
                                     microbatches);
  planned.plan = assemblePipeline(std::move(candidate), system.torus.y.size);
  planned.step = planned.plan->totals.cycles.total;
  return planned;
}

double MappingDriver::idealCycles() const {
  const double macsPerCycle =
      double(model.numChips()) * double(model.numCores()) *
      double(model.arrayRows()) * double(model.arrayColumns());
  double macs = 0;
  for (const LayerNode &layer : graph.layers) {
    double passes = double(layer.fwd) + double(layer.bwd) + double(layer.upd);
    macs += layer.shape.macs() * passes;
  }
  return macs / macsPerCycle / model.getSystem().chip.core.matrixEfficiency;
}

llvm::Expected<MappingPlan> MappingDriver::mapWithPipelines() {
  // The fastest plan as selected, with the savers the user named and the
  // free one (the state sharded, which changes no cycles). Where it fits,
  // or there is none, the search goes on as without the order below: the
  // blocks, then the pipelines where the fastest plan needed savers (a
  // pipeline's smaller reductions may still beat it).
  SweepMemo memo;
  MappingRequest fastest(model, graph);
  fastest.memo = &memo;
  fastest.choosesSavers = false;
  fastest.cyclesToBeat = options.cyclesToBeat;
  Incumbent incumbent(mapOnce(fastest));
  incumbent.boundBy(options.cyclesToBeat);
  if (!incumbent.has() || incumbent.fits()) {
    if (options.chipBlocks)
      if (llvm::Error stopped = mapOnBlocks(incumbent))
        return std::move(stopped);
    // A pipeline pays for its bubble with less memory per chip and smaller
    // reductions: it is priced where the fastest plan over the torus needed
    // memory savers to fit, or did not fit at all.
    if ((incumbent.has() && incumbent.plan().fastestMemory.fits()) ||
        (!incumbent.has() && progress.wasStopped()))
      return incumbent.take();
    const bool explored =
        incumbent.has() &&
        (incumbent.fits() || repeatsItsLayers(incumbent.plan()));
    if (llvm::Error stopped = searchPipelines(incumbent, explored))
      return std::move(stopped);
    return incumbent.take();
  }
  // It needs memory savers: the whole torus with them, and the pipelines.
  // Where the network repeats its layers, a pipeline's stage mappings cost
  // the most: the whole torus comes first, a plan that fits for the
  // pipelines to beat from their first stages. Elsewhere the pipelines
  // come first: the fastest that fits is then the plan to beat for the
  // whole torus, whose pricing (CapacityFit) ends as soon as it cannot.
  // The same plan either way.
  MappingRequest withSavers(model, graph);
  withSavers.memo = &memo;
  const bool repeats = repeatsItsLayers(incumbent.plan());
  llvm::Expected<MappingPlan> whole =
      repeats ? mapOnce(withSavers)
              : llvm::Expected<MappingPlan>(MappingPlan());
  if (!whole && progress.wasStopped())
    return whole.takeError();
  if (repeats && whole && whole->fitsMemory()) {
    incumbent.offer(std::move(*whole));
    if (llvm::Error stopped = searchPipelines(incumbent, /*explored=*/true))
      return std::move(stopped);
  } else {
    if (llvm::Error stopped = searchPipelines(incumbent, repeats)) {
      llvm::consumeError(whole.takeError());
      return std::move(stopped);
    }
    if (!repeats) {
      withSavers.cyclesToBeat = incumbent.cyclesToBeat();
      whole = mapOnce(withSavers);
    }
    if (progress.wasStopped()) {
      llvm::consumeError(whole.takeError());
      return progress.makeError();
    }
    incumbent.challengeWith(std::move(whole));
  }
  if (options.chipBlocks)
    if (llvm::Error stopped = mapOnBlocks(incumbent))
      return std::move(stopped);
  return incumbent.take();
}

/// The first layer of each stage of `given`, whose stage-layers= name the
/// layers of each (why not, where they do not cut `graph` into its stages).
static llvm::Expected<std::vector<int>> stageFirsts(const GivenPipeline &given,
                                                    const LayerGraph &graph) {
  const llvm::ArrayRef<int64_t> counts = given.stageLayers;
  if (int64_t(counts.size()) != given.stages)
    return llvm::createStringError(
        llvm::formatv("stage-layers= names {0} stages, stages={1}",
                      counts.size(), given.stages)
            .str());
  const int64_t total = int64_t(graph.layers.size());
  std::vector<int> firsts;
  int64_t first = 0;
  for (int64_t layers : counts) {
    if (layers < 1)
      return llvm::createStringError(
          llvm::formatv("stage-layers= gives a stage {0} layers: every stage "
                        "has at least one",
                        layers)
              .str());
    if (layers > total - first)
      return llvm::createStringError(
          llvm::formatv("stage-layers= cuts more layers into stages than the "
                        "network has ({0}; the mapping report lists them)",
                        total)
              .str());
    firsts.push_back(int(first));
    first += layers;
  }
  if (first != total)
    return llvm::createStringError(
        llvm::formatv("stage-layers= cuts {0} layers into stages: the "
                      "network has {1} (the mapping report lists them)",
                      first, total)
            .str());
  return firsts;
}

llvm::Expected<MappingPlan> MappingDriver::mapGivenPipeline() {
  GivenPipeline given = options.givenPipeline;
  const MultiChipSystem &system = model.getSystem();
  const int64_t torusRows = system.torus.y.size;
  const int64_t batch = graphBatch(graph);
  if (given.microbatchSize > 0) {
    const int64_t samples = given.microbatchSize * given.dataDegree;
    if (given.dataDegree < 1 || batch % samples != 0)
      return llvm::createStringError(llvm::formatv(
          "a micro-batch of {0} samples on each of {1} data-parallel "
          "replicas: {2} samples must divide the minibatch of {3}",
          given.microbatchSize, given.dataDegree, samples, batch));
    given.microbatches = batch / samples;
  }
  if (llvm::Error error = checkGivenPipeline(
          given, torusRows, int64_t(graph.layers.size()), batch))
    return std::move(error);
  StageCount count;
  count.stages = given.stages;
  count.rows = torusRows / given.stages;
  count.model =
      std::make_unique<PerformanceModel>(pipeStageSystem(system, count.rows));
  count.schedule = given.schedule;
  count.counts = {given.microbatches};
  count.leastStageCycles.resize(1);
  count.fitFigures.resize(1);
  if (progress.shouldStop())
    return progress.makeError();
  // The cuts as named, or at block boundaries balanced on a profile.
  llvm::Expected<std::vector<int>> firsts = given.stageLayers.empty()
                                                ? profileStages(count)
                                                : stageFirsts(given, graph);
  if (!firsts)
    return firsts.takeError();
  count.firsts = std::move(*firsts);
  SearchEffort effort;
  llvm::Expected<PlannedPipeline> planned =
      count.firsts.empty() ? llvm::Expected<PlannedPipeline>(PlannedPipeline())
                           : planPipeline(count, 0, kNoPlanYet, effort);
  if (!planned)
    return planned.takeError();
  if (!planned->plan)
    return llvm::createStringError("no pipeline was planned");
  MappingPlan &plan = *planned->plan;
  plan.fastestMemory = plan.memory;
  effort.recordIn(plan);
  return std::move(plan);
}

llvm::Expected<std::vector<double>>
MappingDriver::boundStageCount(StageCount &count, double idealCycles,
                               bool explored, double cyclesToBeat) {
  llvm::Expected<StepBounds> bounds =
      leastSteps(count, idealCycles, explored, cyclesToBeat);
  if (!bounds)
    return bounds.takeError();
  // Explored, the layers' least cycles balance the stages as well as a
  // profile would (a network of repeated blocks cuts into equal runs)
  // for a fraction of a mapping.
  if (!bounds->layerCycles.empty()) {
    count.firsts = balanceStagesAtBlocks(
        bounds->layerCycles, graph.blockStarts(), int(count.stages));
    count.profiled = true;
  }
  count.leastStageCycles.resize(count.counts.size());
  count.fitFigures = std::move(bounds->fitFiguresByCount);
  for (size_t k = 0; k < count.counts.size(); ++k) {
    const std::vector<double> &layers = bounds->layerCyclesByCount[k];
    if (layers.empty() || count.firsts.empty())
      continue;
    std::vector<double> &least = count.leastStageCycles[k];
    least.assign(size_t(count.stages), 0.0);
    for (size_t i = 0, s = 0; i < layers.size(); ++i) {
      if (s + 1 < least.size() && int(i) >= count.firsts[s + 1])
        ++s;
      least[s] += layers[i];
    }
  }
  return std::move(bounds->least);
}

llvm::Error MappingDriver::searchPipelines(Incumbent &incumbent,
                                           bool explored) {
  const MultiChipSystem &system = model.getSystem();
  const int64_t torusRows = system.torus.y.size;
  const int64_t batch = graphBatch(graph);
  // Every (stage count, microbatch count) with the least step it can take.
  // The explored bound (leastSteps) costs about the explorations a mapping
  // runs afresh at a new microbatch size; it is computed where a plan that
  // fits is there to prune against from the start, and where the network
  // repeats its layers so that a pipeline's mappings cost far more than
  // those explorations (the zoo's LLMs do not: their pipelines plan in
  // less time than their bounds take). Its explorations go into the stage
  // count's memo, which its stages' mappings then share.
  std::vector<StageCount> stageCounts;
  std::vector<PipelineOption> pipelines;
  // One stage of several microbatches is gradient accumulation: the whole
  // torus with one microbatch's activations at a time.
  for (int64_t stages = 1; stages <= torusRows; ++stages) {
    if (torusRows % stages != 0 || stages > int64_t(graph.layers.size()))
      continue;
    StageCount &count = stageCounts.emplace_back();
    count.stages = stages;
    count.rows = torusRows / stages;
    count.model =
        std::make_unique<PerformanceModel>(pipeStageSystem(system, count.rows));
    // 1F1B takes no longer than GPipe and keeps fewer microbatches in
    // flight.
    count.schedule = PipelineSchedule::OneFOneB;
    count.counts = microbatchCounts(batch, stages, count.rows);
    // One stage of the whole minibatch is the plan over the whole torus.
    if (stages == 1)
      llvm::erase(count.counts, 1);
    if (count.counts.empty()) {
      stageCounts.pop_back();
      continue;
    }
    llvm::Expected<std::vector<double>> least = boundStageCount(
        count, idealCycles(), explored, incumbent.cyclesToBeat());
    if (!least)
      return least.takeError();
    // The most microbatches first among equal bounds.
    for (size_t k = count.counts.size(); k-- > 0;)
      pipelines.push_back(
          {stageCounts.size() - 1, count.counts[k], (*least)[k]});
  }
  // Best first: the pipelines are planned in the order of their bounds
  // until the next cannot beat the fastest plan that fits.
  std::stable_sort(pipelines.begin(), pipelines.end(),
                   [](const PipelineOption &a, const PipelineOption &b) {
                     return a.least < b.least;
                   });
  SearchEffort effort;
  if (incumbent.has())
    effort.add(incumbent.plan());
  for (const PipelineOption &pipeline : pipelines) {
    // No later pipeline can beat the plan that fits (the margin: a bound
    // only rounding puts above it).
    if (incumbent.fits() &&
        pipeline.least >= incumbent.plan().totals.cycles.total * (1 + 1e-9))
      break;
    if (progress.shouldStop())
      return progress.makeError();
    StageCount &count = stageCounts[pipeline.stageCount];
    if (pipeline.microbatches < count.fewest)
      continue;
    // The stages balance the layers' cycles on a stage's chips, without
    // the memory they need: profiled once per stage count, at the fewest
    // microbatches at which every layer has a legal mapping (a larger
    // microbatch's working sets may fit no scratchpad).
    if (!count.profiled) {
      llvm::Expected<std::vector<int>> firsts = profileStages(count);
      if (!firsts)
        return firsts.takeError();
      count.firsts = std::move(*firsts);
      count.profiled = true;
    }
    if (count.firsts.empty())
      continue;
    const size_t k = size_t(llvm::find(count.counts, pipeline.microbatches) -
                            count.counts.begin());
    llvm::Expected<PlannedPipeline> planned =
        planPipeline(count, k, incumbent.cyclesToBeat(), effort);
    if (!planned)
      return planned.takeError();
    // More microbatches shrink the bubble but run smaller, less efficient
    // passes: as the count falls, the step falls, then rises. Once a count
    // takes longer than a larger one, the counts below it are not planned.
    // Not always so (a count whose samples fill a stage's rows can map
    // better than its neighbours): taken best bound first, the counts
    // planned are the likeliest, not the ends of the range. A pipeline cut
    // short counts with the step its planned stages foretell.
    if (planned->step > 0) {
      count.planned[pipeline.microbatches] = planned->step;
      for (auto it = count.planned.begin();
           std::next(it) != count.planned.end(); ++it)
        if (it->second > std::next(it)->second) {
          count.fewest = std::max(count.fewest, it->first);
          break;
        }
    }
    if (!planned->plan) {
      if (planned->step > 0)
        incumbent.noteCutShort(
            count.stages == 1
                ? llvm::formatv("gradient accumulation of {0} microbatches",
                                pipeline.microbatches)
                      .str()
                : llvm::formatv("{0} stages x {1} microbatches ({2})",
                                count.stages, pipeline.microbatches,
                                stringifyPipelineSchedule(count.schedule))
                      .str(),
            planned->step);
      continue;
    }
    MappingPlan &plan = *planned->plan;
    plan.fastestMemory =
        incumbent.has() ? incumbent.plan().fastestMemory : plan.memory;
    incumbent.offer(std::move(plan));
  }
  if (incumbent.has())
    effort.recordIn(incumbent.plan());
  return llvm::Error::success();
}
