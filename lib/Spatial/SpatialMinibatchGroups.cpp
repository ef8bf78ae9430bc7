//===- SpatialMinibatchGroups.cpp - Residual blocks as DySM groups --------===//
//
// DeepSpatialMatrix §III-C: "We execute the first S_mb, but instead of
// completing the next S_mb, we proceed to the next layer. If we choose S_mb
// to be small enough to fit in the scratchpad, then we can continue to hold
// them for the next layer". When a shortcut's producer, its consumer and
// every layer in between take one option whose DySM factor F is above 1,
// they run spatial minibatch by spatial minibatch, so the cores hold the
// shortcut of one spatial minibatch -- 1/F of the share kept otherwise.
//
// Whether a block is one group depends on all its layers, which the
// selection's pairwise terms cannot see; so it is decided after the
// selection by a local search: a block's layers move to one option when
// that lowers the selection's objective with the groups' savings and the
// shortcut errors' savings counted (the plan only gets faster), until no
// move does. A move is priced by what it changes -- the block's layers,
// their edges, the blocks whose terms read its layers -- so a pass over
// the blocks costs time linear in the layers when blocks overlap a bounded
// number of others. Moves are made on innermost blocks, those holding no
// other block (a block around others is a group when its layers end up on
// one option, but is not forced to one).
//
//===----------------------------------------------------------------------===//

#include "MappingSolver.h"

#include <algorithm>

using namespace dsm::core;

namespace {
/// Residual blocks run as DySM groups (DeepSpatialMatrix §III-C), holding
/// the shortcut of one spatial minibatch: decided after the selection.
/// Reads the shortcuts (properties.shortcutCandidates, keptShortcuts, ...)
/// and the shortcut errors (errorShortcuts, errorBytes); writes
/// properties.groupedConsumers when realising.
class SpatialMinibatchGroups : public MappingAddOn {
public:
  void requestExplorations(MappingState &state) override;
  llvm::Error reviseChoice(MappingState &state, Executor &executor) override;
  void beginRealization(MappingState &state) override;
  void realizePass(const MappingState &state, int layer,
                   PassRealization &pass) const override;

private:
  /// What making the block of consumer `c` one group saves under `choice`
  /// beyond the selection's terms (< 0), or 0 where it is not one group;
  /// `constant(a, b)` says whether the choice is one option over [a, b].
  double groupSaving(const MappingState &state, llvm::ArrayRef<int> choice,
                     llvm::function_ref<bool(int, int)> constant, int c) const;
  /// What block c saves as one group under `option`, its layers all on it
  /// and the group fitting (<= 0).
  double savingAsGroup(const MappingState &state, int c, int option) const;
  /// At most groupSaving under any choice: the saving of the option that
  /// saves the most.
  double leastGroupSaving(const MappingState &state, int c) const;
  bool groupFits(int block, int option) const;
  void computeFits(const MappingState &state);

  std::vector<int> blockOf; ///< per consumer: its block (-1: none)
  std::vector<int> blockConsumers;
  std::vector<char> fits; ///< per block and option
  int numOptions = 0;
};
} // namespace

std::unique_ptr<MappingAddOn> dsm::core::makeSpatialMinibatchGroups() {
  return std::make_unique<SpatialMinibatchGroups>();
}

//===----------------------------------------------------------------------===//
// The shortcut errors' savings, as the grouping estimates them
//===----------------------------------------------------------------------===//

// A residual block's shortcut error kept on chip (ShortcutErrorRetention.cpp)
// is decided after realisation, but a group changes what it saves: the
// grouping counts it, as that refinement would realise it, from the blocks
// it tells (properties.errorShortcuts) and the errors they hold
// (properties.errorBytes).

