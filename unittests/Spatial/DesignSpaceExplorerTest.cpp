//===- DesignSpaceExplorerTest.cpp - ChipD -> CoreD -> ArrayD search ------===//

#include "dsm/Core/Spatial/DesignSpaceExplorer.h"
#include "dsm/Core/System/SystemLoader.h"

#include "TestHelpers.h"

#include <gtest/gtest.h>

using namespace dsm::core;
using dsm::core::testing::convLayer;
using dsm::core::testing::lstmLayer;
using dsm::core::testing::multiChipPreset;

namespace {

TEST(DesignSpaceExplorerTest, FactorizationsCoverEveryOrderedSplit) {
  // 32 = 2^5: five factors of 2 over five dimensions, C(9, 4) ways.
  std::vector<DimSizes> splits = DesignSpaceExplorer::factorizations(32);
  EXPECT_EQ(splits.size(), 126u);
  for (const DimSizes &s : splits)
    EXPECT_EQ(product(s), 32);
  // 6 = 2 x 3: 5 places for each prime.
  EXPECT_EQ(DesignSpaceExplorer::factorizations(6).size(), 25u);
  EXPECT_EQ(DesignSpaceExplorer::factorizations(1).size(), 1u);
}

TEST(DesignSpaceExplorerTest, FactorizationsOfHugeCountsStayCheap) {
  // A prime core count has only the five ways of putting it on one
  // dimension; trial division up to the count itself would run for minutes.
  EXPECT_EQ(DesignSpaceExplorer::factorizations(2147483647).size(), 5u);
  // 2^32 = 32 factors of 2 over five dimensions: C(36, 4) splits.
  std::vector<DimSizes> splits =
      DesignSpaceExplorer::factorizations(int64_t(1) << 32);
  EXPECT_EQ(splits.size(), 58905u);
  EXPECT_EQ(product(splits.back()), int64_t(1) << 32);
  EXPECT_TRUE(DesignSpaceExplorer::factorizations(0).empty());
}

TEST(DesignSpaceExplorerTest, UsefulTilesAreTheSmallestPerChunkCount) {
  EXPECT_EQ(DesignSpaceExplorer::usefulTiles(48, 32),
            (std::vector<int64_t>{24, 16, 12, 10, 8, 7, 6, 5, 4, 3, 2, 1}));
  EXPECT_EQ(DesignSpaceExplorer::usefulTiles(5, 32),
            (std::vector<int64_t>{5, 3, 2, 1}));
  EXPECT_EQ(DesignSpaceExplorer::usefulTiles(1, 32), (std::vector<int64_t>{1}));
}

TEST(DesignSpaceExplorerTest, HeuristicSplitsOnlyTheResultWhenItCan) {
  PerformanceModel model(multiChipPreset("dsm-8pf-asym"));
  DesignSpaceExplorer heuristic(model, SearchMode::Heuristic);
  DesignSpaceExplorer exhaustive(model, SearchMode::Exhaustive);
  LayerShape layer = convLayer(256, 256, 3136, 9, 512);
  DimSizes chipD = splitSizes(layer.dims, {1, 1, 1, 1, 64});
  std::vector<DimSizes> pruned =
      heuristic.candidateCoreSplits(layer, TrainingPass::FWD, chipD);
  ASSERT_FALSE(pruned.empty());
  for (const DimSizes &s : pruned) {
    // FWD reduces over in and kij: the heuristic leaves them whole.
    EXPECT_EQ(s[int(Dim::In)], 1);
    EXPECT_EQ(s[int(Dim::KIJ)], 1);
  }
  EXPECT_LT(
      pruned.size(),
      exhaustive.candidateCoreSplits(layer, TrainingPass::FWD, chipD).size());
  // UPD reduces over ij and mb instead.
  for (const DimSizes &s :
       heuristic.candidateCoreSplits(layer, TrainingPass::UPD, chipD)) {
    EXPECT_EQ(s[int(Dim::IJ)], 1);
    EXPECT_EQ(s[int(Dim::MB)], 1);
  }
}

TEST(DesignSpaceExplorerTest, HeuristicPrefersBalancedSplits) {
  PerformanceModel model(multiChipPreset("dsm-8pf-asym"));
  DesignSpaceExplorer heuristic(model, SearchMode::Heuristic);
  // 7x7 = 49 pixels and 8 samples per chip.
  LayerShape layer = convLayer(512, 512, 49, 9, 512);
  DimSizes chipD = splitSizes(layer.dims, {1, 1, 1, 1, 64});
  std::vector<DimSizes> splits =
      heuristic.candidateCoreSplits(layer, TrainingPass::FWD, chipD);
  auto imbalance = [&](const DimSizes &s) {
    double r = 1;
    for (int d = 0; d < kNumDims; ++d)
      r *= double((chipD[d] + s[d] - 1) / s[d] * s[d]) / double(chipD[d]);
    return r;
  };
  // Balanced splits exist (of out and mb), so splits of the 49 pixels are
  // kept only when nearly as balanced (ij:4 works on 52 pixels: 6% more).
  bool anyBalanced = false;
  for (const DimSizes &s : splits) {
    anyBalanced |= imbalance(s) == 1.0;
    EXPECT_LE(imbalance(s), 1.10);
    EXPECT_LE(s[int(Dim::IJ)], 4) << "splitting 49 pixels 8 ways wastes 14%";
  }
  EXPECT_TRUE(anyBalanced);
}

TEST(DesignSpaceExplorerTest, HeuristicReducesWhenTheResultCannotBalance) {
  PerformanceModel model(multiChipPreset("dsm-8pf-asym"));
  DesignSpaceExplorer heuristic(model, SearchMode::Heuristic);
  // ResNet-50's conv1 in UPD under model parallelism: each chip's kernel
  // share is 3 x 1 x 49, which no split over 32 cores divides within 10%
  // (3 x 49 = 147 is odd), so the cores also split the reduction (pixels,
  // samples) and accumulate partial sums.
  LayerShape layer = convLayer(3, 64, 12544, 49, 512);
  DimSizes chipD = splitSizes(layer.dims, {1, 64, 1, 1, 1});
  bool anyReduction = false;
  for (const DimSizes &s :
       heuristic.candidateCoreSplits(layer, TrainingPass::UPD, chipD))
    anyReduction |= s[int(Dim::IJ)] > 1 || s[int(Dim::MB)] > 1;
  EXPECT_TRUE(anyReduction);
}

TEST(DesignSpaceExplorerTest, HeuristicMatchesExhaustiveOnTypicalLayers) {
  PerformanceModel model(multiChipPreset("dsm-8pf-asym"));
  DesignSpaceExplorer heuristic(model, SearchMode::Heuristic);
  DesignSpaceExplorer exhaustive(model, SearchMode::Exhaustive);
  LayerShape layers[] = {convLayer(3, 64, 50176, 9, 512),
                         convLayer(256, 256, 3136, 9, 512),
                         convLayer(512, 2048, 49, 1, 512)};
  for (const LayerShape &layer : layers)
    for (TrainingPass pass :
         {TrainingPass::FWD, TrainingPass::BWD, TrainingPass::UPD}) {
      ExplorationResult h = heuristic.explore(layer, pass, Parallelism::Data);
      ExplorationResult e = exhaustive.explore(layer, pass, Parallelism::Data);
      ASSERT_TRUE(h.best && e.best);
      EXPECT_LE(e.best->cycles.total, h.best->cycles.total);
      EXPECT_LE(h.best->cycles.total, 1.01 * e.best->cycles.total);
      // (The exhaustive search may evaluate fewer configurations than the
      // heuristic: it prunes those that cannot beat its best.)
    }
}

TEST(DesignSpaceExplorerTest, KeepsLstmWeightsWhenTheyFit) {
  // A GNMT-sized LSTM step (1024 hidden: in 2048, out 4096 gates) at
  // minibatch 512 over 128 timesteps under ModelXDataY: each chip holds 1/4
  // of the 8M weights, each core 1/32 of that (128 KiB), which fits 1 MiB.
  PerformanceModel model(multiChipPreset("dsm-8pf-asym"));
  LayerShape lstm = lstmLayer(2048, 4096, 512, 128);
  DesignSpaceExplorer off(model, SearchMode::Heuristic);
  DesignSpaceExplorer on(model, SearchMode::Heuristic,
                         /*reuseWeightsAcrossSteps=*/true);
  ExplorationResult a =
      off.explore(lstm, TrainingPass::FWD, Parallelism::ModelXDataY);
  ExplorationResult b =
      on.explore(lstm, TrainingPass::FWD, Parallelism::ModelXDataY);
  ASSERT_TRUE(a.best && b.best);
  EXPECT_FALSE(a.best->config.memory.weightsAcrossSteps);
  EXPECT_TRUE(b.best->config.memory.weightsAcrossSteps);
  EXPECT_LT(b.best->cycles.total, a.best->cycles.total);
  // UPD sums over the timesteps at once: nothing to keep across them.
  ExplorationResult u =
      on.explore(lstm, TrainingPass::UPD, Parallelism::ModelXDataY);
  ASSERT_TRUE(u.best);
  EXPECT_FALSE(u.best->config.memory.weightsAcrossSteps);
}

TEST(DesignSpaceExplorerTest, ExplainsWhenNothingIsLegal) {
  PerformanceModel model(multiChipPreset("dsm-8pf-asym"));
  DesignSpaceExplorer explorer(model, SearchMode::Heuristic);
  // A minibatch of 8 cannot be spread over 64 chips.
  ExplorationResult r = explorer.explore(convLayer(64, 64, 3136, 9, 8),
                                         TrainingPass::FWD, Parallelism::Data);
  EXPECT_FALSE(r.best.has_value());
  EXPECT_NE(r.whyNone.find("splits 'mb' 64 ways but it has only 8"),
            std::string::npos)
      << r.whyNone;
}

TEST(DesignSpaceExplorerTest, DeterministicChoice) {
  PerformanceModel model(multiChipPreset("dsm-8pf-sym"));
  DesignSpaceExplorer explorer(model, SearchMode::Exhaustive);
  LayerShape layer = convLayer(128, 128, 12544, 9, 256);
  ExplorationResult a =
      explorer.explore(layer, TrainingPass::BWD, Parallelism::Data);
  ExplorationResult b =
      explorer.explore(layer, TrainingPass::BWD, Parallelism::Data);
  ASSERT_TRUE(a.best && b.best);
  EXPECT_EQ(a.best->config.coreSplit, b.best->config.coreSplit);
  EXPECT_EQ(a.best->config.array, b.best->config.array);
}

} // namespace

