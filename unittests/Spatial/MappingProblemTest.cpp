//===- MappingProblemTest.cpp - The problem the spatial mapper solves -----===//

#include "dsm/Core/Spatial/MappingProblem.h"
#include "dsm/Core/Spatial/SpatialMapper.h"

#include "TestHelpers.h"

#include "dsm/Core/Support/NodeError.h"

#include <gtest/gtest.h>

#include <memory>

using namespace dsm::core;
using dsm::core::testing::convLayer;
using dsm::core::testing::multiChipPreset;

namespace {

/// conv "a" -> conv "b" -> conv "c", with a shortcut a -> c.
LayerGraph chainWithShortcut(bool training) {
  LayerGraph g;
  g.layers = {{convLayer(64, 64, 196, 9, 64, "a")},
              {convLayer(64, 64, 196, 9, 64, "b")},
              {convLayer(64, 64, 196, 9, 64, "c")}};
  double x = 64.0 * 196 * 64;
  g.edges = {{0, 1, x}, {1, 2, x}, {0, 2, x}};
  g.assignTrainingPasses(training);
  return g;
}

TEST(LayerGraphTest, EdgesMustGoForward) {
  LayerGraph g = chainWithShortcut(false);
  EXPECT_FALSE(static_cast<bool>(g.check()));
  g.edges.push_back({2, 1, 1.0});
  llvm::Error error = g.check();
  ASSERT_TRUE(static_cast<bool>(error));
  EXPECT_EQ(llvm::toString(std::move(error)),
            "layer graph edges must go forward between existing layers");
  g.edges.back() = {1, 3, 1.0}; // there is no layer 3
  llvm::Error missing = g.check();
  EXPECT_TRUE(static_cast<bool>(missing));
  llvm::consumeError(std::move(missing));
}

TEST(LayerGraphTest, ActivationsLiveUntilTheirLastReader) {
  // Inference: a's output lives until c's FWD (step 2), b's until c's.
  LayerGraph inference = chainWithShortcut(false);
  std::vector<LiveRange> ranges = inference.activationLiveRanges();
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(ranges[0].producer, 0);
  EXPECT_EQ(ranges[0].firstStep, 0);
  EXPECT_EQ(ranges[0].lastStep, 2);
  EXPECT_EQ(ranges[1].producer, 1);
  EXPECT_EQ(ranges[1].lastStep, 2);

  // Training: FWD a b c (steps 0-2), then backward c b a (steps 3-5). a's
  // output is read again by b's UPD (step 4), the earliest consumer's
  // backward passes; b's by c's (step 3).
  LayerGraph training = chainWithShortcut(true);
  ranges = training.activationLiveRanges();
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(training.backwardStep(1), 4);
  EXPECT_EQ(ranges[0].lastStep, training.backwardStep(1));
  EXPECT_EQ(ranges[1].lastStep, training.backwardStep(2));
  EXPECT_EQ(ranges[1].firstStep, training.forwardStep(1));
}

TEST(MappingProblemTest, OptionsAreAParallelismWithADySMFactor) {
  MultiChipSystem system = multiChipPreset("dsm-8pf-asym");
  PerformanceModel model(system);
  LayerGraph g = chainWithShortcut(false);
  MapperOptions options;
  options.spatialMinibatching = true;
  llvm::Expected<MappingProblem> problem =
      MappingProblem::create(model, g, options, {});
  ASSERT_TRUE(static_cast<bool>(problem))
      << llvm::toString(problem.takeError());
  EXPECT_EQ(problem->numOptions(), kNumParallelisms * 4);
  for (int o = 0; o < problem->numOptions(); ++o) {
    EXPECT_EQ(int(problem->parallelismOf(o)), o % kNumParallelisms);
    EXPECT_EQ(problem->factorOf(o), int64_t(1) << (o / kNumParallelisms));
  }
  EXPECT_EQ(problem->incoming(2).size(), 2u);
  EXPECT_EQ(problem->outgoing(0).size(), 2u);
  EXPECT_TRUE(problem->inferenceOnly());

  // A graph whose edges do not all go forward is no problem to solve.
  LayerGraph backwards = g;
  backwards.edges.push_back({2, 0, 1.0});
  llvm::Expected<MappingProblem> bad =
      MappingProblem::create(model, backwards, options, {});
  EXPECT_FALSE(static_cast<bool>(bad));
  llvm::consumeError(bad.takeError());
}

TEST(MappingProblemTest, ANamedParallelismBindsTheLayersWithWeights) {
  // dsm-8pf-asym: 4 x 16 chips. Data parallelism splits the minibatch 64
  // ways.
  MultiChipSystem system = multiChipPreset("dsm-8pf-asym");
  PerformanceModel model(system);
  LayerGraph g;
  LayerShape noMinibatch = convLayer(64, 64, 196, 1, 1, "position");
  LayerShape small = convLayer(64, 64, 196, 1, 16, "small");
  LayerShape weightless = convLayer(64, 64, 196, 1, 64, "product");
  weightless.hasWeights = false;
  g.layers = {{convLayer(64, 64, 196, 9, 64, "a")},
              {noMinibatch},
              {small},
              {weightless}};
  g.edges = {{0, 2, 1.0}, {1, 2, 1.0}, {2, 3, 1.0}};
  g.assignTrainingPasses(false);
  MapperOptions options;
  options.namedParallelism = Parallelism::Data;
  llvm::Expected<MappingProblem> problem =
      MappingProblem::create(model, g, options, {});
  ASSERT_TRUE(static_cast<bool>(problem))
      << llvm::toString(problem.takeError());
  auto usable = [&](int layer) {
    std::vector<Parallelism> ps;
    for (int o = 0; o < kNumParallelisms; ++o)
      if (problem->usable(layer, o))
        ps.push_back(problem->parallelismOf(o));
    return ps;
  };
  const std::vector<Parallelism> all = {Parallelism::Data, Parallelism::Model,
                                        Parallelism::DataXModelY,
                                        Parallelism::ModelXDataY};
  // A layer it splits takes it alone.
  EXPECT_EQ(usable(0), std::vector<Parallelism>{Parallelism::Data});
  // A layer without a minibatch falls back to any.
  EXPECT_EQ(usable(1), all);
  // A minibatch too small for it (a pipeline's microbatch) does not: the
  // layer keeps only the named parallelism, which is not legal there.
  EXPECT_EQ(usable(2), std::vector<Parallelism>{Parallelism::Data});
  // A layer without weights takes any.
  EXPECT_EQ(usable(3), all);
}

TEST(MappingProblemTest, DegreesNameAParallelism) {
  // A stage of 8 x 16 chips (a100-80g-1024 in 8 stages).
  EXPECT_EQ(degreesOf(Parallelism::ModelXDataY, 8, 16),
            (ParallelismDegrees{8, 16}));
  EXPECT_EQ(degreesOf(Parallelism::DataXModelY, 8, 16),
            (ParallelismDegrees{16, 8}));
  EXPECT_EQ(degreesOf(Parallelism::Model, 8, 16), (ParallelismDegrees{128, 1}));
  EXPECT_EQ(degreesOf(Parallelism::Data, 8, 16), (ParallelismDegrees{1, 128}));
  auto of = [](int64_t columns, int64_t rows, int64_t tensor, int64_t data) {
    llvm::Expected<Parallelism> p =
        parallelismOfDegrees(columns, rows, tensor, data);
    if (!p)
      return llvm::toString(p.takeError());
    return stringifyParallelism(*p).str();
  };
  EXPECT_EQ(of(8, 16, 8, 16), "model_x_data_y");
  EXPECT_EQ(of(8, 16, 8, 0), "model_x_data_y");
  EXPECT_EQ(of(8, 16, 0, 8), "data_x_model_y");
  EXPECT_EQ(of(8, 16, 128, 0), "model");
  EXPECT_EQ(of(8, 16, 1, 128), "data");
  EXPECT_EQ(of(8, 16, 4, 32),
            "tensor=4 data=32 on 8 x 16 chips: the degrees of tensor x data "
            "parallelism there are 8 x 16 (model_x_data_y), 16 x 8 "
            "(data_x_model_y), 128 x 1 (model), 1 x 128 (data)");
  // A square stage: both hybrids have the degrees.
  EXPECT_EQ(of(8, 8, 8, 8), "tensor=8 data=8 on 8 x 8 chips is "
                            "model_x_data_y or data_x_model_y: name one with "
                            "parallelism=");
  // One row: no hybrid; tensor 1 is data parallelism.
  EXPECT_EQ(of(8, 1, 1, 8), "data");
}

TEST(MappingProblemTest, VariantsAreExploredOncePerShape) {
  MultiChipSystem system = multiChipPreset("dsm-8pf-asym");
  PerformanceModel model(system);
  LayerGraph g = chainWithShortcut(false);
  MapperOptions options;
  llvm::Expected<MappingProblem> problem =
      MappingProblem::create(model, g, options, {});
  ASSERT_TRUE(static_cast<bool>(problem));
  ExplorationTable table(*problem);
  // a, b and c have one shape: the plain explorations run once; the
  // variant with the input on chip is another exploration, shared by b and
  // c; asking twice is served from the memo.
  for (int layer = 0; layer < 3; ++layer)
    table.request(layer, TrainingPass::FWD, 0, OnChip::Nothing);
  table.request(1, TrainingPass::FWD, 0, OnChip::Own);
  table.request(2, TrainingPass::FWD, 0, OnChip::Own);
  table.request(2, TrainingPass::FWD, 0, OnChip::Own);
  SerialExecutor serial;
  ExplorationProgress progress(Progress::none(), 1);
  ASSERT_FALSE(static_cast<bool>(table.run(serial, progress)));
  EXPECT_EQ(table.explorations(), 2u);
  EXPECT_EQ(table.memoized(), 4u);
  const Evaluation *plain = table.best(1, TrainingPass::FWD, 0);
  const Evaluation *onChip = table.best(1, TrainingPass::FWD, 0, OnChip::Own);
  ASSERT_TRUE(plain && onChip);
  EXPECT_FALSE(plain->config.memory.inputOnChip);
  EXPECT_TRUE(onChip->config.memory.inputOnChip);
  EXPECT_EQ(table.find(0, TrainingPass::FWD, 0, OnChip::Own), nullptr);
  EXPECT_EQ(table.find(0, TrainingPass::FWD, 1), nullptr);
  EXPECT_EQ(table.best(2, TrainingPass::FWD, 0, OnChip::Own), onChip);
  // Layers that asked alike share a row: the plain one of all three, the
  // one with the input on chip of b and c; a never asked for it.
  EXPECT_EQ(table.numRows(), 2u);
  const int32_t plainRow =
      table.rowNumber(0, TrainingPass::FWD, OnChip::Nothing);
  EXPECT_EQ(table.rowNumber(1, TrainingPass::FWD, OnChip::Nothing), plainRow);
  EXPECT_EQ(table.rowNumber(2, TrainingPass::FWD, OnChip::Nothing), plainRow);
  EXPECT_EQ(table.rowNumber(0, TrainingPass::FWD, OnChip::Own), -1);
  EXPECT_EQ(table.rowNumber(1, TrainingPass::FWD, OnChip::Own),
            table.rowNumber(2, TrainingPass::FWD, OnChip::Own));
  EXPECT_NE(table.rowNumber(1, TrainingPass::FWD, OnChip::Own), plainRow);
  EXPECT_EQ(table.rowNumbers(1), table.rowNumbers(2));
  EXPECT_NE(table.rowNumbers(0), table.rowNumbers(1));
}

TEST(MappingProblemTest, UsableOptionsAreAskedForAtOnce) {
  // requestUsable asks for what request() under each usable option does,
  // in the same order: the same tasks, the same explorations found.
  MultiChipSystem system = multiChipPreset("dsm-8pf-asym");
  PerformanceModel model(system);
  LayerGraph g = chainWithShortcut(false);
  MapperOptions options;
  options.parallelisms = {Parallelism::Data, Parallelism::Model};
  options.spatialMinibatching = true;
  llvm::Expected<MappingProblem> problem =
      MappingProblem::create(model, g, options, {});
  ASSERT_TRUE(static_cast<bool>(problem));
  ExplorationTable once(*problem), each(*problem);
  for (int layer = 0; layer < int(problem->numLayers()); ++layer)
    for (TrainingPass pass : {TrainingPass::FWD, TrainingPass::BWD})
      for (OnChip what : {OnChip::Nothing, OnChip::Own}) {
        once.requestUsable(layer, pass, what);
        for (int o = 0; o < problem->numOptions(); ++o)
          if (problem->usable(layer, o))
            each.request(layer, pass, o, what);
      }
  SerialExecutor serial;
  ExplorationProgress progress(Progress::none(), 2);
  ASSERT_FALSE(static_cast<bool>(once.run(serial, progress)));
  ASSERT_FALSE(static_cast<bool>(each.run(serial, progress)));
  EXPECT_EQ(once.explorations(), each.explorations());
  EXPECT_EQ(once.memoized(), each.memoized());
  int usable = 0, unusable = 0;
  for (int layer = 0; layer < int(problem->numLayers()); ++layer)
    for (TrainingPass pass : {TrainingPass::FWD, TrainingPass::BWD})
      for (OnChip what : {OnChip::Nothing, OnChip::Own})
        for (int o = 0; o < problem->numOptions(); ++o) {
          SCOPED_TRACE(::testing::Message()
                       << "layer " << layer << ", option " << o);
          const Evaluation *a = once.best(layer, pass, o, what);
          const Evaluation *b = each.best(layer, pass, o, what);
          ASSERT_EQ(a == nullptr, b == nullptr);
          (problem->usable(layer, o) ? usable : unusable) += 1;
          if (!problem->usable(layer, o)) {
            EXPECT_EQ(once.find(layer, pass, o, what), nullptr);
          }
          if (a) {
            EXPECT_EQ(a->cycles.total, b->cycles.total);
          }
        }
  EXPECT_GT(usable, 0);
  EXPECT_GT(unusable, 0);

  // A layer takes the row an earlier layer of its shape made; asked for
  // more after, each layer's row is its own (the other's stays as it was).
  ExplorationTable table(*problem);
  table.requestUsable(0, TrainingPass::FWD, OnChip::Nothing);
  table.requestUsable(1, TrainingPass::FWD, OnChip::Nothing);
  int other = 0;
  while (problem->usable(0, other))
    ++other;
  table.request(0, TrainingPass::FWD, other, OnChip::Nothing);
  ASSERT_FALSE(static_cast<bool>(table.run(serial, progress)));
  EXPECT_NE(table.find(0, TrainingPass::FWD, other), nullptr);
  EXPECT_EQ(table.find(1, TrainingPass::FWD, other), nullptr);
  for (int o = 0; o < problem->numOptions(); ++o)
    if (o != other) {
      EXPECT_EQ(table.find(0, TrainingPass::FWD, o),
                table.find(1, TrainingPass::FWD, o));
    }
}

/// The FWD explorations of `layer` under every parallelism, finding each of
/// `what` on chip, with `capacity` bytes of scratchpad (and `memo`): the
/// searches run and the bests.
std::pair<uint64_t, std::vector<std::optional<Evaluation>>>
exploreForward(const LayerGraph &g, int layer,
               std::initializer_list<OnChip> what, double capacity,
               ExplorationMemo *memo) {
  MultiChipSystem system = multiChipPreset("dsm-8pf-asym");
  system.chip.core.scratchpad.capacityBytes = capacity;
  PerformanceModel model(system);
  MapperOptions options;
  llvm::Expected<MappingProblem> problem =
      MappingProblem::create(model, g, options, {});
  EXPECT_TRUE(static_cast<bool>(problem));
  ExplorationTable table(*problem, memo);
  for (int o = 0; o < kNumParallelisms; ++o)
    for (OnChip variant : what)
      table.request(layer, TrainingPass::FWD, o, variant);
  SerialExecutor serial;
  ExplorationProgress progress(Progress::none(), 1);
  EXPECT_FALSE(static_cast<bool>(table.run(serial, progress)));
  std::vector<std::optional<Evaluation>> bests;
  for (int o = 0; o < kNumParallelisms; ++o)
    for (OnChip variant : what) {
      const Evaluation *best = table.best(layer, TrainingPass::FWD, o, variant);
      bests.push_back(best ? std::optional<Evaluation>(*best) : std::nullopt);
    }
  return {table.explorations(), bests};
}

double fullScratchpad() {
  return multiChipPreset("dsm-8pf-asym").chip.core.scratchpad.capacityBytes;
}

TEST(MappingProblemTest, SweepReusesBestsThatStillFit) {
  // A preloading sweep maps with ever smaller scratchpads: a best found
  // with more room that fits the smaller scratchpad is reused, one that
  // does not is searched again -- and the answers are the searches'.
  LayerGraph g = chainWithShortcut(false);
  ExplorationMemo memo;
  auto explore = [&](double capacity, ExplorationMemo *shared) {
    return exploreForward(g, 0, {OnChip::Nothing}, capacity, shared);
  };
  auto [first, atFull] = explore(fullScratchpad(), &memo);
  EXPECT_EQ(first, uint64_t(kNumParallelisms));
  // The largest best working set, and a scratchpad just below it.
  double largest = 0;
  for (const std::optional<Evaluation> &best : atFull)
    if (best)
      largest = std::max(largest, best->scratchpadBytes);
  ASSERT_GT(largest, 0);
  auto [again, same] = explore(largest, &memo);
  EXPECT_EQ(again, 0u);
  auto [fresh, alone] = explore(largest - 1, nullptr);
  auto [reexplored, shared] = explore(largest - 1, &memo);
  EXPECT_GT(reexplored, 0u);
  EXPECT_LT(reexplored, uint64_t(kNumParallelisms));
  for (int o = 0; o < kNumParallelisms; ++o) {
    ASSERT_EQ(bool(same[o]), bool(atFull[o]));
    if (same[o]) {
      EXPECT_EQ(same[o]->cycles.total, atFull[o]->cycles.total);
    }
    ASSERT_EQ(bool(shared[o]), bool(alone[o]));
    if (shared[o]) {
      EXPECT_EQ(shared[o]->cycles.total, alone[o]->cycles.total);
      EXPECT_EQ(shared[o]->scratchpadBytes, alone[o]->scratchpadBytes);
    }
  }
}

TEST(MappingProblemTest, SweepFindsTheBestsOfTheScratchpadsToCome) {
  // Told the scratchpads its later mappings will have, a sweep's first
  // mapping finds their bests in the same searches: the later mappings
  // search nothing, and find what their own searches would.
  LayerGraph g = chainWithShortcut(false);
  const double full = fullScratchpad();
  const std::vector<double> later = {full / 2, full / 4, full / 8};
  ExplorationMemo memo;
  memo.expectCapacities(later);
  auto explore = [&](double capacity, ExplorationMemo *shared) {
    return exploreForward(g, 1, {OnChip::Nothing, OnChip::Own}, capacity,
                          shared);
  };
  EXPECT_GT(explore(full, &memo).first, 0u);
  for (double capacity : later) {
    auto [searched, shared] = explore(capacity, &memo);
    auto [fresh, alone] = explore(capacity, nullptr);
    EXPECT_EQ(searched, 0u) << capacity;
    EXPECT_GT(fresh, 0u) << capacity;
    ASSERT_EQ(shared.size(), alone.size());
    for (size_t k = 0; k < shared.size(); ++k) {
      ASSERT_EQ(bool(shared[k]), bool(alone[k])) << capacity;
      if (shared[k]) {
        EXPECT_EQ(shared[k]->cycles.total, alone[k]->cycles.total);
      }
    }
  }
}

TEST(MappingProblemTest, OnChipVariantsSayWhatThePassFinds) {
  MemoryDecision fwd =
      onChipDecision(OnChip::OwnAndShortcut, TrainingPass::FWD);
  EXPECT_TRUE(fwd.inputOnChip && fwd.shortcutOnChip);
  EXPECT_FALSE(fwd.errorOnChip || fwd.shortcutPerSpatialMinibatch);
  MemoryDecision bwd =
      onChipDecision(OnChip::OwnAndSpatialShortcut, TrainingPass::BWD);
  EXPECT_TRUE(bwd.errorOnChip && bwd.shortcutOnChip &&
              bwd.shortcutPerSpatialMinibatch);
  EXPECT_FALSE(bwd.inputOnChip);
  MemoryDecision none = onChipDecision(OnChip::Nothing, TrainingPass::UPD);
  EXPECT_FALSE(none.inputOnChip || none.errorOnChip || none.shortcutOnChip);
}

} // namespace