/// The evaluation of `pass` of `k` under `choice`: with its error on chip
/// where the choice lets it reuse, plain otherwise.
static const Evaluation *selectedEval(const MappingState &state,
                                      llvm::ArrayRef<int> choice, int k,
                                      TrainingPass pass) {
  const Evaluation *plain = state.plain(k, pass, choice[k]);
  if (!plain)
    return nullptr;
  const LayerEdge *out = state.properties.errorReuseOf(k);
  if (pass != TrainingPass::FWD && out &&
      choice[out->producer] == choice[out->consumer])
    if (const Evaluation *e = state.reused(k, pass, choice[k]))
      return e;
  return plain;
}

/// The working set of the BWD/UPD passes of `k` under `choice` (the
/// largest), plus every block error held across k (-infinity: none).
static double heldAcross(const MappingState &state, llvm::ArrayRef<int> choice,
                         int k) {
  double largest = -kInfinityCost;
  for (TrainingPass pass : {TrainingPass::BWD, TrainingPass::UPD})
    if (const Evaluation *e = selectedEval(state, choice, k, pass))
      largest = std::max(largest, e->scratchpadBytes);
  return largest + state.properties.errorBytesAt(k);
}

/// What keeping block c's shortcut error saves under `choice` (<= 0), as
/// the refinement would realise it, grouped block or not, so that a group
/// is credited with the error it lets fit. `constant(a, b)` says whether
/// the choice is one option over [a, b]; `errorsFit(first, last,
/// shareDelta)` whether the errors held across [first, last] fit with this
/// block's own share lowered by shareDelta.
static double errorSaving(const MappingState &state, llvm::ArrayRef<int> choice,
                          llvm::function_ref<bool(int, int)> constant,
                          llvm::function_ref<bool(int, int, double)> errorsFit,
                          int c) {
  const LayerEdge *edge = state.properties.errorShortcutOf(c);
  if (!edge)
    return 0.0;
  const MappingProblem &problem = state.problem;
  const int p = edge->producer, first = p + 1, option = choice[c];
  if (choice[p] != choice[first] ||
      problem.parallelismOf(choice[first]) != problem.parallelismOf(option))
    return 0.0;
  const bool grouped = problem.factorOf(option) > 1 && constant(p, c);
  const double whole = problem.shareOfEveryCore(edge->elements);
  const double share =
      whole / (grouped ? double(problem.factorOf(option)) : 1.0);
  // Every layer it waits through holds every block's error whole; this
  // block's own is `share`.
  if (!errorsFit(first, c - 1, whole - share))
    return 0.0;
  const Evaluation *bwd = selectedEval(state, choice, c, TrainingPass::BWD);
  if (!bwd)
    return 0.0;
  auto fasterBy = [&](const Evaluation *now, OnChip variant, int k,
                      TrainingPass pass, int o) {
    const Evaluation *with = state.explorations.best(k, pass, o, variant);
    if (!now || !with)
      return 0.0;
    return std::min(0.0, with->cycles.total - now->cycles.total);
  };
  OnChip variant =
      bwd->config.memory.errorOnChip
          ? (grouped ? OnChip::OwnAndSpatialShortcut : OnChip::OwnAndShortcut)
          : (grouped ? OnChip::SpatialShortcut : OnChip::Shortcut);
  double saving = fasterBy(bwd, variant, c, TrainingPass::BWD, option);
  if (saving >= 0)
    return 0.0;
  for (TrainingPass pass : {TrainingPass::BWD, TrainingPass::UPD})
    saving += fasterBy(selectedEval(state, choice, p, pass), OnChip::Own, p,
                       pass, choice[p]);
  return saving;
}

