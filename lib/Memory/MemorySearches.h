//===- MemorySearches.h - Searches behind runPlacementSearch ----*- C++ -*-===//
//
// Internal to lib/Memory: each search in its own file, sharing the tracker
// that keeps the best map and the best-so-far curve.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_LIB_MEMORY_MEMORYSEARCHES_H
#define DSM_LIB_MEMORY_MEMORYSEARCHES_H

#include "dsm/Core/Memory/MemorySearchOptions.h"
#include "dsm/Core/Support/Executor.h"
#include "dsm/Core/Support/Random.h"

#include "llvm/ADT/ArrayRef.h"

#include <algorithm>
#include <limits>

namespace dsm::core::memory::detail {

/// Records every evaluation in order: the best valid map (smallest latency,
/// first found on ties), the best reward overall, the best-so-far speedup;
/// reports each to the options' Progress when given them.
class SearchTracker {
public:
  /// Reports nothing and never stops (a search of one evaluation).
  explicit SearchTracker(const PlacementEvaluator &evaluator)
      : evaluator(evaluator) {}
  /// Reports to `options.progress`, in steps of `options.iterations`.
  SearchTracker(const PlacementEvaluator &evaluator,
                const PlacementSearchOptions &options)
      : evaluator(evaluator), progress(*options.progress),
        total(options.iterations) {}

  void record(const MemoryMap &map, const Evaluation &evaluation);
  int64_t getEvaluations() const { return result.evaluations; }
  /// Whether the search should stop here (asked while budget is left):
  /// the result is then marked interrupted.
  bool shouldStop();
  /// The best valid map, or the rectified best-reward map if none was valid.
  PlacementSearchResult finish();

private:
  const PlacementEvaluator &evaluator;
  Progress &progress = Progress::none();
  int64_t total = 0;
  PlacementSearchResult result;
  MemoryMap bestValid;
  double bestValidLatency = std::numeric_limits<double>::infinity();
  MemoryMap bestAny;
  double bestReward = -std::numeric_limits<double>::infinity();
};

/// The operators of the evolutionary algorithm (EvolutionarySearch.cpp),
/// which egrl's population uses as they are. App. B fixes the population
/// (20); the elite count, tournament size and mutation rates are not in its
/// table and are ours (docs/memory-placement.md).
namespace evolution {
constexpr size_t kPopulation = 20;    ///< App. B, "EA population size"
constexpr size_t kElites = 2;         ///< top 10% survive unchanged
constexpr size_t kTournament = 3;     ///< tournament selection with replacement
constexpr double kMutationProb = 0.9; ///< chance an offspring is mutated
/// Genes resampled in a mutated offspring, on average.
constexpr double kMutatedGenes = 2.0;

inline MemoryLevel randomLevel(Random &rng) {
  return MemoryLevel(rng.below(kNumMemoryLevels));
}

/// A uniformly random map of `count` nodes.
MemoryMap randomMap(size_t count, Random &rng);

/// The winner of a tournament of kTournament individuals drawn with
/// replacement from `rewards` (the first drawn wins ties).
size_t selectByTournament(llvm::ArrayRef<double> rewards, Random &rng);

/// Single-point crossover (Alg. 2 l. 14): the genes before a random cut come
/// from `elite`, the rest stay the child's. Any per-node chromosome.
template <typename Gene>
void crossOver(std::vector<Gene> &child, const std::vector<Gene> &elite,
               Random &rng) {
  size_t count = child.size();
  if (count > 1) {
    size_t cut = 1 + size_t(rng.below(count - 1));
    std::copy(elite.begin(), elite.begin() + cut, child.begin());
  }
}

/// With probability kMutationProb, resamples each gene with a probability
/// that changes kMutatedGenes of them on average.
void mutate(MemoryMap &map, Random &rng);
} // namespace evolution

PlacementSearchResult runGreedyDP(const PlacementEvaluator &evaluator,
                                  const PlacementSearchOptions &options,
                                  Executor &executor);
PlacementSearchResult runEvolution(const PlacementEvaluator &evaluator,
                                   const PlacementSearchOptions &options,
                                   Executor &executor);
/// The error of a search built without the library it needs: "placement
/// '<placement>' needs <library>: install <package> (scripts/install-deps.sh)
/// and configure with <option>=ON".
llvm::Error makeMissingLibraryError(llvm::StringRef placement,
                                    llvm::StringRef library,
                                    llvm::StringRef package,
                                    llvm::StringRef option);

/// egrl and pg (EgrlSearch.cpp): fail when built without libtorch.
llvm::Expected<PlacementSearchResult>
runEgrl(const PlacementEvaluator &evaluator,
        const PlacementSearchOptions &options, Executor &executor);
llvm::Expected<PlacementSearchResult>
runPolicyGradient(const PlacementEvaluator &evaluator,
                  const PlacementSearchOptions &options, Executor &executor);
llvm::Expected<PlacementSearchResult>
runIlp(const PlacementEvaluator &evaluator,
       const PlacementSearchOptions &options);

} // namespace dsm::core::memory::detail

#endif // DSM_LIB_MEMORY_MEMORYSEARCHES_H
