//===- MappingSolver.h - Solving one mapping problem ------------*- C++ -*-===//
//
// The solver of a MappingProblem, in stages (MappingSolver.cpp):
//
//   1. request  -- every (layer, pass, option) plainly, and the variants
//                  the memory features need (ExplorationTable);
//   2. explore  -- the table, in parallel;
//   3. price    -- each layer's cost per option, each edge's relayout per
//                  pair of options, and the features' savings as edge terms;
//   4. select   -- one option per layer jointly (ParallelismSelection.h);
//   5. revise   -- what pairwise terms cannot express: residual blocks as
//                  DySM groups, pipe groups;
//   6. realise  -- each pass's evaluation under the choice, with relayouts;
//   7. refine   -- changes of passes that the realised plan allows and that
//                  only make it faster.
//
// Each memory optimization of DeepSpatialMatrix §III is one MappingAddOn
// taking part in the stages it needs; the core knows none of them.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_LIB_SPATIAL_MAPPINGSOLVER_H
#define DSM_LIB_SPATIAL_MAPPINGSOLVER_H

#include "dsm/Core/Spatial/MappingPlan.h"
#include "dsm/Core/Spatial/MappingProblem.h"
#include "dsm/Core/Spatial/ParallelismSelection.h"

#include <limits>
#include <memory>
#include <optional>
#include <vector>

namespace dsm::core {

constexpr double kInfinityCost = std::numeric_limits<double>::infinity();

/// The graph-level selection as the mapper makes it (a bound on the states
/// kept per layer, options compared by parallelism across shortcuts).
Selection selectWithStates(const std::vector<OptionCosts> &cost,
                           const std::vector<SelectionEdge> &edges);

/// The largest of a range of values, kept under changes of single values.
class RangeMax {
public:
  explicit RangeMax(const std::vector<double> &values);
  /// Sets the values from `first` on, each ancestor once (a run of L
  /// values costs L + log n, not L log n).
  void setRange(int first, llvm::ArrayRef<double> values);
  /// The largest of values [a, b] (-infinity when empty).
  double max(int a, int b) const;

private:
  size_t size = 1;
  std::vector<double> tree;
};

class ActivationReuse;
class ShortcutRetention;
class SpatialMinibatchGroups;
class ShortcutErrorRetention;

/// A flag per layer, with how many are set over any range of layers: the
/// fit checks ask whether some layer of a block lacks room while the plan
/// changes one layer at a time (a Fenwick tree: both in O(log n)).
class LayerFlags {
public:
  explicit LayerFlags(size_t numLayers)
      : tree(numLayers + 1, 0), flag(numLayers, 0) {}
  void set(int k, bool value);
  bool get(int k) const { return flag[k]; }
  /// Whether some layer of [a, b] (inclusive) is flagged.
  bool any(int a, int b) const {
    return b >= a && countBefore(b + 1) - countBefore(a) > 0;
  }

private:
  int countBefore(int k) const; ///< flags among [0, k)
  std::vector<int> tree;
  std::vector<char> flag;
};

/// Whether an option choice is one option over a range, kept up to date
/// under changes of single positions: the breaks (choice[k] != choice[k-1]).
class ChoiceRuns {
public:
  explicit ChoiceRuns(llvm::ArrayRef<int> choice);
  /// Whether choice[a..b] (inclusive) are all equal.
  bool constant(int a, int b) const { return !breaks.any(a + 1, b); }
  /// After choice[k] changed: recounts the breaks at k and k + 1.
  void update(llvm::ArrayRef<int> choice, int k);

private:
  LayerFlags breaks;
};

/// What the solver knows of one problem, stage by stage.
struct MappingState {
  MappingState(const MappingProblem &problem, ExplorationProgress &progress,
               ExplorationMemo *memo)
      : problem(problem), explorations(problem, memo), progress(progress) {}

