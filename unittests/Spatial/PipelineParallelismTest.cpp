//===- PipelineParallelismTest.cpp - Runs of layers as pipeline stages ----===//

#include "dsm/Core/Spatial/PipelineParallelism.h"

#include "TestHelpers.h"

#include <gtest/gtest.h>

#include <random>

using namespace dsm::core;
using dsm::core::testing::convLayer;

namespace {

TEST(PipelineParallelismTest, EqualStagesLeaveTheGPipeBubble) {
  // p equal stages, m microbatches, free links: (m + p - 1) periods of one
  // forward and one backward, the bubble (p - 1) / (m + p - 1) of it, under
  // either schedule; the update once after.
  for (PipelineSchedule schedule :
       {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB})
    for (int p : {1, 2, 4, 8})
      for (int64_t m : {1, 4, 8, 32}) {
        std::vector<double> forward(p, 3.0), backward(p, 5.0), update(p, 7.0);
        std::vector<double> links(p - 1, 0.0);
        PipelineStepTiming t = pipelineStepTiming(schedule, forward, backward,
                                                  update, links, links, m);
        EXPECT_DOUBLE_EQ(t.total, double(m + p - 1) * 8.0 + 7.0)
            << p << " stages, " << m << " microbatches";
        EXPECT_NEAR(t.bubbleFraction, double(p - 1) / double(m + p - 1), 1e-12);
      }
}

TEST(PipelineParallelismTest, StepsOnLinksSlowerOneWayThanTheOther) {
  // Two stages, 4 microbatches; the forward link (50) slower than the
  // stages, the backward one (8) not. By hand:
  //   GPipe: forward  10 + 20 + 50 + 3 x max(10, 20, 50) = 230
  //          backward 30 + 40 + 8 + 3 x max(30, 40, 8)   = 198
  //          + the slowest update 7                      = 435
  //   1F1B:  periods of both passes, waiting for the busier link:
  //          40 + 60 + 50 + 3 x max(40, 60, 50) = 330, + the other way 8,
  //          + 7                                         = 345
  const std::vector<double> forward = {10, 20}, backward = {30, 40},
                            update = {5, 7};
  PipelineStepTiming gpipe = pipelineStepTiming(
      PipelineSchedule::GPipe, forward, backward, update, {50}, {8}, 4);
  EXPECT_DOUBLE_EQ(gpipe.forward.total, 230);
  EXPECT_DOUBLE_EQ(gpipe.backward.total, 198);
  EXPECT_DOUBLE_EQ(gpipe.update, 7);
  EXPECT_DOUBLE_EQ(gpipe.total, 435);
  // 4 x (40 + 60) = 400 busy cycles of 2 x 428.
  EXPECT_DOUBLE_EQ(gpipe.bubbleFraction, 1 - 400.0 / 856.0);
  PipelineStepTiming oneFOneB = pipelineStepTiming(
      PipelineSchedule::OneFOneB, forward, backward, update, {50}, {8}, 4);
  EXPECT_DOUBLE_EQ(oneFOneB.forward.fill, 158);
  EXPECT_DOUBLE_EQ(oneFOneB.forward.total, 338);
  EXPECT_DOUBLE_EQ(oneFOneB.total, 345);
  EXPECT_DOUBLE_EQ(oneFOneB.bubbleFraction, 1 - 400.0 / 676.0);
  // The links swapped: the same 1F1B step (the busier way sets the
  // period), a GPipe step of 10 + 20 + 8 + 60 + 30 + 40 + 50 + 150 + 7.
  EXPECT_DOUBLE_EQ(pipelineStepTiming(PipelineSchedule::OneFOneB, forward,
                                      backward, update, {8}, {50}, 4)
                       .total,
                   345);
  EXPECT_DOUBLE_EQ(pipelineStepTiming(PipelineSchedule::GPipe, forward,
                                      backward, update, {8}, {50}, 4)
                       .total,
                   375);
}

TEST(PipelineParallelismTest, OneFOneBIsNeverSlowerThanGPipe) {
  std::mt19937 random(3);
  std::uniform_real_distribution<double> cycles(1.0, 100.0);
  for (int trial = 0; trial < 200; ++trial) {
    const int p = 1 + trial % 6;
    const int64_t m = 1 + trial % 17;
    std::vector<double> forward, backward, update, ahead, back;
    for (int s = 0; s < p; ++s) {
      forward.push_back(cycles(random));
      backward.push_back(cycles(random));
      update.push_back(cycles(random));
    }
    for (int j = 0; j + 1 < p; ++j) {
      ahead.push_back(cycles(random) / 4);
      back.push_back(cycles(random) / 4);
    }
    PipelineStepTiming gpipe = pipelineStepTiming(
        PipelineSchedule::GPipe, forward, backward, update, ahead, back, m);
    PipelineStepTiming interleaved = pipelineStepTiming(
        PipelineSchedule::OneFOneB, forward, backward, update, ahead, back, m);
    EXPECT_LE(interleaved.total, gpipe.total * (1 + 1e-12)) << trial;
    // Never faster than the slowest stage's work, nor than one microbatch
    // through every stage and link both ways.
    double slowest = 0, through = 0;
    for (int s = 0; s < p; ++s) {
      slowest = std::max(slowest, double(m) * (forward[s] + backward[s]));
      through += forward[s] + backward[s];
    }
    for (int j = 0; j + 1 < p; ++j)
      through += ahead[j] + back[j];
    EXPECT_GE(interleaved.total - interleaved.update, slowest * (1 - 1e-12));
    EXPECT_GE(interleaved.total - interleaved.update, through * (1 - 1e-12));
  }
}

TEST(PipelineParallelismTest, PlannedStagesBoundTheStep) {
  // However the stages not yet planned turn out, at least their least
  // cycles, the step under either schedule and any links is at least the
  // bound of the stages planned so far.
  std::mt19937 random(11);
  std::uniform_real_distribution<double> cycles(1.0, 100.0), share(0.0, 1.0);
  for (int trial = 0; trial < 300; ++trial) {
    const int p = 1 + trial % 8;
    const int64_t m = 1 + trial % 13;
    std::vector<PipelineStageRecord> stages(p);
    std::vector<double> forward, backward, update, least, ahead, back;
    for (PipelineStageRecord &stage : stages) {
      stage.forward = cycles(random);
      stage.backward = trial % 5 == 0 ? 0.0 : cycles(random);
      stage.update = cycles(random) / 3;
      forward.push_back(stage.forward);
      backward.push_back(stage.backward);
      update.push_back(stage.update);
      least.push_back((stage.forward + stage.backward) * share(random));
    }
    for (int j = 0; j + 1 < p; ++j) {
      ahead.push_back(cycles(random) / 4);
      back.push_back(cycles(random) / 4);
    }
    for (PipelineSchedule schedule :
         {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB}) {
      const double step = pipelineStepTiming(schedule, forward, backward,
                                             update, ahead, back, m)
                              .total;
      for (int planned = 0; planned <= p; ++planned) {
        llvm::ArrayRef<PipelineStageRecord> first(stages.data(), planned);
        EXPECT_LE(pipelineStepLowerBound(first, p, least, m),
                  step * (1 + 1e-12))
            << "trial " << trial << ", " << planned << " planned";
        EXPECT_LE(pipelineStepLowerBound(first, p, {}, m),
                  pipelineStepLowerBound(first, p, least, m));
      }
      // Every stage planned, free links, one forward and backward a
      // period: the bound is the step.
      if (schedule == PipelineSchedule::OneFOneB) {
        std::vector<double> none(p > 1 ? p - 1 : 0, 0.0);
        EXPECT_DOUBLE_EQ(pipelineStepLowerBound(stages, p, least, m),
                         pipelineStepTiming(schedule, forward, backward, update,
                                            none, none, m)
                             .total);
      }
    }
  }
}

TEST(PipelineParallelismTest, OneFOneBKeepsFewerMicrobatchesInFlight) {
  EXPECT_EQ(microbatchesInFlight(PipelineSchedule::GPipe, 0, 4, 16), 16);
  EXPECT_EQ(microbatchesInFlight(PipelineSchedule::GPipe, 3, 4, 16), 16);
  EXPECT_EQ(microbatchesInFlight(PipelineSchedule::OneFOneB, 0, 4, 16), 4);
  EXPECT_EQ(microbatchesInFlight(PipelineSchedule::OneFOneB, 3, 4, 16), 1);
  EXPECT_EQ(microbatchesInFlight(PipelineSchedule::OneFOneB, 0, 4, 2), 2);
}

TEST(PipelineParallelismTest, GradientsAreReducedOncePerStep) {
  // A UPD of 30 cycles per microbatch, 10 of them the gradient reduction:
  // over 4 microbatches the work runs 4 times, the reduction once; a stage
  // of half the chips records half of that.
  std::vector<TransferGroup> transfers(2);
  transfers[0].name = "fetch_inp+fetch_ker+write_out";
  transfers[0].cycles = 12;
  transfers[1].name = "grad_reduce+weight_broadcast";
  transfers[1].cycles = 10;
  EXPECT_EQ(oncePerStepCycles(TrainingPass::UPD, transfers, 30), 10);
  EXPECT_EQ(oncePerStepCycles(TrainingPass::BWD, transfers, 30), 0);
  CycleBreakdown upd;
  upd.useful = 15;
  upd.nonOvldt = 15;
  upd.total = 30;
  CycleBreakdown step = pipelinedPassCycles(upd, 10, 4, 0.5);
  EXPECT_DOUBLE_EQ(step.useful, 15 * 4 * 0.5);
  EXPECT_DOUBLE_EQ(step.nonOvldt, (15 * 4 - 3 * 10) * 0.5);
  EXPECT_DOUBLE_EQ(step.total, (30 * 4 - 3 * 10) * 0.5);
}

TEST(PipelineParallelismTest, StagesBalanceLikeBruteForce) {
  // Against every way of cutting the layers into p non-empty runs.
  std::mt19937 random(11);
  std::uniform_int_distribution<int> cost(0, 40);
  for (int trial = 0; trial < 300; ++trial) {
    const int n = 1 + trial % 9;
    const int p = 1 + (trial / 9) % n;
    std::vector<double> costs;
    for (int i = 0; i < n; ++i)
      costs.push_back(double(cost(random)));
    auto largest = [&](const std::vector<int> &firsts) {
      double worst = 0;
      for (size_t s = 0; s < firsts.size(); ++s) {
        int end = s + 1 < firsts.size() ? firsts[s + 1] : n;
        double sum = 0;
        for (int i = firsts[s]; i < end; ++i)
          sum += costs[i];
        worst = std::max(worst, sum);
      }
      return worst;
    };
    double best = 1e300;
    // Every subset of the n - 1 cut points with p - 1 cuts.
    for (unsigned mask = 0; mask < (1u << (n - 1)); ++mask) {
      if (__builtin_popcount(mask) != p - 1)
        continue;
      std::vector<int> firsts = {0};
      for (int i = 1; i < n; ++i)
        if (mask & (1u << (i - 1)))
          firsts.push_back(i);
      best = std::min(best, largest(firsts));
    }
    std::vector<int> firsts = balanceStages(costs, p);
    ASSERT_EQ(int(firsts.size()), p) << trial;
    EXPECT_EQ(firsts.front(), 0);
    for (size_t s = 1; s < firsts.size(); ++s)
      EXPECT_LT(firsts[s - 1], firsts[s]) << trial;
    EXPECT_LT(firsts.back(), n);
    EXPECT_NEAR(largest(firsts), best, 1e-9) << trial;
  }
}

TEST(PipelineParallelismTest, AMicrobatchDividesWhatCarriesTheMinibatch) {
  LayerGraph g;
  LayerNode embedding;
  embedding.shape.name = "position";
  embedding.shape.hasPrimary = false;
  embedding.shape.dims = {1, 64, 1, 1, 1};
  embedding.outputElements = 64;
  LayerNode fc;
  fc.shape = convLayer(64, 32, 1, 1, 48, "fc");
  fc.shape.auxOps = 48.0 * 32;
  fc.outputElements = 48.0 * 32;
  LayerNode head;
  head.shape = convLayer(32, 8, 1, 1, 48 * 12, "heads");
  g.layers = {embedding, fc, head};
  g.edges = {{0, 1, 64}, {1, 2, 48.0 * 32}};
  EXPECT_EQ(graphBatch(g), 48);
  LayerGraph part = microbatchGraph(g, 4);
  EXPECT_EQ(part.layers[0].shape.get(Dim::MB), 1);
  EXPECT_EQ(part.layers[0].outputElements, 64);
  EXPECT_EQ(part.layers[1].shape.get(Dim::MB), 12);
  EXPECT_DOUBLE_EQ(part.layers[1].shape.auxOps, 12.0 * 32);
  EXPECT_DOUBLE_EQ(part.layers[1].outputElements, 12.0 * 32);
  EXPECT_EQ(part.layers[2].shape.get(Dim::MB), 12 * 12);
  EXPECT_DOUBLE_EQ(part.edges[0].elements, 64);
  EXPECT_DOUBLE_EQ(part.edges[1].elements, 12.0 * 32);
  // The parameters stay whole.
  EXPECT_DOUBLE_EQ(part.layers[1].shape.params, g.layers[1].shape.params);

  // A stage of layers [0, 2): its own edges; what leaves it is sent on, not
  // kept, and the stage that reads it keeps it.
  LayerGraph stage = stageGraph(part, 0, 2);
  ASSERT_EQ(stage.layers.size(), 2u);
  ASSERT_EQ(stage.edges.size(), 1u);
  EXPECT_TRUE(stage.layers[1].sentToLaterStage);
  EXPECT_FALSE(stage.layers[1].networkOutput);
  EXPECT_EQ(stage.layers[0].receivedElements, 0);
  LayerGraph last = stageGraph(part, 2, 3);
  EXPECT_TRUE(last.edges.empty());
  EXPECT_DOUBLE_EQ(last.layers[0].receivedElements, 12.0 * 32);
}

TEST(PipelineParallelismTest, AStageHoldsItsOwnCopyOfASharedWeight) {
  // Tied weights: layer 2 reads 30 parameters layer 0 holds, layer 1 reads
  // 5 of them. Each is held once, by its first reader; a stage without that
  // reader holds its own copy.
  LayerGraph g;
  for (double params : {40.0, 10.0, 30.0}) {
    LayerNode layer;
    layer.shape.params = params;
    g.layers.push_back(layer);
  }
  g.sharedParameters = {{0, 2, 30}, {0, 1, 5}};
  EXPECT_EQ(g.heldParameters(), (std::vector<double>{40, 5, 0}));
  LayerGraph first = stageGraph(g, 0, 2);
  EXPECT_EQ(first.heldParameters(), (std::vector<double>{40, 5}));
  LayerGraph second = stageGraph(g, 1, 3);
  EXPECT_TRUE(second.sharedParameters.empty());
  EXPECT_EQ(second.heldParameters(), (std::vector<double>{10, 30}));
  // The microbatches' graph keeps them.
  EXPECT_EQ(microbatchGraph(g, 2).heldParameters(), g.heldParameters());
}

} // namespace

