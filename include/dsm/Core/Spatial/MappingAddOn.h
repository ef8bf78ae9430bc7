//===- MappingAddOn.h - A feature of the mapper, and what it tells -*- C++ -*-//
//
// The spatial mapper solves a MappingProblem in stages (lib/Spatial/
// MappingSolver.h): request, explore, price, select, revise, realise,
// refine. Each memory optimization of DeepSpatialMatrix §III is one
// MappingAddOn taking part in the stages it needs.
//
// Add-ons never name one another. What one decides that others (or the
// core) need -- which layers may find their input on chip, which residual
// shortcuts are kept, which blocks run as DySM groups, which layers are
// pipe stages -- it writes in its stage as a property of the problem:
// plain data in MappingState::properties, which the others read. A
// property no add-on wrote is empty, and reads as "none" (an add-on runs
// alone: a unit test builds a problem, a MappingState and the add-on, and
// drives its stages by hand).
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SPATIAL_MAPPINGADDON_H
#define DSM_CORE_SPATIAL_MAPPINGADDON_H

#include "dsm/Core/Spatial/MappingPlan.h"
#include "dsm/Core/Spatial/MappingProblem.h"
#include "dsm/Core/Spatial/ParallelismSelection.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <vector>

namespace dsm::core {

/// What the add-ons tell one another and the core, each written in the
/// stage named (by the feature in parentheses) and read in the later ones.
/// Per-layer vectors are indexed by layer; empty: not written (none).
struct MappingProperties {
  /// Request (activation reuse, §III-B1): per layer, the edge whose data
  /// its FWD finds on chip -- its input, left by the producer -- when both
  /// ends take one option; nullptr: none.
  std::vector<const LayerEdge *> inputReuse;
  /// Request (activation reuse): per layer, the edge whose error its BWD
  /// and UPD find on chip (its output's, left by the consumer's BWD).
  std::vector<const LayerEdge *> errorReuse;
  /// Request (residual shortcuts, §III-B1): per consumer, the shortcut it
  /// could keep on chip from its producer's FWD (before any fit check).
  std::vector<const LayerEdge *> shortcutCandidates;
  /// Request (shortcut errors): per consumer, the shortcut whose error the
  /// block may keep on chip from its last layer to its first (training).
  std::vector<const LayerEdge *> errorShortcuts;
  /// Request (shortcut errors): per layer, bytes of each core's scratchpad
  /// the whole errors of every such block take across it.
  std::vector<double> errorBytes;
  /// Price (residual shortcuts): per consumer, the shortcut kept on chip
  /// (where it fits beside the layers it waits through).
  std::vector<const LayerEdge *> keptShortcuts;
  /// Price (residual shortcuts): per layer, bytes of each core's
  /// scratchpad the kept shortcuts take across it.
  std::vector<double> keptShortcutBytes;
  /// Price (residual shortcuts): per consumer of a kept shortcut, per
  /// option, what the selection's terms count for keeping it (<= 0); empty
  /// for the other layers.
  std::vector<std::vector<double>> shortcutSavings;
  /// Revise (memory savers): the selected plan did not fit a chip's memory
  /// as selected, and savers were chosen.
  bool memoryConstrained = false;
  /// Revise (timestep pipelining, §III-D): per layer, whether it runs as a
  /// stage of a pipe group -- its passes are the group's, its edges are
  /// streamed timestep by timestep, not re-laid out.
  std::vector<char> pipeStages;
  /// Realise (DySM groups, §III-C): per layer, whether it is the consumer
  /// of a residual block run as one DySM group under the final choice (its
  /// FWD holds one spatial minibatch's shortcut).
  std::vector<char> groupedConsumers;