  const MappingProblem &problem;
  ExplorationTable explorations;
  ExplorationProgress &progress;
  /// Price: each layer's cycles (all its passes) per option, infinity where
  /// the option is unusable or illegal.
  std::vector<OptionCosts> layerCost;
  /// Price: the layers' cycles as explored, whatever revisions later add to
  /// layerCost (what the plan reports as each parallelism's alternative).
  std::vector<OptionCosts> exploredCost;
  /// Price: no plan of these explorations takes fewer cycles, whatever
  /// its options, relayouts and savers (exploredCyclesBound); 0 where that
  /// is no bound.
  double leastCycles = 0;
  /// Price: per edge of the graph (same index), the selection's terms.
  std::vector<SelectionEdge> switches;
  /// Select and revise: each layer's option.
  std::vector<int> choice;
  /// The selection's cost of that choice (before any revision).
  double selectionCost = 0;
  bool selectionExact = true;
  /// Revise: whether the selected plan did not fit a chip's memory as
  /// selected (CapacityFit chose memory savers).
  bool memoryConstrained = false;
  /// Revise: the pipe stage each layer runs as (nullptr: none).
  std::vector<const PipeStagePlan *> stageOf;
  /// Realise and refine: the plan.
  MappingPlan plan;

  /// The add-ons that others consult (nullptr when not taking part).
  const ActivationReuse *reuse = nullptr;
  const ShortcutRetention *shortcuts = nullptr;
  const SpatialMinibatchGroups *groups = nullptr;
  const ShortcutErrorRetention *shortcutErrors = nullptr;

  /// The plain evaluation of a pass under an option (nullptr: none legal).
  const Evaluation *plain(int layer, TrainingPass pass, int option) const {
    return explorations.best(layer, pass, option);
  }
  /// The pass of `layer` in the plan, if it runs it.
  PassPlan *passOf(int layer, TrainingPass pass);
};

/// A pass being realised: its plan, and whether its input is on chip.
struct PassRealization {
  PassPlan &pass;
  bool inputOnChip = false;
};

/// One feature of the mapping taking part in the solver's stages. Add-ons
/// run in the order they are registered; each stage is optional.
class MappingAddOn {
public:
  virtual ~MappingAddOn() = default;
  /// Request: the explorations the feature needs.
  virtual void requestExplorations(MappingState &state) {}
  /// Bound: before the selection's terms, where the mapping has a plan to
  /// beat (MappingProblem::cyclesToBeat), an error if the feature shows
  /// that no plan of it can.
  virtual llvm::Error boundBeforeSelection(const MappingState &state) {
    return llvm::Error::success();
  }
  /// Price: the feature's terms, added to state.switches.
  virtual void addSelectionTerms(MappingState &state) {}
  /// Revise: a change of state.choice (and state.stageOf) the pairwise
  /// terms could not express.
  virtual llvm::Error reviseChoice(MappingState &state, Executor &executor) {
    return llvm::Error::success();
  }
  /// Realise: the evaluation a pass of `layer` (not a pipe stage) takes.
  virtual void realizePass(const MappingState &state, int layer,
                           PassRealization &pass) const {}
  /// Refine: changes of realised passes; true if any pass changed. Add-ons
  /// refine in the reverse of their order (the first revises first and
  /// refines last).
  virtual bool refinePlan(MappingState &state) { return false; }
};

/// Activation and error reuse between consecutive layers
/// (DeepSpatialMatrix §III-B1), an edge term of the selection.
class ActivationReuse : public MappingAddOn {
public:
  /// The edge whose data `layer`'s FWD (input) or BWD/UPD (output error)
  /// may find on chip, or nullptr.
  const LayerEdge *reusableIn(int layer) const { return in[layer]; }
  const LayerEdge *reusableOut(int layer) const { return out[layer]; }
  /// The evaluation of `pass` of `layer` with its own data on chip, when
  /// that is faster than without (nullptr otherwise).
  const Evaluation *reused(const MappingState &state, int layer,
                           TrainingPass pass, int option) const;

