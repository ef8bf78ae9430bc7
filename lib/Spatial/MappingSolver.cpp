//===- MappingSolver.cpp - Solving one mapping problem --------------------===//
//
// The stages of MappingSolver.h that belong to no add-on: plain
// explorations, layer costs, relayout terms, the selection, realisation and
// the plan's totals.
//
//===----------------------------------------------------------------------===//

#include "MappingSolver.h"
#include "dsm/Core/Spatial/PlanBounds.h"

#include "dsm/Core/Support/NodeError.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>

using namespace dsm::core;

static constexpr double kInfinity = std::numeric_limits<double>::infinity();

/// The states the graph-level selection keeps per layer when it cannot be
/// exact (docs/scaling.md).
static constexpr size_t kMaxSelectionStates = 4096;

PassPlan *MappingState::passOf(int layer, TrainingPass pass) {
  for (PassPlan &pp : plan.layers[layer].passes)
    if (pp.pass == pass)
      return &pp;
  return nullptr;
}

const Evaluation *MappingState::reused(int layer, TrainingPass pass,
                                       int option) const {
  if (!(pass == TrainingPass::FWD ? properties.inputReuseOf(layer)
                                  : properties.errorReuseOf(layer)))
    return nullptr;
  const Evaluation *with = explorations.best(layer, pass, option, OnChip::Own);
  const Evaluation *without = plain(layer, pass, option);
  if (!with || !without || with->cycles.total >= without->cycles.total)
    return nullptr;
  return with;
}

/// FWD variants that do not keep the input whole.
static constexpr OnChip kWithoutInput[] = {
    OnChip::Nothing, OnChip::Shortcut, OnChip::OwnAndShortcut,
    OnChip::SpatialShortcut, OnChip::OwnAndSpatialShortcut};

void MappingState::largestForwardWorkingSets(
    int layer, llvm::MutableArrayRef<double> without,
    llvm::MutableArrayRef<double> with) const {
  std::fill(without.begin(), without.end(), 0.0);
  std::fill(with.begin(), with.end(), 0.0);
  for (OnChip variant : kWithoutInput) {
    llvm::ArrayRef<const Evaluation *> bests =
        explorations.bests(layer, TrainingPass::FWD, variant);
    for (size_t o = 0; o < bests.size(); ++o)
      if (bests[o])
        without[o] = std::max(without[o], bests[o]->scratchpadBytes);
  }
  llvm::ArrayRef<const Evaluation *> bests =
      explorations.bests(layer, TrainingPass::FWD, OnChip::Own);
  for (size_t o = 0; o < bests.size(); ++o)
    if (bests[o])
      with[o] = bests[o]->scratchpadBytes;
}

//===----------------------------------------------------------------------===//
// LayerFlags and ChoiceRuns
//===----------------------------------------------------------------------===//

void LayerFlags::set(int k, bool value) {
  if (flag[k] == value)
    return;
  flag[k] = value;
  for (size_t i = size_t(k) + 1; i < tree.size(); i += i & (~i + 1))
    tree[i] += value ? 1 : -1;
}

int LayerFlags::countBefore(int k) const {
  int sum = 0;
  for (size_t i = size_t(k); i > 0; i -= i & (~i + 1))
    sum += tree[i];
  return sum;
}

ChoiceRuns::ChoiceRuns(llvm::ArrayRef<int> choice) : breaks(choice.size()) {
  for (size_t k = 1; k < choice.size(); ++k)
    breaks.set(int(k), choice[k] != choice[k - 1]);
}

void ChoiceRuns::update(llvm::ArrayRef<int> choice, int k) {
  for (int j : {k, k + 1})
    if (j >= 1 && size_t(j) < choice.size())
      breaks.set(j, choice[j] != choice[j - 1]);
}

//===----------------------------------------------------------------------===//
// The stages
//===----------------------------------------------------------------------===//

