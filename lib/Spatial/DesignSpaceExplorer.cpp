//===- DesignSpaceExplorer.cpp - ChipD -> CoreD -> ArrayD search ----------===//

#include "dsm/Core/Spatial/DesignSpaceExplorer.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

using namespace dsm::core;

llvm::StringRef dsm::core::stringifySearchMode(SearchMode mode) {
  switch (mode) {
  case SearchMode::Heuristic:
    return "heuristic";
  case SearchMode::Exhaustive:
    return "exhaustive";
  }
  llvm_unreachable("unknown SearchMode");
}

DesignSpaceExplorer::DesignSpaceExplorer(const PerformanceModel &model,
                                         SearchMode mode,
                                         bool reuseWeightsAcrossSteps)
    : model(model), mode(mode),
      reuseWeightsAcrossSteps(reuseWeightsAcrossSteps),
      coreFactorizations(factorizations(model.numCores())) {}

/// The divisors of n in increasing order, found in O(sqrt(n)) steps (a core
/// count of 2^32 must not mean 2^32 trial divisions).
static std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> small, large;
  for (int64_t d = 1; d <= n / d; ++d) {
    if (n % d != 0)
      continue;
    small.push_back(d);
    if (d != n / d)
      large.push_back(n / d);
  }
  small.insert(small.end(), large.rbegin(), large.rend());
  return small;
}

std::vector<DimSizes> DesignSpaceExplorer::factorizations(int64_t n) {
  std::vector<DimSizes> result;
  if (n < 1)
    return result;
  // Every factor of a factorization of n divides n: one divisor list serves
  // every level of the recursion.
  const std::vector<int64_t> candidates = divisors(n);
  DimSizes current = {1, 1, 1, 1, 1};
  auto recurse = [&](int dim, int64_t rest, auto &&self) -> void {
    if (dim == kNumDims - 1) {
      current[dim] = rest;
      result.push_back(current);
      return;
    }
    for (int64_t f : candidates) {
      if (f > rest)
        break;
      if (rest % f != 0)
        continue;
      current[dim] = f;
      self(dim + 1, rest / f, self);
    }
  };
  recurse(0, n, recurse);
  return result;
}

std::vector<int64_t> DesignSpaceExplorer::usefulTiles(int64_t work,
                                                      int64_t side) {
  std::vector<int64_t> tiles;
  if (work < 1 || side < 1)
    return tiles;
  // From the fewest chunks (largest tiles) to one element per chunk; for each
  // chunk count k the smallest tile is ceil(work / k).
  for (int64_t chunks = llvm::divideCeil(work, side); chunks <= work;) {
    int64_t tile = llvm::divideCeil(work, chunks);
    tiles.push_back(tile);
    if (tile == 1)
      break;
    // The fewest chunks that need a smaller tile.
    chunks = (work + tile - 2) / (tile - 1);
  }
  return tiles;
}

/// How much more imbalanced than the best a split the heuristic keeps may be.
static constexpr double kImbalanceTolerance = 1.10;

/// Work imbalance of a split: the busiest part's share relative to an even
/// share (1 = perfectly balanced).
static double imbalance(const DimSizes &work, const DimSizes &split) {
  double ratio = 1;
  for (int d = 0; d < kNumDims; ++d)
    ratio *= double(llvm::divideCeil(work[d], split[d]) * split[d]) /
             double(work[d]);
  return ratio;
}