  const LayerEdge *inputReuseOf(int layer) const {
    return at(inputReuse, layer);
  }
  const LayerEdge *errorReuseOf(int layer) const {
    return at(errorReuse, layer);
  }
  const LayerEdge *shortcutCandidateOf(int layer) const {
    return at(shortcutCandidates, layer);
  }
  const LayerEdge *errorShortcutOf(int layer) const {
    return at(errorShortcuts, layer);
  }
  double errorBytesAt(int layer) const { return at(errorBytes, layer); }
  const LayerEdge *keptShortcutOf(int layer) const {
    return at(keptShortcuts, layer);
  }
  double keptShortcutBytesAt(int layer) const {
    return at(keptShortcutBytes, layer);
  }
  /// 0 where no saving is counted.
  double shortcutSavingOf(int layer, int option) const {
    if (size_t(layer) >= shortcutSavings.size() ||
        shortcutSavings[layer].empty())
      return 0.0;
    return shortcutSavings[layer][option];
  }
  bool isPipeStage(int layer) const { return at(pipeStages, layer); }
  bool isGroupedConsumer(int layer) const {
    return at(groupedConsumers, layer);
  }

private:
  template <typename T> static T at(const std::vector<T> &values, int layer) {
    return size_t(layer) < values.size() ? values[layer] : T();
  }
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
  /// What the add-ons decided that others read.
  MappingProperties properties;
  /// Realise and refine: the plan.
  MappingPlan plan;

  /// The plain evaluation of a pass under an option (nullptr: none legal).
  const Evaluation *plain(int layer, TrainingPass pass, int option) const {
    return explorations.best(layer, pass, option);
  }
  /// The evaluation of `pass` of `layer` under `option` finding its own
  /// data on chip (its input in FWD, its output's error in BWD and UPD:
  /// properties.inputReuse, errorReuse) when that is faster than plain;
  /// nullptr otherwise.
  const Evaluation *reused(int layer, TrainingPass pass, int option) const;
  /// The largest FWD working set of `layer` under each option over every
  /// variant explored, without its input on chip (`without`) and with it
  /// (`with`; both 0 where none): one look-up of each variant's row for
  /// all the options.
  void largestForwardWorkingSets(int layer,
                                 llvm::MutableArrayRef<double> without,
                                 llvm::MutableArrayRef<double> with) const;
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
  /// Revise: a change of state.choice the pairwise terms could not express.
  virtual llvm::Error reviseChoice(MappingState &state, Executor &executor) {
    return llvm::Error::success();
  }
  /// Realise, before any pass: the properties of the choice as revised.
  virtual void beginRealization(MappingState &state) {}
  /// Realise: the evaluation a pass of `layer` takes (the plain one to
  /// start with, none for a pipe stage's pass), the last add-on's word.
  /// The pass of a pipe stage is the add-on's that made it: its
  /// evaluation and cycles, with no relayout.
  virtual void realizePass(const MappingState &state, int layer,
                           PassRealization &pass) const {}
  /// Refine: changes of realised passes; true if any pass changed. Add-ons
  /// refine in the reverse of their order (the first revises first and
  /// refines last).
  virtual bool refinePlan(MappingState &state) { return false; }
};

/// The add-ons (lib/Spatial/<name>.cpp), in the order the solver registers
/// those the problem's options enable (MappingSolver.cpp, makeAddOns).
/// Plans that fit a chip's memory: the memory savers (StepMemory.h).
std::unique_ptr<MappingAddOn> makeCapacityFit();
/// Activation and error reuse between consecutive layers (§III-B1).
std::unique_ptr<MappingAddOn> makeActivationReuse();
/// Residual shortcuts kept on chip (§III-B1).
std::unique_ptr<MappingAddOn> makeShortcutRetention();
/// Residual blocks run as DySM groups (§III-C).
std::unique_ptr<MappingAddOn> makeSpatialMinibatchGroups();
/// A residual block's shortcut error kept on chip (training).
std::unique_ptr<MappingAddOn> makeShortcutErrorRetention();
/// Timestep pipe groups chosen with the parallelisms (§III-D).
std::unique_ptr<MappingAddOn> makePipeGroupSelection();
/// Inference: outputs every reader finds on chip are not written.
std::unique_ptr<MappingAddOn> makeOutputElision();

} // namespace dsm::core

#endif // DSM_CORE_SPATIAL_MAPPINGADDON_H
