//===- PipeGroupSelection.cpp - Pipe groups chosen with the rest ----------===//
//
// Timestep pipelining (DeepSpatialMatrix §III-D), chosen with the
// parallelisms. A group's plan depends on its own layers only, so each
// candidate is planned once (TimestepPipeliner). A set of adopted groups is
// then priced as its groups' cycles plus the selection of every other layer
// with the stages fixed and their edges streamed (no relayout, no reuse);
// the cheapest set wins, the empty one being the selection as made. With up
// to eight plannable candidates every set is priced (choosePipeGroups), so
// groups and parallelisms are chosen exactly together.
//
//===----------------------------------------------------------------------===//

#include "MappingSolver.h"

#include "llvm/ADT/STLExtras.h"

using namespace dsm::core;

namespace {
/// Timestep pipelining (DeepSpatialMatrix §III-D): pipe groups chosen with
/// the other layers' parallelisms. Reads properties.memoryConstrained;
/// writes properties.pipeStages and realises the stages' passes.
class PipeGroupSelection : public MappingAddOn {
public:
  llvm::Error reviseChoice(MappingState &state, Executor &executor) override;
  void realizePass(const MappingState &state, int layer,
                   PassRealization &pass) const override;

private:
  std::vector<PipeGroupPlan> adopted;
  /// Per layer: the stage it runs as (nullptr: none); points into adopted.
  std::vector<const PipeStagePlan *> stageOf;
};
} // namespace

std::unique_ptr<MappingAddOn> dsm::core::makePipeGroupSelection() {
  return std::make_unique<PipeGroupSelection>();
}

llvm::Error PipeGroupSelection::reviseChoice(MappingState &state,
                                             Executor &executor) {
  // A stage holds its layers' parameters on a block of rows, which the
  // capacity check does not price: a plan that needed memory savers to fit
  // is not pipelined.
  if (state.properties.memoryConstrained)
    return llvm::Error::success();
  const MappingProblem &problem = state.problem;
  const LayerGraph &graph = problem.graph();
  const size_t n = problem.numLayers();
  const int numOptions = problem.numOptions();
  MappingPlan &plan = state.plan;
  const int64_t torusRows = problem.model().getSystem().torus.y.size;
  TimestepPipeliner pipeliner(
      problem.model(), problem.options().search,
      problem.options().reuseWeightsAcrossSteps,
      std::vector<Parallelism>(problem.parallelisms().begin(),
                               problem.parallelisms().end()));
  std::vector<std::vector<int>> candidates =
      findPipeGroupCandidates(graph, torusRows);
  std::vector<std::optional<PipeGroupPlan>> planned;
  std::vector<size_t> plannable;
  const std::vector<int> &choice = state.choice;
  for (const std::vector<int> &group : candidates) {
    if (state.progress.shouldStop())
      return state.progress.makeError();
    PipeGroupRecord record;
    record.layers = group;
    for (int layer : group)
      record.cyclesUnpipelined += state.exploredCost[layer][choice[layer]];
    for (size_t e = 0; e < graph.edges.size(); ++e) {
      const LayerEdge &edge = graph.edges[e];
      if (llvm::is_contained(group, edge.producer) ||
          llvm::is_contained(group, edge.consumer))
        record.cyclesUnpipelined +=
            state.switches[e]
                .cost[choice[edge.producer]][choice[edge.consumer]];
    }
    record.cycles = kInfinityCost;
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

  // The selection with the candidates in `set` pipelined, and its cost with
  // their cycles.
  auto withGroups = [&](const std::vector<bool> &set) {
    std::vector<bool> isStage(n);
    double groupCycles = 0;
    for (size_t k = 0; k < set.size(); ++k)
      if (set[k]) {
        groupCycles += planned[k]->cycles;
        for (int layer : candidates[k])
          isStage[layer] = true;
      }
    std::vector<OptionCosts> fixedCost = state.layerCost;
    for (size_t i = 0; i < n; ++i)
      if (isStage[i]) {
        fixedCost[i].assign(numOptions, kInfinityCost);
        fixedCost[i][choice[i]] = 0;
      }
    std::vector<SelectionEdge> streamed = state.switches;
    for (SelectionEdge &edge : streamed)
      if (isStage[edge.from] || isStage[edge.to])
        edge.cost = makeSwitchCosts(numOptions);
    Selection selected = selectWithStates(fixedCost, streamed);
    selected.cost += groupCycles;
    return selected;
  };
  // Without a plannable candidate nothing can be adopted; the empty set's
  // price is the selection already made.
  if (plannable.empty())
    return llvm::Error::success();
  std::vector<bool> best = choosePipeGroups(
      candidates.size(), plannable, [&](const std::vector<bool> &set) {
        if (llvm::none_of(set, [](bool adopted) { return adopted; }))
          return state.selectionCost;
        // An interrupt stops the pricing at the next set; the result is
        // thrown away below.
        if (state.progress.shouldStop())
          return kInfinityCost;
        return withGroups(set).cost;
      });
  if (state.progress.shouldStop())
    return state.progress.makeError();
  adopted.reserve(candidates.size()); // stageOf points into it
  stageOf.assign(n, nullptr);
  state.properties.pipeStages.assign(n, 0);
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
      state.properties.pipeStages[stage.layer] = 1;
    }
  }
  // The other layers take the selection made around the stages; without
  // stages, the choice stands (with its residual DySM groups).
  if (!adopted.empty()) {
    Selection around = withGroups(best);
    state.selectionExact = state.selectionExact && around.exact;
    state.choice = std::move(around.choice);
  }
  return llvm::Error::success();
}

/// A stage's passes: its own chips, the group's schedule.
void PipeGroupSelection::realizePass(const MappingState &state, int layer,
                                     PassRealization &pass) const {
  const PipeStagePlan *stage = stageOf.empty() ? nullptr : stageOf[layer];
  if (!stage)
    return;
  // The stage's passes are the layer's that run, in order.
  const LayerNode &node = state.problem.layer(layer);
  const bool runs[kNumPasses] = {node.fwd, node.bwd, node.upd};
  int stagePass = 0;
  for (int p = 0; p < int(pass.pass.pass); ++p)
    stagePass += runs[p];
  pass.pass.eval = stage->passes[stagePass];
  pass.pass.cycles = stage->cycles[stagePass];
}