TEST(PipelineParallelismTest, MicrobatchCountsIncludeOneSamplePerRow) {
  // p, 2p, 4p, 8p, and one or two samples on each of a stage's rows.
  // GPT-3's 1536 on 8 stages of 16 rows: 8, 16, 32, 64, and 48 and 96 (a
  // microbatch of one per data-parallel replica, Megatron-LM's).
  EXPECT_EQ(microbatchCounts(1536, 8, 16),
            (std::vector<int64_t>{8, 16, 32, 48, 64, 96}));
  // The powers of two stop at the first that does not divide the
  // minibatch; one sample a row goes up to the minibatch (gradient
  // accumulation).
  EXPECT_EQ(microbatchCounts(24, 2, 1),
            (std::vector<int64_t>{2, 4, 8, 12, 24}));
  EXPECT_EQ(microbatchCounts(512, 16, 1),
            (std::vector<int64_t>{16, 32, 64, 128, 256, 512}));
  // GPT-3's 1536 on 8 stages of 4 rows (256 A100s): 384 microbatches of
  // one sequence a row, 192 of two.
  EXPECT_EQ(microbatchCounts(1536, 8, 4),
            (std::vector<int64_t>{8, 16, 32, 64, 192, 384}));
  // Every count divides the minibatch.
  for (int64_t batch : {1, 7, 96, 100, 1536})
    for (int64_t stages : {2, 3, 4, 8})
      for (int64_t rows : {1, 2, 16})
        for (int64_t m : microbatchCounts(batch, stages, rows))
          EXPECT_EQ(batch % m, 0) << batch << " " << stages << " " << rows;
}