std::vector<DimSizes> DesignSpaceExplorer::candidateCoreSplits(
    const LayerShape &layer, TrainingPass pass, const DimSizes &chipD) const {
  std::vector<DimSizes> legal;
  legal.reserve(coreFactorizations.size());
  for (const DimSizes &split : coreFactorizations) {
    bool fits = true;
    for (int d = 0; d < kNumDims && fits; ++d)
      fits = split[d] <= chipD[d];
    if (fits)
      legal.push_back(split);
  }
  if (mode == SearchMode::Exhaustive || legal.empty())
    return legal;

  // Principle: split the result's dimensions so cores need not reduce
  // partial sums (DeepSpatialMatrix §II-E) -- unless the result is too small to
  // occupy every core. Principle: balance the work across cores; when the
  // dimensions do not divide, keep the splits with the least imbalance -- or
  // close to it: a few percent more PE-array work can buy a better spread of
  // the auxiliary work or of the transfers.
  DimSet reduction = layer.hasPrimary ? reductionDims(layer, pass) : DimSet();
  std::vector<double> imbalances(legal.size());
  std::vector<bool> reduces(legal.size());
  double leastOutputOnly = 1e300, leastAll = 1e300;
  bool anyOutputOnly = false;
  for (size_t i = 0; i < legal.size(); ++i) {
    imbalances[i] = imbalance(chipD, legal[i]);
    leastAll = std::min(leastAll, imbalances[i]);
    for (int d = 0; d < kNumDims && !reduces[i]; ++d)
      reduces[i] = reduction.contains(Dim(d)) && legal[i][d] > 1;
    if (!reduces[i]) {
      anyOutputOnly = true;
      leastOutputOnly = std::min(leastOutputOnly, imbalances[i]);
    }
  }
  // A result too unevenly divisible to keep the cores busy (e.g. the 3 x 49
  // x 64 kernel of ResNet-50's conv1 in UPD on 32 cores) is worth a
  // reduction: then reduction splits compete too.
  // Weights kept across timesteps (DeepSpatialMatrix §III-B2) stay in the cores
  // for the whole pass, and every timestep streams the other operand past them:
  // splitting the weights' reduction dimension too shrinks both each core's
  // weight share and its share of the stream through the scratchpad port
  // (the "under-use due to data-flow" of Fig. 13), which can outweigh the
  // partial sums. Recurrent layers are few: their reduction splits compete.
  bool weightsStay = reuseWeightsAcrossSteps && layer.hasPrimary &&
                     layer.hasWeights && layer.timesteps > 1 &&
                     pass != TrainingPass::UPD;
  bool outputOnlyBalances =
      !weightsStay && anyOutputOnly && leastOutputOnly <= kImbalanceTolerance;
  double least = outputOnlyBalances ? leastOutputOnly : leastAll;
  std::vector<DimSizes> balanced;
  for (size_t i = 0; i < legal.size(); ++i)
    if ((!outputOnlyBalances || !reduces[i]) &&
        imbalances[i] <= least * kImbalanceTolerance)
      balanced.push_back(legal[i]);
  return balanced;
}

/// Fewer total cycles win. Among configurations that tie -- typically
/// transfer-bound ones, where PriComp hides under the transfers -- prefer the
/// one that computes most efficiently, then the one with the least
/// non-overlapped traffic, then the smallest working set, so the report does
/// not show an arbitrary under-use.
static bool isBetter(const CandidateCost &a, const CandidateCost &b) {
  auto close = [](double x, double y) {
    return std::fabs(x - y) <= 1e-9 * std::max(std::fabs(x), std::fabs(y));
  };
  if (!close(a.cycles.total, b.cycles.total))
    return a.cycles.total < b.cycles.total;
  if (!close(a.cycles.priComp(), b.cycles.priComp()))
    return a.cycles.priComp() < b.cycles.priComp();
  if (!close(a.cycles.nonOvldt, b.cycles.nonOvldt))
    return a.cycles.nonOvldt < b.cycles.nonOvldt;
  return a.scratchpadBytes < b.scratchpadBytes;
}

int64_t DesignSpaceExplorer::largestWeightShare(
    const LayerShape &layer, TrainingPass pass, Parallelism parallelism,
    const MemoryDecision &memory) const {
  std::optional<DimSizes> chipSplit =
      model.chipSplit(layer, pass, parallelism, /*whyNot=*/nullptr);
  if (!chipSplit)
    return 0;
  DimSizes chipD = splitSizes(
      model.spatialPassDims(layer, pass, memory, *chipSplit), *chipSplit);
  MappingConfig config;
  config.parallelism = parallelism;
  config.chipSplit = *chipSplit;
  config.memory = memory;
  int64_t largest = 0;
  for (const DimSizes &coreSplit : candidateCoreSplits(layer, pass, chipD)) {
    config.coreSplit = coreSplit;
    largest = std::max(largest, model.weightBytesPerCore(layer, pass, config));
  }
  return largest;
}