namespace {
/// A 2 x 2 torus of 4-core chips with 4 x 4 PE arrays and 4 KiB
/// scratchpads: small enough to enumerate, tight enough that capacity
/// rejects mappings.
MultiChipSystem smallSystem() {
  MultiChipSystem system = multiChipPreset("dsm-8pf-asym");
  system.chips = 4;
  system.torus.x.size = system.torus.y.size = 2;
  system.chip.cores = 4;
  system.chip.core.macsPerCycle = 16;
  system.chip.core.peRows = system.chip.core.peColumns = 4;
  system.chip.core.scratchpad.capacityBytes = 4096;
  return system;
}

/// Every configuration the exhaustive search would enumerate for `layer`
/// (all core splits, dimension pairs and useful tiles, with and without
/// weight reuse across timesteps), evaluated one by one: the plain
/// enumeration the pruned search must agree with.
std::vector<Evaluation> enumerateAll(const PerformanceModel &model,
                                     const LayerShape &layer, TrainingPass pass,
                                     Parallelism p) {
  std::vector<Evaluation> all;
  std::optional<DimSizes> chipSplit = model.chipSplit(layer, pass, p);
  if (!chipSplit)
    return all;
  DimSizes chipD = splitSizes(model.passDims(layer, pass), *chipSplit);
  for (const DimSizes &coreSplit :
       DesignSpaceExplorer::factorizations(model.numCores())) {
    MappingConfig config;
    config.parallelism = p;
    config.chipSplit = *chipSplit;
    config.coreSplit = coreSplit;
    DimSizes coreD = splitSizes(chipD, coreSplit);
    for (int row = 0; row < kNumDims; ++row)
      for (int col = 0; col < kNumDims; ++col) {
        if (row == col)
          continue;
        config.array.rowDim = Dim(row);
        config.array.colDim = Dim(col);
        for (int64_t rowTile :
             DesignSpaceExplorer::usefulTiles(coreD[row], model.arrayRows()))
          for (int64_t colTile : DesignSpaceExplorer::usefulTiles(
                   coreD[col], model.arrayColumns()))
            for (bool reuse : {false, true}) {
              config.array.rowTile = rowTile;
              config.array.colTile = colTile;
              config.memory.weightsAcrossSteps = reuse;
              if (std::optional<Evaluation> eval =
                      model.evaluate(layer, pass, config))
                all.push_back(*eval);
            }
      }
  }
  return all;
}
} // namespace