  void requestExplorations(MappingState &state) override;
  void addSelectionTerms(MappingState &state) override;
  void realizePass(const MappingState &state, int layer,
                   PassRealization &pass) const override;

private:
  double saving(const MappingState &state, int layer, TrainingPass pass,
                int option) const;
  std::vector<const LayerEdge *> in, out;
};

/// Residual shortcuts kept on chip from their producer's FWD to their
/// consumer's (DeepSpatialMatrix §III-B1), where they fit.
class ShortcutRetention : public MappingAddOn {
public:
  /// Every shortcut that could be kept (before the fit check), per
  /// consumer, and those kept where they fit.
  const LayerEdge *candidate(int layer) const { return candidates[layer]; }
  const LayerEdge *kept(int layer) const { return shortcutIn[layer]; }
  bool anyCandidate() const { return numCandidates > 0; }
  /// A core's share of a shortcut's tensor.
  double share(const MappingState &state, const LayerEdge &edge) const;
  /// The largest FWD working set of `layer` under each option over every
  /// variant explored, without its input on chip (`without`) and with it
  /// (`with`; both 0 where none): one look-up of each variant's row for
  /// all the options.
  void largestWorkingSets(const MappingState &state, int layer,
                          llvm::MutableArrayRef<double> without,
                          llvm::MutableArrayRef<double> with) const;
  /// The FWD evaluation of `variant` if it fits beside the other kept
  /// shortcuts (nullptr otherwise).
  const Evaluation *onChipEval(const MappingState &state, OnChip variant,
                               int layer, int option) const;
  /// What keeping the shortcut saves under the consumer's option (<= 0).
  double shortcutSaving(const MappingState &state, int layer, int option) const;

  void requestExplorations(MappingState &state) override;
  void addSelectionTerms(MappingState &state) override;
  void realizePass(const MappingState &state, int layer,
                   PassRealization &pass) const override;

private:
  const Evaluation *withShortcut(const MappingState &state, int layer,
                                 int option, bool inputOnChip) const;
  void dropShortcutsThatDoNotFit(const MappingState &state);

  std::vector<const LayerEdge *> shortcutIn, candidates;
  size_t numCandidates = 0;
  /// Per layer: bytes of kept shortcuts held across it.
  std::vector<double> reservedAt;
};

/// Residual blocks run as DySM groups (DeepSpatialMatrix §III-C), holding
/// the shortcut of one spatial minibatch: decided after the selection.
class SpatialMinibatchGroups : public MappingAddOn {
public:
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
  /// The consumer's FWD with one spatial minibatch's shortcut on chip
  /// (nullptr: not faster than without).
  const Evaluation *groupedEval(const MappingState &state, int layer,
                                int option, bool inputOnChip) const;
  /// Whether realising `layer`'s FWD takes the grouped evaluation.
  bool isGrouped(const MappingState &state, int layer) const;

  void requestExplorations(MappingState &state) override;
  llvm::Error reviseChoice(MappingState &state, Executor &executor) override;

private:
  bool groupFits(int block, int option) const;
  void computeFits(const MappingState &state);

  std::vector<int> blockOf; ///< per consumer: its block (-1: none)
  std::vector<int> blockConsumers;
  std::vector<char> fits; ///< per block and option
  int numOptions = 0;
  /// The final choice's runs, for isGrouped (made when realising).
  mutable std::optional<ChoiceRuns> finalRuns;
};

/// In training, the error of a residual shortcut kept on chip from the
/// block's last layer to its first, and the block input's producer finding
/// the whole error there; chosen after realisation, pass by pass.
class ShortcutErrorRetention : public MappingAddOn {
public:
  /// The block whose consumer is `c` (nullptr: none).
  const LayerEdge *block(int c) const { return blockShortcut[c]; }
  /// What keeping block c's shortcut error saves under `choice` (<= 0), as
  /// the refinement would realise it: the grouping's estimate.
  /// `constant(a, b)` says whether the choice is one option over [a, b];
  /// `errorsFit(first, last, shareDelta)` whether the errors held across
  /// [first, last] fit with this block's own share lowered by shareDelta.
  double errorSaving(const MappingState &state, llvm::ArrayRef<int> choice,
                     llvm::function_ref<bool(int, int)> constant,
                     llvm::function_ref<bool(int, int, double)> errorsFit,
                     int c) const;
  /// At most errorSaving under any choice: each of its savings at its
  /// largest, over every option and whether the pass finds its own data
  /// on chip.
  double leastErrorSaving(const MappingState &state, int c) const;
  /// The working set of the BWD/UPD passes of `k` under `choice` (the
  /// largest), plus every block error held across k (-infinity: none).
  double heldAcross(const MappingState &state, llvm::ArrayRef<int> choice,
                    int k) const;
  const Evaluation *selectedEval(const MappingState &state,
                                 llvm::ArrayRef<int> choice, int k,
                                 TrainingPass pass) const;