/// Request: every pass of every layer under every usable option, plainly.
static void requestPlainExplorations(MappingState &state) {
  const MappingProblem &problem = state.problem;
  for (size_t i = 0; i < problem.numLayers(); ++i) {
    const LayerNode &layer = problem.layer(int(i));
    bool runs[kNumPasses] = {layer.fwd, layer.bwd, layer.upd};
    for (int pass = 0; pass < kNumPasses; ++pass)
      if (runs[pass])
        state.explorations.requestUsable(int(i), TrainingPass(pass),
                                         OnChip::Nothing);
  }
}

/// Price: each layer's cycles under each option (all its passes); a layer
/// with no legal option is the problem's error, with every parallelism's
/// reason.
static llvm::Error priceLayers(MappingState &state) {
  const MappingProblem &problem = state.problem;
  const size_t n = problem.numLayers();
  state.layerCost.assign(n, OptionCosts(problem.numOptions(), kInfinity));
  // Layers whose passes share their plain rows (a network's repeated
  // blocks) cost alike: priced once, copied after.
  const ExplorationTable &table = state.explorations;
  const double stepParts = double(problem.stepMicrobatches());
  std::map<std::array<int32_t, kNumPasses>, size_t> pricedAlike;
  for (size_t i = 0; i < n; ++i) {
    const LayerNode &layer = problem.layer(int(i));
    bool runs[kNumPasses] = {layer.fwd, layer.bwd, layer.upd};
    std::array<int32_t, kNumPasses> rows;
    for (int pass = 0; pass < kNumPasses; ++pass)
      rows[pass] = runs[pass] ? table.rowNumber(int(i), TrainingPass(pass),
                                                OnChip::Nothing)
                              : -2;
    auto [alike, fresh] = pricedAlike.try_emplace(rows, i);
    if (!fresh) {
      state.layerCost[i] = state.layerCost[alike->second];
      continue;
    }
    std::string reasons;
    for (int o = 0; o < problem.numOptions(); ++o) {
      if (!state.explorations.find(int(i), TrainingPass::FWD, o))
        continue;
      double cost = 0;
      for (int pass = 0; pass < kNumPasses; ++pass) {
        if (!runs[pass])
          continue;
        const ExplorationResult &r =
            *state.explorations.find(int(i), TrainingPass(pass), o);
        if (!r.best) {
          cost = kInfinity;
          // Why a DySM factor does not apply is no news; why a parallelism
          // does not is.
          if (problem.factorOf(o) == 1)
            reasons += "; " +
                       stringifyParallelism(problem.parallelismOf(o)).str() +
                       " (" + stringifyTrainingPass(TrainingPass(pass)).str() +
                       "): " + r.whyNone;
          break;
        }
        cost += r.best->cycles.total;
        // What the pass spends once a step, shared by the step's
        // microbatches.
        if (TrainingPass(pass) == TrainingPass::UPD && stepParts > 1)
          cost -= (1 - 1 / stepParts) * oncePerStepCycles(TrainingPass::UPD,
                                                          r.best->transfers,
                                                          r.best->cycles.total);
      }
      state.layerCost[i][o] = cost;
    }
    if (llvm::all_of(state.layerCost[i],
                     [](double c) { return c == kInfinity; }))
      return makeNodeError(int64_t(i), "layer '", layer.shape.name,
                           "' has no legal mapping on this system", reasons);
  }
  return llvm::Error::success();
}

