//===- ShortcutErrorRetention.cpp - A residual block's error on chip ------===//
//
// Residual shortcuts kept on chip (ShortcutRetention.cpp) backwards, in
// training: the block's last layer leaves the error of its output -- the
// shortcut's error -- in the scratchpads, the block's first layer adds it to
// the error it computes for the block's input, and the block input's
// producer finds the whole sum there (error reuse, though its output has two
// consumers). For blocks x -> first -> ... -> last (+ x) whose layers'
// options allow it: the consumer's BWD is explored with the shortcut's error
// on chip, the producer's BWD and UPD with their error on chip.
//
// Decided after realisation, where the plan's options allow it: the block's
// first layer takes the last layer's parallelism (it adds the error in
// place) and the producer's option (error reuse), and the error fits beside
// the working set of every BWD and UPD it waits through (with every other
// such error that could be kept there). Each pass changes only when that
// makes it faster, so the plan only gets faster. A block that runs as one
// DySM group holds the error of one spatial minibatch.
//
//===----------------------------------------------------------------------===//

#include "MappingSolver.h"

#include <algorithm>

using namespace dsm::core;

namespace {
/// In training, the error of a residual shortcut kept on chip from the
/// block's last layer to its first, and the block input's producer finding
/// the whole error there; chosen after realisation, pass by pass. Reads
/// properties.shortcutCandidates; writes properties.errorShortcuts and
/// errorBytes (request), which the DySM grouping estimates it by.
class ShortcutErrorRetention : public MappingAddOn {
public:
  void requestExplorations(MappingState &state) override;
  bool refinePlan(MappingState &state) override;
};
} // namespace

std::unique_ptr<MappingAddOn> dsm::core::makeShortcutErrorRetention() {
  return std::make_unique<ShortcutErrorRetention>();
}

void ShortcutErrorRetention::requestExplorations(MappingState &state) {
  const MappingProblem &problem = state.problem;
  const int n = int(problem.numLayers());
  std::vector<const LayerEdge *> &blockShortcut =
      state.properties.errorShortcuts;
  std::vector<double> &coverage = state.properties.errorBytes;
  blockShortcut.assign(n, nullptr);
  coverage.assign(n + 1, 0);
  for (int c = 0; c < n; ++c) {
    const LayerEdge *edge = state.properties.shortcutCandidateOf(c);
    if (!edge || !problem.layer(c).bwd)
      continue;
    const int p = edge->producer;
    const LayerNode &producer = problem.layer(p);
    if (p + 1 >= c || problem.outgoing(p).size() != 2 ||
        !producer.shape.hasPrimary || !problem.layer(p + 1).bwd ||
        (!producer.bwd && !producer.upd))
      continue;
    bool firstReadsIt = llvm::any_of(problem.incoming(p + 1), [&](int e) {
      return problem.edge(e).producer == p && problem.edge(e).primaryInput;
    });
    if (!firstReadsIt)
      continue;
    blockShortcut[c] = edge;
    const double share = problem.shareOfEveryCore(edge->elements);
    coverage[p + 1] += share;
    coverage[c] -= share;
    // The consumer's BWD with the shortcut's error on chip, and also with
    // its own error (from the next layer, or as the producer of the next
    // block); a DySM group's spatial share of it under factors above 1.
    ExplorationTable &table = state.explorations;
    const uint64_t grouping = problem.groupingOptions(c);
    table.requestUsable(c, TrainingPass::BWD, OnChip::Shortcut);
    table.requestUsable(c, TrainingPass::BWD, OnChip::OwnAndShortcut);
    table.requestOptions(c, TrainingPass::BWD, OnChip::SpatialShortcut,
                         grouping);
    table.requestOptions(c, TrainingPass::BWD, OnChip::OwnAndSpatialShortcut,
                         grouping);
    // The producer finding the whole error on chip.
    if (producer.bwd)
      table.requestUsable(p, TrainingPass::BWD, OnChip::Own);
    if (producer.upd)
      table.requestUsable(p, TrainingPass::UPD, OnChip::Own);
  }
  for (int k = 1; k <= n; ++k)
    coverage[k] += coverage[k - 1];
}

