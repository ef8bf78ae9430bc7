//===- ShortcutRetention.cpp - Residual shortcuts kept on chip ------------===//
//
// DeepSpatialMatrix §III-B1: "in the case of residual layers, the outputs
// may need to be retained longer, as a future layer may also use the outputs
// for short-cut addition". Along an edge that a layer's fused auxiliary
// computations read (its only such edge), the producer's output may stay in
// the scratchpads until the consumer's FWD adds it, when both use the same
// parallelism (the same layout of the tensor over the chips). The
// consumer's FWD is explored with the shortcut on chip, with and without its
// input on chip too.
//
// The shortcut's share of every core's scratchpad stays taken from its
// producer's FWD to its consumer's. As for activation reuse, the data kept
// are counted where they are kept whole -- by the layers in between and the
// consumer --, not in the producer's working set, which writes them block by
// block. The layers in between may take any of their options, so a shortcut
// is kept only where it fits beside the largest working set any FWD
// evaluation of theirs needs (and beside every other shortcut that could be
// kept across them): the selection may then combine the options freely. A
// layer that keeps its input whole (input reuse) already holds its share of
// that tensor, so a shortcut of the same tensor takes no more room there
// (the first layer of a residual block reads the shortcut as its input).
//
//===----------------------------------------------------------------------===//

#include "MappingSolver.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace dsm::core;

namespace {
/// Residual shortcuts kept on chip from their producer's FWD to their
/// consumer's (DeepSpatialMatrix §III-B1), where they fit. Writes
/// properties.shortcutCandidates (request), keptShortcuts,
/// keptShortcutBytes and shortcutSavings (price).
class ShortcutRetention : public MappingAddOn {
public:
  void requestExplorations(MappingState &state) override;
  void addSelectionTerms(MappingState &state) override;
  void realizePass(const MappingState &state, int layer,
                   PassRealization &pass) const override;

private:
  const Evaluation *onChipEval(const MappingState &state, OnChip variant,
                               int layer, int option) const;
  const Evaluation *withShortcut(const MappingState &state, int layer,
                                 int option, bool inputOnChip) const;
  double shortcutSaving(const MappingState &state, int layer, int option) const;
  void dropShortcutsThatDoNotFit(const MappingState &state);

  /// Per consumer: the shortcut kept (nullptr: none).
  std::vector<const LayerEdge *> shortcutIn;
  /// Per layer: bytes of kept shortcuts held across it.
  std::vector<double> reservedAt;
};
} // namespace

std::unique_ptr<MappingAddOn> dsm::core::makeShortcutRetention() {
  return std::make_unique<ShortcutRetention>();
}

/// A core's share of a shortcut's tensor.
static double share(const MappingState &state, const LayerEdge &edge) {
  return state.problem.shareOfEveryCore(edge.elements);
}

void ShortcutRetention::requestExplorations(MappingState &state) {
  const MappingProblem &problem = state.problem;
  const LayerGraph &graph = problem.graph();
  const size_t n = problem.numLayers();
  shortcutIn.assign(n, nullptr);
  std::vector<int> auxEdges(n, 0);
  for (const LayerEdge &edge : graph.edges)
    if (!edge.primaryInput)
      ++auxEdges[edge.consumer];
  // Layers that step through time in between may become pipe stages on
  // chips of their own: the shortcut stays in memory across them.
  std::vector<int> recurrentBefore(n + 1, 0);
  for (size_t k = 0; k < n; ++k)
    recurrentBefore[k + 1] =
        recurrentBefore[k] + (graph.layers[k].shape.timesteps > 1);
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
    if (recurrentBefore[edge.consumer] - recurrentBefore[edge.producer + 1] > 0)
      continue;
    shortcutIn[edge.consumer] = &edge;
    state.explorations.requestUsable(edge.consumer, TrainingPass::FWD,
                                     OnChip::Shortcut);
    if (state.properties.inputReuseOf(edge.consumer))
      state.explorations.requestUsable(edge.consumer, TrainingPass::FWD,
                                       OnChip::OwnAndShortcut);
  }
  state.properties.shortcutCandidates = shortcutIn;
}

