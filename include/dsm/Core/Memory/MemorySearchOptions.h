//===- MemorySearchOptions.h - What a placement search is given -*- C++ -*-===//
//
// What a memory-placement search (MemoryPlacementSearch.h) is given and
// gives back, apart from the dispatch by name: the searches behind it
// (lib/Memory) share these without the dispatcher.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_MEMORY_MEMORYSEARCHOPTIONS_H
#define DSM_CORE_MEMORY_MEMORYSEARCHOPTIONS_H

#include "dsm/Core/Memory/MemoryPlacementEvaluator.h"
#include "dsm/Core/Support/Progress.h"

#include <cstdint>
#include <vector>

namespace dsm::core::memory {

struct PlacementSearchOptions {
  /// Maps evaluated at most (ignored by compiler and ilp).
  int64_t iterations = 4000;
  uint64_t seed = 1;
  /// Wall-clock limit of the ILP solver; past it the best map found so far
  /// is returned with `optimal` false.
  double ilpTimeLimitSeconds = 60;
  /// Told of every map evaluated (steps of `iterations`, the best speedup
  /// over the compiler; ilp: seconds of its time limit) and asked whether
  /// to stop.
  Progress *progress = &Progress::none();
};

struct PlacementSearchResult {
  /// The map returned: always valid (an invalid best is rectified).
  MemoryMap map;
  Evaluation evaluation;
  /// The search's best map was invalid and had to be rectified...
  bool rectified = false;
  /// ...re-assigning this ratio of the model's bytes (0 when not rectified).
  double reassignedRatio = 0;
  /// Best speedup over the compiler among the maps evaluated so far, after
  /// each evaluation (0 until a valid map was seen).
  std::vector<double> bestSpeedupByIteration;
  /// The reward of each map evaluated, in order (what a learner sees).
  std::vector<double> rewardByIteration;
  int64_t evaluations = 0;
  /// The search stopped early because its Progress asked it to.
  bool interrupted = false;
  /// ilp only: proved optimal, and the solver's lower bound on the latency.
  bool optimal = false;
  double latencyLowerBound = 0;
};

} // namespace dsm::core::memory

#endif // DSM_CORE_MEMORY_MEMORYSEARCHOPTIONS_H
