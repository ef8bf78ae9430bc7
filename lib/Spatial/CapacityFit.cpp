//===- CapacityFit.cpp - Plans that fit a chip's memory -------------------===//
//
// A layer's parameters take a chip's memory according to its parallelism:
// data parallelism keeps them whole on every chip, model parallelism a
// 1/chips share. The selection weighs cycles only, so at scale it picks plans
// no chip can hold (Llama-2-7B training on 64 chips: 107 GB per 8 GB chip).
// When the selected plan does not fit, every byte of parameters a chip holds
// (with its gradient and optimizer state in training) is priced in cycles and
// the selection made again; the least price whose plan fits is found by
// bisection. Activations spread over every chip whatever the parallelism, so
// their peak is a constant of the check.
//
//===----------------------------------------------------------------------===//

#include "MappingSolver.h"

#include <cmath>

using namespace dsm::core;

namespace {
/// What a chip holds per layer and option, and what it holds anyway.
struct ChipMemory {
  /// Bytes of parameters (and gradients and optimizer state) per (layer,
  /// option); 0 where the option is unusable.
  std::vector<std::vector<double>> parameterBytes;
  /// The peak of the activations and errors alive at once.
  double activationBytes = 0;
  double capacity = 0;

  double of(llvm::ArrayRef<int> choice) const {
    double total = activationBytes;
    for (size_t i = 0; i < choice.size(); ++i)
      total += parameterBytes[i][choice[i]];
    return total;
  }
  bool fits(llvm::ArrayRef<int> choice) const { return of(choice) <= capacity; }
};
} // namespace

static ChipMemory chipMemoryOf(const MappingState &state) {
  const MappingProblem &problem = state.problem;
  const PerformanceModel &model = problem.model();
  const LayerGraph &graph = problem.graph();
  const size_t n = problem.numLayers();
  const bool training = !problem.inferenceOnly();
  const double elementBytes = model.bytesPerElement();
  // Bytes a chip keeps per parameter element it holds: the weight, and in
  // training its gradient and the optimizer's state.
  const double perElement =
      elementBytes + (training ? elementBytes + optimizerBytesPerParameter(
                                                    problem.options().optimizer)
                               : 0);
  ChipMemory memory;
  memory.capacity = model.getSystem().chip.externalMemory.capacityBytes;
  memory.parameterBytes.assign(n, std::vector<double>(problem.numOptions(), 0));
  // Layers of one shape share their explorations: one count per evaluation.
  llvm::DenseMap<const Evaluation *, double> perEvaluation;
  for (size_t i = 0; i < n; ++i) {
    const LayerShape &shape = problem.layer(int(i)).shape;
    if (shape.params <= 0)
      continue;
    for (int o = 0; o < problem.numOptions(); ++o)
      if (const Evaluation *fwd = state.plain(int(i), TrainingPass::FWD, o)) {
        auto [it, inserted] = perEvaluation.try_emplace(fwd, 0.0);
        if (inserted)
          it->second = model.parameterElementsPerChip(shape, TrainingPass::FWD,
                                                      fwd->config) *
                       perElement;
        memory.parameterBytes[i][o] = it->second;
      }
  }
  // Activations: each layer's output from its FWD to its last reader, and
  // in training each error from the BWD that sends it to the passes of its
  // producer, spread over every chip.
  const double chips = double(model.numChips());
  auto share = [&](double elements) {
    return std::ceil(elements / chips) * elementBytes;
  };
  std::vector<double> outputElements(n, 0);
  for (const LayerEdge &edge : graph.edges)
    outputElements[edge.producer] =
        std::max(outputElements[edge.producer], edge.elements);
  std::vector<LiveTensor> tensors;
  for (const LiveRange &range : graph.activationLiveRanges())
    tensors.push_back({share(outputElements[range.producer]), range.firstStep,
                       range.lastStep});
  for (const LayerEdge &edge : graph.edges)
    if (edge.carriesError)
      tensors.push_back({share(edge.elements),
                         graph.backwardStep(edge.consumer),
                         graph.backwardStep(edge.producer)});
  memory.activationBytes = peakLiveBytes(tensors);
  return memory;
}

/// The choice re-selected at the least price on parameter bytes that fits,
/// if any does.
static llvm::Error fitByPricing(MappingState &state, const ChipMemory &memory) {
  if (memory.fits(state.choice))
    return llvm::Error::success();
  // Even the plan holding the least of every layer's parameters does not
  // fit: no price helps (the report says what the plan needs).
  std::vector<int> least(state.choice.size());
  for (size_t i = 0; i < least.size(); ++i) {
    least[i] = state.choice[i];
    for (int o = 0; o < state.problem.numOptions(); ++o)
      if (state.layerCost[i][o] < kInfinityCost &&
          memory.parameterBytes[i][o] < memory.parameterBytes[i][least[i]])
        least[i] = o;
  }
  if (!memory.fits(least))
    return llvm::Error::success();

  auto selectAt = [&](double price) {
    std::vector<OptionCosts> priced = state.layerCost;
    for (size_t i = 0; i < priced.size(); ++i)
      for (size_t o = 0; o < priced[i].size(); ++o)
        priced[i][o] += price * memory.parameterBytes[i][o];
    return std::make_pair(selectWithStates(priced, state.switches),
                          std::move(priced));
  };
  // A price in cycles per byte, on a grid of factors of 4 around the plan's
  // cycles per byte of capacity: the least price of the grid that fits (up
  // from the grid's middle, or down from it while it still fits), then a
  // bisection on a log scale between it and the one below, to within 10%
  // (each step is a whole selection).
  const double scale = std::max(state.selectionCost, 1.0) / memory.capacity;
  int k = 0;
  auto [selection, priced] = selectAt(scale);
  bool fits = memory.fits(selection.choice);
  for (; !fits && k < 40; ++k) {
    if (state.progress.shouldStop())
      return state.progress.makeError();
    std::tie(selection, priced) = selectAt(scale * std::pow(4.0, k + 1));
    fits = memory.fits(selection.choice);
  }
  if (!fits)
    return llvm::Error::success();
  for (; k > -20; --k) {
    auto below = selectAt(scale * std::pow(4.0, k - 1));
    if (!memory.fits(below.first.choice))
      break;
    std::tie(selection, priced) = std::move(below);
  }
  double low = std::log(scale) + (k - 1) * std::log(4.0);
  double high = low + std::log(4.0);
  while (high - low > 0.1) {
    if (state.progress.shouldStop())
      return state.progress.makeError();
    double middle = (low + high) / 2;
    auto trial = selectAt(std::exp(middle));
    if (memory.fits(trial.first.choice)) {
      high = middle;
      std::tie(selection, priced) = std::move(trial);
    } else {
      low = middle;
    }
  }
  state.layerCost = std::move(priced);
  state.choice = std::move(selection.choice);
  state.selectionCost = selection.cost;
  state.selectionExact = state.selectionExact && selection.exact;
  return llvm::Error::success();
}

llvm::Error CapacityFit::reviseChoice(MappingState &state, Executor &) {
  const ChipMemory memory = chipMemoryOf(state);
  llvm::Error error = fitByPricing(state, memory);
  state.plan.stepMemoryBytes = memory.of(state.choice);
  state.plan.memoryCapacityBytes = memory.capacity;
  return error;
}
