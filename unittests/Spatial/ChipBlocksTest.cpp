//===- ChipBlocksTest.cpp - Plans on part of the torus --------------------===//

#include "dsm/Core/Spatial/ChipBlocks.h"
#include "dsm/Core/Spatial/SpatialMapper.h"

#include "TestHelpers.h"

#include <gtest/gtest.h>

#include <random>

using namespace dsm::core;
using dsm::core::testing::convLayer;
using dsm::core::testing::multiChipPreset;

namespace {

/// The dsm-8pf chip on a rows x columns torus with the preset's links.
MultiChipSystem torusOf(int64_t rows, int64_t columns) {
  MultiChipSystem system = multiChipPreset("dsm-8pf-asym");
  system.torus.x.size = columns;
  system.torus.y.size = rows;
  system.chips = rows * columns;
  if (columns == 1)
    system.torus.x.bandwidth = 0;
  if (rows == 1)
    system.torus.y.bandwidth = 0;
  return system;
}

TEST(ChipBlocksTest, CandidatesAreTheBlocksWhoseSidesDivideTheTorus) {
  TorusSpec torus;
  torus.x.size = 4;
  torus.y.size = 6;
  std::vector<ChipBlock> blocks = candidateBlocks(torus);
  // {1, 2, 3, 6} rows x {1, 2, 4} columns, the whole torus aside.
  ASSERT_EQ(blocks.size(), 11u);
  for (size_t i = 0; i < blocks.size(); ++i) {
    EXPECT_EQ(torus.y.size % blocks[i].rows, 0);
    EXPECT_EQ(torus.x.size % blocks[i].columns, 0);
    EXPECT_FALSE(blocks[i].rows == 6 && blocks[i].columns == 4);
    if (i > 0) {
      int64_t before = blocks[i - 1].rows * blocks[i - 1].columns,
              chips = blocks[i].rows * blocks[i].columns;
      EXPECT_TRUE(before > chips ||
                  (before == chips && blocks[i - 1].rows > blocks[i].rows));
    }
  }
  EXPECT_EQ(blocks.front(), (ChipBlock{6, 2}));
  EXPECT_EQ(blocks.back(), (ChipBlock{1, 1}));
}

TEST(ChipBlocksTest, ABlockSeesHalfTheLinksAlongASideItDoesNotSpan) {
  MultiChipSystem system = multiChipPreset("dsm-8pf-asym"); // 16 x 4
  MultiChipSystem block = blockSystem(system, 16, 2);
  EXPECT_EQ(block.chips, 32);
  EXPECT_EQ(block.torus.y.ringBandwidth(), system.torus.y.ringBandwidth());
  EXPECT_EQ(block.torus.x.ringBandwidth(), system.torus.x.ringBandwidth() / 2);
  EXPECT_EQ(block.torus.x.topology, NetworkTopology::Line);
  MultiChipSystem line = blockSystem(system, 4, 1);
  EXPECT_EQ(line.torus.x.ringBandwidth(), 0);
  EXPECT_EQ(line.torus.y.ringBandwidth(), system.torus.y.ringBandwidth() / 2);
}

TEST(ChipBlocksTest, ABlockOfASwitchSeesItsFullPorts) {
  MultiChipSystem system = multiChipPreset("dsm-8pf-asym"); // 16 x 4
  system.torus.x.topology = NetworkTopology::Switch;
  system.torus.y.topology = NetworkTopology::Ring;
  MultiChipSystem block = blockSystem(system, 8, 2);
  EXPECT_EQ(block.torus.x.topology, NetworkTopology::Switch);
  EXPECT_EQ(block.torus.x.ringBandwidth(), system.torus.x.ringBandwidth());
  // Part of a one-way ring closes over the rest of it, shared.
  EXPECT_EQ(block.torus.y.ringBandwidth(), system.torus.y.ringBandwidth() / 2);
}

TEST(ChipBlocksTest, ATensorGroupOfASwitchNodeRegroupsTheNetwork) {
  MultiChipSystem dgx = multiChipPreset("dgx-a100-80g"); // 8 x 128
  llvm::Expected<MultiChipSystem> four = regroupInnermost(dgx, 4);
  ASSERT_TRUE(static_cast<bool>(four)) << llvm::toString(four.takeError());
  EXPECT_EQ(four->chips, 1024);
  EXPECT_EQ(four->torus.x.size, 4);
  EXPECT_EQ(four->torus.x.topology, NetworkTopology::Switch);
  EXPECT_EQ(four->torus.x.bandwidth, dgx.torus.x.bandwidth);
  // The node's other 4 GPUs join the nodes, at the nodes' links.
  EXPECT_EQ(four->torus.y.size, 256);
  EXPECT_EQ(four->torus.y.bandwidth, dgx.torus.y.bandwidth);
  // Each on its own InfiniBand rail: a ring collective along the nodes runs
  // a ring per rail, twice a GPU's 24 GB/s, well under NVLink's 207.
  EXPECT_EQ(four->torus.y.rails, 2);
  EXPECT_DOUBLE_EQ(four->torus.y.railNodeBandwidth,
                   dgx.torus.x.ringBandwidth());
  EXPECT_DOUBLE_EQ(four->torus.y.railSpeedup(), 2);
  EXPECT_EQ(dgx.torus.y.railSpeedup(), 1);
  // Eight rails would carry 8 x 24 = 192 GB/s, still under NVLink; on a
  // slower node the node's links bound them.
  llvm::Expected<MultiChipSystem> one = regroupInnermost(dgx, 1);
  ASSERT_TRUE(static_cast<bool>(one));
  EXPECT_DOUBLE_EQ(one->torus.y.railSpeedup(), 8);
  MultiChipSystem slowNode = dgx;
  slowNode.torus.x.bandwidth = 50e9; // 34.5 GB/s achieved
  EXPECT_DOUBLE_EQ(
      cantFail(regroupInnermost(slowNode, 1)).torus.y.railSpeedup(),
      50e9 * 0.69 / (25e9 * 0.96));
  // One node: the other GPUs are on the same switch.
  MultiChipSystem node = dgx;
  node.torus.y = {};
  node.chips = 8;
  llvm::Expected<MultiChipSystem> two = regroupInnermost(node, 2);
  ASSERT_TRUE(static_cast<bool>(two));
  EXPECT_EQ(two->torus.y.size, 4);
  EXPECT_EQ(two->torus.y.bandwidth, dgx.torus.x.bandwidth);
  EXPECT_EQ(two->torus.y.topology, NetworkTopology::Switch);
  EXPECT_EQ(two->torus.y.railSpeedup(), 1);
  // A torus does not regroup, nor does a size that does not divide.
  llvm::Expected<MultiChipSystem> torus =
      regroupInnermost(multiChipPreset("dsm-8pf-asym"), 2);
  ASSERT_FALSE(static_cast<bool>(torus));
  EXPECT_NE(llvm::toString(torus.takeError()).find("only a switch regroups"),
            std::string::npos);
  llvm::Expected<MultiChipSystem> three = regroupInnermost(dgx, 3);
  ASSERT_FALSE(static_cast<bool>(three));
  EXPECT_NE(llvm::toString(three.takeError()).find("do not divide"),
            std::string::npos);
}

TEST(ChipBlocksTest, IdleChipsAreUnderuseOfTheSameTotal) {
  CycleBreakdown cycles;
  cycles.useful = 800;
  cycles.underuse = 100;
  cycles.auxComp = 100;
  cycles.total = 1000;
  CycleBreakdown charged = chargeIdleChips(cycles, 0.25);
  EXPECT_DOUBLE_EQ(charged.useful, 200);
  EXPECT_DOUBLE_EQ(charged.underuse, 700);
  EXPECT_DOUBLE_EQ(charged.total, 1000);
}

/// A chain of 2-5 random convolutions and fully connected layers.
LayerGraph randomChain(std::mt19937 &random, int64_t mb, bool training) {
  LayerGraph g;
  const int layers = 2 + int(random() % 4);
  int64_t channels = 16 << (random() % 4);
  for (int i = 0; i < layers; ++i) {
    int64_t out = 16 << (random() % 5);
    std::string name = "l" + std::to_string(i);
    LayerShape shape = random() % 3 == 0
                           ? convLayer(channels, out, 1, 1, mb, name.c_str())
                           : convLayer(channels, out, 196, 9, mb, name.c_str());
    if (shape.dims[2] == 1)
      shape.kind = OpKind::FullyConnected;
    g.layers.push_back({shape});
    if (i > 0) {
      LayerEdge edge{i - 1, i, double(channels * shape.dims[2] * mb)};
      edge.primaryInput = true;
      g.edges.push_back(edge);
    }
    channels = out;
  }
  g.assignTrainingPasses(training);
  return g;
}

/// Maps `g` on each block of `torus` as a system of its own and expects
/// `plan` no slower than any plan found there (`fitting`: any that fits);
/// how many it compared.
int expectNoSlowerThanItsBlocks(const MappingPlan &plan,
                                const MultiChipSystem &torus,
                                const MapperOptions &options,
                                const LayerGraph &g, bool fitting, int trial) {
  SerialExecutor serial;
  int compared = 0;
  for (const ChipBlock &block : candidateBlocks(torus.torus)) {
    llvm::Expected<MappingPlan> smaller =
        SpatialMapper(blockSystem(torus, block.rows, block.columns), options)
            .map(g, serial);
    if (!smaller || (fitting && !smaller->fitsMemory())) {
      if (!smaller)
        llvm::consumeError(smaller.takeError());
      continue;
    }
    ++compared;
    EXPECT_LE(plan.totals.cycles.total,
              smaller->totals.cycles.total * (1 + 1e-9))
        << "trial " << trial << ", block " << block.rows << "x" << block.columns
        << ": " << describeStrategy(plan) << " against "
        << describeStrategy(*smaller);
  }
  return compared;
}

TEST(ChipBlocksTest, MoreChipsOrMoreMemoryNeverGiveASlowerPlan) {
  // Random small networks at small and large minibatches: the plan on a
  // 4 x 4 torus is never slower than the plan on any of its blocks mapped
  // as a system of its own, nor than the plan with less memory; and every
  // network has a plan, even at minibatch 1.
  std::mt19937 random(5);
  MapperOptions options;
  options.reuseActivations = options.spatialMinibatching = true;
  options.preloadWeights = options.chipBlocks = true;
  SerialExecutor serial;
  const MultiChipSystem torus = torusOf(4, 4);
  int onBlocks = 0;
  for (int trial = 0; trial < 12; ++trial) {
    const int64_t mb = std::array<int64_t, 4>{1, 3, 8, 256}[trial % 4];
    LayerGraph g = randomChain(random, mb, trial % 3 != 0);
    llvm::Expected<MappingPlan> plan =
        SpatialMapper(torus, options).map(g, serial);
    ASSERT_TRUE(static_cast<bool>(plan))
        << "trial " << trial << ": " << llvm::toString(plan.takeError());
    onBlocks += !plan->block.whole();
    expectNoSlowerThanItsBlocks(*plan, torus, options, g, /*fitting=*/false,
                                trial);
    MultiChipSystem lessMemory = torus;
    lessMemory.chip.core.scratchpad.capacityBytes /= 2;
    lessMemory.chip.externalMemory.capacityBytes /= 4;
    llvm::Expected<MappingPlan> tighter =
        SpatialMapper(lessMemory, options).map(g, serial);
    if (tighter)
      EXPECT_LE(plan->totals.cycles.total, tighter->totals.cycles.total)
          << "trial " << trial;
    else
      llvm::consumeError(tighter.takeError());
  }
  // The trials include plans that leave chips idle.
  EXPECT_GT(onBlocks, 0);
}

/// Every optimization of a training step, pipelines and gradient
/// accumulation among them.
MapperOptions optionsPricingPipelines() {
  MapperOptions options;
  options.reuseActivations = options.spatialMinibatching = true;
  options.chipBlocks = options.pipelineStages = true;
  return options;
}

/// A 4 x 4 torus of chips of 8 MB: random chains trained at minibatches in
/// the hundreds need memory savers, pipelines or gradient accumulation.
MultiChipSystem torusOfSmallChips() {
  MultiChipSystem torus = torusOf(4, 4);
  torus.chip.externalMemory.capacityBytes = 8e6;
  return torus;
}

TEST(ChipBlocksTest, MoreChipsNeverGiveASlowerPlanWherePipelinesArePriced) {
  // As above, trained on chips of 8 MB, where memory savers, pipelines and
  // gradient accumulation are priced: the plan on a 4 x 4 torus is never
  // slower than the plan on any of its blocks mapped as a system of its
  // own.
  std::mt19937 random(7);
  const MapperOptions options = optionsPricingPipelines();
  SerialExecutor serial;
  const MultiChipSystem torus = torusOfSmallChips();
  int compared = 0;
  for (int trial = 0; trial < 6; ++trial) {
    LayerGraph g = randomChain(random, trial % 2 ? 1024 : 256, true);
    llvm::Expected<MappingPlan> plan =
        SpatialMapper(torus, options).map(g, serial);
    if (!plan || !plan->fitsMemory()) {
      if (!plan)
        llvm::consumeError(plan.takeError());
      continue;
    }
    compared += expectNoSlowerThanItsBlocks(*plan, torus, options, g,
                                            /*fitting=*/true, trial);
  }
  EXPECT_GT(compared, 5);
}

TEST(ChipBlocksTest, ALargerMinibatchIsNeverSlowerASample) {
  // Random small networks trained at a minibatch and at twice it, on chips
  // with little memory so that memory savers, pipelines and gradient
  // accumulation are priced: the plan at twice the minibatch takes at most
  // twice the step (gradient accumulation of two halves is among its
  // candidates), whichever strategy wins either.
  std::mt19937 random(11);
  const MapperOptions options = optionsPricingPipelines();
  SerialExecutor serial;
  const MultiChipSystem torus = torusOfSmallChips();
  int compared = 0, pipelined = 0;
  for (int trial = 0; trial < 10; ++trial) {
    const int64_t mb = std::array<int64_t, 2>{256, 1024}[trial % 2];
    const uint32_t seed = uint32_t(random());
    std::mt19937 once(seed), twice(seed);
    llvm::Expected<MappingPlan> plan =
        SpatialMapper(torus, options).map(randomChain(once, mb, true), serial);
    llvm::Expected<MappingPlan> doubled =
        SpatialMapper(torus, options)
            .map(randomChain(twice, 2 * mb, true), serial);
    if (!plan || !doubled || !plan->fitsMemory() || !doubled->fitsMemory()) {
      if (!plan)
        llvm::consumeError(plan.takeError());
      if (!doubled)
        llvm::consumeError(doubled.takeError());
      continue;
    }
    ++compared;
    pipelined += plan->pipeline.pipelined() || doubled->pipeline.pipelined();
    EXPECT_LE(doubled->totals.cycles.total,
              2 * plan->totals.cycles.total * (1 + 1e-9))
        << "trial " << trial << " at minibatch " << mb << ": "
        << describeStrategy(*plan) << " against " << describeStrategy(*doubled);
  }
  EXPECT_GT(compared, 5);
  // Some plans are pipelines or gradient accumulation.
  EXPECT_GT(pipelined, 0) << pipelined;
}

TEST(ChipBlocksTest, ABlockPlanNamesItsBlockAndChargesTheIdleChips) {
  // A minibatch of one and 8 output channels: neither data nor model
  // parallelism splits them over 16 chips, so only a block has a plan, and
  // every pass says so.
  LayerGraph g;
  g.layers = {{convLayer(8, 8, 196, 9, 1, "a")},
              {convLayer(8, 8, 196, 9, 1, "b")}};
  g.edges = {{0, 1, 8.0 * 196}};
  g.edges[0].primaryInput = true;
  g.assignTrainingPasses(false);
  MapperOptions options;
  options.chipBlocks = true;
  SerialExecutor serial;
  const MultiChipSystem torus = torusOf(4, 4);
  llvm::Expected<MappingPlan> plan =
      SpatialMapper(torus, options).map(g, serial);
  ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
  ASSERT_FALSE(plan->block.whole());
  const double share =
      double(plan->block.rows * plan->block.columns) / double(torus.chips);
  PerformanceModel blockModel(
      blockSystem(torus, plan->block.rows, plan->block.columns));
  for (const LayerPlan &layer : plan->layers)
    for (const PassPlan &pass : layer.passes) {
      EXPECT_EQ(pass.eval.config.block, plan->block);
      EXPECT_DOUBLE_EQ(pass.cycles.useful, pass.eval.cycles.useful * share);
      EXPECT_DOUBLE_EQ(pass.cycles.total,
                       pass.eval.cycles.total + pass.relayout.cycles);
    }
  EXPECT_NEAR(plan->totals.utilization,
              plan->totals.cycles.useful / plan->totals.cycles.total, 1e-12);
  // Without blocks the network has no plan at all.
  options.chipBlocks = false;
  llvm::Expected<MappingPlan> whole =
      SpatialMapper(torus, options).map(g, serial);
  EXPECT_FALSE(static_cast<bool>(whole));
  if (!whole)
    llvm::consumeError(whole.takeError());
}

} // namespace