TEST(PipelineParallelismTest, BlocksAreTheLayersOfOneNumberedModulePath) {
  // An embedding, two transformer layers of three layers each, a head: the
  // embedding belongs to the first block, the head to the last.
  LayerGraph g;
  for (const char *name :
       {"transformer.wte", "transformer.h.0.attn.c_attn",
        "transformer.h.0.attn.scores", "transformer.h.0.mlp.c_fc",
        "transformer.h.1.attn.c_attn", "transformer.h.1.attn.scores",
        "transformer.h.1.mlp.c_fc", "lm_head"}) {
    LayerNode layer;
    layer.shape.name = name;
    g.layers.push_back(layer);
  }
  EXPECT_EQ(g.blockStarts(), (std::vector<int>{0, 4}));
  // A torchvision ResNet's bottlenecks are blocks too; numbers deeper in
  // the path ("conv1.0") do not open one of their own.
  LayerGraph resnet;
  for (const char *name : {"conv1", "layer1.0.conv1", "layer1.0.conv2",
                           "layer1.1.conv1", "layer2.0.conv1", "fc"}) {
    LayerNode layer;
    layer.shape.name = name;
    resnet.layers.push_back(layer);
  }
  EXPECT_EQ(resnet.blockStarts(), (std::vector<int>{0, 3, 4}));
  // Names without numbers: one block.
  LayerGraph plain;
  plain.layers.resize(3);
  EXPECT_EQ(plain.blockStarts(), (std::vector<int>{0}));
}