double DesignSpaceExplorer::computeBound(const LayerShape &layer,
                                         TrainingPass pass,
                                         Parallelism parallelism,
                                         const MemoryDecision &memory) const {
  double bound = std::numeric_limits<double>::infinity();
  std::optional<DimSizes> chipSplit =
      model.chipSplit(layer, pass, parallelism, /*whyNot=*/nullptr);
  if (!chipSplit)
    return bound;
  DimSizes chipD = splitSizes(
      model.spatialPassDims(layer, pass, memory, *chipSplit), *chipSplit);
  MappingConfig config;
  config.parallelism = parallelism;
  config.chipSplit = *chipSplit;
  config.memory.spatialMinibatches = memory.spatialMinibatches;
  // Over every candidate, legal or not, with or without weight reuse across
  // timesteps (which changes no compute): a bound on the best legal one.
  for (const DimSizes &coreSplit : candidateCoreSplits(layer, pass, chipD)) {
    config.coreSplit = coreSplit;
    bound = std::min(
        bound, model.costSplits(layer, pass, config).cycles().computeBound());
  }
  return bound;
}

/// How much slower than the best with the model's scratchpad the splits
/// exploreCapacities() searches on for a smaller scratchpad's may be: a
/// smaller scratchpad whose best would take searching further is given up.
static constexpr double kSmallerCapacitiesReach = 2.0;
static_assert(kSmallerCapacitiesReach >= 1,
              "the model's capacity is never given up");

namespace {
/// A candidate's place in the plain enumeration order: (split, candidate
/// within it).
using CandidateOrder = std::pair<size_t, uint64_t>;
/// The search of one capacity in DesignSpaceExplorer::searchCapacities. A
/// candidate is its split's configuration (which outlives the search) with
/// an array mapping: kept so, it is cheap to take.
struct CapacitySearch {
  std::optional<CandidateCost> best;
  const MappingConfig *bestConfig = nullptr, *reasonConfig = nullptr;
  ArrayMapping bestArray, reasonArray;
  CandidateOrder bestOrder, reasonOrder;
  bool anyReason = false;
  bool givenUp = false;
};
} // namespace

/// Each capacity's result of `searches` (searchCapacities), the first
/// with the counts of the whole search, `counted`.
static std::vector<std::optional<ExplorationResult>> searchResults(
    const PerformanceModel &model, const LayerShape &layer, TrainingPass pass,
    llvm::ArrayRef<double> capacities, llvm::ArrayRef<CapacitySearch> searches,
    const ExplorationResult &counted, std::vector<bool> &repeatsLarger) {
  // The winners are legal with the model's scratchpad, the largest, and
  // their evaluations do not depend on the capacity; a rejection is
  // explained with the capacity of its search.
  std::vector<std::optional<ExplorationResult>> results(capacities.size());
  // The result of capacity c - 1 when it has one (its own or one it
  // repeats).
  const ExplorationResult *largerResult = nullptr;
  for (size_t c = 0; c < searches.size(); ++c) {
    const CapacitySearch &search = searches[c];
    if (search.givenUp) {
      largerResult = nullptr;
      continue;
    }
    // Smaller capacities often keep the larger one's winner; below the
    // first (which counts the search) the results are then equal.
    const CapacitySearch *larger = c > 0 ? &searches[c - 1] : nullptr;
    const bool keepsLargersBest = search.best && larger && !larger->givenUp &&
                                  larger->best &&
                                  larger->bestOrder == search.bestOrder;
    if (keepsLargersBest && c > 1) {
      repeatsLarger[c] = true;
      continue;
    }
    ExplorationResult &found = results[c].emplace();
    if (c == 0) {
      found.evaluated = counted.evaluated;
      found.legal = counted.legal;
      found.pruned = counted.pruned;
    }
    if (search.best) {
      if (keepsLargersBest) {
        found.best = results[c - 1]->best;
      } else {
        MappingConfig winner = *search.bestConfig;
        winner.array = search.bestArray;
        found.best = model.evaluate(layer, pass, winner);
      }
      assert(found.best && "the search's winner is legal");
    } else if (search.anyReason) {
      MultiChipSystem system = model.getSystem();
      system.chip.core.scratchpad.capacityBytes = capacities[c];
      MappingConfig rejected = *search.reasonConfig;
      rejected.array = search.reasonArray;
      PerformanceModel(system).evaluate(layer, pass, rejected, &found.whyNone);
    }
    // Below the first, a rejection for the reason of the larger capacity's
    // is its result again.
    if (c > 1 && !found.best && largerResult && !largerResult->best &&
        largerResult->whyNone == found.whyNone) {
      results[c].reset();
      repeatsLarger[c] = true;
      continue;
    }
    largerResult = &found;
  }
  return results;
}