bool ShortcutErrorRetention::refinePlan(MappingState &state) {
  const MappingProblem &problem = state.problem;
  const int n = int(problem.numLayers());
  const std::vector<int> &choice = state.choice;
  const double capacity = problem.scratchpadCapacity();
  const std::vector<const LayerEdge *> &blockShortcut =
      state.properties.errorShortcuts;
  if (blockShortcut.empty())
    return false;
  ChoiceRuns runs(choice);
  std::vector<int> stagesBefore(n + 1, 0);
  for (int k = 0; k < n; ++k)
    stagesBefore[k + 1] =
        stagesBefore[k] + int(state.properties.isPipeStage(k));
  auto staged = [&](int a, int b) { // any stage among [a, b]
    return b >= a && stagesBefore[b + 1] - stagesBefore[a] > 0;
  };
  auto groupedBlock = [&](int c) {
    const LayerEdge *edge = blockShortcut[c];
    return problem.factorOf(choice[c]) > 1 &&
           runs.constant(edge->producer, c) && !staged(edge->producer, c - 1);
  };
  // The errors held across each layer (a DySM group's, one spatial
  // minibatch's).
  std::vector<double> reserved(n + 1, 0);
  for (int c = 0; c < n; ++c)
    if (const LayerEdge *edge = blockShortcut[c]) {
      double share =
          problem.shareOfEveryCore(edge->elements) /
          (groupedBlock(c) ? double(problem.factorOf(choice[c])) : 1.0);
      reserved[edge->producer + 1] += share;
      reserved[edge->consumer] -= share;
    }
  for (int k = 1; k <= n; ++k)
    reserved[k] += reserved[k - 1];
  // Layers some backward pass of which has no room for the errors held
  // across it, recounted as passes change.
  LayerFlags full(n);
  auto recount = [&](int k) {
    bool now = false;
    for (const PassPlan &pp : state.plan.layers[k].passes)
      now |= pp.pass != TrainingPass::FWD &&
             pp.eval.scratchpadBytes + reserved[k] > capacity;
    full.set(k, now);
  };
  for (int k = 0; k < n; ++k)
    recount(k);
  auto replaceIfFaster = [&](PassPlan *pp, OnChip variant, int layer) {
    if (!pp)
      return;
    const Evaluation *with =
        state.explorations.best(layer, pp->pass, choice[layer], variant);
    if (!with || with->cycles.total >= pp->eval.cycles.total)
      return;
    pp->eval = *with;
    pp->cycles = pp->eval.cycles;
    pp->cycles.nonOvldt += pp->relayout.cycles;
    pp->cycles.total += pp->relayout.cycles;
  };
  bool changed = false;
  for (int c = 0; c < n; ++c) {
    const LayerEdge *edge = blockShortcut[c];
    if (!edge)
      continue;
    const int p = edge->producer, first = p + 1;
    if (staged(p, c) || choice[p] != choice[first] ||
        problem.parallelismOf(choice[first]) !=
            problem.parallelismOf(choice[c]))
      continue;
    PassPlan *bwd = state.passOf(c, TrainingPass::BWD);
    if (full.any(first, c - 1) || !bwd)
      continue;
    const bool grouped = groupedBlock(c);
    if (bwd->eval.config.memory.errorOnChip)
      replaceIfFaster(
          bwd, grouped ? OnChip::OwnAndSpatialShortcut : OnChip::OwnAndShortcut,
          c);
    else
      replaceIfFaster(bwd, grouped ? OnChip::SpatialShortcut : OnChip::Shortcut,
                      c);
    recount(c);
    if (!bwd->eval.config.memory.shortcutOnChip)
      continue; // not faster: the error goes through memory
    // The producer finds the whole error of its output on chip; if it is
    // itself the last layer of the block before, with its shortcut's error
    // on chip too.
    PassPlan *producerBwd = state.passOf(p, TrainingPass::BWD);
    if (producerBwd)
      replaceIfFaster(
          producerBwd,
          !producerBwd->eval.config.memory.shortcutOnChip ? OnChip::Own
          : producerBwd->eval.config.memory.shortcutPerSpatialMinibatch
              ? OnChip::OwnAndSpatialShortcut
              : OnChip::OwnAndShortcut,
          p);
    replaceIfFaster(state.passOf(p, TrainingPass::UPD), OnChip::Own, p);
    recount(p);
    changed = true;
  }
  return changed;
}