/// Drops the shortcuts that do not fit until the rest do (dropping one frees
/// room for the others). Consumers are checked in order against the room
/// every shortcut still kept at the start of a round takes, and the input
/// each layer already holds of those still kept at that moment.
void ShortcutRetention::dropShortcutsThatDoNotFit(const MappingState &state) {
  const MappingProblem &problem = state.problem;
  const int n = int(problem.numLayers());
  const double capacity = problem.scratchpadCapacity();
  // The largest FWD working sets over every option, with the input kept
  // whole or not.
  std::vector<double> largest(n, 0), largestWithInput(n, 0);
  std::vector<double> without(problem.numOptions()), with(problem.numOptions());
  for (int i = 0; i < n; ++i) {
    state.largestForwardWorkingSets(i, without, with);
    largest[i] = *llvm::max_element(without);
    largestWithInput[i] = *llvm::max_element(with);
  }
  // Layer k holds the tensor of a kept shortcut whole as its input when it
  // reads the shortcut's producer k - 1 on chip: `held[k]` bytes.
  auto inputIsShortcutAt = [&](const LayerEdge &edge) {
    int k = edge.producer + 1;
    return k < edge.consumer && state.properties.inputReuseOf(k);
  };
  for (bool changed = true; changed;) {
    changed = false;
    // Shares are whole bytes: sums in any order are exact.
    std::vector<double> reserved(n + 1, 0), held(n, 0);
    for (int c = 0; c < n; ++c)
      if (const LayerEdge *edge = shortcutIn[c]) {
        reserved[edge->producer + 1] += share(state, *edge);
        reserved[edge->consumer] -= share(state, *edge);
        if (inputIsShortcutAt(*edge))
          held[edge->producer + 1] += share(state, *edge);
      }
    for (int k = 1; k <= n; ++k)
      reserved[k] += reserved[k - 1];
    auto fitsAt = [&](int k) {
      if (largest[k] + reserved[k] > capacity)
        return false;
      if (largestWithInput[k] <= 0)
        return true;
      return largestWithInput[k] + reserved[k] - held[k] <= capacity;
    };
    // Layers where the kept shortcuts do not fit (dropping a shortcut can
    // change whether one layer fits).
    LayerFlags bad(n);
    for (int k = 0; k < n; ++k)
      bad.set(k, !fitsAt(k));
    for (int c = 0; c < n; ++c) {
      const LayerEdge *edge = shortcutIn[c];
      if (!edge || !bad.any(edge->producer + 1, edge->consumer - 1))
        continue;
      shortcutIn[c] = nullptr;
      changed = true;
      if (inputIsShortcutAt(*edge)) {
        int k = edge->producer + 1;
        held[k] -= share(state, *edge);
        bad.set(k, !fitsAt(k));
      }
    }
  }
}

void ShortcutRetention::addSelectionTerms(MappingState &state) {
  const MappingProblem &problem = state.problem;
  const int n = int(problem.numLayers());
  dropShortcutsThatDoNotFit(state);
  // At the consumer: the other shortcuts kept across it beside its
  // evaluation with its own shortcut on chip.
  reservedAt.assign(n + 1, 0);
  for (int c = 0; c < n; ++c)
    if (const LayerEdge *edge = shortcutIn[c]) {
      reservedAt[edge->producer + 1] += share(state, *edge);
      reservedAt[edge->consumer] -= share(state, *edge);
    }
  for (int k = 1; k <= n; ++k)
    reservedAt[k] += reservedAt[k - 1];
  // What the terms count for each kept shortcut, under every option.
  MappingProperties &properties = state.properties;
  properties.keptShortcuts = shortcutIn;
  properties.keptShortcutBytes = reservedAt;
  properties.shortcutSavings.assign(n, {});
  for (int c = 0; c < n; ++c)
    if (shortcutIn[c]) {
      std::vector<double> &savings = properties.shortcutSavings[c];
      savings.resize(problem.numOptions());
      for (int o = 0; o < problem.numOptions(); ++o)
        savings[o] = shortcutSaving(state, c, o);
    }
  // A kept shortcut: the producer's parallelism (not its DySM factor) must
  // be the consumer's. The terms: per option the producer can take, 1;
  // then per option the consumer can take, its saving (NaN: neither can).
  const int numOptions = problem.numOptions();
  constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> saved(2 * size_t(numOptions));
  SwitchCostTerms terms;
  for (size_t e = 0; e < state.switches.size(); ++e) {
    const LayerEdge &edge = problem.edge(int(e));
    if (shortcutIn[edge.consumer] != &edge)
      continue;
    double *from = saved.data(), *to = saved.data() + numOptions;
    for (int o = 0; o < numOptions; ++o) {
      from[o] = state.layerCost[edge.producer][o] < kInfinityCost ? 1 : kNone;
      to[o] = state.layerCost[edge.consumer][o] < kInfinityCost
                  ? properties.shortcutSavings[edge.consumer][o]
                  : kNone;
    }
    terms.add(state.switches[e].cost, saved, [&](SwitchCosts &cost) {
      for (int f = 0; f < numOptions; ++f)
        for (int t = 0; t < numOptions; ++t)
          if (problem.parallelismOf(f) == problem.parallelismOf(t) &&
              !std::isnan(from[f]) && !std::isnan(to[t]))
            cost[f][t] += to[t];
    });
  }
}