TEST(DesignSpaceExplorerTest, SplitCyclesBoundEveryArrayMapping) {
  // The pruning's premise: a split's transfers and auxiliary work do not
  // depend on the array mapping, so SplitCycles gives each mapping's total
  // exactly and a bound below all of them.
  PerformanceModel model(smallSystem());
  LayerShape layers[] = {convLayer(16, 32, 64, 9, 8),
                         convLayer(3, 8, 256, 9, 4)};
  int checked = 0;
  for (const LayerShape &layer : layers)
    for (TrainingPass pass :
         {TrainingPass::FWD, TrainingPass::BWD, TrainingPass::UPD})
      for (Parallelism p : {Parallelism::Data, Parallelism::Model})
        for (const Evaluation &eval : enumerateAll(model, layer, pass, p)) {
          SplitCycles split = model.splitCycles(layer, pass, eval.config);
          EXPECT_NEAR(split.totalCycles(eval.config.array), eval.cycles.total,
                      1e-9 * eval.cycles.total);
          EXPECT_LE(split.lowerBound(), eval.cycles.total * (1 + 1e-12));
          ++checked;
        }
  EXPECT_GT(checked, 1000);
}

TEST(DesignSpaceExplorerTest, ComputeBoundHoldsWhateverTheMemory) {
  // What lets the mapper skip a block of the torus unexplored: no memory
  // decision (data on chip, preloaded weights, weights kept across steps)
  // and no smaller scratchpad brings a pass below its compute bound, taken
  // with the DySM factor alone.
  MultiChipSystem system = multiChipPreset("dsm-8pf-asym");
  MultiChipSystem small = system;
  small.chip.core.scratchpad.capacityBytes /= 8;
  PerformanceModel full(system), reduced(small);
  DesignSpaceExplorer bounds(full, SearchMode::Heuristic);
  LayerShape layers[] = {
      convLayer(256, 256, 3136, 9, 512), convLayer(3, 64, 50176, 9, 64),
      convLayer(4096, 1000, 1, 1, 8), lstmLayer(1024, 4096, 128, 50)};
  int checked = 0;
  for (const PerformanceModel *model : {&full, &reduced})
    for (bool reuse : {false, true}) {
      DesignSpaceExplorer explorer(*model, SearchMode::Heuristic, reuse);
      for (const LayerShape &layer : layers)
        for (TrainingPass pass :
             {TrainingPass::FWD, TrainingPass::BWD, TrainingPass::UPD})
          for (Parallelism p : {Parallelism::Data, Parallelism::Model,
                                Parallelism::DataXModelY})
            for (int64_t factor : {1, 2}) {
              MemoryDecision plain;
              plain.spatialMinibatches = factor;
              const double bound = bounds.computeBound(layer, pass, p, plain);
              std::vector<MemoryDecision> decisions(1, plain);
              if (pass == TrainingPass::FWD) {
                decisions.push_back(plain);
                decisions.back().inputOnChip = true;
                decisions.push_back(plain);
                decisions.back().preloadedWeightBytes =
                    explorer.largestWeightShare(layer, pass, p, plain);
              }
              for (const MemoryDecision &memory : decisions) {
                ExplorationResult r = explorer.explore(layer, pass, p, memory);
                if (!r.best)
                  continue;
                EXPECT_GT(bound, 0);
                EXPECT_LE(bound, r.best->cycles.total * (1 + 1e-12))
                    << layer.name << " " << stringifyTrainingPass(pass).str()
                    << " " << stringifyParallelism(p).str() << " x" << factor;
                ++checked;
              }
            }
    }
  EXPECT_GT(checked, 100);
}

