//===- GreedyDP.cpp - The paper's greedy dynamic programming --------------===//
//
// Khadka et al. (EGRL), §4: "It tries all 9 possible maps for the first node
// (3 choices each for 2 types of tensors), keeping all other mappings static,
// and chooses the action that maximizes the reward. It repeats this serially
// for each node in the workload and then conducts several passes."
//
//===----------------------------------------------------------------------===//

#include "MemorySearches.h"

using namespace dsm::core;
using namespace dsm::core::memory;
using namespace dsm::core::memory::detail;

PlacementSearchResult detail::runGreedyDP(const PlacementEvaluator &evaluator,
                                          const PlacementSearchOptions &options,
                                          Executor &executor) {
  SearchTracker tracker(evaluator, options);
  // A budget spent before the first map: nothing evaluated, the answer is
  // the compiler's map, as for the other searches (SearchTracker::finish).
  if (tracker.shouldStop())
    return tracker.finish();
  size_t count = evaluator.getGraph().size();
  // App. B: the initial mapping action is DRAM.
  MemoryMap map = makeUniformMap(count, MemoryLevel::DRAM);
  Evaluation current = evaluator.evaluate(map);
  tracker.record(map, current);

  std::vector<NodePlacement> candidates;
  std::vector<Evaluation> results;
  bool changed = true;
  while (changed && tracker.getEvaluations() < options.iterations) {
    changed = false;
    for (size_t node = 0; node < count; ++node) {
      int64_t left = options.iterations - tracker.getEvaluations();
      if (left <= 0 || tracker.shouldStop())
        break;
      candidates.clear();
      for (MemoryLevel weights : kMemoryLevels)
        for (MemoryLevel activations : kMemoryLevels)
          if (NodePlacement{weights, activations} != map[node] &&
              int64_t(candidates.size()) < left)
            candidates.push_back({weights, activations});
      results.assign(candidates.size(), Evaluation());
      executor.parallelFor(candidates.size(), [&](size_t c) {
        MemoryMap trial = map;
        trial[node] = candidates[c];
        results[c] = evaluator.evaluate(trial);
      });
      // Serially, in candidate order: the first strictly better reward wins.
      size_t best = candidates.size();
      double bestReward = current.reward;
      for (size_t c = 0; c < candidates.size(); ++c) {
        MemoryMap trial = map;
        trial[node] = candidates[c];
        tracker.record(trial, results[c]);
        if (results[c].reward > bestReward) {
          bestReward = results[c].reward;
          best = c;
        }
      }
      if (best < candidates.size()) {
        map[node] = candidates[best];
        current = results[best];
        changed = true;
      }
    }
  }
  return tracker.finish();
}