const Evaluation *ShortcutRetention::onChipEval(const MappingState &state,
                                                OnChip variant, int layer,
                                                int option) const {
  const Evaluation *e =
      state.explorations.best(layer, TrainingPass::FWD, option, variant);
  if (!e || e->scratchpadBytes + reservedAt[layer] >
                state.problem.scratchpadCapacity())
    return nullptr;
  return e;
}

/// The consumer's FWD with the shortcut on chip, given whether its input is
/// on chip too (nullptr: not faster than without the shortcut).
const Evaluation *ShortcutRetention::withShortcut(const MappingState &state,
                                                  int layer, int option,
                                                  bool inputOnChip) const {
  if (!shortcutIn[layer])
    return nullptr;
  const Evaluation *base = inputOnChip
                               ? state.reused(layer, TrainingPass::FWD, option)
                               : state.plain(layer, TrainingPass::FWD, option);
  const Evaluation *with =
      onChipEval(state, inputOnChip ? OnChip::OwnAndShortcut : OnChip::Shortcut,
                 layer, option);
  if (!base || !with || with->cycles.total >= base->cycles.total)
    return nullptr;
  return with;
}

// The saving both with and without the input on chip guarantees, since the
// selection's edge terms are pairwise and whether the input is on chip
// depends on the previous layer's option. The plan realizes at least it.
double ShortcutRetention::shortcutSaving(const MappingState &state, int layer,
                                         int option) const {
  auto savingIn = [&](bool inputOnChip) {
    const Evaluation *with = withShortcut(state, layer, option, inputOnChip);
    if (!with)
      return 0.0;
    const Evaluation *base =
        inputOnChip ? state.reused(layer, TrainingPass::FWD, option)
                    : state.plain(layer, TrainingPass::FWD, option);
    return with->cycles.total - base->cycles.total;
  };
  double saving = savingIn(false);
  if (state.reused(layer, TrainingPass::FWD, option))
    saving = std::max(saving, savingIn(true));
  return saving;
}

void ShortcutRetention::realizePass(const MappingState &state, int layer,
                                    PassRealization &pass) const {
  PassPlan &pp = pass.pass;
  if (pp.pass != TrainingPass::FWD)
    return;
  const int option = state.choice[layer];
  const MappingProperties &properties = state.properties;
  // A block run as one DySM group holds one spatial minibatch's shortcut
  // instead (its consumer's FWD is the grouping's).
  if (properties.isGroupedConsumer(layer) || properties.isPipeStage(layer))
    return;
  const LayerEdge *shortcut = shortcutIn[layer];
  if (!shortcut ||
      state.problem.parallelismOf(state.choice[shortcut->producer]) !=
          state.problem.parallelismOf(option) ||
      properties.isPipeStage(shortcut->producer))
    return;
  if (const Evaluation *kept =
          withShortcut(state, layer, option, pass.inputOnChip))
    pp.eval = *kept;
}