ExplorationResult
DesignSpaceExplorer::explore(const LayerShape &layer, TrainingPass pass,
                             Parallelism parallelism,
                             const MemoryDecision &memory) const {
  std::vector<bool> repeatsLarger;
  return std::move(
      *searchCapacities(layer, pass, parallelism, memory,
                        {model.getSystem().chip.core.scratchpad.capacityBytes},
                        repeatsLarger)
           .front());
}

std::vector<std::shared_ptr<const ExplorationResult>>
DesignSpaceExplorer::exploreCapacities(
    const LayerShape &layer, TrainingPass pass, Parallelism parallelism,
    const MemoryDecision &memory, llvm::ArrayRef<double> capacities) const {
  std::vector<bool> repeatsLarger;
  std::vector<std::optional<ExplorationResult>> found = searchCapacities(
      layer, pass, parallelism, memory, capacities, repeatsLarger);
  std::vector<std::shared_ptr<const ExplorationResult>> results(found.size());
  for (size_t c = 0; c < found.size(); ++c) {
    if (repeatsLarger[c])
      results[c] = results[c - 1];
    else if (found[c])
      results[c] =
          std::make_shared<const ExplorationResult>(std::move(*found[c]));
  }
  return results;
}

namespace {
/// A split's configuration (with its preload budget: each split preloads as
/// much of its weights as fits), checked and costed once for all its array
/// mappings (SplitCost), with and without weight reuse, and with a primary
/// computation its bound.
struct Split {
  // Constructed, not value-initialized: zeroing the costs first would
  // take as long as filling them.
  explicit Split(const MappingConfig &config) : config(config) {}
  MappingConfig config, reuseConfig;
  std::optional<SplitCost> plain, reuse;
  double bound = 0;
};

/// The candidates of searchCapacities, searched for every capacity at once:
/// each capacity keeps its own best (and reason) over the candidates in the
/// same order, those whose working set it holds (CapacitySearch).
class CandidateSearch {
public:
  CandidateSearch(const PerformanceModel &model, SearchMode mode,
                  const LayerShape &layer, llvm::ArrayRef<double> capacities,
                  bool tryWeightReuse, ExplorationResult &result)
      : model(model), mode(mode), layer(layer), capacities(capacities),
        tryWeightReuse(tryWeightReuse), result(result),
        searches(capacities.size()) {}

  bool searchSplit(size_t index, const Split &split);
  llvm::ArrayRef<CapacitySearch> getSearches() const { return searches; }

private:
  void updateUseless();
  void evaluateOne(const SplitCost &cost, const MappingConfig &candidate,
                   const ArrayMapping &array, bool keepReason);
  bool cannotWin(const SplitCost &cost, const ArrayMapping &array) const;
  bool stopAt(double bound);
  void consider(const Split &split, const ArrayMapping &array);

  using Order = CandidateOrder;
  using Search = CapacitySearch;
  const PerformanceModel &model;
  const SearchMode mode;
  const LayerShape &layer;
  const llvm::ArrayRef<double> capacities;
  const bool tryWeightReuse;
  ExplorationResult &result;
  std::vector<Search> searches;
  // Totals above this are of no use to any search still on: above each
  // one's best by isBetter's tolerance (infinity while one has none).
  static constexpr double margin = 1 + 1e-6;
  double useless = std::numeric_limits<double>::infinity();
  uint64_t inSplit = 0;
  size_t splitIndex = 0;
};
} // namespace

void CandidateSearch::updateUseless() {
  useless = 0;
  for (const Search &search : searches) {
    if (search.givenUp)
      continue;
    if (!search.best) {
      useless = std::numeric_limits<double>::infinity();
      return;
    }
    useless = std::max(useless, search.best->cycles.total * margin);
  }
}

