//===- DevicePlacementEvaluator.cpp - Fitness of many placements at once --===//

#include "dsm/Core/Devices/DevicePlacementEvaluator.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace dsm::core;
using namespace dsm::core::devices;

PlacementEvaluator::PlacementEvaluator(const OpGraph &graph,
                                       const DeviceNetwork &network,
                                       const SimulationOptions &options,
                                       Executor &executor)
    : graph(graph), network(network), options(options), executor(executor),
      bestFitness(std::numeric_limits<double>::infinity()) {
  this->options.recordTrace = false;
  simulators.resize(std::max(1u, executor.getConcurrency()));
  slotEvents.resize(simulators.size());
}

PlacementEvaluator::~PlacementEvaluator() = default;

void PlacementEvaluator::evaluate(llvm::ArrayRef<Placement> placements,
                                  llvm::MutableArrayRef<double> fitness) {
  size_t count = placements.size();
  size_t slots = std::min(simulators.size(), count);
  std::fill(slotEvents.begin(), slotEvents.end(), 0);
  // Slot k simulates placements k, k + slots, ... on its own simulator.
  executor.parallelFor(slots, [&](size_t slot) {
    std::unique_ptr<ExecutionSimulator> &simulator = simulators[slot];
    if (!simulator)
      simulator = std::make_unique<ExecutionSimulator>(graph, network, options);
    for (size_t i = slot; i < count; i += slots) {
      const SimulationResult &result = simulator->run(placements[i]);
      fitness[i] = result.fitness();
      slotEvents[slot] += result.events;
    }
  });
  for (int64_t slotCount : slotEvents)
    events += slotCount;
  for (size_t i = 0; i < count; ++i) {
    ++evaluations;
    if (fitness[i] < bestFitness) {
      bestFitness = fitness[i];
      best = placements[i];
      history.push_back({evaluations, bestFitness});
    }
  }
  progress->step(evaluations, budget,
                 std::isfinite(bestFitness) ? bestFitness : Progress::kNoBest);
}

bool PlacementEvaluator::shouldStop() {
  if (!interrupted && evaluations < budget && progress->shouldStop())
    interrupted = true;
  return interrupted;
}

double PlacementEvaluator::evaluate(const Placement &placement) {
  double fitness;
  evaluate(llvm::ArrayRef<Placement>(placement),
           llvm::MutableArrayRef<double>(fitness));
  return fitness;
}