TEST(DesignSpaceExplorerTest, SplitCostIsEvaluateToTheBit) {
  // The searches compare candidates by SplitCost::evaluate and evaluate
  // only the winner in full: both must accept the same configurations and
  // give the same figures, bit for bit, legal splits or not (core splits
  // larger than the work, tiles larger than the array, memory decisions
  // the layer cannot take, working sets that do not fit).
  PerformanceModel model(smallSystem());
  LayerShape layers[] = {convLayer(16, 32, 64, 9, 8),
                         convLayer(3, 8, 256, 9, 4), lstmLayer(96, 128, 8, 6)};
  std::vector<MemoryDecision> memories(5);
  memories[1].weightsAcrossSteps = true;
  memories[2].inputOnChip = true;
  memories[3].errorOnChip = true;
  memories[4].spatialMinibatches = 2;
  int accepted = 0, rejected = 0;
  for (const LayerShape &layer : layers)
    for (TrainingPass pass :
         {TrainingPass::FWD, TrainingPass::BWD, TrainingPass::UPD})
      for (Parallelism p : {Parallelism::Data, Parallelism::Model})
        for (const MemoryDecision &memory : memories) {
          std::optional<DimSizes> chipSplit = model.chipSplit(layer, pass, p);
          if (!chipSplit)
            continue;
          DimSizes coreD =
              splitSizes(model.spatialPassDims(layer, pass, memory, *chipSplit),
                         *chipSplit);
          for (const DimSizes &coreSplit :
               DesignSpaceExplorer::factorizations(model.numCores())) {
            MappingConfig config;
            config.parallelism = p;
            config.chipSplit = *chipSplit;
            config.coreSplit = coreSplit;
            config.memory = memory;
            SplitCost split = model.costSplits(layer, pass, config);
            DimSizes work = splitSizes(coreD, coreSplit);
            for (int row = 0; row < kNumDims; ++row)
              for (int col = 0; col < kNumDims; ++col)
                for (int64_t rowTile : {int64_t(1), work[row], int64_t(5)})
                  for (int64_t colTile : {int64_t(1), work[col]}) {
                    config.array = {Dim(row), Dim(col), rowTile, colTile};
                    std::optional<CandidateCost> cost =
                        split.evaluate(config.array);
                    std::optional<Evaluation> eval =
                        model.evaluate(layer, pass, config);
                    ASSERT_EQ(cost.has_value(), eval.has_value());
                    if (!eval) {
                      ++rejected;
                      continue;
                    }
                    ++accepted;
                    for (int k = 0; k < kNumCycleCategories; ++k)
                      EXPECT_EQ(cost->cycles.get(CycleCategory(k)),
                                eval->cycles.get(CycleCategory(k)));
                    EXPECT_EQ(cost->cycles.total, eval->cycles.total);
                    EXPECT_EQ(cost->ovldt, eval->ovldt);
                    EXPECT_EQ(cost->scratchpadBytes, eval->scratchpadBytes);
                  }
          }
        }
  EXPECT_GT(accepted, 1000);
  EXPECT_GT(rejected, 1000);
}