  void requestExplorations(MappingState &state) override;
  bool refinePlan(MappingState &state) override;

private:
  std::vector<const LayerEdge *> blockShortcut;
  /// Per layer: the full shares of every block's error held across it.
  std::vector<double> coverage;
};

struct ChipMemory;

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
/// after keep to them. Plans that fit as selected are not touched.
class CapacityFit : public MappingAddOn {
public:
  CapacityFit();
  ~CapacityFit() override;
  llvm::Error boundBeforeSelection(const MappingState &state) override;
  llvm::Error reviseChoice(MappingState &state, Executor &executor) override;
  /// Records the plan's memory per chip and the savers on its passes.
  bool refinePlan(MappingState &state) override;

private:
  /// What a chip holds, under the savers chosen (CapacityFit.cpp).
  std::unique_ptr<ChipMemory> memory;
};

/// The cycles of a pass's evaluation that a bound counts: all of them, or
/// less what a pipeline spends once a step (oncePerStepCycles).
using CountedCycles =
    llvm::function_ref<double(TrainingPass, const Evaluation &)>;

/// Per layer of a problem, what bounds the cycles of its plans that fit a
/// chip's memory (leastCyclesThatFit), from its explorations: per option,
/// the least cycles of its passes as the bound counts them, of its FWD run
/// again and of its weight gathers, and the parameter elements a chip
/// holds. Layers alike in all of them (a network's repeated blocks) share
/// one group.
struct LayerFitFigures {
  struct Group {
    /// Per option, kNumFitFigures figures (CapacityFit.cpp).
    std::vector<double> figures;
    double parameters = 0;
    bool recomputable = false; ///< has a backward pass to recompute for
  };
  std::vector<Group> groups;
  std::vector<uint32_t> groupOf; ///< per layer
  /// Per layer: its edges in and out, the context it was explored in.
  std::vector<std::pair<uint32_t, uint32_t>> degrees;
};
LayerFitFigures layerFitFigures(const MappingState &state,
                                CountedCycles counted);

/// Timestep pipelining (DeepSpatialMatrix §III-D): pipe groups chosen with
/// the other layers' parallelisms.
class PipeGroupSelection : public MappingAddOn {
public:
  llvm::Error reviseChoice(MappingState &state, Executor &executor) override;

private:
  std::vector<PipeGroupPlan> adopted; ///< state.stageOf points into it
};

/// Inference: a layer whose every reader finds its output on chip does not
/// write it (DeepSpatialMatrix §III-B1).
class OutputElision : public MappingAddOn {
public:
  bool refinePlan(MappingState &state) override;
};

/// What the mappings of a weight-preloading sweep share: explorations and
/// selections (MappingDriver::mapWithPreloading).
struct SweepMemo {
  ExplorationMemo explorations;
  SelectionMemo selections;
};

/// The search effort of the mappings behind one plan (a sweep, the blocks,
/// a pipeline's stages), summed into MappingPlan's counters.
struct SearchEffort {
  uint64_t configurations = 0, explorations = 0, memoized = 0;
  void add(const MappingPlan &plan) {
    configurations += plan.configurationsEvaluated;
    explorations += plan.explorations;
    memoized += plan.memoizedExplorations;
  }
  void recordIn(MappingPlan &plan) const {
    plan.configurationsEvaluated = configurations;
    plan.explorations = explorations;
    plan.memoizedExplorations = memoized;
  }
};

/// Solves `problem`: the plan, or the error of the layer that has no legal
/// mapping, or an InterruptedError. `memo`: what is shared with the other
/// mappings of a sweep. With a plan
/// to beat (MappingProblem::cyclesToBeat), fails as soon as the
/// explorations show that no plan of this problem can take fewer cycles,
/// before the selection.
llvm::Expected<MappingPlan> solveMapping(const MappingProblem &problem,
                                         Executor &executor,
                                         ExplorationProgress &progress,
                                         SweepMemo *memo = nullptr);

} // namespace dsm::core

#endif // DSM_LIB_SPATIAL_MAPPINGSOLVER_H