/// At most errorSaving under any choice: each of its savings at its
/// largest, over every option and whether the pass finds its own data on
/// chip.
static double leastErrorSaving(const MappingState &state, int c) {
  const LayerEdge *edge = state.properties.errorShortcutOf(c);
  if (!edge)
    return 0.0;
  // fasterBy's least: the pass, as selected (plain or with its own data on
  // chip), against each variant, under each option.
  auto largest = [&](int k, TrainingPass pass,
                     std::initializer_list<OnChip> variants) {
    double least = 0;
    for (int o = 0; o < state.problem.numOptions(); ++o)
      for (const Evaluation *now :
           {state.plain(k, pass, o), state.reused(k, pass, o)}) {
        if (!now)
          continue;
        for (OnChip variant : variants)
          if (const Evaluation *with =
                  state.explorations.best(k, pass, o, variant))
            least = std::min(least, with->cycles.total - now->cycles.total);
      }
    return least;
  };
  const int p = edge->producer;
  return largest(c, TrainingPass::BWD,
                 {OnChip::Shortcut, OnChip::OwnAndShortcut,
                  OnChip::SpatialShortcut, OnChip::OwnAndSpatialShortcut}) +
         largest(p, TrainingPass::BWD, {OnChip::Own}) +
         largest(p, TrainingPass::UPD, {OnChip::Own});
}

//===----------------------------------------------------------------------===//
// The groups
//===----------------------------------------------------------------------===//

void SpatialMinibatchGroups::requestExplorations(MappingState &state) {
  const MappingProblem &problem = state.problem;
  const int n = int(problem.numLayers());
  blockOf.assign(n, -1);
  blockConsumers.clear();
  for (int c = 0; c < n; ++c) {
    if (!state.properties.shortcutCandidateOf(c))
      continue;
    blockOf[c] = int(blockConsumers.size());
    blockConsumers.push_back(c);
    const uint64_t grouping = problem.groupingOptions(c);
    state.explorations.requestOptions(c, TrainingPass::FWD,
                                      OnChip::SpatialShortcut, grouping);
    if (state.properties.inputReuseOf(c))
      state.explorations.requestOptions(
          c, TrainingPass::FWD, OnChip::OwnAndSpatialShortcut, grouping);
  }
}

/// Whether each block's layers can hold the shortcut's spatial share under
/// each option beside the largest FWD working set any of their explorations
/// under it chose, with every other shortcut that could be kept across them
/// held whole. The block's first layer keeping its input whole holds the
/// shortcut already.
void SpatialMinibatchGroups::computeFits(const MappingState &state) {
  const MappingProblem &problem = state.problem;
  const MappingProperties &properties = state.properties;
  const int n = int(problem.numLayers());
  numOptions = problem.numOptions();
  fits.assign(blockConsumers.size() * numOptions, 0);
  // Every candidate's whole share across each layer (whole bytes: exact).
  std::vector<double> cover(n + 1, 0);
  for (int c : blockConsumers) {
    const LayerEdge &edge = *properties.shortcutCandidateOf(c);
    cover[edge.producer + 1] += problem.shareOfEveryCore(edge.elements);
    cover[edge.consumer] -= problem.shareOfEveryCore(edge.elements);
  }
  for (int k = 1; k <= n; ++k)
    cover[k] += cover[k - 1];
  const double capacity = problem.scratchpadCapacity();
  std::vector<int> grouping;
  for (int o = 0; o < numOptions; ++o)
    if (problem.factorOf(o) > 1 && problem.allowedOption(o))
      grouping.push_back(o);
  // needOf[g][k]: layer k's largest working set under grouping option g
  // with the input whole or not, plus every candidate's share; a block's
  // own share is then replaced by its spatial share. Filled layer by layer
  // (each layer's explorations looked up once for every option).
  std::vector<std::vector<double>> needOf(grouping.size(),
                                          std::vector<double>(n)),
      needWithInputOf(grouping.size(), std::vector<double>(n));
  std::vector<double> without(numOptions), with(numOptions);
  for (int k = 0; k < n; ++k) {
    state.largestForwardWorkingSets(k, without, with);
    for (size_t g = 0; g < grouping.size(); ++g) {
      const int o = grouping[g];
      needOf[g][k] = without[o] + cover[k];
      needWithInputOf[g][k] = with[o] > 0 ? with[o] + cover[k] : -kInfinityCost;
    }
  }
  for (size_t g = 0; g < grouping.size(); ++g) {
    const int o = grouping[g];
    const std::vector<double> &need = needOf[g],
                              &needWithInput = needWithInputOf[g];
    std::vector<double> either(n);
    for (int k = 0; k < n; ++k)
      either[k] = std::max(need[k], needWithInput[k]);
    RangeMax largest(either);
    for (size_t b = 0; b < blockConsumers.size(); ++b) {
      const LayerEdge &edge =
          *properties.shortcutCandidateOf(blockConsumers[b]);
      const double whole = problem.shareOfEveryCore(edge.elements);
      const double spatial = whole / double(problem.factorOf(o));
      const double limit = capacity + whole - spatial;
      const int first = edge.producer + 1, last = edge.consumer - 1;
      bool ok = largest.max(first + 1, last) <= limit;
      if (ok && first <= last) {
        double held = properties.inputReuseOf(first) ? spatial : 0;
        ok = need[first] <= limit && needWithInput[first] - held <= limit;
      }
      fits[b * numOptions + o] = ok;
    }
  }
}

