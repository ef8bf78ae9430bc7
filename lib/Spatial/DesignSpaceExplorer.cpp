//===- DesignSpaceExplorer.cpp - ChipD -> CoreD -> ArrayD search ----------===//

#include "dsm/Core/Spatial/DesignSpaceExplorer.h"

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
  bool outputOnlyBalances =
      !outputOnly.empty() && leastImbalance(outputOnly) <= kImbalanceTolerance;
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
  auto evaluateOne = [&](const MappingConfig &candidate, bool keepReason) {
    ++result.evaluated;
    std::string why;
    std::optional<Evaluation> eval =
        model.evaluate(layer, pass, candidate, &why);
    if (!eval) {
      if (keepReason)
        result.whyNone = std::move(why);
      return;
    }
    ++result.legal;
    if (!result.best || isBetter(*eval, *result.best))
      result.best = std::move(eval);
  };
  auto consider = [&](const MappingConfig &candidate) {
    evaluateOne(candidate, /*keepReason=*/true);
    if (!tryWeightReuse)
      return;
    MappingConfig reuse = candidate;
    reuse.memory.weightsAcrossSteps = true;
    evaluateOne(reuse, /*keepReason=*/false);
  };

  for (const DimSizes &coreSplit : coreSplits) {
    config.coreSplit = coreSplit;
    // A preload budget: each split preloads as much of its weights as fits.
    if (memory.preloadedWeightBytes > 0)
      config.memory.preloadedWeightBytes =
          std::min(memory.preloadedWeightBytes,
                   model.weightBytesPerCore(layer, pass, config));
    if (!layer.hasPrimary) {
      consider(config);
      continue;
    }
    DimSizes coreD = splitSizes(chipD, coreSplit);
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
