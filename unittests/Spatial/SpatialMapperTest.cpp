//===- SpatialMapperTest.cpp - Whole-network mapping ----------------------===//

#include "dsm/Core/Spatial/SpatialMapper.h"
#include "dsm/Core/Spatial/ChipBlocks.h"
#include "dsm/Core/Spatial/StepMemory.h"
#include "dsm/Core/System/SystemLoader.h"

#include "Support/RecordingProgress.h"
#include "TestHelpers.h"

#include "dsm/Core/Support/NodeError.h"
#include "dsm/Core/Support/Progress.h"
#include "llvm/Support/ThreadPool.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace dsm::core;
using dsm::core::testing::convLayer;
using dsm::core::testing::multiChipPreset;

namespace {

LayerShape fc(const char *name, int64_t in, int64_t out, int64_t mb) {
  LayerShape l;
  l.name = name;
  l.kind = OpKind::FullyConnected;
  l.dims = {in, out, 1, 1, mb};
  l.params = double(in * out + out);
  return l;
}

/// conv -> fc -> fc, like the end of VGG16.
LayerGraph vggTail(int64_t mb) {
  LayerGraph g;
  g.layers = {{convLayer(512, 512, 196, 9, mb, "conv5_3")},
              {fc("fcon1", 25088, 4096, mb)},
              {fc("fcon2", 4096, 4096, mb)}};
  g.edges = {{0, 1, 25088.0 * mb}, {1, 2, 4096.0 * mb}};
  return g;
}

TEST(LayerGraphTest, TrainingPassesFollowTheErrors) {
  LayerGraph g = vggTail(64);
  g.assignTrainingPasses(true);
  // The first layer reads only the network input: no error to send back.
  EXPECT_TRUE(g.layers[0].upd);
  EXPECT_FALSE(g.layers[0].bwd);
  EXPECT_TRUE(g.layers[1].bwd && g.layers[1].upd);
  EXPECT_TRUE(g.edges[0].carriesError);
  g.assignTrainingPasses(false);
  for (const LayerNode &n : g.layers)
    EXPECT_TRUE(n.fwd && !n.bwd && !n.upd);
  EXPECT_FALSE(g.edges[0].carriesError);
}

TEST(SpatialMapperTest, PlansEveryPassAndAddsUp) {
  SerialExecutor serial;
  LayerGraph g = vggTail(512);
  g.assignTrainingPasses(true);
  SpatialMapper mapper(multiChipPreset("dsm-8pf-asym"), MapperOptions());
  llvm::Expected<MappingPlan> plan = mapper.map(g, serial);
  ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
  ASSERT_EQ(plan->layers.size(), 3u);
  EXPECT_EQ(plan->layers[0].passes.size(), 2u); // FWD, UPD
  EXPECT_EQ(plan->layers[1].passes.size(), 3u);
  double sum = 0;
  for (const LayerPlan &layer : plan->layers)
    for (const PassPlan &pass : layer.passes) {
      sum += pass.cycles.total;
      const CycleBreakdown &c = pass.cycles;
      EXPECT_NEAR(c.useful + c.underuse + c.ovldtVisible + c.nonOvldt +
                      c.auxComp,
                  c.total, 1e-6 * c.total);
    }
  EXPECT_DOUBLE_EQ(plan->totals.cycles.total, sum);
  EXPECT_GT(plan->totals.utilization, 0);
  EXPECT_LE(plan->totals.utilization, 1);
  // DeepSpatialMatrix Fig. 12: FCON1 is model parallel, the FC layers are not
  // data parallel. (Alone before fcon1, the convolution avoids a relayout.)
  EXPECT_EQ(plan->layers[1].parallelism, Parallelism::Model);
  EXPECT_NE(plan->layers[2].parallelism, Parallelism::Data);
}

TEST(SpatialMapperTest, ActivationReuseIsChosenWithTheParallelisms) {
  SerialExecutor serial;
  // A chain of equal 1x1 convolutions: memory-bound, so leaving each output
  // in the scratchpads for the next layer saves its fetch.
  LayerGraph g;
  const int kLayers = 4;
  for (int i = 0; i < kLayers; ++i)
    g.layers.push_back({convLayer(256, 256, 196, 1, 512, "conv")});
  for (int i = 0; i + 1 < kLayers; ++i) {
    LayerEdge edge{i, i + 1, 256.0 * 196 * 512};
    edge.primaryInput = true;
    g.edges.push_back(edge);
  }
  g.assignTrainingPasses(true);
  MapperOptions base;
  MapperOptions reuse;
  reuse.reuseActivations = true;
  MultiChipSystem system = multiChipPreset("dsm-8pf-asym");
  llvm::Expected<MappingPlan> without =
      SpatialMapper(system, base).map(g, serial);
  llvm::Expected<MappingPlan> with =
      SpatialMapper(system, reuse).map(g, serial);
  ASSERT_TRUE(without && with);
  EXPECT_LT(with->totals.cycles.total, without->totals.cycles.total);
  int inputsReused = 0, errorsReused = 0;
  for (size_t i = 0; i < with->layers.size(); ++i)
    for (const PassPlan &pass : with->layers[i].passes) {
      const MemoryDecision &memory = pass.eval.config.memory;
      if (memory.inputOnChip) {
        ++inputsReused;
        // Only a FWD, only where the producer kept the same parallelism.
        EXPECT_EQ(pass.pass, TrainingPass::FWD);
        ASSERT_GT(i, 0u);
        EXPECT_EQ(with->layers[i - 1].parallelism, with->layers[i].parallelism);
      }
      if (memory.errorOnChip) {
        ++errorsReused;
        // Only BWD and UPD, only where the consumer kept the parallelism.
        EXPECT_NE(pass.pass, TrainingPass::FWD);
        ASSERT_LT(i + 1, with->layers.size());
        EXPECT_EQ(with->layers[i + 1].parallelism, with->layers[i].parallelism);
      }
    }
  EXPECT_GT(inputsReused, 0);
  EXPECT_GT(errorsReused, 0);
  // The first layer reads the network input from memory; the last layer's
  // error comes from the loss, in memory.
  for (const PassPlan &pass : with->layers.front().passes)
    EXPECT_FALSE(pass.eval.config.memory.inputOnChip);
  for (const PassPlan &pass : with->layers.back().passes)
    EXPECT_FALSE(pass.eval.config.memory.errorOnChip);
  for (const LayerPlan &layer : without->layers)
    for (const PassPlan &pass : layer.passes)
      EXPECT_EQ(pass.eval.config.memory, MemoryDecision());
}

TEST(SpatialMapperTest, PreloadingSweepsTheReservationForInference) {
  SerialExecutor serial;
  // Inference at minibatch 1 on one chip (DeepSpatialMatrix Fig. 11d-f):
  // the fully connected layers wait on their weights.
  MultiChipSystem system = multiChipPreset("dsm-128tf");
  LayerGraph g = vggTail(1);
  g.assignTrainingPasses(false);
  MapperOptions base;
  MapperOptions preload;
  preload.preloadWeights = true;
  llvm::Expected<MappingPlan> without =
      SpatialMapper(system, base).map(g, serial);
  llvm::Expected<MappingPlan> with =
      SpatialMapper(system, preload).map(g, serial);
  ASSERT_TRUE(without && with);
  EXPECT_EQ(without->preloadReservedBytes, 0);
  ASSERT_GT(with->preloadReservedBytes, 0);
  EXPECT_LT(with->totals.cycles.total, without->totals.cycles.total);
  // What the layers preload fits the reservation; every working set fits
  // what is left of the scratchpad.
  const double capacity = system.chip.core.scratchpad.capacityBytes;
  int64_t preloaded = 0;
  for (const LayerPlan &layer : with->layers)
    for (const PassPlan &pass : layer.passes) {
      preloaded += pass.eval.config.memory.preloadedWeightBytes;
      EXPECT_LE(pass.eval.scratchpadBytes,
                capacity - double(with->preloadReservedBytes));
    }
  EXPECT_GT(preloaded, 0);
  EXPECT_LE(preloaded, with->preloadReservedBytes);
  // Training weights change every step: nothing to preload.
  g.assignTrainingPasses(true);
  llvm::Expected<MappingPlan> training =
      SpatialMapper(system, preload).map(g, serial);
  ASSERT_TRUE(static_cast<bool>(training));
  EXPECT_EQ(training->preloadReservedBytes, 0);
  for (const LayerPlan &layer : training->layers)
    for (const PassPlan &pass : layer.passes)
      EXPECT_EQ(pass.eval.config.memory.preloadedWeightBytes, 0);
}

TEST(SpatialMapperTest, ShortcutKeepsInputReuseButNotErrorReuse) {
  SerialExecutor serial;
  // conv0 feeds conv1 (its primary input, next) and conv2's residual add (a
  // shortcut). conv1 still finds conv0's output on chip (conv0 writes it out
  // anyway, for the shortcut and for training), but conv0's error is the sum
  // of two consumers' errors, partly in memory: no error reuse for conv0.
  LayerGraph g;
  for (int i = 0; i < 3; ++i)
    g.layers.push_back({convLayer(256, 256, 196, 1, 512, "conv")});
  double elements = 256.0 * 196 * 512;
  LayerEdge primary01{0, 1, elements}, shortcut02{0, 2, elements},
      primary12{1, 2, elements};
  primary01.primaryInput = primary12.primaryInput = true;
  g.edges = {primary01, shortcut02, primary12};
  g.assignTrainingPasses(true);
  MapperOptions reuse;
  reuse.reuseActivations = true;
  llvm::Expected<MappingPlan> plan =
      SpatialMapper(multiChipPreset("dsm-8pf-asym"), reuse).map(g, serial);
  ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
  ASSERT_EQ(plan->layers[0].parallelism, plan->layers[1].parallelism);
  bool conv1InputReused = false;
  for (const PassPlan &pass : plan->layers[1].passes)
    conv1InputReused |= pass.eval.config.memory.inputOnChip;
  EXPECT_TRUE(conv1InputReused);
  for (const PassPlan &pass : plan->layers[0].passes)
    EXPECT_FALSE(pass.eval.config.memory.errorOnChip);
}

/// A residual block: x (layer 0) feeds conv1 -> conv2 -> conv3, whose fused
/// addition reads x back (one shortcut element per output element).
static LayerGraph residualBlock(int64_t channels, int64_t pixels, int64_t mb) {
  LayerGraph g;
  g.layers = {{convLayer(channels, channels, pixels, 1, mb, "x")},
              {convLayer(channels, channels / 4, pixels, 1, mb, "conv1")},
              {convLayer(channels / 4, channels / 4, pixels, 9, mb, "conv2")},
              {convLayer(channels / 4, channels, pixels, 1, mb, "conv3")}};
  g.layers[3].shape.auxInputsPerOutput = 1;
  double x = double(channels * pixels * mb), inner = x / 4;
  LayerEdge e01{0, 1, x}, e12{1, 2, inner}, e23{2, 3, inner}, e03{0, 3, x};
  e01.primaryInput = e12.primaryInput = e23.primaryInput = true;
  g.edges = {e01, e12, e23, e03};
  g.assignTrainingPasses(true);
  return g;
}

TEST(SpatialMapperTest, ResidualShortcutKeptOnChipAcrossTheBlock) {
  SerialExecutor serial;
  // DeepSpatialMatrix §III-B1: "in the case of residual layers, the outputs may
  // need to be retained longer, as a future layer may also use the outputs for
  // short-cut addition". ResNet-50's layer3 shape: x is 98 KiB per core.
  LayerGraph g = residualBlock(1024, 196, 512);
  MapperOptions reuse;
  reuse.reuseActivations = true;
  MultiChipSystem system = multiChipPreset("dsm-8pf-asym");
  llvm::Expected<MappingPlan> plan =
      SpatialMapper(system, reuse).map(g, serial);
  ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
  const PassPlan &fwd = plan->layers[3].passes.front();
  ASSERT_EQ(fwd.pass, TrainingPass::FWD);
  EXPECT_TRUE(fwd.eval.config.memory.shortcutOnChip);
  EXPECT_EQ(plan->layers[0].parallelism, plan->layers[3].parallelism);
  // Backwards, conv3's BWD leaves the shortcut's error on chip, conv1's BWD
  // adds it to the error it computes for x, and x's producer finds the sum
  // there (its UPD: the first layer has no BWD), though x has two consumers.
  const PassPlan *bwd = nullptr;
  for (const PassPlan &pass : plan->layers[3].passes)
    if (pass.pass == TrainingPass::BWD)
      bwd = &pass;
  ASSERT_NE(bwd, nullptr);
  EXPECT_TRUE(bwd->eval.config.memory.shortcutOnChip);
  EXPECT_EQ(plan->layers[1].parallelism, plan->layers[3].parallelism);
  ASSERT_EQ(plan->layers[0].passes.back().pass, TrainingPass::UPD);
  EXPECT_TRUE(plan->layers[0].passes.back().eval.config.memory.errorOnChip);
  // Nothing else keeps a shortcut; the same configuration without it is
  // slower.
  for (const LayerPlan &layer : plan->layers)
    for (const PassPlan &pass : layer.passes)
      if (&pass != &fwd && &pass != bwd) {
        EXPECT_FALSE(pass.eval.config.memory.shortcutOnChip);
      }
  MappingConfig without = fwd.eval.config;
  without.memory.shortcutOnChip = false;
  std::optional<Evaluation> fetched =
      evaluateMappedPass(SpatialMapper(system, reuse).getModel(),
                         g.layers[3].shape, TrainingPass::FWD, without);
  ASSERT_TRUE(fetched.has_value());
  EXPECT_LT(fwd.eval.cycles.total, fetched->cycles.total);
  // The shortcut fits beside the working sets of the layers in between
  // (its producer writes it block by block, as for activation reuse).
  const double share = std::ceil(g.edges[3].elements /
                                 double(system.chips * system.chip.cores)) *
                       2;
  // (and its error beside their BWD and UPD).
  for (size_t i = 1; i < 3; ++i)
    for (const PassPlan &pass : plan->layers[i].passes)
      EXPECT_LE(pass.eval.scratchpadBytes + share,
                system.chip.core.scratchpad.capacityBytes);
  // The totals are the passes' sums.
  CycleBreakdown sum;
  for (const LayerPlan &layer : plan->layers)
    for (const PassPlan &pass : layer.passes)
      sum += pass.cycles;
  EXPECT_DOUBLE_EQ(sum.total, plan->totals.cycles.total);
  // Without activation reuse (the baseline), the shortcut is read from memory.
  llvm::Expected<MappingPlan> baseline =
      SpatialMapper(system, MapperOptions()).map(g, serial);
  ASSERT_TRUE(static_cast<bool>(baseline));
  EXPECT_FALSE(
      baseline->layers[3].passes.front().eval.config.memory.shortcutOnChip);
}

TEST(SpatialMapperTest, InferenceSkipsTheWriteOfOutputsReadOnChip) {
  SerialExecutor serial;
  // DeepSpatialMatrix §III-B1: activation reuse "saves an external memory read
  // and write for inference". x is read by conv1 (its input) and conv3 (the
  // shortcut): it is not written when both find it on chip. On one chip
  // (DeepSpatialMatrix Fig. 11d-f's inference system) at minibatch 16.
  LayerGraph g = residualBlock(1024, 196, 16);
  g.assignTrainingPasses(false);
  MapperOptions reuse;
  reuse.reuseActivations = true;
  MultiChipSystem system = multiChipPreset("dsm-128tf");
  llvm::Expected<MappingPlan> plan =
      SpatialMapper(system, reuse).map(g, serial);
  ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
  auto memoryOf = [&](const MappingPlan &p, int layer) {
    return p.layers[layer].passes.front().eval.config.memory;
  };
  int unwritten = 0;
  for (int i = 0; i < 4; ++i) {
    if (!memoryOf(*plan, i).outputOnChip)
      continue;
    ++unwritten;
    // Every reader found it on chip.
    for (const LayerEdge &edge : g.edges)
      if (edge.producer == i) {
        MemoryDecision reader = memoryOf(*plan, edge.consumer);
        EXPECT_TRUE(edge.primaryInput ? reader.inputOnChip
                                      : reader.shortcutOnChip);
      }
  }
  EXPECT_TRUE(memoryOf(*plan, 0).outputOnChip);
  EXPECT_GE(unwritten, 1);
  // The last layer's output is the network's.
  EXPECT_FALSE(memoryOf(*plan, 3).outputOnChip);
  // A result of the network is written whatever reads it on chip.
  g.layers[0].networkOutput = true;
  llvm::Expected<MappingPlan> returned =
      SpatialMapper(system, reuse).map(g, serial);
  ASSERT_TRUE(static_cast<bool>(returned));
  EXPECT_FALSE(memoryOf(*returned, 0).outputOnChip);
  EXPECT_LT(plan->totals.cycles.total, returned->totals.cycles.total);
  // Training writes every output (BWD and UPD read them).
  g.layers[0].networkOutput = false;
  g.assignTrainingPasses(true);
  llvm::Expected<MappingPlan> training =
      SpatialMapper(system, reuse).map(g, serial);
  ASSERT_TRUE(static_cast<bool>(training));
  for (const LayerPlan &layer : training->layers)
    for (const PassPlan &pass : layer.passes)
      EXPECT_FALSE(pass.eval.config.memory.outputOnChip);
}

TEST(SpatialMapperTest, ResidualShortcutStaysInMemoryWhenItDoesNotFit) {
  SerialExecutor serial;
  // ResNet-50's layer1 shape at minibatch 4096: x is 3 MiB per core, more
  // than the scratchpad.
  LayerGraph g = residualBlock(256, 3136, 4096);
  MapperOptions reuse;
  reuse.reuseActivations = true;
  llvm::Expected<MappingPlan> plan =
      SpatialMapper(multiChipPreset("dsm-8pf-asym"), reuse).map(g, serial);
  ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
  for (const LayerPlan &layer : plan->layers)
    for (const PassPlan &pass : layer.passes)
      EXPECT_FALSE(pass.eval.config.memory.shortcutOnChip);
}

TEST(SpatialMapperTest, DySMGroupHoldsTheShortcutOfOneSpatialMinibatch) {
  SerialExecutor serial;
  // ResNet-50's layer1 shape at minibatch 1024: x is 802 KiB per core,
  // too much to keep beside the block's working sets. DeepSpatialMatrix §III-C:
  // "If we choose S_mb to be small enough to fit in the scratchpad, then we can
  // continue to hold them for the next layer": the block runs as one DySM
  // group and holds the shortcut of one spatial minibatch.
  LayerGraph g = residualBlock(256, 3136, 1024);
  MapperOptions reuse;
  reuse.reuseActivations = true;
  MultiChipSystem system = multiChipPreset("dsm-8pf-asym");
  llvm::Expected<MappingPlan> whole =
      SpatialMapper(system, reuse).map(g, serial);
  ASSERT_TRUE(static_cast<bool>(whole)) << llvm::toString(whole.takeError());
  for (const LayerPlan &layer : whole->layers)
    for (const PassPlan &pass : layer.passes)
      EXPECT_FALSE(pass.eval.config.memory.shortcutOnChip);
  MapperOptions dysm = reuse;
  dysm.spatialMinibatching = true;
  llvm::Expected<MappingPlan> plan = SpatialMapper(system, dysm).map(g, serial);
  ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
  const PassPlan &fwd = plan->layers[3].passes.front();
  ASSERT_EQ(fwd.pass, TrainingPass::FWD);
  const MemoryDecision &kept = fwd.eval.config.memory;
  EXPECT_TRUE(kept.shortcutOnChip);
  EXPECT_TRUE(kept.shortcutPerSpatialMinibatch);
  EXPECT_GT(kept.spatialMinibatches, 1);
  // The whole block, producer to consumer, is one group: one option.
  for (const LayerPlan &layer : plan->layers)
    for (const PassPlan &pass : layer.passes) {
      EXPECT_EQ(layer.parallelism, plan->layers[3].parallelism);
      EXPECT_EQ(pass.eval.config.memory.spatialMinibatches,
                kept.spatialMinibatches);
    }
  // The shortcut of one spatial minibatch fits beside the FWD working sets
  // of the layers in between.
  const double share =
      std::ceil(g.edges[3].elements / double(system.chips * system.chip.cores) /
                double(kept.spatialMinibatches)) *
      2;
  for (size_t i = 1; i < 3; ++i)
    EXPECT_LE(plan->layers[i].passes.front().eval.scratchpadBytes + share,
              system.chip.core.scratchpad.capacityBytes);
  EXPECT_LT(plan->totals.cycles.total, whole->totals.cycles.total);
  CycleBreakdown sum;
  for (const LayerPlan &layer : plan->layers)
    for (const PassPlan &pass : layer.passes)
      sum += pass.cycles;
  EXPECT_DOUBLE_EQ(sum.total, plan->totals.cycles.total);
}

TEST(SpatialMapperTest, JointChoiceWeighsRelayouts) {
  SerialExecutor serial;
  LayerGraph g = vggTail(512);
  g.assignTrainingPasses(true);
  SpatialMapper mapper(multiChipPreset("dsm-8pf-asym"), MapperOptions());
  llvm::Expected<MappingPlan> plan = mapper.map(g, serial);
  ASSERT_TRUE(static_cast<bool>(plan));
  // The plan's cost (relayouts included) is no worse than choosing every
  // layer's cheapest parallelism alone and paying the relayouts that follow.
  const PerformanceModel &model = mapper.getModel();
  std::vector<Parallelism> greedy;
  double greedyCost = 0;
  for (const LayerPlan &layer : plan->layers) {
    int best = 0;
    for (int q = 1; q < kNumParallelisms; ++q)
      if (layer.alternatives[q] < layer.alternatives[best])
        best = q;
    greedy.push_back(Parallelism(best));
    greedyCost += layer.alternatives[best];
  }
  for (const LayerEdge &e : g.edges)
    greedyCost +=
        2 * model.relayout(e.elements, greedy[e.producer], greedy[e.consumer])
                .cycles;
  EXPECT_LE(plan->totals.cycles.total, greedyCost * (1 + 1e-12));
}

TEST(SpatialMapperTest, ResidualShortcutsAreCharged) {
  SerialExecutor serial;
  // a -> b -> c with a shortcut a -> c: forcing b to another parallelism
  // than a and c costs relayouts on both of b's edges but not on a -> c.
  LayerGraph g;
  g.layers = {{convLayer(256, 256, 196, 1, 512, "a")},
              {convLayer(256, 256, 196, 9, 512, "b")},
              {convLayer(256, 256, 196, 1, 512, "c")}};
  g.edges = {{0, 1, 256.0 * 196 * 512},
             {1, 2, 256.0 * 196 * 512},
             {0, 2, 256.0 * 196 * 512}};
  g.assignTrainingPasses(false);
  SpatialMapper mapper(multiChipPreset("dsm-8pf-asym"), MapperOptions());
  llvm::Expected<MappingPlan> plan = mapper.map(g, serial);
  ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
  // Each layer's chosen plan includes the relayouts of its incoming edges.
  for (size_t i = 0; i < 3; ++i) {
    double relayout = 0;
    for (const LayerEdge &e : g.edges)
      if (e.consumer == int(i))
        relayout +=
            mapper.getModel()
                .relayout(e.elements, plan->layers[e.producer].parallelism,
                          plan->layers[i].parallelism)
                .cycles;
    EXPECT_DOUBLE_EQ(plan->layers[i].passes[0].relayout.cycles, relayout);
  }
}

TEST(SpatialMapperTest, SameResultWithAndWithoutThreads) {
  LayerGraph g = vggTail(1024);
  g.assignTrainingPasses(true);
  SpatialMapper mapper(multiChipPreset("dsm-8pf-asym"), MapperOptions());
  SerialExecutor serial;
  llvm::StdThreadPool pool(llvm::hardware_concurrency(4));
  ThreadPoolExecutor threads(pool);
  llvm::Expected<MappingPlan> a = mapper.map(g, serial);
  llvm::Expected<MappingPlan> b = mapper.map(g, threads);
  ASSERT_TRUE(a && b);
  ASSERT_EQ(a->layers.size(), b->layers.size());
  for (size_t i = 0; i < a->layers.size(); ++i) {
    EXPECT_EQ(a->layers[i].parallelism, b->layers[i].parallelism);
    for (size_t p = 0; p < a->layers[i].passes.size(); ++p) {
      EXPECT_EQ(a->layers[i].passes[p].eval.config.coreSplit,
                b->layers[i].passes[p].eval.config.coreSplit);
      EXPECT_EQ(a->layers[i].passes[p].cycles.total,
                b->layers[i].passes[p].cycles.total);
    }
  }
}

/// Random ResNet-like graphs: an input convolution, then bottleneck blocks
/// (1x1 down to a quarter, 3x3, 1x1 back up, the last adding the block's
/// input), some blocks without their shortcut, and in `nested` graphs a long
/// skip from an early block's output to a late block's last layer.
static LayerGraph randomResidualGraph(std::mt19937 &random, bool nested,
                                      int64_t mb) {
  const int64_t channels = 256, pixels = random() % 2 ? 3136 : 784;
  const double x = double(channels * pixels * mb), inner = x / 4;
  LayerGraph g;
  auto add = [&](LayerShape shape, int from, double elements) {
    g.layers.push_back({shape});
    if (from >= 0) {
      LayerEdge e{from, int(g.layers.size()) - 1, elements};
      e.primaryInput = true;
      g.edges.push_back(e);
    }
    return int(g.layers.size()) - 1;
  };
  int out = add(convLayer(channels, channels, pixels, 1, mb, "x"), -1, 0);
  std::vector<int> blockOutputs = {out}, lasts;
  const int blocks = 2 + int(random() % 4);
  for (int b = 0; b < blocks; ++b) {
    std::string p = "b" + std::to_string(b);
    int c1 = add(convLayer(channels, channels / 4, pixels, 1, mb,
                           (p + ".conv1").c_str()),
                 out, x);
    int c2 = add(convLayer(channels / 4, channels / 4, pixels, 9, mb,
                           (p + ".conv2").c_str()),
                 c1, inner);
    int c3 = add(convLayer(channels / 4, channels, pixels, 1, mb,
                           (p + ".conv3").c_str()),
                 c2, inner);
    if (random() % 4 != 0) {
      g.layers[c3].shape.auxInputsPerOutput = 1;
      g.edges.push_back({out, c3, x});
    } else {
      lasts.push_back(c3);
    }
    out = c3;
    blockOutputs.push_back(out);
  }
  if (nested && !lasts.empty() && blockOutputs.size() > 2) {
    int c = lasts.back();
    int p = blockOutputs[random() % 2];
    if (p + 1 < c) {
      g.layers[c].shape.auxInputsPerOutput = 1;
      g.edges.push_back({p, c, x});
    }
  }
  llvm::sort(g.edges, [](const LayerEdge &a, const LayerEdge &b) {
    return std::make_pair(a.consumer, a.producer) <
           std::make_pair(b.consumer, b.producer);
  });
  g.assignTrainingPasses(random() % 2 == 0);
  return g;
}

TEST(SpatialMapperTest, GroupsAndKeptShortcutsHoldOnRandomResidualGraphs) {
  // Every optimization on random residual and nested graphs: the plan adds
  // up; a shortcut kept per spatial minibatch (a DySM group) has its whole
  // block, producer to consumer, on one parallelism and DySM factor; a kept
  // shortcut's producer has the consumer's parallelism; threads change
  // nothing.
  std::mt19937 random(7);
  MultiChipSystem system = multiChipPreset("dsm-8pf-asym");
  MapperOptions options;
  options.reuseActivations = options.spatialMinibatching = true;
  options.reuseWeightsAcrossSteps = options.pipelineTimesteps = true;
  SerialExecutor serial;
  llvm::StdThreadPool pool(llvm::hardware_concurrency(2));
  ThreadPoolExecutor threads(pool);
  int groups = 0, kept = 0;
  for (int trial = 0; trial < 24; ++trial) {
    LayerGraph g =
        randomResidualGraph(random, trial % 3 == 0, trial % 2 ? 1024 : 256);
    SpatialMapper mapper(system, options);
    llvm::Expected<MappingPlan> plan = mapper.map(g, serial);
    ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
    llvm::Expected<MappingPlan> again = mapper.map(g, threads);
    ASSERT_TRUE(static_cast<bool>(again));
    EXPECT_EQ(plan->totals.cycles.total, again->totals.cycles.total);
    CycleBreakdown sum;
    for (const LayerPlan &layer : plan->layers)
      for (const PassPlan &pass : layer.passes)
        sum += pass.cycles;
    EXPECT_DOUBLE_EQ(sum.total, plan->totals.cycles.total);
    for (const LayerEdge &edge : g.edges) {
      if (edge.primaryInput)
        continue;
      const PassPlan &fwd = plan->layers[edge.consumer].passes.front();
      const MemoryDecision &memory = fwd.eval.config.memory;
      if (!memory.shortcutOnChip)
        continue;
      ++kept;
      const LayerPlan &consumer = plan->layers[edge.consumer];
      EXPECT_EQ(plan->layers[edge.producer].parallelism, consumer.parallelism)
          << "trial " << trial;
      if (!memory.shortcutPerSpatialMinibatch)
        continue;
      ++groups;
      EXPECT_GT(memory.spatialMinibatches, 1);
      for (int k = edge.producer; k <= edge.consumer; ++k) {
        EXPECT_EQ(plan->layers[k].parallelism, consumer.parallelism)
            << "trial " << trial << " layer " << k;
        EXPECT_EQ(plan->layers[k]
                      .passes.front()
                      .eval.config.memory.spatialMinibatches,
                  memory.spatialMinibatches)
            << "trial " << trial << " layer " << k;
      }
    }
  }
  // The trials exercise both features.
  EXPECT_GT(kept, 0);
  EXPECT_GT(groups, 0);
}

/// Three 3x3 convolutions of 512 channels (2.4 M parameters each) trained at
/// minibatch 512.
static LayerGraph threeWideConvolutions() {
  LayerGraph g;
  for (int i = 0; i < 3; ++i)
    g.layers.push_back({convLayer(512, 512, 196, 9, 512,
                                  ("conv" + std::to_string(i)).c_str())});
  const double x = 512.0 * 196 * 512;
  g.edges = {{0, 1, x}, {1, 2, x}};
  for (LayerEdge &e : g.edges)
    e.primaryInput = true;
  g.assignTrainingPasses(true);
  return g;
}

/// `depth` fully connected layers of `features` features in a chain,
/// trained at minibatch `mb`.
static LayerGraph trainedFcChain(int depth, int64_t features, int64_t mb) {
  LayerGraph g;
  for (int i = 0; i < depth; ++i)
    g.layers.push_back(
        {fc(("fc" + std::to_string(i)).c_str(), features, features, mb)});
  for (int i = 0; i + 1 < depth; ++i) {
    g.edges.push_back({i, i + 1, double(features * mb)});
    g.edges.back().primaryInput = true;
  }
  g.assignTrainingPasses(true);
  return g;
}

/// `g` mapped with every option's default on dsm-8pf-asym with
/// `memoryBytes` of external memory a chip (0: the preset's 8 GB).
static llvm::Expected<MappingPlan> mapWithMemory(const LayerGraph &g,
                                                 double memoryBytes = 0) {
  SerialExecutor serial;
  MultiChipSystem system = multiChipPreset("dsm-8pf-asym");
  if (memoryBytes > 0)
    system.chip.externalMemory.capacityBytes = memoryBytes;
  return SpatialMapper(system, MapperOptions()).map(g, serial);
}

TEST(SpatialMapperTest, ShardedStateIsFreeAndChosenOnlyWhereItIsNeeded) {
  // Data parallelism, the fastest, keeps every parameter on every chip: 14
  // MB of fp16 weights and, in mixed-precision Adam, 99 MB of gradients and
  // state. With 40 MB a chip, the state sharded over the 64 chips (1.5 MB)
  // makes the same plan fit, at the same cycles; with 8 GB nothing is
  // sharded.
  LayerGraph g = threeWideConvolutions();
  llvm::Expected<MappingPlan> fast = mapWithMemory(g);
  llvm::Expected<MappingPlan> sharded = mapWithMemory(g, 40e6);
  ASSERT_TRUE(fast && sharded);
  EXPECT_GT(fast->memory.total(), 100e6);
  EXPECT_TRUE(sharded->memory.fits());
  EXPECT_EQ(sharded->totals.cycles.total, fast->totals.cycles.total);
  EXPECT_DOUBLE_EQ(sharded->memory.gradients, 3 * 512.0 * 512 * 9 * 2 / 64);
  for (size_t i = 0; i < g.layers.size(); ++i) {
    EXPECT_EQ(sharded->layers[i].parallelism, Parallelism::Data);
    EXPECT_TRUE(
        sharded->layers[i].passes.front().eval.config.memory.shardedState);
    EXPECT_FALSE(
        fast->layers[i].passes.front().eval.config.memory.shardedState);
  }
}

TEST(SpatialMapperTest, PlansFitAChipsMemoryWhereAPriceMakesThemFit) {
  // With 20 MB a chip even the sharded plan does not fit (14 MB of weights,
  // 5 MB of activations): the plan must hold a share of the parameters
  // (at the least price that fits), slower.
  LayerGraph g = threeWideConvolutions();
  llvm::Expected<MappingPlan> fast = mapWithMemory(g);
  llvm::Expected<MappingPlan> fitting = mapWithMemory(g, 20e6);
  ASSERT_TRUE(fast && fitting);
  for (const LayerPlan &layer : fast->layers)
    EXPECT_EQ(layer.parallelism, Parallelism::Data);
  EXPECT_TRUE(fitting->memory.fits());
  EXPECT_LT(fitting->memory.weights, fast->memory.weights);
  EXPECT_GE(fitting->totals.cycles.total, fast->totals.cycles.total);
}

TEST(SpatialMapperTest, OffloadedStateFitsWithAHostLinkAtOneTransferAStep) {
  // With 20 MB a chip the sharded plan needs 20.5 MB (14 MB of weights, 5 MB
  // of activations, 1.5 MB of sharded state). On a system whose chips have
  // a host link, the optimizer state of each chip's shard (12 bytes a
  // parameter) moves to the host: the fastest plan fits as selected, and
  // each layer's UPD sends its 1/64 shard's gradients to the host and takes
  // the weights back, 2 bytes an element each way.
  LayerGraph g = threeWideConvolutions();
  llvm::Expected<MappingPlan> fast = mapWithMemory(g);
  ASSERT_TRUE(static_cast<bool>(fast));
  SerialExecutor serial;
  MultiChipSystem system = multiChipPreset("dsm-8pf-asym");
  system.chip.externalMemory.capacityBytes = 20e6;
  system.chip.hostLink = HostLinkSpec{/*bandwidth=*/32e9, /*memory=*/1e9};
  llvm::Expected<MappingPlan> offloaded =
      SpatialMapper(system, MapperOptions()).map(g, serial);
  ASSERT_TRUE(static_cast<bool>(offloaded))
      << llvm::toString(offloaded.takeError());
  EXPECT_TRUE(offloaded->memory.fits());
  const double params = 3 * (512.0 * 512 * 9);
  EXPECT_DOUBLE_EQ(offloaded->memory.optimizer, 0);
  EXPECT_DOUBLE_EQ(offloaded->memory.offloaded, params / 64 * 12);
  EXPECT_DOUBLE_EQ(offloaded->memory.gradients, params / 64 * 2);
  double hostCycles = 0;
  for (size_t i = 0; i < g.layers.size(); ++i) {
    const LayerPlan &layer = offloaded->layers[i];
    EXPECT_EQ(layer.parallelism, fast->layers[i].parallelism);
    EXPECT_TRUE(layer.passes.front().eval.config.memory.offloadedState);
    int updates = 0;
    for (const PassPlan &pass : layer.passes)
      for (const TransferGroup &group : pass.eval.transfers)
        if (group.name == "host_update") {
          ++updates;
          EXPECT_EQ(pass.pass, TrainingPass::UPD);
          const double bytes = 512.0 * 512 * 9 / 64 * 2;
          EXPECT_DOUBLE_EQ(group.bytes[int(Link::Host)], bytes);
          EXPECT_DOUBLE_EQ(group.cycles,
                           bytes / 32e9 * system.chip.core.frequencyHz);
          hostCycles += group.cycles;
        }
    EXPECT_EQ(updates, 1);
  }
  EXPECT_NEAR(offloaded->totals.cycles.total,
              fast->totals.cycles.total + hostCycles,
              1e-9 * fast->totals.cycles.total);
  // Without the host link the plan must hold a share of the parameters, or
  // host memory too small to hold the state: slower.
  system.chip.hostLink->memoryBytes = params / 64 * 12 / 2;
  llvm::Expected<MappingPlan> small =
      SpatialMapper(system, MapperOptions()).map(g, serial);
  ASSERT_TRUE(static_cast<bool>(small));
  EXPECT_TRUE(small->memory.fits());
  EXPECT_DOUBLE_EQ(small->memory.offloaded, 0);
  EXPECT_GT(small->totals.cycles.total, offloaded->totals.cycles.total);
}

TEST(SpatialMapperTest, RecomputationFitsWhatActivationsAloneOverflow) {
  // 48 fully connected layers of 1024 features trained at minibatch 65536:
  // each activation is 2 MB a chip, all 47 kept from the forward half to
  // the backward half (100 MB), while the parameters take 13 MB at the
  // least (sharded state). With 50 MB a chip the plan recomputes the
  // activations of segments (about 2 sqrt(48) alive at once), and its
  // first backward passes pay the FWD again.
  const LayerGraph g = trainedFcChain(/*depth=*/48, /*features=*/1024,
                                      /*mb=*/65536);
  llvm::Expected<MappingPlan> kept = mapWithMemory(g);
  llvm::Expected<MappingPlan> recomputed = mapWithMemory(g, 50e6);
  ASSERT_TRUE(kept && recomputed);
  EXPECT_GT(kept->memory.activations, 50e6);
  EXPECT_TRUE(recomputed->memory.fits());
  EXPECT_LT(recomputed->memory.activations, kept->memory.activations / 2);
  int layers = 0;
  for (const LayerPlan &layer : recomputed->layers) {
    const PassPlan &fwd = layer.passes.front();
    if (!fwd.eval.config.memory.recomputed)
      continue;
    ++layers;
    const PassPlan &backward = layer.passes[1];
    CycleBreakdown expected = backward.eval.cycles;
    expected.nonOvldt += backward.relayout.cycles;
    expected.total += backward.relayout.cycles;
    expected += recomputationCycles(fwd.eval.cycles);
    // With the weights sharded too, the pass gathers them first.
    for (const TransferGroup &group : backward.eval.transfers)
      if (group.name == "weight_gather") {
        expected.nonOvldt += group.cycles;
        expected.total += group.cycles;
      }
    EXPECT_DOUBLE_EQ(backward.cycles.total, expected.total);
    EXPECT_DOUBLE_EQ(backward.cycles.useful, backward.eval.cycles.useful);
  }
  EXPECT_GT(layers, 0);
  EXPECT_GT(recomputed->totals.cycles.total, kept->totals.cycles.total);
}

TEST(SpatialMapperTest, ALayerKeepsItsSavedActivationsAtItsLayout) {
  // Eight fully connected layers, each keeping its input for the weights'
  // gradient (the first's is the network's: not counted). In training all
  // are alive at the turn of the step, so the plan holds their sum, each at
  // its layer's layout, beside at most the network's result and an error.
  // Under data parallelism a chip keeps a 1/64 share of each; under model
  // parallelism (the output features split) every chip keeps whole inputs.
  const int64_t features = 1024, mb = 512;
  LayerGraph g = trainedFcChain(/*depth=*/8, features, mb);
  for (size_t i = 1; i < g.layers.size(); ++i)
    g.layers[i].shape.saved.inputs = double(features * mb);
  SerialExecutor serial;
  const MultiChipSystem system = multiChipPreset("dsm-8pf-asym");
  const double elementBytes = PerformanceModel(system).bytesPerElement();
  const double tensorShare = double(features * mb) * elementBytes / 64;
  for (Parallelism only : {Parallelism::Data, Parallelism::Model}) {
    SCOPED_TRACE(stringifyParallelism(only).str());
    MapperOptions options;
    options.parallelisms = {only};
    llvm::Expected<MappingPlan> plan =
        SpatialMapper(system, options).map(g, serial);
    ASSERT_TRUE(bool(plan)) << llvm::toString(plan.takeError());
    double kept = 0;
    for (size_t i = 0; i < g.layers.size(); ++i)
      kept += savedBytesPerChip(
          g.layers[i].shape,
          plan->layers[i].passes.front().eval.config.chipSplit, elementBytes);
    const double perLayer = only == Parallelism::Data
                                ? tensorShare
                                : double(features * mb) * elementBytes;
    EXPECT_DOUBLE_EQ(kept, 7 * perLayer);
    EXPECT_GE(plan->memory.activations, kept);
    EXPECT_LE(plan->memory.activations, kept + 2 * tensorShare);
  }
}

TEST(SpatialMapperTest, PipelinesFirstStillLeaveTheFastestPlanThatFits) {
  // Where the fastest plan needs memory savers, the pipelines are searched
  // before the savers and bound their pricing over the whole torus. The plan
  // is still the faster of the two searches: a plan over the whole torus
  // (or a block) is the same as without pipelines; a pipeline fits where
  // that plan does and is faster. Sixteen fully connected layers pipeline
  // well; three wide convolutions do not (their activations are large).
  const LayerGraph chain = trainedFcChain(/*depth=*/16, /*features=*/2048,
                                          /*mb=*/4096);
  const LayerGraph convolutions = threeWideConvolutions();
  const std::vector<std::pair<const LayerGraph *, double>> runs = {
      {&chain, 8e9},  {&chain, 150e6},       {&chain, 25e6},
      {&chain, 10e6}, {&convolutions, 40e6}, {&convolutions, 20e6}};
  int pipelined = 0, wholeWithSavers = 0;
  for (auto [g, capacity] : runs) {
    SerialExecutor serial;
    MultiChipSystem system = multiChipPreset("dsm-8pf-asym");
    system.chip.externalMemory.capacityBytes = capacity;
    MapperOptions options;
    options.chipBlocks = true;
    llvm::Expected<MappingPlan> whole =
        SpatialMapper(system, options).map(*g, serial);
    options.pipelineStages = true;
    llvm::Expected<MappingPlan> plan =
        SpatialMapper(system, options).map(*g, serial);
    ASSERT_TRUE(whole && plan) << capacity;
    if (whole->fitsMemory()) {
      EXPECT_TRUE(plan->fitsMemory()) << capacity;
    }
    if (plan->pipeline.pipelined()) {
      ++pipelined;
      EXPECT_TRUE(plan->fitsMemory()) << capacity;
      if (whole->fitsMemory()) {
        EXPECT_LT(plan->totals.cycles.total, whole->totals.cycles.total)
            << capacity;
      }
    } else {
      wholeWithSavers += whole->fitsMemory() && !whole->fastestMemory.fits();
      EXPECT_EQ(plan->totals.cycles.total, whole->totals.cycles.total)
          << capacity;
      EXPECT_EQ(plan->memory.total(), whole->memory.total()) << capacity;
    }
  }
  // Both ways out of the search occur.
  EXPECT_GT(pipelined, 0);
  EXPECT_GT(wholeWithSavers, 0);
}

TEST(SpatialMapperTest, ChosenSaversAreNeverSlowerThanNamedOnes) {
  // Memory savers are priced decisions: left to choose, the mapper's plan
  // that fits is never slower than one with a saver named, whatever the
  // tier the named saver sits in. (A costlier tier, the weights sharded,
  // used to be priced only where no plan of the cheaper tier fitted: on 64
  // chips with 20 MB each, 39 fully connected layers of 1024 features at
  // minibatch 2048 took 6.21 M cycles as chosen, against 4.83 M with the
  // weights sharded as named.)
  std::mt19937 random(7);
  int named = 0, faster = 0;
  for (int trial = 0; trial < 24; ++trial) {
    const int depth = 8 + int(random() % 41);
    const int64_t mb = int64_t(1) << (8 + random() % 9);
    const int64_t features = int64_t(128) << (random() % 5);
    const LayerGraph g = trainedFcChain(depth, features, mb);
    MultiChipSystem system = multiChipPreset("dsm-8pf-asym");
    if (trial % 2)
      system = blockSystem(system, 8, 4);
    system.chip.externalMemory.capacityBytes =
        std::array<double, 3>{100e6, 50e6, 20e6}[random() % 3];
    SerialExecutor serial;
    llvm::Expected<MappingPlan> chosen =
        SpatialMapper(system, MapperOptions()).map(g, serial);
    ASSERT_TRUE(static_cast<bool>(chosen))
        << llvm::toString(chosen.takeError());
    for (int which = 0; which < 4; ++which) {
      MapperOptions options;
      if (which < 2)
        options.savers.shard =
            which ? ShardChoice::Weights : ShardChoice::State;
      else
        options.savers.recompute =
            which == 2 ? RecomputeChoice::Full : RecomputeChoice::None;
      llvm::Expected<MappingPlan> plan =
          SpatialMapper(system, options).map(g, serial);
      ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
      if (!plan->fitsMemory())
        continue;
      ++named;
      EXPECT_TRUE(chosen->fitsMemory()) << trial;
      EXPECT_LE(chosen->totals.cycles.total,
                plan->totals.cycles.total * (1 + 1e-12))
          << "trial " << trial << ", saver " << which;
      faster += chosen->totals.cycles.total < plan->totals.cycles.total;
    }
  }
  EXPECT_GT(named, 0);
  EXPECT_GT(faster, 0);
}

TEST(SpatialMapperTest, ProgressCountsTheExplorations) {
  LayerGraph g = vggTail(1024);
  g.assignTrainingPasses(true);
  SerialExecutor serial;
  llvm::Expected<MappingPlan> silent =
      SpatialMapper(multiChipPreset("dsm-8pf-asym"), MapperOptions())
          .map(g, serial);
  dsm::core::testing::RecordingProgress progress;
  MapperOptions options;
  options.progress = &progress;
  llvm::Expected<MappingPlan> watched =
      SpatialMapper(multiChipPreset("dsm-8pf-asym"), options).map(g, serial);
  ASSERT_TRUE(silent && watched);
  int64_t explorations = int64_t(watched->explorations);
  progress.expectMonotoneUpTo(explorations, explorations);
  EXPECT_EQ(watched->totals.cycles.total, silent->totals.cycles.total);

  // A preloading sweep maps many times: still monotone, ending at its total.
  LayerGraph inference = vggTail(1);
  inference.assignTrainingPasses(false);
  dsm::core::testing::RecordingProgress sweep;
  options.preloadWeights = true;
  options.progress = &sweep;
  watched = SpatialMapper(multiChipPreset("dsm-128tf"), options)
                .map(inference, serial);
  ASSERT_TRUE(static_cast<bool>(watched));
  ASSERT_FALSE(sweep.steps.empty());
  sweep.expectMonotoneUpTo(sweep.steps.back().total, sweep.steps.front().total);
}

TEST(SpatialMapperTest, StoppedMappingFailsWithWhereItStopped) {
  LayerGraph g = vggTail(1024);
  g.assignTrainingPasses(true);
  SerialExecutor serial;
  dsm::core::testing::RecordingProgress progress(/*stopAt=*/3);
  MapperOptions options;
  options.search = SearchMode::Exhaustive;
  options.progress = &progress;
  llvm::Expected<MappingPlan> plan =
      SpatialMapper(multiChipPreset("dsm-8pf-asym"), options).map(g, serial);
  ASSERT_FALSE(static_cast<bool>(plan));
  std::string message;
  llvm::handleAllErrors(plan.takeError(), [&](const InterruptedError &error) {
    EXPECT_EQ(error.getDone(), 3);
    message = error.message();
  });
  ASSERT_FALSE(progress.steps.empty());
  EXPECT_EQ(message, "interrupted after 3 of " +
                         std::to_string(progress.steps.back().total) +
                         " explorations");
}

/// Asks to stop from the `stopAt`-th question on.
class StopAtQuestion final : public Progress {
public:
  explicit StopAtQuestion(int64_t stopAt) : stopAt(stopAt) {}
  bool shouldStop() override { return ++questions >= stopAt; }
  int64_t questions = 0;

private:
  int64_t stopAt;
};

TEST(SpatialMapperTest, StopsAnywhereInTheSolver) {
  // The DySM block of the test above: once every exploration has asked
  // (once each), the solver still asks before and after the selection and
  // before each move of the grouping. A stop at any of those questions
  // fails the mapping with an InterruptedError, never a plan.
  SerialExecutor serial;
  LayerGraph g = residualBlock(256, 3136, 1024);
  MapperOptions options;
  options.reuseActivations = options.spatialMinibatching = true;
  MultiChipSystem system = multiChipPreset("dsm-8pf-asym");
  StopAtQuestion never(std::numeric_limits<int64_t>::max());
  options.progress = &never;
  llvm::Expected<MappingPlan> plan =
      SpatialMapper(system, options).map(g, serial);
  ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
  const int64_t explorations = int64_t(plan->explorations);
  const int64_t questions = never.questions;
  // Two around the selection, at least one move of the grouping.
  ASSERT_GE(questions, explorations + 3);
  for (int64_t stopAt = explorations + 1; stopAt <= questions; ++stopAt) {
    StopAtQuestion stop(stopAt);
    options.progress = &stop;
    llvm::Expected<MappingPlan> stopped =
        SpatialMapper(system, options).map(g, serial);
    ASSERT_FALSE(static_cast<bool>(stopped)) << "stopped at " << stopAt;
    bool interrupted = false;
    llvm::handleAllErrors(stopped.takeError(), [&](const InterruptedError &) {
      interrupted = true;
    });
    EXPECT_TRUE(interrupted) << "stopped at " << stopAt;
  }
}

TEST(SpatialMapperTest, RepeatedShapesAreExploredOnce) {
  SerialExecutor serial;
  LayerGraph g;
  for (int i = 0; i < 4; ++i)
    g.layers.push_back({convLayer(64, 64, 3136, 9, 256, "same")});
  for (int i = 0; i < 3; ++i)
    g.edges.push_back({i, i + 1, 64.0 * 3136 * 256});
  g.assignTrainingPasses(false);
  llvm::Expected<MappingPlan> plan =
      SpatialMapper(multiChipPreset("dsm-8pf-asym"), MapperOptions())
          .map(g, serial);
  ASSERT_TRUE(static_cast<bool>(plan));
  EXPECT_EQ(plan->explorations, 4u);          // one per parallelism
  EXPECT_EQ(plan->memoizedExplorations, 12u); // the three repeats
}

TEST(SpatialMapperTest, ImpossibleLayerIsNamed) {
  SerialExecutor serial;
  LayerGraph g;
  // Minibatch 1 and 8 output features cannot cover 64 chips.
  g.layers = {{fc("tiny", 16, 8, 1)}};
  g.assignTrainingPasses(false);
  llvm::Expected<MappingPlan> plan =
      SpatialMapper(multiChipPreset("dsm-8pf-asym"), MapperOptions())
          .map(g, serial);
  ASSERT_FALSE(static_cast<bool>(plan));
  std::string message;
  int64_t node = -1;
  llvm::handleAllErrors(plan.takeError(), [&](const NodeError &error) {
    node = error.getNode();
    message = error.getMessage();
  });
  EXPECT_EQ(node, 0); // the error names the layer by its index, for the pass
  EXPECT_NE(message.find("layer 'tiny' has no legal mapping"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("data (fwd): data parallelism splits 'mb' 64 ways"),
            std::string::npos)
      << message;
}

} // namespace

// The core's plan verifier (MappingPlan.h) passes what the mapper returns --
// a plan on the whole torus and a pipeline -- and names what a plan breaks:
// a split over the wrong chips or cores, decisions that do not go together,
// a layer's passes missing, stages sharing rows or microbatch counts.
TEST(SpatialMapperTest, VerifyPlanPassesPlansAndNamesWhatABrokenOneBreaks) {
  SerialExecutor serial;
  MultiChipSystem system = multiChipPreset("dsm-8pf-asym");
  system.chip.externalMemory.capacityBytes = 25e6;
  const PerformanceModel model(system);
  const LayerGraph chain = trainedFcChain(/*depth=*/16, /*features=*/2048,
                                          /*mb=*/4096);
  MapperOptions options;
  options.pipelineStages = true;
  llvm::Expected<MappingPlan> plan =
      SpatialMapper(system, options).map(chain, serial);
  ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
  ASSERT_TRUE(plan->pipeline.pipelined());
  // What verifyPlan says of `candidate` as a plan of `g` ("": a plan).
  auto failureOf = [](const PerformanceModel &m, const LayerGraph &g,
                      const MappingPlan &candidate) {
    llvm::Error error = verifyPlan(m, g, candidate);
    return error ? llvm::toString(std::move(error)) : std::string();
  };
  EXPECT_EQ(failureOf(model, chain, *plan), "");
  LayerGraph tail = vggTail(512);
  tail.assignTrainingPasses(true);
  const MultiChipSystem preset = multiChipPreset("dsm-8pf-asym");
  llvm::Expected<MappingPlan> whole =
      SpatialMapper(preset, MapperOptions()).map(tail, serial);
  ASSERT_TRUE(static_cast<bool>(whole)) << llvm::toString(whole.takeError());
  EXPECT_EQ(failureOf(PerformanceModel(preset), tail, *whole), "");

  auto failure = [&](const MappingPlan &broken) {
    return failureOf(model, chain, broken);
  };
  MappingPlan wrongChips = *plan;
  wrongChips.layers[3].passes[1].eval.config.chipSplit[4] *= 2;
  EXPECT_NE(failure(wrongChips)
                .find("the plan of layer 'fc3' (bwd) splits "
                      "its work over"),
            std::string::npos)
      << failure(wrongChips);
  MappingPlan wrongCores = *plan;
  wrongCores.layers[0].passes[0].eval.config.coreSplit[1] *= 3;
  EXPECT_NE(failure(wrongCores).find("cores, but a chip has"),
            std::string::npos);
  MappingPlan unsharded = *plan;
  unsharded.layers[5].passes[0].eval.config.memory.shardedWeights = true;
  unsharded.layers[5].passes[0].eval.config.memory.shardedState = false;
  EXPECT_NE(failure(unsharded).find("decides sharded_weights without "
                                    "sharded_state"),
            std::string::npos);
  MappingPlan passMissing = *plan;
  passMissing.layers[7].passes.pop_back();
  EXPECT_NE(failure(passMissing).find("plans 2 passes of the layer's 3"),
            std::string::npos);
  MappingPlan microbatches = *plan;
  microbatches.layers.back().passes.back().eval.config.memory.microbatches += 1;
  EXPECT_NE(failure(microbatches).find("microbatches, another stage"),
            std::string::npos);
  MappingPlan overlap = *plan;
  for (PassPlan &pass : overlap.layers.back().passes)
    pass.eval.config.memory.pipeFirstRow -= 1;
  EXPECT_NE(failure(overlap).find("stages share torus row"), std::string::npos)
      << failure(overlap);
}