bool SpatialMinibatchGroups::groupFits(int block, int option) const {
  return fits[size_t(block) * numOptions + option];
}

/// The consumer's FWD with one spatial minibatch's shortcut on chip, beside
/// the kept shortcuts (nullptr: not faster than without).
static const Evaluation *groupedEval(const MappingState &state, int layer,
                                     int option, bool inputOnChip) {
  const Evaluation *base = inputOnChip
                               ? state.reused(layer, TrainingPass::FWD, option)
                               : state.plain(layer, TrainingPass::FWD, option);
  const Evaluation *with = state.explorations.best(
      layer, TrainingPass::FWD, option,
      inputOnChip ? OnChip::OwnAndSpatialShortcut : OnChip::SpatialShortcut);
  if (with &&
      with->scratchpadBytes + state.properties.keptShortcutBytesAt(layer) >
          state.problem.scratchpadCapacity())
    with = nullptr;
  if (!base || !with || with->cycles.total >= base->cycles.total)
    return nullptr;
  return with;
}

double SpatialMinibatchGroups::groupSaving(
    const MappingState &state, llvm::ArrayRef<int> choice,
    llvm::function_ref<bool(int, int)> constant, int c) const {
  const int block = blockOf.empty() ? -1 : blockOf[c];
  if (block < 0 || fits.empty())
    return 0.0;
  const LayerEdge &edge = *state.properties.shortcutCandidateOf(c);
  const int option = choice[c];
  if (state.problem.factorOf(option) == 1 || !constant(edge.producer, c) ||
      !groupFits(block, option))
    return 0.0;
  return savingAsGroup(state, c, option);
}

double SpatialMinibatchGroups::savingAsGroup(const MappingState &state, int c,
                                             int option) const {
  // The block's layers share one option, so its consumer finds its input
  // on chip wherever reuse is faster.
  const Evaluation *reused = state.reused(c, TrainingPass::FWD, option);
  const bool inputOnChip = reused != nullptr;
  const Evaluation *with = groupedEval(state, c, option, inputOnChip);
  if (!with)
    return 0.0;
  const Evaluation *base =
      inputOnChip ? reused : state.plain(c, TrainingPass::FWD, option);
  // What the selection's terms counted already for the shortcut kept whole.
  double counted = state.properties.shortcutSavingOf(c, option);
  return std::min(0.0, with->cycles.total - base->cycles.total - counted);
}

double SpatialMinibatchGroups::leastGroupSaving(const MappingState &state,
                                                int c) const {
  const int block = blockOf.empty() ? -1 : blockOf[c];
  if (block < 0 || fits.empty())
    return 0.0;
  double least = 0;
  for (int o = 0; o < numOptions; ++o)
    if (state.problem.factorOf(o) > 1 && groupFits(block, o))
      least = std::min(least, savingAsGroup(state, c, o));
  return least;
}