/// Price: switching parallelism along an edge re-lays out the activations
/// (and, in training, the errors flowing back).
static void priceRelayouts(MappingState &state) {
  const MappingProblem &problem = state.problem;
  const int numOptions = problem.numOptions();
  state.switches.clear();
  state.switches.reserve(problem.graph().edges.size());
  // Edges of equal size and direction cost alike: one block of costs each.
  std::map<std::pair<double, bool>, SwitchCosts> alike;
  for (const LayerEdge &edge : problem.graph().edges) {
    auto [known, fresh] = alike.try_emplace({edge.elements, edge.carriesError});
    if (!fresh) {
      state.switches.push_back({edge.producer, edge.consumer, known->second});
      continue;
    }
    // A relayout depends on the two parallelisms, not the DySM factors.
    double byParallelism[kNumParallelisms][kNumParallelisms];
    for (int from = 0; from < kNumParallelisms; ++from)
      for (int to = 0; to < kNumParallelisms; ++to) {
        double cycles =
            problem.model()
                .relayout(edge.elements, Parallelism(from), Parallelism(to))
                .cycles;
        byParallelism[from][to] = edge.carriesError ? 2 * cycles : cycles;
      }
    SelectionEdge s{edge.producer, edge.consumer, makeSwitchCosts(numOptions)};
    for (int from = 0; from < numOptions; ++from)
      for (int to = 0; to < numOptions; ++to)
        s.cost[from][to] = byParallelism[int(problem.parallelismOf(from))]
                                        [int(problem.parallelismOf(to))];
    known->second = s.cost;
    state.switches.push_back(std::move(s));
  }
}

/// Select: one option per layer, jointly over the graph. A shortcut's cost
/// depends on the parallelisms alone (only the next layer reuses on chip; a
/// shortcut kept on chip needs the same parallelism at both ends, whatever
/// the producer's DySM factor): remembering the parallelism keeps the state
/// space small.
Selection dsm::core::selectWithStates(const std::vector<OptionCosts> &cost,
                                      const std::vector<SelectionEdge> &edges) {
  return selectOptions(cost, edges, kMaxSelectionStates,
                       /*farClasses=*/kNumParallelisms);
}