TEST(DesignSpaceExplorerTest, PrunedExhaustiveSearchFindsTheEnumerationsBest) {
  PerformanceModel model(smallSystem());
  DesignSpaceExplorer exhaustive(model, SearchMode::Exhaustive,
                                 /*reuseWeightsAcrossSteps=*/true);
  LayerShape lstm = lstmLayer(96, 128, 8, 6);
  LayerShape layers[] = {convLayer(16, 32, 64, 9, 8),
                         convLayer(3, 8, 256, 9, 4), lstm};
  uint64_t pruned = 0;
  for (const LayerShape &layer : layers)
    for (TrainingPass pass :
         {TrainingPass::FWD, TrainingPass::BWD, TrainingPass::UPD})
      for (Parallelism p : {Parallelism::Data, Parallelism::Model}) {
        std::vector<Evaluation> all = enumerateAll(model, layer, pass, p);
        ExplorationResult result = exhaustive.explore(layer, pass, p);
        ASSERT_EQ(all.empty(), !result.best);
        if (all.empty())
          continue;
        double best = all.front().cycles.total;
        for (const Evaluation &eval : all)
          best = std::min(best, eval.cycles.total);
        EXPECT_DOUBLE_EQ(result.best->cycles.total, best);
        pruned += result.pruned;
      }
  EXPECT_GT(pruned, 0u);
}