void SpatialMinibatchGroups::beginRealization(MappingState &state) {
  MappingProperties &properties = state.properties;
  properties.groupedConsumers.assign(state.problem.numLayers(), 0);
  if (fits.empty())
    return;
  ChoiceRuns runs(state.choice);
  auto constant = [&](int a, int b) { return runs.constant(a, b); };
  for (int c : blockConsumers)
    properties.groupedConsumers[c] =
        groupSaving(state, state.choice, constant, c) < 0 &&
        !properties.isPipeStage(properties.shortcutCandidateOf(c)->producer);
}

void SpatialMinibatchGroups::realizePass(const MappingState &state, int layer,
                                         PassRealization &pass) const {
  PassPlan &pp = pass.pass;
  if (pp.pass != TrainingPass::FWD ||
      !state.properties.isGroupedConsumer(layer) ||
      state.properties.isPipeStage(layer))
    return;
  if (const Evaluation *kept =
          groupedEval(state, layer, state.choice[layer], pass.inputOnChip))
    pp.eval = *kept;
}

namespace {
/// The blocks whose terms read a range of layers: a segment tree of
/// intervals (each block's [producer, consumer + 1]) answering which meet
/// a given range.
class BlockIndex {
public:
  BlockIndex(int numLayers, const std::vector<std::pair<int, int>> &ranges)
      : ranges(ranges), startAt(numLayers) {
    while (size < size_t(numLayers))
      size *= 2;
    nodes.resize(2 * size);
    for (size_t b = 0; b < ranges.size(); ++b) {
      auto [s, e] = ranges[b];
      startAt[s].push_back(int(b));
      for (size_t l = size + s, r = size + e + 1; l < r; l /= 2, r /= 2) {
        if (l & 1)
          nodes[l++].push_back(int(b));
        if (r & 1)
          nodes[--r].push_back(int(b));
      }
    }
  }
  /// Every block whose range meets [a, b], each once.
  void meeting(int a, int b, std::vector<int> &out) const {
    out.clear();
    for (size_t i = size + a; i > 0; i /= 2)
      out.insert(out.end(), nodes[i].begin(), nodes[i].end());
    for (int k = a + 1; k <= b; ++k)
      out.insert(out.end(), startAt[k].begin(), startAt[k].end());
  }

private:
  const std::vector<std::pair<int, int>> &ranges;
  size_t size = 1;
  std::vector<std::vector<int>> nodes, startAt;
};
} // namespace