/// Realise: every pass of every layer under the choice, with the relayouts
/// of its inputs (FWD) or of the errors it sends back (BWD). A pipe stage's
/// passes are the add-on's that made it: its own chips, the group's
/// schedule; its edges are streamed timestep by timestep instead of re-laid
/// out.
static llvm::Error
realizePlan(MappingState &state,
            llvm::ArrayRef<std::unique_ptr<MappingAddOn>> addOns) {
  const MappingProblem &problem = state.problem;
  const MappingProperties &properties = state.properties;
  const size_t n = problem.numLayers();
  MappingPlan &plan = state.plan;
  plan.layers.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const LayerNode &layer = problem.layer(int(i));
    LayerPlan &lp = plan.layers[i];
    const int option = state.choice[i];
    lp.parallelism = problem.parallelismOf(option);
    // Each parallelism's cost with its best DySM factor.
    lp.alternatives.fill(kInfinity);
    for (int o = 0; o < problem.numOptions(); ++o) {
      double &alternative = lp.alternatives[int(problem.parallelismOf(o))];
      alternative = std::min(alternative, state.exploredCost[i][o]);
    }
    bool runs[kNumPasses] = {layer.fwd, layer.bwd, layer.upd};
    lp.passes.reserve(size_t(runs[0]) + size_t(runs[1]) + size_t(runs[2]));
    const bool streamed = properties.isPipeStage(int(i));
    for (int pass = 0; pass < kNumPasses; ++pass) {
      if (!runs[pass])
        continue;
      PassPlan pp;
      pp.pass = TrainingPass(pass);
      pp.relayout.name = "relayout";
      if (!streamed)
        pp.eval = *state.plain(int(i), pp.pass, option);
      PassRealization realization{pp};
      for (const std::unique_ptr<MappingAddOn> &addOn : addOns)
        addOn->realizePass(state, int(i), realization);
      if (!streamed && pp.pass != TrainingPass::UPD) {
        for (int e : problem.incoming(int(i))) {
          const LayerEdge &edge = problem.edge(e);
          if ((pp.pass == TrainingPass::BWD && !edge.carriesError) ||
              properties.isPipeStage(edge.producer))
            continue;
          TransferGroup group = problem.model().relayout(
              edge.elements, problem.parallelismOf(state.choice[edge.producer]),
              lp.parallelism);
          for (int l = 0; l < kNumLinks; ++l) {
            pp.relayout.bytes[l] += group.bytes[l];
            pp.relayout.steps[l] += group.steps[l];
          }
          if (group.cycles > 0 && group.cycles >= pp.relayout.cycles / 2)
            pp.relayout.bottleneck = group.bottleneck;
          pp.relayout.cycles += group.cycles;
        }
      }
      if (!streamed) {
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
    // A pipe stage runs at its stage's parallelism.
    if (streamed && !lp.passes.empty())
      lp.parallelism = lp.passes.front().eval.config.parallelism;
  }
  return llvm::Error::success();
}

/// Each pass's least `counted` cycles of its explored evaluations, under
/// any option and data on chip, summed over the passes (timestep pipe
/// stages, whose passes overlap, count nothing); each layer's sum in
/// `perLayer` when given.
static double leastExploredCycles(
    const MappingState &state,
    llvm::function_ref<double(TrainingPass, const Evaluation &)> counted,
    std::vector<double> *perLayer = nullptr) {
  const MappingProblem &problem = state.problem;
  const ExplorationTable &table = state.explorations;
  double total = 0;
  if (perLayer)
    perLayer->assign(problem.numLayers(), 0.0);
  // Each row's least once: layers that asked alike share their rows.
  std::vector<double> leastOfRow(table.numRows(),
                                 std::numeric_limits<double>::quiet_NaN());
  for (size_t i = 0; i < problem.numLayers(); ++i) {
    const LayerNode &layer = problem.layer(int(i));
    if (problem.options().pipelineTimesteps && layer.shape.timesteps > 1)
      continue;
    bool runs[kNumPasses] = {layer.fwd, layer.bwd, layer.upd};
    double layerTotal = 0;
    for (int pass = 0; pass < kNumPasses; ++pass) {
      if (!runs[pass])
        continue;
      double least = kInfinity;
      for (int what = 0; what < kNumOnChip; ++what) {
        const int32_t row =
            table.rowNumber(int(i), TrainingPass(pass), OnChip(what));
        if (row < 0)
          continue;
        double &rowLeast = leastOfRow[size_t(row)];
        if (std::isnan(rowLeast)) {
          rowLeast = kInfinity;
          for (const Evaluation *eval :
               table.bests(int(i), TrainingPass(pass), OnChip(what)))
            if (eval)
              rowLeast = std::min(rowLeast, counted(TrainingPass(pass), *eval));
        }
        least = std::min(least, rowLeast);
      }
      layerTotal += least;
    }
    if (perLayer)
      (*perLayer)[i] = layerTotal;
    total += layerTotal;
  }
  return total;
}

/// At most the cycles of the plan the later stages make of `state`'s
/// explorations: every pass realised is one explored evaluation (plain or
/// with data on chip, under some option) plus relayouts and savers, which
/// only add. Not a bound where a pass may be priced otherwise: output
/// elision (inference with reuse) and timestep pipe stages (those layers
/// count nothing). The margin in solveMapping keeps a bound that only
/// rounding puts above a plan from dropping it.
static double exploredCyclesBound(const MappingState &state) {
  const MappingProblem &problem = state.problem;
  if (problem.cyclesToBeat() == kInfinity ||
      (problem.inferenceOnly() && problem.options().reuseActivations))
    return 0;
  return leastExploredCycles(state, [](TrainingPass, const Evaluation &eval) {
    return eval.cycles.total;
  });
}

/// The add-ons of `state`'s problem, in the order their stages run.
static std::vector<std::unique_ptr<MappingAddOn>>
makeAddOns(const MappingProblem &problem) {
  const MapperOptions &options = problem.options();
  std::vector<std::unique_ptr<MappingAddOn>> addOns;
  if (problem.activationCopies() > 0)
    addOns.push_back(makeCapacityFit());
  if (options.reuseActivations) {
    addOns.push_back(makeActivationReuse());
    addOns.push_back(makeShortcutRetention());
    if (options.spatialMinibatching)
      addOns.push_back(makeSpatialMinibatchGroups());
    addOns.push_back(makeShortcutErrorRetention());
  }
  if (options.pipelineTimesteps)
    addOns.push_back(makePipeGroupSelection());
  if (options.reuseActivations && problem.inferenceOnly())
    addOns.push_back(makeOutputElision());
  return addOns;
}

/// 1-2. Request and explore: every pass under every option, plainly and as
/// the add-ons ask.
static llvm::Error
exploreProblem(MappingState &state,
               llvm::ArrayRef<std::unique_ptr<MappingAddOn>> addOns,
               Executor &executor, ExplorationProgress &progress) {
  requestPlainExplorations(state);
  for (const std::unique_ptr<MappingAddOn> &addOn : addOns)
    addOn->requestExplorations(state);
  return state.explorations.run(executor, progress);
}

/// A pass's cycles on a microbatch of a pipeline: less what the pipeline
/// spends once a step.
static double perMicrobatch(TrainingPass pass, const Evaluation &eval) {
  return eval.cycles.total -
         oncePerStepCycles(pass, eval.transfers, eval.cycles.total);
}

llvm::Expected<double> dsm::core::leastPipelinedCycles(
    const MappingProblem &problem, Executor &executor,
    ExplorationProgress &progress, SweepMemo *memo,
    std::vector<double> *perLayer,
    std::shared_ptr<const LayerFitFigures> *fitFigures,
    double fitFiguresBelow) {
  MappingState state(problem, progress, memo ? &memo->explorations : nullptr);
  std::vector<std::unique_ptr<MappingAddOn>> addOns = makeAddOns(problem);
  if (llvm::Error error = exploreProblem(state, addOns, executor, progress))
    return std::move(error);
  // As exploredCyclesBound, less what a pipeline spends once a step.
  const double least = leastExploredCycles(state, perMicrobatch, perLayer);
  if (fitFigures)
    *fitFigures = least < fitFiguresBelow
                      ? std::make_shared<const LayerFitFigures>(
                            layerFitFigures(state, perMicrobatch))
                      : nullptr;
  return least;
}

llvm::Expected<MappingPlan>
dsm::core::solveMapping(const MappingProblem &problem, Executor &executor,
                        ExplorationProgress &progress, SweepMemo *memo) {
  MappingState state(problem, progress, memo ? &memo->explorations : nullptr);
  std::vector<std::unique_ptr<MappingAddOn>> addOns = makeAddOns(problem);
  if (llvm::Error error = exploreProblem(state, addOns, executor, progress))
    return std::move(error);
  MappingPlan &plan = state.plan;
  plan.explorations = state.explorations.explorations();
  plan.memoizedExplorations = state.explorations.memoized();
  plan.configurationsEvaluated = state.explorations.configurationsEvaluated();

  // 3-4. Price and select.
  if (llvm::Error error = priceLayers(state))
    return std::move(error);
  state.leastCycles = exploredCyclesBound(state);
  if (!(state.leastCycles < problem.cyclesToBeat() * (1 + 1e-9)))
    return llvm::createStringError(
        "no plan on this torus takes fewer cycles than the plan to beat");
  for (const std::unique_ptr<MappingAddOn> &addOn : addOns)
    if (llvm::Error error = addOn->boundBeforeSelection(state))
      return std::move(error);
  state.exploredCost = state.layerCost;
  priceRelayouts(state);
  for (const std::unique_ptr<MappingAddOn> &addOn : addOns)
    addOn->addSelectionTerms(state);
  // Alike edges (a network's repeated blocks) hold one block of costs: the
  // selections, CapacityFit's many among them, find them equal at once.
  // Worth it on thousands of edges; on fewer the selections are cheap and
  // the blocks freed cost more (the allocator hands their pages back and
  // faults them in again: a Llama-2-7B decode step, 0.07 s of system time).
  constexpr size_t kFewestEdgesToShare = 4096;
  if (state.switches.size() >= kFewestEdgesToShare) {
    std::vector<SwitchCosts *> switchCosts;
    for (SelectionEdge &edge : state.switches)
      switchCosts.push_back(&edge.cost);
    shareEqualSwitchCosts(switchCosts);
  }
  if (progress.shouldStop())
    return progress.makeError();
  const Selection *known =
      memo ? memo->selections.find(state.layerCost, state.switches) : nullptr;
  Selection selection =
      known ? *known : selectWithStates(state.layerCost, state.switches);
  if (memo && !known)
    memo->selections.store(state.layerCost, state.switches, selection);
  state.selectionExact = selection.exact;
  state.selectionCost = selection.cost;
  state.choice = std::move(selection.choice);
  if (progress.shouldStop())
    return progress.makeError();

  // 5. Revise.
  for (const std::unique_ptr<MappingAddOn> &addOn : addOns)
    if (llvm::Error error = addOn->reviseChoice(state, executor))
      return std::move(error);
  plan.selectionExact = state.selectionExact;
  if (!plan.selectionExact)
    plan.selectionStatesKept = kMaxSelectionStates;

  // 6-7. Realise and refine.
  for (const std::unique_ptr<MappingAddOn> &addOn : addOns)
    addOn->beginRealization(state);
  if (llvm::Error error = realizePlan(state, addOns))
    return std::move(error);
  // In reverse order: the first add-on revised first and refines last, so
  // CapacityFit charges its savers on the passes as the others leave them.
  bool refined = false;
  for (const std::unique_ptr<MappingAddOn> &addOn : llvm::reverse(addOns))
    refined |= addOn->refinePlan(state);
  if (refined) {
    plan.totals.cycles = CycleBreakdown();
    for (const LayerPlan &lp : plan.layers)
      for (const PassPlan &pp : lp.passes)
        plan.totals.cycles += pp.cycles;
  }

  if (!(plan.totals.cycles.total <= kMaxCycles))
    return llvm::createStringError(
        "the network would take more than 2^62 cycles: the system's "
        "bandwidths, efficiencies or frequency are too small");
  plan.totals.seconds = plan.totals.cycles.total / problem.model().frequency();
  plan.totals.utilization =
      plan.totals.cycles.total > 0
          ? plan.totals.cycles.useful / plan.totals.cycles.total
          : 0;
  return std::move(plan);
}

//===----------------------------------------------------------------------===//
// RangeMax
//===----------------------------------------------------------------------===//

RangeMax::RangeMax(const std::vector<double> &values) {
  while (size < values.size())
    size *= 2;
  tree.assign(2 * size, -kInfinity);
  std::copy(values.begin(), values.end(), tree.begin() + size);
  for (size_t i = size - 1; i > 0; --i)
    tree[i] = std::max(tree[2 * i], tree[2 * i + 1]);
}

void RangeMax::setRange(int first, llvm::ArrayRef<double> values) {
  if (values.empty())
    return;
  size_t low = size + size_t(first), high = low + values.size() - 1;
  std::copy(values.begin(), values.end(), tree.begin() + low);
  for (low /= 2, high /= 2; low > 0; low /= 2, high /= 2)
    for (size_t i = low; i <= high; ++i)
      tree[i] = std::max(tree[2 * i], tree[2 * i + 1]);
}

double RangeMax::max(int a, int b) const {
  double result = -kInfinity;
  if (b < a)
    return result;
  for (size_t l = size + size_t(a), r = size + size_t(b) + 1; l < r;
       l /= 2, r /= 2) {
    if (l & 1)
      result = std::max(result, tree[l++]);
    if (r & 1)
      result = std::max(result, tree[--r]);
  }
  return result;
}
