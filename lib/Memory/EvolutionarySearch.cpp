//===- EvolutionarySearch.cpp - The evolutionary algorithm alone ----------===//
//
// The EA of Khadka et al. (EGRL), Algorithm 2 without the GNN policies, the
// Boltzmann chromosomes and the PG learner -- the paper's "EA" baseline. A
// chromosome is the memory map itself (2 genes per node, 3 alleles each).
// App. B fixes the population (20); the elite count, tournament size and
// mutation rates are not in its table and are ours (documented in
// docs/memory-placement.md).
//
//===----------------------------------------------------------------------===//

#include "Searches.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <numeric>
#include <random>

using namespace dsm::core;
using namespace dsm::core::memory;
using namespace dsm::core::memory::detail;

namespace {
constexpr size_t kPopulation = 20;    ///< App. B, "EA population size"
constexpr size_t kElites = 2;         ///< top 10% survive unchanged
constexpr size_t kTournament = 3;     ///< tournament selection with replacement
constexpr double kMutationProb = 0.9; ///< chance an offspring is mutated
/// Genes resampled in a mutated offspring, on average.
constexpr double kMutatedGenes = 2.0;

struct Individual {
  MemoryMap map;
  Evaluation evaluation;
  bool evaluated = false;
};
} // namespace

static MemoryLevel randomLevel(std::mt19937_64 &rng) {
  return MemoryLevel(std::uniform_int_distribution<int>(0, 2)(rng));
}

PlacementSearchResult
detail::runEvolution(const PlacementEvaluator &evaluator,
                     const PlacementSearchOptions &options,
                     Executor &executor) {
  SearchTracker tracker(evaluator);
  size_t count = evaluator.getGraph().size();
  std::mt19937_64 rng(options.seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);

  // The paper's initial action (all DRAM) and random maps.
  std::vector<Individual> population(kPopulation);
  population[0].map = makeUniformMap(count, MemoryLevel::DRAM);
  for (size_t k = 1; k < kPopulation; ++k) {
    population[k].map.resize(count);
    for (NodePlacement &placement : population[k].map)
      placement = {randomLevel(rng), randomLevel(rng)};
  }

  double geneRate =
      count ? std::min(1.0, kMutatedGenes / double(2 * count)) : 0.0;
  std::vector<size_t> pending;
  while (true) {
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
    std::uniform_int_distribution<size_t> pick(0, population.size() - 1);
    std::uniform_int_distribution<size_t> pickElite(0, elites - 1);
    while (next.size() < kPopulation) {
      // Tournament selection with replacement.
      size_t winner = pick(rng);
      for (size_t t = 1; t < kTournament; ++t) {
        size_t rival = pick(rng);
        if (population[rival].evaluation.reward >
            population[winner].evaluation.reward)
          winner = rival;
      }
      // Single-point crossover of an elite and the winner (Alg. 2 l. 12-14).
      const MemoryMap &elite = population[pickElite(rng)].map;
      Individual child;
      child.map = population[winner].map;
      if (count > 1) {
        size_t cut = std::uniform_int_distribution<size_t>(1, count - 1)(rng);
        std::copy(elite.begin(), elite.begin() + cut, child.map.begin());
      }
      if (unit(rng) < kMutationProb)
        for (NodePlacement &placement : child.map) {
          if (unit(rng) < geneRate)
            placement.weights = randomLevel(rng);
          if (unit(rng) < geneRate)
            placement.activations = randomLevel(rng);
        }
      next.push_back(std::move(child));
    }
    population = std::move(next);
  }
  return tracker.finish();
}
