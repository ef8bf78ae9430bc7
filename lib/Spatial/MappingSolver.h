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
//   6. realise  -- each pass's evaluation under the choice, with relayouts
//                  (a pipe stage's passes are its add-on's, streamed);
//   7. refine   -- changes of passes that the realised plan allows and that
//                  only make it faster.
//
// Each memory optimization of DeepSpatialMatrix §III is one MappingAddOn
// (dsm/Core/Spatial/MappingAddOn.h) taking part in the stages it needs.
// Neither the core nor any add-on names an add-on's class: the core makes
// them (makeAddOns) and runs their stages, and what one decides that
// others need it writes as a property of the problem (MappingProperties:
// which layers find their input on chip, which shortcuts are kept, which
// layers are pipe stages, ...), which the others and the core read.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_LIB_SPATIAL_MAPPINGSOLVER_H
#define DSM_LIB_SPATIAL_MAPPINGSOLVER_H

#include "dsm/Core/Spatial/MappingAddOn.h"
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