llvm::Error SpatialMinibatchGroups::reviseChoice(MappingState &state,
                                                 Executor &) {
  if (blockConsumers.empty())
    return llvm::Error::success();
  computeFits(state);
  const MappingProblem &problem = state.problem;
  const MappingProperties &properties = state.properties;
  const int n = int(problem.numLayers());
  std::vector<int> &choice = state.choice;

  // What the terms read of the choice: runs of one option, and the working
  // sets the shortcut errors wait through.
  ChoiceRuns runs(choice);
  std::vector<double> heldValues(n);
  for (int k = 0; k < n; ++k)
    heldValues[k] = heldAcross(state, choice, k);
  RangeMax held(heldValues);
  const double capacity = problem.scratchpadCapacity();
  auto constant = [&](int a, int b) { return runs.constant(a, b); };
  auto errorsFit = [&](int first, int last, double slack) {
    return held.max(first, last) <= capacity + slack;
  };
  auto blockTerm = [&](int c) {
    return groupSaving(state, choice, constant, c) +
           errorSaving(state, choice, constant, errorsFit, c);
  };

  // The objective: the selection's terms and every block's.
  double current = 0;
  for (int i = 0; i < n; ++i)
    current += state.layerCost[i][choice[i]];
  for (const SelectionEdge &s : state.switches)
    current += s.cost[choice[s.from]][choice[s.to]];
  // Each block's term and the least it can be, whatever the choice: a move
  // whose selection terms cost more than every block it touches could
  // save is not tried (most are not, where the selection chose well).
  std::vector<double> term(blockConsumers.size()),
      leastTerm(blockConsumers.size());
  std::vector<std::pair<int, int>> ranges;
  for (size_t b = 0; b < blockConsumers.size(); ++b) {
    const int c = blockConsumers[b];
    term[b] = blockTerm(c);
    leastTerm[b] = leastGroupSaving(state, c) + leastErrorSaving(state, c);
    current += term[b];
    ranges.push_back(
        {properties.shortcutCandidateOf(c)->producer, std::min(c + 1, n - 1)});
  }
  BlockIndex index(n, ranges);

  // Moves are made on innermost blocks.
  std::vector<char> innermost(blockConsumers.size());
  int largestProducer = -1;
  for (size_t b = 0; b < blockConsumers.size(); ++b) {
    const int p = properties.shortcutCandidateOf(blockConsumers[b])->producer;
    innermost[b] = largestProducer < p;
    largestProducer = std::max(largestProducer, p);
  }

  std::vector<int> previous, affected;
  std::vector<double> updated, heldInBlock;
  // Sets [p, c] to `option`, keeping the runs and the held working sets.
  auto assign = [&](int p, int c, llvm::ArrayRef<int> options) {
    for (int k = p; k <= c; ++k) {
      choice[k] = options[k - p];
      runs.update(choice, k);
    }
    heldInBlock.clear();
    for (int k = std::max(p - 1, 0); k <= c; ++k)
      heldInBlock.push_back(heldAcross(state, choice, k));
    held.setRange(std::max(p - 1, 0), heldInBlock);
  };
  for (bool improved = true; improved;) {
    improved = false;
    for (size_t b = 0; b < blockConsumers.size(); ++b) {
      if (!innermost[b])
        continue;
      const int c = blockConsumers[b];
      const int p = properties.shortcutCandidateOf(c)->producer;
      for (int o = 0; o < problem.numOptions(); ++o) {
        if (problem.factorOf(o) == 1 || !problem.allowedOption(o))
          continue;
        bool possible = true;
        for (int k = p; k <= c && possible; ++k)
          possible = state.layerCost[k][o] < kInfinityCost;
        if (!possible || !groupFits(int(b), o) ||
            (choice[c] == o && runs.constant(p, c)))
          continue;
        if (state.progress.shouldStop())
          return state.progress.makeError();
        // The change of the selection's terms: the block's layers and
        // every edge with an end among them.
        double delta = 0;
        auto optionAfter = [&](int k) {
          return p <= k && k <= c ? o : choice[k];
        };
        for (int k = p; k <= c; ++k) {
          delta += state.layerCost[k][o] - state.layerCost[k][choice[k]];
          for (int e : problem.incoming(k)) {
            const SelectionEdge &s = state.switches[e];
            delta += s.cost[optionAfter(s.from)][o] -
                     s.cost[choice[s.from]][choice[s.to]];
          }
          for (int e : problem.outgoing(k)) {
            const SelectionEdge &s = state.switches[e];
            if (s.to > c)
              delta += s.cost[o][choice[s.to]] -
                       s.cost[choice[s.from]][choice[s.to]];
          }
        }
        // The change's least, summed as the change is below (each term at
        // least its least, so the sum is at least this one).
        index.meeting(p, c, affected);
        double leastDelta = delta;
        for (int a : affected)
          leastDelta += leastTerm[a] - term[a];
        if (!(current + leastDelta < current * (1 - 1e-12)))
          continue;
        previous.assign(choice.begin() + p, choice.begin() + c + 1);
        assign(p, c, std::vector<int>(c - p + 1, o));
        updated.clear();
        for (int a : affected) {
          updated.push_back(blockTerm(blockConsumers[a]));
          delta += updated.back() - term[a];
        }
        if (current + delta < current * (1 - 1e-12)) {
          current += delta;
          for (size_t i = 0; i < affected.size(); ++i)
            term[affected[i]] = updated[i];
          improved = true;
        } else {
          assign(p, c, previous);
        }
      }
    }
  }
  return llvm::Error::success();
}