TEST(PipelineParallelismTest, StagesCutBetweenBlocksWhereThereAreEnough) {
  // Four blocks of two layers whose first layer is the heavier: balanced
  // freely, two stages would cut inside a block; at blocks they cut between
  // the second and the third.
  const std::vector<double> cost = {3, 1, 3, 1, 3, 1, 3, 1};
  const std::vector<int> starts = {0, 2, 4, 6};
  EXPECT_EQ(balanceStagesAtBlocks(cost, starts, 2), (std::vector<int>{0, 4}));
  EXPECT_EQ(balanceStagesAtBlocks(cost, starts, 4),
            (std::vector<int>{0, 2, 4, 6}));
  // More stages than blocks: any layer boundary, as balanceStages cuts.
  EXPECT_EQ(balanceStagesAtBlocks(cost, starts, 8), balanceStages(cost, 8));
  // Every cut a block start, whatever the costs.
  std::mt19937 random(5);
  std::uniform_real_distribution<double> draw(0.5, 4.0);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<double> costs(24);
    for (double &c : costs)
      c = draw(random);
    const std::vector<int> blocks = {0, 3, 5, 9, 12, 13, 17, 20};
    for (int stages = 1; stages <= int(blocks.size()); ++stages) {
      std::vector<int> firsts = balanceStagesAtBlocks(costs, blocks, stages);
      ASSERT_EQ(int(firsts.size()), stages);
      for (int first : firsts)
        EXPECT_TRUE(llvm::is_contained(blocks, first)) << first;
    }
  }
}