TEST(ChipBlocksTest, TheRegroupingSearchKeepsTheFastestNetwork) {
  // Two nodes of 4 dsm-8pf chips on a switch, joined by a slower switch:
  // mapOnRegroupings prices the whole node and its tensor groups of 2 and 1
  // and keeps the fastest plan, never slower than the whole node's nor than
  // any regrouping's mapped on its own, and says which network it is for.
  std::mt19937 random(11);
  MultiChipSystem nodes = torusOf(2, 4);
  nodes.torus.x.topology = NetworkTopology::Switch;
  nodes.torus.y.topology = NetworkTopology::Switch;
  nodes.torus.y.bandwidth = nodes.torus.x.bandwidth / 4;
  MapperOptions options;
  options.reuseActivations = options.spatialMinibatching = true;
  SerialExecutor serial;
  int regrouped = 0;
  for (int trial = 0; trial < 8; ++trial) {
    const int64_t mb = std::array<int64_t, 4>{8, 32, 64, 256}[trial % 4];
    LayerGraph g = randomChain(random, mb, trial % 2 == 0);
    llvm::Expected<NetworkPlan> best =
        mapOnRegroupings(nodes, options, g, serial);
    ASSERT_TRUE(static_cast<bool>(best))
        << "trial " << trial << ": " << llvm::toString(best.takeError());
    const double cycles = best->plan.totals.cycles.total;
    EXPECT_EQ(best->system.chips, nodes.chips);
    EXPECT_EQ(nodes.torus.x.size % best->system.torus.x.size, 0);
    regrouped += best->system.torus.x.size != nodes.torus.x.size;
    for (int64_t columns : {4, 2, 1}) {
      llvm::Expected<MultiChipSystem> network =
          regroupInnermost(nodes, columns);
      ASSERT_TRUE(static_cast<bool>(network));
      llvm::Expected<MappingPlan> alone =
          SpatialMapper(*network, options).map(g, serial);
      if (!alone) {
        llvm::consumeError(alone.takeError());
        continue;
      }
      EXPECT_LE(cycles, alone->totals.cycles.total)
          << "trial " << trial << ", tensor groups of " << columns;
      if (columns == best->system.torus.x.size)
        EXPECT_EQ(cycles, alone->totals.cycles.total) << "trial " << trial;
    }
  }
  // Some trials take a regrouping.
  EXPECT_GT(regrouped, 0);
}
