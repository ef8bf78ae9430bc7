//===- DesignSpaceExplorer.cpp - ChipD -> CoreD -> ArrayD search ----------===//

#include "dsm/Core/Spatial/DesignSpaceExplorer.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>

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
  // partial sums (000 §II-E) -- unless the result is too small to occupy
  // every core.
  DimSet reduction = layer.hasPrimary ? reductionDims(layer, pass) : DimSet();
  std::vector<DimSizes> outputOnly;
  for (const DimSizes &split : legal) {
    bool reduces = false;
    for (int d = 0; d < kNumDims; ++d)
      reduces |= reduction.contains(Dim(d)) && split[d] > 1;
    if (!reduces)
      outputOnly.push_back(split);
  }
  // Principle: balance the work across cores; when the dimensions do not
  // divide, keep the splits with the least imbalance -- or close to it: a
  // few percent more PE-array work can buy a better spread of the auxiliary
  // work or of the transfers.
  auto leastImbalance = [&](const std::vector<DimSizes> &splits) {
    double least = 1e300;
    for (const DimSizes &split : splits)
      least = std::min(least, imbalance(chipD, split));
    return least;
  };
  // A result too unevenly divisible to keep the cores busy (e.g. the 3 x 49
  // x 64 kernel of ResNet-50's conv1 in UPD on 32 cores) is worth a
  // reduction: then reduction splits compete too.
  // Weights kept across timesteps (000 §III-B2) stay in the cores for the
  // whole pass, and every timestep streams the other operand past them:
  // splitting the weights' reduction dimension too shrinks both each core's
  // weight share and its share of the stream through the scratchpad port
  // (the "under-use due to data-flow" of Fig. 13), which can outweigh the
  // partial sums. Recurrent layers are few: their reduction splits compete.
  bool weightsStay = reuseWeightsAcrossSteps && layer.hasPrimary &&
                     layer.hasWeights && layer.timesteps > 1 &&
                     pass != TrainingPass::UPD;
  bool outputOnlyBalances = !weightsStay && !outputOnly.empty() &&
                            leastImbalance(outputOnly) <= kImbalanceTolerance;
  std::vector<DimSizes> &pool = outputOnlyBalances ? outputOnly : legal;
  double least = leastImbalance(pool);
  std::vector<DimSizes> balanced;
  for (const DimSizes &split : pool)
    if (imbalance(chipD, split) <= least * kImbalanceTolerance)
      balanced.push_back(split);
  return balanced;
}

