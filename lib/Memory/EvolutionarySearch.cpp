//===- EvolutionarySearch.cpp - The evolutionary algorithm alone ----------===//
//
// The EA of Khadka et al. (EGRL), Algorithm 2 without the GNN policies, the
// Boltzmann chromosomes and the PG learner -- the paper's "EA" baseline. A
// chromosome is the memory map itself (2 genes per node, 3 alleles each).
// Its operators (MemorySearches.h, namespace evolution) serve egrl too.
//
//===----------------------------------------------------------------------===//

#include "MemorySearches.h"

#include "dsm/Core/Support/Random.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <numeric>

using namespace dsm::core;
using namespace dsm::core::memory;
using namespace dsm::core::memory::detail;

using namespace dsm::core::memory::detail::evolution;

namespace {
struct Individual {
  MemoryMap map;
  Evaluation evaluation;
  bool evaluated = false;
};
} // namespace

MemoryMap evolution::randomMap(size_t count, Random &rng) {
  MemoryMap map(count);
  for (NodePlacement &placement : map)
    placement = {randomLevel(rng), randomLevel(rng)};
  return map;
}

size_t evolution::selectByTournament(llvm::ArrayRef<double> rewards,
                                     Random &rng) {
  size_t winner = size_t(rng.below(rewards.size()));
  for (size_t t = 1; t < kTournament; ++t) {
    size_t rival = size_t(rng.below(rewards.size()));
    if (rewards[rival] > rewards[winner])
      winner = rival;
  }
  return winner;
}

void evolution::mutate(MemoryMap &map, Random &rng) {
  if (map.empty() || !(rng.uniform() < kMutationProb))
    return;
  double geneRate = std::min(1.0, kMutatedGenes / double(2 * map.size()));
  for (NodePlacement &placement : map) {
    if (rng.uniform() < geneRate)
      placement.weights = randomLevel(rng);
    if (rng.uniform() < geneRate)
      placement.activations = randomLevel(rng);
  }
}

PlacementSearchResult
detail::runEvolution(const PlacementEvaluator &evaluator,
                     const PlacementSearchOptions &options,
                     Executor &executor) {
  SearchTracker tracker(evaluator, options);
  size_t count = evaluator.getGraph().size();
  // The same seed gives the same search on every platform (Random.h).
  Random rng(options.seed);

  // The paper's initial action (all DRAM) and random maps.
  std::vector<Individual> population(kPopulation);
  population[0].map = makeUniformMap(count, MemoryLevel::DRAM);
  for (size_t k = 1; k < kPopulation; ++k)
    population[k].map = randomMap(count, rng);

  std::vector<size_t> pending;
  while (!tracker.shouldStop()) {
    // Evaluate the new individuals, at most the budget left, in parallel.
    pending.clear();
    for (size_t k = 0; k < population.size(); ++k)
      if (!population[k].evaluated)
        pending.push_back(k);
    int64_t left = options.iterations - tracker.getEvaluations();
    if (left <= 0 || pending.empty())
      break;
    if (int64_t(pending.size()) > left)
      pending.resize(size_t(left));
    executor.parallelFor(pending.size(), [&](size_t p) {
      Individual &individual = population[pending[p]];
      individual.evaluation = evaluator.evaluate(individual.map);
    });
    for (size_t k : pending) {
      population[k].evaluated = true;
      tracker.record(population[k].map, population[k].evaluation);
    }
    // Individuals cut by the budget do not compete.
    llvm::erase_if(population,
                   [](const Individual &ind) { return !ind.evaluated; });
    if (tracker.getEvaluations() >= options.iterations)
      break;

    // Rank (stable: ties keep their order), keep the elites.
    std::stable_sort(population.begin(), population.end(),
                     [](const Individual &a, const Individual &b) {
                       return a.evaluation.reward > b.evaluation.reward;
                     });
    size_t elites = std::min(kElites, population.size());
    std::vector<Individual> next(population.begin(),
                                 population.begin() + elites);
    std::vector<double> rewards;
    for (const Individual &individual : population)
      rewards.push_back(individual.evaluation.reward);
    while (next.size() < kPopulation) {
      size_t winner = selectByTournament(rewards, rng);
      // Single-point crossover of an elite and the winner (Alg. 2 l. 12-14).
      const MemoryMap &elite = population[size_t(rng.below(elites))].map;
      Individual child;
      child.map = population[winner].map;
      crossOver(child.map, elite, rng);
      mutate(child.map, rng);
      next.push_back(std::move(child));
    }
    population = std::move(next);
  }
  return tracker.finish();
}