namespace {

TEST(DesignSpaceExplorerTest, OneSearchFindsEachCapacitysBest) {
  // A preloading sweep's scratchpads, from the model's down to an eighth,
  // and smaller ones: each result of the one search is, to the bit, the
  // search with that scratchpad, its reason when nothing fits included --
  // or none, where the search gave a small scratchpad up.
  const MultiChipSystem system = multiChipPreset("dsm-8pf-asym");
  const double full = system.chip.core.scratchpad.capacityBytes;
  std::vector<double> capacities;
  for (int step = 0; step < 8; ++step)
    capacities.push_back(full - full / 8 * step);
  // And scratchpads so small that their best is far from the model's.
  for (int fraction : {16, 32, 64, 128})
    capacities.push_back(full / fraction);
  LayerShape shortcut = convLayer(256, 256, 3136, 9, 64, "shortcut");
  shortcut.auxInputsPerOutput = 1;
  const LayerShape layers[] = {convLayer(64, 64, 3136, 9, 512, "early"),
                               convLayer(512, 2048, 49, 1, 512, "late"),
                               convLayer(256, 16, 784, 1, 512, "narrow"),
                               convLayer(128, 16, 784, 9, 512, "thin"),
                               shortcut,
                               lstmLayer(1024, 4096, 64, 1)};
  MemoryDecision plain, onChip, preloaded;
  onChip.inputOnChip = true;
  preloaded.preloadedWeightBytes = 96 * 1024;
  PerformanceModel model(system);
  DesignSpaceExplorer explorer(model, SearchMode::Heuristic);
  int compared = 0, givenUp = 0, none = 0;
  for (const LayerShape &layer : layers)
    for (int q = 0; q < kNumParallelisms; ++q)
      for (const MemoryDecision &memory : {plain, onChip, preloaded}) {
        const Parallelism p = Parallelism(q);
        std::vector<std::shared_ptr<const ExplorationResult>> all =
            explorer.exploreCapacities(layer, TrainingPass::FWD, p, memory,
                                       capacities);
        ASSERT_EQ(all.size(), capacities.size());
        for (size_t c = 0; c < capacities.size(); ++c) {
          if (!all[c]) {
            ASSERT_GT(c, 0u);
            ++givenUp;
            continue;
          }
          MultiChipSystem reduced = system;
          reduced.chip.core.scratchpad.capacityBytes = capacities[c];
          PerformanceModel smaller(reduced);
          ExplorationResult alone =
              DesignSpaceExplorer(smaller, SearchMode::Heuristic)
                  .explore(layer, TrainingPass::FWD, p, memory);
          ASSERT_EQ(bool(all[c]->best), bool(alone.best));
          ++compared;
          if (!alone.best) {
            EXPECT_EQ(all[c]->whyNone, alone.whyNone);
            ++none;
            continue;
          }
          const MappingConfig &a = all[c]->best->config,
                              &b = alone.best->config;
          EXPECT_TRUE(a.coreSplit == b.coreSplit && a.array == b.array &&
                      a.memory == b.memory);
          EXPECT_EQ(all[c]->best->cycles.total, alone.best->cycles.total);
          EXPECT_EQ(all[c]->best->scratchpadBytes, alone.best->scratchpadBytes);
        }
        // The first result is explore()'s; it counts the whole search.
        ExplorationResult first =
            explorer.explore(layer, TrainingPass::FWD, p, memory);
        ASSERT_EQ(bool(first.best), bool(all.front()->best));
        EXPECT_GE(all.front()->evaluated, first.evaluated);
      }
  EXPECT_GT(compared, 150);
  EXPECT_GT(none, 0);
  EXPECT_GT(givenUp, 0);
}

} // namespace