/// Fewer total cycles win. Among configurations that tie -- typically
/// transfer-bound ones, where PriComp hides under the transfers -- prefer the
/// one that computes most efficiently, then the one with the least
/// non-overlapped traffic, then the smallest working set, so the report does
/// not show an arbitrary under-use.
static bool isBetter(const Evaluation &a, const Evaluation &b) {
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

ExplorationResult
DesignSpaceExplorer::explore(const LayerShape &layer, TrainingPass pass,
                             Parallelism parallelism,
                             const MemoryDecision &memory) const {
  ExplorationResult result;
  std::optional<DimSizes> chipSplit =
      model.chipSplit(layer, pass, parallelism, &result.whyNone);
  if (!chipSplit)
    return result;
  DimSizes chipD =
      splitSizes(model.spatialPassDims(layer, pass, memory), *chipSplit);
  std::vector<DimSizes> coreSplits = candidateCoreSplits(layer, pass, chipD);
  if (coreSplits.empty()) {
    result.whyNone = "no split of a chip's work over its " +
                     std::to_string(model.numCores()) +
                     " cores keeps every part non-empty";
    return result;
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
  // Both searches visit their splits by increasing lower bound
  // (SplitCycles::lowerBound: the transfers and auxiliary work do not
  // depend on the array mapping) and stops at the first split whose
  // bound exceeds the best so far by more than isBetter's tolerance: no
  // array mapping of it, or of any later split, can win. Every candidate
  // keeps its place in the plain enumeration order, which breaks exact ties
  // and picks the reason reported when nothing is legal, so the result is
  // the one full enumeration finds.
  using Order = std::pair<size_t, uint64_t>; // (split, candidate within it)
  Order bestOrder, reasonOrder;
  bool anyReason = false;
  uint64_t inSplit = 0;
  size_t splitIndex = 0;
  auto evaluateOne = [&](const MappingConfig &candidate, bool keepReason) {
    ++result.evaluated;
    Order order{splitIndex, inSplit++};
    std::string why;
    std::optional<Evaluation> eval =
        model.evaluate(layer, pass, candidate, &why);
    if (!eval) {
      if (keepReason && (!anyReason || order > reasonOrder)) {
        result.whyNone = std::move(why);
        reasonOrder = order;
        anyReason = true;
      }
      return;
    }
    ++result.legal;
    if (!result.best || isBetter(*eval, *result.best) ||
        (!isBetter(*result.best, *eval) && order < bestOrder)) {
      result.best = std::move(eval);
      bestOrder = order;
    }
  };
  // A candidate whose total cannot beat the best so far (the split's
  // terms with this array mapping's PriComp: only its working set is left
  // to check) is not evaluated.
  auto cannotWin = [&](const std::optional<SplitCycles> &split,
                       const ArrayMapping &array) {
    return split && result.best &&
           split->totalCycles(array) > result.best->cycles.total * (1 + 1e-6);
  };
  std::optional<SplitCycles> plainCycles, reuseCycles;
  auto consider = [&](const MappingConfig &candidate) {
    if (cannotWin(plainCycles, candidate.array)) {
      ++inSplit;
      ++result.pruned;
    } else {
      evaluateOne(candidate, /*keepReason=*/true);
    }
    if (!tryWeightReuse)
      return;
    MappingConfig reuse = candidate;
    reuse.memory.weightsAcrossSteps = true;
    if (cannotWin(reuseCycles, reuse.array)) {
      ++inSplit;
      ++result.pruned;
      return;
    }
    evaluateOne(reuse, /*keepReason=*/false);
  };

  // Each split's configuration (with its preload budget: each split
  // preloads as much of its weights as fits) and, with a primary
  // computation, its terms and bound.
  struct Split {
    MappingConfig config;
    std::optional<SplitCycles> plain, reuse; // with a primary computation
    double bound = 0;
  };
  std::vector<Split> splits;
  for (const DimSizes &coreSplit : coreSplits) {
    Split split{config};
    split.config.coreSplit = coreSplit;
    if (memory.preloadedWeightBytes > 0)
      split.config.memory.preloadedWeightBytes =
          std::min(memory.preloadedWeightBytes,
                   model.weightBytesPerCore(layer, pass, split.config));
    if (layer.hasPrimary) {
      split.plain = model.splitCycles(layer, pass, split.config);
      split.bound = split.plain->lowerBound();
      if (tryWeightReuse) {
        MappingConfig reuse = split.config;
        reuse.memory.weightsAcrossSteps = true;
        split.reuse = model.splitCycles(layer, pass, reuse);
        split.bound = std::min(split.bound, split.reuse->lowerBound());
      }
    }
    splits.push_back(std::move(split));
  }
  std::vector<size_t> visit(splits.size());
  for (size_t i = 0; i < visit.size(); ++i)
    visit[i] = i;
  llvm::stable_sort(visit, [&](size_t a, size_t b) {
    return splits[a].bound < splits[b].bound;
  });

  for (size_t position = 0; position < visit.size(); ++position) {
    splitIndex = visit[position];
    inSplit = 0;
    const Split &split = splits[splitIndex];
    if (result.best && split.bound > result.best->cycles.total * (1 + 1e-6)) {
      break;
    }
    config = split.config;
    plainCycles = split.plain;
    reuseCycles = split.reuse;
    if (!layer.hasPrimary) {
      consider(config);
      continue;
    }
    DimSizes coreD = splitSizes(chipD, config.coreSplit);
    for (int row = 0; row < kNumDims; ++row) {
      for (int col = 0; col < kNumDims; ++col) {
        if (row == col)
          continue;
        config.array.rowDim = Dim(row);
        config.array.colDim = Dim(col);
        if (mode == SearchMode::Heuristic) {
          // Whole chunks of the array (multiples of P), or all the work if
          // it is smaller.
          config.array.rowTile = std::min(coreD[row], model.arrayRows());
          config.array.colTile = std::min(coreD[col], model.arrayColumns());
          consider(config);
          continue;
        }
        for (int64_t rowTile : usefulTiles(coreD[row], model.arrayRows()))
          for (int64_t colTile :
               usefulTiles(coreD[col], model.arrayColumns())) {
            config.array.rowTile = rowTile;
            config.array.colTile = colTile;
            consider(config);
          }
      }
    }
  }
  if (result.best)
    result.whyNone.clear();
  return result;
}