/// The candidate `candidate` with `array`, offered to every search still
/// on; a rejection kept as a search's reason with `keepReason`.
void CandidateSearch::evaluateOne(const SplitCost &cost,
                                  const MappingConfig &candidate,
                                  const ArrayMapping &array, bool keepReason) {
  ++result.evaluated;
  Order order{splitIndex, inSplit++};
  std::optional<CandidateCost> figures = cost.evaluate(array);
  if (figures)
    ++result.legal;
  bool improved = false;
  // Searches that hold the same best (one candidate: one order) take the
  // candidate alike: the previous comparison's outcome, and its best.
  std::optional<Order> comparedWith;
  bool taken = false;
  for (size_t c = 0; c < searches.size(); ++c) {
    Search &search = searches[c];
    if (search.givenUp)
      continue;
    if (!figures || figures->scratchpadBytes > capacities[c]) {
      if (keepReason && (!search.anyReason || order > search.reasonOrder)) {
        search.reasonConfig = &candidate;
        search.reasonArray = array;
        search.reasonOrder = order;
        search.anyReason = true;
      }
      continue;
    }
    bool takes = !search.best;
    if (search.best) {
      if (comparedWith != search.bestOrder) {
        comparedWith = search.bestOrder;
        taken = isBetter(*figures, *search.best) ||
                (!isBetter(*search.best, *figures) && order < search.bestOrder);
      }
      takes = taken;
    }
    if (takes) {
      search.best = figures;
      search.bestConfig = &candidate;
      search.bestArray = array;
      search.bestOrder = order;
      improved = true;
    }
  }
  if (improved)
    updateUseless();
}

/// A candidate whose total cannot beat the best so far (the split's
/// terms with this array mapping's PriComp: only its working set is left
/// to check) is not evaluated.
bool CandidateSearch::cannotWin(const SplitCost &cost,
                                const ArrayMapping &array) const {
  return layer.hasPrimary && cost.cycles().totalCycles(array) > useless;
}

/// Whether to stop at a split of `bound`: no search can use it, or only
/// those of smaller capacities that would search beyond their reach (they
/// are given up).
bool CandidateSearch::stopAt(double bound) {
  if (bound > useless)
    return true;
  const Search &first = searches.front();
  if (!first.best ||
      !(bound > first.best->cycles.total * kSmallerCapacitiesReach * margin))
    return false;
  for (Search &search : searches)
    search.givenUp |=
        !search.best || !(bound > search.best->cycles.total * margin);
  updateUseless();
  return true;
}

/// The split's candidates with `array`: without and with weight reuse.
void CandidateSearch::consider(const Split &split, const ArrayMapping &array) {
  if (cannotWin(*split.plain, array)) {
    ++inSplit;
    ++result.pruned;
  } else {
    evaluateOne(*split.plain, split.config, array, /*keepReason=*/true);
  }
  if (!tryWeightReuse)
    return;
  if (cannotWin(*split.reuse, array)) {
    ++inSplit;
    ++result.pruned;
    return;
  }
  evaluateOne(*split.reuse, split.reuseConfig, array, /*keepReason=*/false);
}

/// Every array mapping of split `index`; false (nothing searched) where
/// the search stops at it.
bool CandidateSearch::searchSplit(size_t index, const Split &split) {
  splitIndex = index;
  inSplit = 0;
  if (stopAt(split.bound))
    return false;
  if (!layer.hasPrimary) {
    consider(split, split.config.array);
    return true;
  }
  const DimSizes &coreD = split.plain->cycles().coreD;
  ArrayMapping array;
  for (int row = 0; row < kNumDims; ++row) {
    for (int col = 0; col < kNumDims; ++col) {
      if (row == col)
        continue;
      array.rowDim = Dim(row);
      array.colDim = Dim(col);
      if (mode == SearchMode::Heuristic) {
        // Whole chunks of the array (multiples of P), or all the work if
        // it is smaller.
        array.rowTile = std::min(coreD[row], model.arrayRows());
        array.colTile = std::min(coreD[col], model.arrayColumns());
        consider(split, array);
        continue;
      }
      for (int64_t rowTile :
           DesignSpaceExplorer::usefulTiles(coreD[row], model.arrayRows()))
        for (int64_t colTile : DesignSpaceExplorer::usefulTiles(
                 coreD[col], model.arrayColumns())) {
          array.rowTile = rowTile;
          array.colTile = colTile;
          consider(split, array);
        }
    }
  }
  return true;
}

