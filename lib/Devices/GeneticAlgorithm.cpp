//===- GeneticAlgorithm.cpp - The genetic algorithm of §3.2.2 -------------===//
//
// Algorithm 3 with Table 4.3: a population of 50 random placements; each
// generation keeps the 5 best (elites) and breeds 45 children. Parents are
// drawn by linear rank selection (rank r of q weighs q - r), the elites
// first so each takes part in crossover. A pair is crossed at one point with
// the crossover rate, else copied. Every child then self-adapts its mutation
// rate (Gaussian step, clamped to [0.05, 0.9]; crossover blends the parents'
// rates with a random weight) and with that rate gets a random mutation (one
// op to another device), and with the zone rate a zone mutation (a run of
// consecutive ops to one device). A child that would be an unchanged copy
// gets one random mutation, so no evaluation is spent on a known placement.
//
//===----------------------------------------------------------------------===//

#include "DeviceSearches.h"
#include "dsm/Core/Devices/DevicePlacementSearch.h"

#include <algorithm>
#include <numeric>

using namespace dsm::core::devices;
using namespace dsm::core::devices::detail;

namespace {
struct Individual {
  Placement genes;
  double rate = 0;
  double fitness = 0;
};
} // namespace

void detail::runGenetic(PlacementEvaluator &evaluator,
                        const SearchOptions &search, size_t devices) {
  const GeneticOptions &options = search.genetic;
  Random random(search.seed);
  size_t genes = evaluator.getOpCount();
  int64_t budget = search.evaluations;
  size_t populationSize = size_t(std::max(2, options.populationSize));
  size_t elites = size_t(
      std::clamp<int32_t>(options.eliteSize, 0, int32_t(populationSize) - 1));

  auto evaluateAll = [&](std::vector<Individual> &individuals) {
    std::vector<Placement> placements;
    for (Individual &individual : individuals)
      placements.push_back(individual.genes);
    std::vector<double> fitness(placements.size());
    evaluator.evaluate(placements, fitness);
    for (size_t i = 0; i < individuals.size(); ++i)
      individuals[i].fitness = fitness[i];
  };

  std::vector<Individual> population(
      size_t(std::min<int64_t>(int64_t(populationSize), budget)));
  for (Individual &individual : population) {
    individual.genes = randomPlacement(genes, devices, random);
    individual.rate = options.mutationRate;
  }
  evaluateAll(population);

  auto mutate = [&](Individual &child, bool crossed) {
    child.rate =
        std::clamp(child.rate + options.mutationRateStep * random.normal(),
                   options.minMutationRate, options.maxMutationRate);
    bool changed = crossed;
    if (random.uniform() < child.rate) {
      mutateOneGene(child.genes, devices, random);
      changed = true;
    }
    if (random.uniform() < options.zoneMutationRate) {
      mutateZone(child.genes, devices, random);
      changed = true;
    }
    if (!changed)
      mutateOneGene(child.genes, devices, random);
  };

  std::vector<size_t> order(population.size());
  while (evaluator.getEvaluations() < budget && !evaluator.shouldStop()) {
    order.resize(population.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return population[a].fitness < population[b].fitness;
    });
    size_t q = order.size();
    size_t keep = std::min(elites, q);
    // Linear ranking: rank r (0 = best) has weight q - r.
    uint64_t totalWeight = uint64_t(q) * (q + 1) / 2;
    auto pickRanked = [&]() -> const Individual & {
      uint64_t ticket = random.below(totalWeight);
      size_t rank = 0;
      for (uint64_t weight = q; ticket >= weight; --weight, ++rank)
        ticket -= weight;
      return population[order[rank]];
    };

    size_t childCount = size_t(std::min<int64_t>(
        int64_t(populationSize - keep), budget - evaluator.getEvaluations()));
    std::vector<Individual> children;
    size_t eliteCursor = 0;
    while (children.size() < childCount) {
      Individual first =
          eliteCursor < keep ? population[order[eliteCursor++]] : pickRanked();
      Individual second = pickRanked();
      bool crossed = false;
      if (genes > 1 && random.uniform() < search.genetic.crossoverRate) {
        size_t point = 1 + random.below(genes - 1);
        std::swap_ranges(first.genes.begin() + point, first.genes.end(),
                         second.genes.begin() + point);
        double alpha = random.uniform();
        double a = first.rate, b = second.rate;
        first.rate = alpha * a + (1 - alpha) * b;
        second.rate = alpha * b + (1 - alpha) * a;
        crossed = true;
      }
      mutate(first, crossed);
      children.push_back(std::move(first));
      if (children.size() < childCount) {
        mutate(second, crossed);
        children.push_back(std::move(second));
      }
    }
    evaluateAll(children);

    std::vector<Individual> next;
    for (size_t i = 0; i < keep; ++i)
      next.push_back(std::move(population[order[i]]));
    for (Individual &child : children)
      next.push_back(std::move(child));
    population = std::move(next);
  }
}
