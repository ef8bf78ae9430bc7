//===- LocalSearch.cpp - Random hill climbing and simulated annealing -----===//
//
// Algorithms 1 and 2 of the thesis, minimising: start from a random
// placement; a neighbour moves one random op to another random device. Hill
// climbing keeps the neighbour only if it is strictly better; annealing also
// keeps a worse one with probability 1 / (1 + exp(dE / T)), T falling
// geometrically over the budget.
//
//===----------------------------------------------------------------------===//

#include "DeviceSearches.h"
#include "dsm/Core/Devices/DevicePlacementSearch.h"

#include <algorithm>
#include <cmath>

using namespace dsm::core::devices;
using namespace dsm::core::devices::detail;

Placement detail::randomPlacement(size_t ops, size_t devices, Random &random) {
  Placement placement(ops);
  for (int32_t &device : placement)
    device = int32_t(random.below(devices));
  return placement;
}

void detail::mutateOneGene(Placement &placement, size_t devices,
                           Random &random) {
  if (devices < 2 || placement.empty())
    return;
  int32_t &gene = placement[random.below(placement.size())];
  // A different device, uniformly among the others.
  int32_t other = int32_t(random.below(devices - 1));
  gene = other >= gene ? other + 1 : other;
}

void detail::mutateZone(Placement &placement, size_t devices, Random &random) {
  if (placement.empty())
    return;
  size_t a = random.below(placement.size()), b = random.below(placement.size());
  if (a > b)
    std::swap(a, b);
  int32_t device = int32_t(random.below(devices));
  for (size_t i = a; i <= b; ++i)
    placement[i] = device;
}

void detail::runLocalSearch(PlacementEvaluator &evaluator,
                            const SearchOptions &search, size_t devices,
                            bool anneal) {
  Random random(search.seed);
  Placement current = randomPlacement(evaluator.getOpCount(), devices, random);
  double fitness = evaluator.evaluate(current);
  double startT = search.annealing.startTemperature * fitness;
  double endT = search.annealing.endTemperature * fitness;
  int64_t budget = search.evaluations;
  for (int64_t step = 1;
       evaluator.getEvaluations() < budget && !evaluator.shouldStop(); ++step) {
    Placement neighbour = current;
    mutateOneGene(neighbour, devices, random);
    double candidate = evaluator.evaluate(neighbour);
    bool accept = candidate < fitness;
    if (!accept && anneal) {
      double progress = double(step) / double(std::max<int64_t>(1, budget - 1));
      double temperature = startT * std::pow(endT / startT, progress);
      double r = random.uniform();
      accept = temperature > 0 &&
               r < 1.0 / (1.0 + std::exp((candidate - fitness) / temperature));
    }
    if (accept) {
      current = std::move(neighbour);
      fitness = candidate;
    }
  }
}
