//===- ActivationReuse.cpp - Data left on chip for the next layer ---------===//
//
// DeepSpatialMatrix §III-B1, inter-layer reuse, along an edge whose consumer
// comes next and reads it as its primary input: when both use the same
// option, the consumer's FWD finds its input in the scratchpads (the
// producer still writes it out, for BWD and UPD and any other consumer,
// e.g. a residual shortcut). In training, if the producer has no other
// consumer, its BWD and UPD find there the error the consumer's BWD left
// (with other consumers the error is a sum, partly in memory). The saving
// is an edge term of the selection under every option both ends share.
//
// In inference, a layer whose every reader finds its output on chip does
// not write it at all (OutputElision).
//
//===----------------------------------------------------------------------===//

#include "MappingSolver.h"

#include <cmath>
#include <limits>

using namespace dsm::core;

namespace {
/// Activation and error reuse between consecutive layers
/// (DeepSpatialMatrix §III-B1), an edge term of the selection. Writes
/// properties.inputReuse and errorReuse (MappingState::reused reads them).
class ActivationReuse : public MappingAddOn {
public:
  void requestExplorations(MappingState &state) override;
  void addSelectionTerms(MappingState &state) override;
  void realizePass(const MappingState &state, int layer,
                   PassRealization &pass) const override;
};

/// Inference: a layer whose every reader finds its output on chip does not
/// write it (DeepSpatialMatrix §III-B1).
class OutputElision : public MappingAddOn {
public:
  bool refinePlan(MappingState &state) override;
};
} // namespace

std::unique_ptr<MappingAddOn> dsm::core::makeActivationReuse() {
  return std::make_unique<ActivationReuse>();
}

std::unique_ptr<MappingAddOn> dsm::core::makeOutputElision() {
  return std::make_unique<OutputElision>();
}

/// What finding its own data on chip saves `pass` of `layer` (<= 0).
static double saving(const MappingState &state, int layer, TrainingPass pass,
                     int option) {
  const Evaluation *with = state.reused(layer, pass, option);
  if (!with)
    return 0.0;
  return with->cycles.total - state.plain(layer, pass, option)->cycles.total;
}

void ActivationReuse::requestExplorations(MappingState &state) {
  const MappingProblem &problem = state.problem;
  const size_t n = problem.numLayers();
  std::vector<const LayerEdge *> &in = state.properties.inputReuse;
  std::vector<const LayerEdge *> &out = state.properties.errorReuse;
  in.assign(n, nullptr);
  out.assign(n, nullptr);
  for (const LayerEdge &edge : problem.graph().edges) {
    const LayerNode &producer = problem.layer(edge.producer);
    const LayerNode &consumer = problem.layer(edge.consumer);
    if (!edge.primaryInput || edge.consumer != edge.producer + 1)
      continue;
    if (consumer.shape.hasPrimary && consumer.shape.timesteps == 1) {
      in[edge.consumer] = &edge;
      state.explorations.requestUsable(edge.consumer, TrainingPass::FWD,
                                       OnChip::Own);
    }
    if (problem.outgoing(edge.producer).size() == 1 && edge.carriesError &&
        consumer.bwd && producer.shape.hasPrimary &&
        producer.shape.timesteps == 1) {
      out[edge.producer] = &edge;
      if (producer.bwd)
        state.explorations.requestUsable(edge.producer, TrainingPass::BWD,
                                         OnChip::Own);
      if (producer.upd)
        state.explorations.requestUsable(edge.producer, TrainingPass::UPD,
                                         OnChip::Own);
    }
  }
}

