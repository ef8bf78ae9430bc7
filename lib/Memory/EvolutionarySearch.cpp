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

#include "dsm/Core/Support/Random.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <numeric>

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

static MemoryLevel randomLevel(Random &rng) {
  return MemoryLevel(rng.below(3));
}

PlacementSearchResult
detail::runEvolution(const PlacementEvaluator &evaluator,
                     const PlacementSearchOptions &options,
                     Executor &executor) {
  SearchTracker tracker(evaluator);
  size_t count = evaluator.getGraph().size();
  // The same seed gives the same search on every platform (Random.h).
  Random rng(options.seed);

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
    auto pick = [&] { return size_t(rng.below(population.size())); };
    auto pickElite = [&] { return size_t(rng.below(elites)); };
    while (next.size() < kPopulation) {
      // Tournament selection with replacement.
      size_t winner = pick();
      for (size_t t = 1; t < kTournament; ++t) {
        size_t rival = pick();
        if (population[rival].evaluation.reward >
            population[winner].evaluation.reward)
          winner = rival;
      }
      // Single-point crossover of an elite and the winner (Alg. 2 l. 12-14).
      const MemoryMap &elite = population[pickElite()].map;
      Individual child;
      child.map = population[winner].map;
      if (count > 1) {
        size_t cut = 1 + size_t(rng.below(count - 1));
        std::copy(elite.begin(), elite.begin() + cut, child.map.begin());
      }
      if (rng.uniform() < kMutationProb)
        for (NodePlacement &placement : child.map) {
          if (rng.uniform() < geneRate)
            placement.weights = randomLevel(rng);
          if (rng.uniform() < geneRate)
            placement.activations = randomLevel(rng);
        }
      next.push_back(std::move(child));
    }
    population = std::move(next);
  }
  return tracker.finish();
}