/// Each of `coreSplits` with `config`, costed (Split).
static std::vector<Split> costSplits(const PerformanceModel &model,
                                     const LayerShape &layer, TrainingPass pass,
                                     const MappingConfig &config,
                                     llvm::ArrayRef<DimSizes> coreSplits,
                                     bool tryWeightReuse) {
  const MemoryDecision &memory = config.memory;
  std::vector<Split> splits;
  splits.reserve(coreSplits.size());
  for (const DimSizes &coreSplit : coreSplits) {
    Split &split = splits.emplace_back(config);
    split.config.coreSplit = coreSplit;
    if (memory.preloadedWeightBytes > 0)
      split.config.memory.preloadedWeightBytes =
          std::min(memory.preloadedWeightBytes,
                   model.weightBytesPerCore(layer, pass, split.config));
    split.plain = model.costSplits(layer, pass, split.config);
    if (layer.hasPrimary)
      split.bound = split.plain->cycles().lowerBound();
    if (tryWeightReuse) {
      split.reuseConfig = split.config;
      split.reuseConfig.memory.weightsAcrossSteps = true;
      split.reuse = model.costSplits(layer, pass, split.reuseConfig);
      split.bound = std::min(split.bound, split.reuse->cycles().lowerBound());
    }
  }
  return splits;
}

/// The indices of `splits` by increasing lower bound, ties in their order.
static std::vector<size_t> splitsByBound(const std::vector<Split> &splits) {
  std::vector<size_t> visit(splits.size());
  for (size_t i = 0; i < visit.size(); ++i)
    visit[i] = i;
  llvm::stable_sort(visit, [&](size_t a, size_t b) {
    return splits[a].bound < splits[b].bound;
  });
  return visit;
}

std::vector<std::optional<ExplorationResult>>
DesignSpaceExplorer::searchCapacities(const LayerShape &layer,
                                      TrainingPass pass,
                                      Parallelism parallelism,
                                      const MemoryDecision &memory,
                                      llvm::ArrayRef<double> capacities,
                                      std::vector<bool> &repeatsLarger) const {
  repeatsLarger.assign(capacities.size(), false);
  // Without a split to search, every capacity has the same result.
  auto same = [&](ExplorationResult &result) {
    std::vector<std::optional<ExplorationResult>> results(capacities.size());
    results.front() = std::move(result);
    repeatsLarger.assign(capacities.size(), true);
    repeatsLarger.front() = false;
    return results;
  };
  ExplorationResult result;
  std::optional<DimSizes> chipSplit =
      model.chipSplit(layer, pass, parallelism, &result.whyNone);
  if (!chipSplit)
    return same(result);
  DimSizes chipD = splitSizes(
      model.spatialPassDims(layer, pass, memory, *chipSplit), *chipSplit);
  std::vector<DimSizes> coreSplits = candidateCoreSplits(layer, pass, chipD);
  if (coreSplits.empty()) {
    result.whyNone = "no split of a chip's work over its " +
                     std::to_string(model.numCores()) +
                     " cores keeps every part non-empty";
    return same(result);
  }

  MappingConfig config;
  config.parallelism = parallelism;
  config.chipSplit = *chipSplit;
  config.memory = memory;
  // Weight reuse across timesteps is a decision of its own for every split:
  // it saves fetches but needs the weights' share in the scratchpad.
  const bool tryWeightReuse = reuseWeightsAcrossSteps && layer.hasPrimary &&
                              layer.hasWeights && layer.timesteps > 1 &&
                              pass != TrainingPass::UPD;
  std::vector<Split> splits =
      costSplits(model, layer, pass, config, coreSplits, tryWeightReuse);

  // Both searches visit their splits by increasing lower bound
  // (SplitCycles::lowerBound: the transfers and auxiliary work do not
  // depend on the array mapping) and stops at the first split whose
  // bound exceeds the best so far by more than isBetter's tolerance: no
  // array mapping of it, or of any later split, can win. Every candidate
  // keeps its place in the plain enumeration order, which breaks exact ties
  // and picks the reason reported when nothing is legal, so the result is
  // the one full enumeration finds. Candidates are compared by their
  // figures alone (SplitCost::evaluate); the winner is evaluated in full,
  // and a rejection explained, once at the end.
  //
  // Each capacity keeps its own best (and reason) over the candidates in
  // the same order, those whose working set it holds, so each is what a
  // search with that scratchpad finds; the model's own capacity is the
  // first and the largest.
  CandidateSearch search(model, mode, layer, capacities, tryWeightReuse,
                         result);
  for (size_t index : splitsByBound(splits))
    if (!search.searchSplit(index, splits[index]))
      break;

  return searchResults(model, layer, pass, capacities, search.getSearches(),
                       result, repeatsLarger);
}