TEST(PipelineParallelismTest, ScheduleRunsEachStagesPassesInItsOrder) {
  // Two stages, a forward of 1 and a backward of 2 cycles, 3 microbatches,
  // 1F1B: stage 0 runs F0 F1 B0 F2 B1 B2, stage 1 F0 B0 F1 B1 F2 B2, each
  // pass once its input is there; by hand the step ends at 12, which is
  // (m + p - 1)(f + b).
  std::vector<ScheduledPass> passes =
      pipelineSchedule({1, 1}, {2, 2}, 3, PipelineSchedule::OneFOneB);
  ASSERT_EQ(passes.size(), 12u);
  auto find = [&](int stage, int64_t microbatch, bool backward) {
    for (const ScheduledPass &p : passes)
      if (p.stage == stage && p.microbatch == microbatch &&
          p.backward == backward)
        return std::make_pair(p.start, p.end);
    return std::make_pair(-1.0, -1.0);
  };
  EXPECT_EQ(find(0, 0, true), std::make_pair(4.0, 6.0));
  EXPECT_EQ(find(0, 2, false), std::make_pair(6.0, 7.0));
  EXPECT_EQ(find(1, 1, false), std::make_pair(4.0, 5.0));
  EXPECT_EQ(find(0, 2, true), std::make_pair(10.0, 12.0));
  double end = 0;
  for (const ScheduledPass &p : passes)
    end = std::max(end, p.end);
  EXPECT_EQ(end, 12.0);
  // GPipe on equal stages takes as long; 1F1B keeps fewer forwards ahead of
  // their backwards on the first stage (p, not m).
  std::vector<ScheduledPass> gpipe =
      pipelineSchedule({1, 1, 1, 1}, {2, 2, 2, 2}, 8, PipelineSchedule::GPipe);
  std::vector<ScheduledPass> oneF = pipelineSchedule(
      {1, 1, 1, 1}, {2, 2, 2, 2}, 8, PipelineSchedule::OneFOneB);
  auto makespan = [](const std::vector<ScheduledPass> &all) {
    double e = 0;
    for (const ScheduledPass &p : all)
      e = std::max(e, p.end);
    return e;
  };
  EXPECT_EQ(makespan(gpipe), (8 + 4 - 1) * 3.0);
  EXPECT_EQ(makespan(oneF), (8 + 4 - 1) * 3.0);
  auto mostAhead = [](const std::vector<ScheduledPass> &all) {
    int ahead = 0, most = 0;
    for (const ScheduledPass &p : all)
      if (p.stage == 0) {
        ahead += p.backward ? -1 : 1;
        most = std::max(most, ahead);
      }
    return most;
  };
  EXPECT_EQ(mostAhead(gpipe), 8);
  EXPECT_EQ(mostAhead(oneF), 4);
}
