//===- DesignSpaceExplorer.h - ChipD -> CoreD -> ArrayD search --*- C++ -*-===//
//
// Finds the best mapping configuration of one layer and pass under one
// parallelism (DeepSpatialMatrix §II-E). The parallelism fixes ChipD; the
// explorer searches the CoreD splits (factors over {in, out, ij, kij, mb} whose
// product is the core count) and the ArrayD mappings onto the PE array.
//
// `Exhaustive` tries every legal core split, every (row, column) dimension
// pair and every useful tile size. `Heuristic` applies the paper's principles
// as pruning: split only dimensions of the pass's result (no core-to-core
// reductions) unless that is impossible or the layer keeps its weights across
// timesteps; among those, only the splits with the
// least work imbalance; tiles in whole chunks of the array (min(P, work)).
// Both are deterministic: ties keep the first configuration in enumeration
// order.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SPATIAL_DESIGNSPACEEXPLORER_H
#define DSM_CORE_SPATIAL_DESIGNSPACEEXPLORER_H

#include "dsm/Core/Spatial/PerformanceModel.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dsm::core {

enum class SearchMode { Heuristic, Exhaustive };
llvm::StringRef stringifySearchMode(SearchMode mode);

struct ExplorationResult {
  std::optional<Evaluation> best;
  uint64_t evaluated = 0; ///< configurations costed
  uint64_t legal = 0;     ///< of which legal
  /// Configurations the search costed without evaluating them,
  /// as slower than the best so far (SplitCycles), not counting the splits
  /// it stopped before, whose lower bound exceeded the best.
  uint64_t pruned = 0;
  /// Why nothing was legal (the reason of the last rejection), if so.
  std::string whyNone;
};

class DesignSpaceExplorer {
public:
  /// With `reuseWeightsAcrossSteps`, recurrent layers also try keeping
  /// their weights in the scratchpads across timesteps (DeepSpatialMatrix
  /// §III-B2).
  DesignSpaceExplorer(const PerformanceModel &model, SearchMode mode,
                      bool reuseWeightsAcrossSteps = false);

  /// The best configuration of `pass` of `layer` under `parallelism`, every
  /// candidate with the memory decisions `memory` (and, when enabled, with
  /// and without weight reuse across timesteps).
  ExplorationResult explore(const LayerShape &layer, TrainingPass pass,
                            Parallelism parallelism,
                            const MemoryDecision &memory = {}) const;

  /// explore() with each of `capacities` bytes of scratchpad per core, in
  /// one search (a weight-preloading sweep's reservations): the first must
  /// be the model's and the others smaller. Each result is explore()'s
  /// with that scratchpad, or nullptr where the search gave a smaller one
  /// up (its best would need searching much further than the first's). The
  /// first result counts the whole search. A result equal to the previous
  /// capacity's is the same object: a sweep keeps one copy of a best that fits
  /// them all.
  std::vector<std::shared_ptr<const ExplorationResult>>
  exploreCapacities(const LayerShape &layer, TrainingPass pass,
                    Parallelism parallelism, const MemoryDecision &memory,
                    llvm::ArrayRef<double> capacities) const;

  /// At most the cycles of every configuration explore() would consider for
  /// `pass` of `layer` under `parallelism` with `memory`'s DySM factor,
  /// whatever its other memory decisions and the scratchpad's size
  /// (SplitCycles::computeBound; infinity when the parallelism cannot split
  /// the layer): what lets a mapping be skipped unexplored.
  double computeBound(const LayerShape &layer, TrainingPass pass,
                      Parallelism parallelism,
                      const MemoryDecision &memory) const;

  /// The largest share of its weights one core holds in any configuration
  /// explore() would consider (0: none). Preloading more than that is
  /// preloading everything: each configuration preloads at most its share.
  int64_t largestWeightShare(const LayerShape &layer, TrainingPass pass,
                             Parallelism parallelism,
                             const MemoryDecision &memory) const;

  /// Every ordered factorization of `n` into five factors (one per
  /// dimension), in a fixed order.
  static std::vector<DimSizes> factorizations(int64_t n);

  /// Tile sizes worth trying for `work` elements on an array side of
  /// `side`: each distinct number of chunks k has one smallest tile
  /// ceil(work / k); larger tiles with the same k cost the same cycles and
  /// more scratchpad, so they never win.
  static std::vector<int64_t> usefulTiles(int64_t work, int64_t side);

  /// The core splits the search considers for a chip's work `chipD` (the
  /// heuristic's pruning applied in Heuristic mode).
  std::vector<DimSizes> candidateCoreSplits(const LayerShape &layer,
                                            TrainingPass pass,
                                            const DimSizes &chipD) const;

private:
  /// The search of exploreCapacities(): each capacity's result, empty
  /// where it was given up or where `repeatsLarger` says it equals the
  /// previous capacity's.
  std::vector<std::optional<ExplorationResult>>
  searchCapacities(const LayerShape &layer, TrainingPass pass,
                   Parallelism parallelism, const MemoryDecision &memory,
                   llvm::ArrayRef<double> capacities,
                   std::vector<bool> &repeatsLarger) const;

  const PerformanceModel &model;
  SearchMode mode;
  bool reuseWeightsAcrossSteps;
  std::vector<DimSizes> coreFactorizations;
};

} // namespace dsm::core

#endif // DSM_CORE_SPATIAL_DESIGNSPACEEXPLORER_H
