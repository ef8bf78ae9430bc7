//===- Searches.h - The searches behind runPlacementSearch ------*- C++ -*-===//
//
// Internal to lib/Memory: each search in its own file, sharing the tracker
// that keeps the best map and the best-so-far curve.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_LIB_MEMORY_SEARCHES_H
#define DSM_LIB_MEMORY_SEARCHES_H

#include "dsm/Core/Memory/PlacementSearch.h"

#include <limits>

namespace dsm::core::memory::detail {

/// Records every evaluation in order: the best valid map (smallest latency,
/// first found on ties), the best reward overall, the best-so-far speedup.
class SearchTracker {
public:
  explicit SearchTracker(const PlacementEvaluator &evaluator)
      : evaluator(evaluator) {}

  void record(const MemoryMap &map, const Evaluation &evaluation);
  int64_t getEvaluations() const { return result.evaluations; }
  /// The best valid map, or the rectified best-reward map if none was valid.
  PlacementSearchResult finish();

private:
  const PlacementEvaluator &evaluator;
  PlacementSearchResult result;
  MemoryMap bestValid;
  double bestValidLatency = std::numeric_limits<double>::infinity();
  MemoryMap bestAny;
  double bestReward = -std::numeric_limits<double>::infinity();
};

PlacementSearchResult runGreedyDP(const PlacementEvaluator &evaluator,
                                  const PlacementSearchOptions &options,
                                  Executor &executor);
PlacementSearchResult runEvolution(const PlacementEvaluator &evaluator,
                                   const PlacementSearchOptions &options,
                                   Executor &executor);
llvm::Expected<PlacementSearchResult>
runIlp(const PlacementEvaluator &evaluator,
       const PlacementSearchOptions &options);

} // namespace dsm::core::memory::detail

#endif // DSM_LIB_MEMORY_SEARCHES_H