void ActivationReuse::addSelectionTerms(MappingState &state) {
  const MappingProblem &problem = state.problem;
  const int numOptions = problem.numOptions();
  // Per option, the saving on the edge's diagonal; NaN: none added (an
  // option one of its ends cannot take).
  std::vector<double> diagonal(numOptions);
  SwitchCostTerms terms;
  for (size_t e = 0; e < state.switches.size(); ++e) {
    const LayerEdge &edge = problem.edge(int(e));
    bool reusesInput = state.properties.inputReuseOf(edge.consumer) == &edge;
    bool reusesError = state.properties.errorReuseOf(edge.producer) == &edge;
    if (!reusesInput && !reusesError)
      continue;
    for (int o = 0; o < numOptions; ++o) {
      diagonal[o] = std::numeric_limits<double>::quiet_NaN();
      if (!(state.layerCost[edge.producer][o] < kInfinityCost &&
            state.layerCost[edge.consumer][o] < kInfinityCost))
        continue;
      double total = 0;
      if (reusesInput)
        total += saving(state, edge.consumer, TrainingPass::FWD, o);
      if (reusesError)
        total += saving(state, edge.producer, TrainingPass::BWD, o) +
                 saving(state, edge.producer, TrainingPass::UPD, o);
      diagonal[o] = total;
    }
    terms.add(state.switches[e].cost, diagonal, [&](SwitchCosts &cost) {
      for (int o = 0; o < numOptions; ++o)
        if (!std::isnan(diagonal[o]))
          cost[o][o] += diagonal[o];
    });
  }
}

void ActivationReuse::realizePass(const MappingState &state, int layer,
                                  PassRealization &pass) const {
  PassPlan &pp = pass.pass;
  const MappingProperties &properties = state.properties;
  const LayerEdge *edge = pp.pass == TrainingPass::FWD
                              ? properties.inputReuseOf(layer)
                              : properties.errorReuseOf(layer);
  if (!edge || state.choice[edge->producer] != state.choice[edge->consumer] ||
      properties.isPipeStage(edge->producer) ||
      properties.isPipeStage(edge->consumer))
    return;
  if (const Evaluation *onChip =
          state.reused(layer, pp.pass, state.choice[layer])) {
    pp.eval = *onChip;
    pass.inputOnChip = pp.pass == TrainingPass::FWD;
  }
}

//===----------------------------------------------------------------------===//
// OutputElision
//===----------------------------------------------------------------------===//

// DeepSpatialMatrix §III-B1: "this optimization saves an external memory
// read and write for inference". A layer's configuration is evaluated again
// without the write and takes it when faster (the output is counted where it
// is kept whole, by its readers, so the working set does not change).
bool OutputElision::refinePlan(MappingState &state) {
  const MappingProblem &problem = state.problem;
  bool changed = false;
  for (size_t p = 0; p < problem.numLayers(); ++p) {
    const LayerNode &layer = problem.layer(int(p));
    if (problem.outgoing(int(p)).empty() || layer.networkOutput ||
        layer.sentToLaterStage || state.properties.isPipeStage(int(p)) ||
        !layer.shape.hasPrimary || layer.shape.timesteps > 1)
      continue;
    bool allOnChip = true;
    for (int e : problem.outgoing(int(p))) {
      const LayerEdge &edge = problem.edge(e);
      const PassPlan *reader = state.passOf(edge.consumer, TrainingPass::FWD);
      if (!reader) {
        allOnChip = false;
        break;
      }
      const MemoryDecision &memory = reader->eval.config.memory;
      const MappingProperties &properties = state.properties;
      allOnChip &= (properties.inputReuseOf(edge.consumer) == &edge &&
                    memory.inputOnChip) ||
                   (properties.keptShortcutOf(edge.consumer) == &edge &&
                    memory.shortcutOnChip);
    }
    PassPlan *fwd = state.passOf(int(p), TrainingPass::FWD);
    if (!allOnChip || !fwd)
      continue;
    MappingConfig config = fwd->eval.config;
    config.memory.outputOnChip = true;
    std::optional<Evaluation> unwritten = evaluateMappedPass(
        problem.model(), layer.shape, TrainingPass::FWD, config);
    if (!unwritten || unwritten->cycles.total >= fwd->eval.cycles.total)
      continue;
    fwd->eval = std::move(*unwritten);
    fwd->cycles = fwd->eval.cycles;
    fwd->cycles.nonOvldt += fwd->relayout.cycles;
    fwd->cycles.total += fwd->relayout.cycles;
    changed = true;
  }
  return changed;
}
