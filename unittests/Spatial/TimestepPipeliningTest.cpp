//===- TimestepPipeliningTest.cpp - LSTM pipe groups ----------------------===//

#include "dsm/Core/Spatial/TimestepPipelining.h"
#include "dsm/Core/Spatial/SpatialMapper.h"

#include "TestHelpers.h"

#include <gtest/gtest.h>

#include <numeric>

using namespace dsm::core;
using dsm::core::testing::lstmLayer;
using dsm::core::testing::multiChipPreset;

namespace {

/// One unidirectional (or bidirectional) LSTM layer of GNMT's size: 4H gates
/// over the input and the hidden state, `timesteps` steps.
LayerNode lstm(const char *name, int64_t input, int64_t mb,
               int64_t timesteps = 128, int64_t directions = 1) {
  LayerNode node;
  node.shape = lstmLayer(input + 1024, 4096, mb, timesteps, name);
  node.shape.directions = directions;
  node.shape.params *= double(directions);
  return node;
}

/// A bidirectional LSTM and then `depth` unidirectional ones, each reading
/// the previous layer's output.
LayerGraph lstmStack(int depth, int64_t mb, bool training) {
  LayerGraph g;
  g.layers.push_back(lstm("bi", 1024, mb, 128, 2));
  for (int i = 0; i < depth; ++i)
    g.layers.push_back(lstm("uni", i == 0 ? 2048 : 1024, mb));
  for (int i = 0; i < depth; ++i) {
    LayerEdge edge;
    edge.producer = i;
    edge.consumer = i + 1;
    edge.elements = double(128 * mb * (i == 0 ? 2048 : 1024));
    edge.primaryInput = true;
    g.edges.push_back(edge);
  }
  g.assignTrainingPasses(training);
  return g;
}

TEST(TimestepPipeliningTest, TimingIsFillPlusSteadyState) {
  // Compute-bound: fill = stages + inner boundaries; the wrap boundary
  // (last entry) only bounds the period.
  PipelineTiming timing = pipelineTiming({10, 20, 15}, {5, 3, 1}, 4);
  EXPECT_DOUBLE_EQ(timing.fill, 10 + 20 + 15 + 5 + 3);
  EXPECT_DOUBLE_EQ(timing.computePeriod, 20);
  EXPECT_DOUBLE_EQ(timing.period, 20);
  EXPECT_DOUBLE_EQ(timing.total, 53 + 3 * 20);
  // Link-bound: a boundary slower than every stage sets the period.
  PipelineTiming linkBound = pipelineTiming({2, 2}, {10, 0}, 3);
  EXPECT_DOUBLE_EQ(linkBound.fill, 14);
  EXPECT_DOUBLE_EQ(linkBound.computePeriod, 2);
  EXPECT_DOUBLE_EQ(linkBound.period, 10);
  EXPECT_DOUBLE_EQ(linkBound.total, 14 + 2 * 10);
}

TEST(TimestepPipeliningTest, RowsFollowTheWork) {
  // 12 spare rows over work 1.5 : 1 : 1 : 1 -> 4, 2.67, 2.67, 2.67; the two
  // largest remainders (first in order on ties) get the last two.
  EXPECT_EQ(rowsByWork({1.5, 1, 1, 1}, 16), (std::vector<int64_t>{5, 4, 4, 3}));
  EXPECT_EQ(rowsByWork({1, 1, 1}, 3), (std::vector<int64_t>{1, 1, 1}));
  EXPECT_EQ(rowsByWork({0, 0}, 5), (std::vector<int64_t>{3, 2}));
  std::vector<int64_t> rows = rowsByWork({7, 1, 3, 5, 2, 2, 9}, 16);
  EXPECT_EQ(std::accumulate(rows.begin(), rows.end(), int64_t(0)), 16);
  for (int64_t r : rows)
    EXPECT_GE(r, 1);
}

TEST(TimestepPipeliningTest, StagesSeeTheirRowsOfTheTorus) {
  MultiChipSystem system = multiChipPreset("dsm-8pf-asym"); // 4 x 16
  MultiChipSystem block = pipeStageSystem(system, 4);
  EXPECT_EQ(block.chips, 16);
  EXPECT_EQ(block.torus.x.size, 4);
  EXPECT_EQ(block.torus.y.size, 4);
  EXPECT_DOUBLE_EQ(block.torus.x.ringBandwidth(),
                   system.torus.x.ringBandwidth());
  // A block of rows is a line along Y, not a ring: half the bisection.
  EXPECT_DOUBLE_EQ(block.torus.y.ringBandwidth(),
                   system.torus.y.ringBandwidth() / 2);
  MultiChipSystem row = pipeStageSystem(system, 1);
  EXPECT_EQ(row.chips, 4);
  EXPECT_DOUBLE_EQ(row.torus.y.ringBandwidth(), 0);
  MultiChipSystem whole = pipeStageSystem(system, 16);
  EXPECT_DOUBLE_EQ(whole.torus.y.ringBandwidth(),
                   system.torus.y.ringBandwidth());
}

TEST(TimestepPipeliningTest, FlowsCrossTheBoundariesBetweenStages) {
  MultiChipSystem system = multiChipPreset("dsm-8pf-asym");
  // Boundary capacity per direction: 4 X columns x half of 40 GB/s = 80 GB/s;
  // at 2 GHz, 40 bytes per cycle.
  const double bytesPerCycle =
      4 * system.torus.y.bandwidth / system.chip.core.frequencyHz;
  PipeFlows flows({8, 4, 4});
  flows.addBetweenStages(0, 2, 400); // crosses boundaries 0 and 1
  std::vector<double> cycles = flows.boundaryCycles(system);
  ASSERT_EQ(cycles.size(), 3u);
  EXPECT_DOUBLE_EQ(cycles[0], 400 / bytesPerCycle);
  EXPECT_DOUBLE_EQ(cycles[1], 400 / bytesPerCycle);
  EXPECT_DOUBLE_EQ(cycles[2], 0);
  // From the whole torus into stage 1 (4 of 16 rows): 3/4 of it arrives,
  // half over boundary 0 (forward), half over boundary 1 (backward).
  PipeFlows in({8, 4, 4});
  in.addFromOutside(1, 800);
  cycles = in.boundaryCycles(system);
  EXPECT_DOUBLE_EQ(cycles[0], 300 / bytesPerCycle);
  EXPECT_DOUBLE_EQ(cycles[1], 300 / bytesPerCycle);
  EXPECT_DOUBLE_EQ(cycles[2], 0);
  // Out of stage 0 (8 of 16 rows): half leaves, over boundary 0 and over
  // the wrap boundary (2 -> 0, backward).
  PipeFlows out({8, 4, 4});
  out.addToOutside(0, 800);
  cycles = out.boundaryCycles(system);
  EXPECT_DOUBLE_EQ(cycles[0], 200 / bytesPerCycle);
  EXPECT_DOUBLE_EQ(cycles[1], 0);
  EXPECT_DOUBLE_EQ(cycles[2], 200 / bytesPerCycle);
}

TEST(TimestepPipeliningTest, CandidatesAreRunsOfUnidirectionalLstms) {
  LayerGraph g = lstmStack(5, 256, /*training=*/true);
  // The bidirectional layer 0 is never a stage.
  EXPECT_EQ(findPipeGroupCandidates(g, 16),
            (std::vector<std::vector<int>>{{1, 2, 3, 4, 5}}));
  // At most 2 stages: 5 layers in pieces of 2 or more, none longer.
  for (const std::vector<int> &group : findPipeGroupCandidates(g, 2))
    EXPECT_EQ(group.size(), 2u);
  EXPECT_TRUE(findPipeGroupCandidates(g, 1).empty());
  // A layer that does not read the previous one starts a new run.
  g.edges[2].primaryInput = false; // 2 -> 3
  EXPECT_EQ(findPipeGroupCandidates(g, 16),
            (std::vector<std::vector<int>>{{1, 2}, {3, 4, 5}}));
}

/// Prices of sets of two candidate groups where each alone makes the
/// network slower and both together faster: the stream between them (say)
/// is free only when both are pipelined.
double pairPrice(const std::vector<bool> &set) {
  if (set[0] && set[1])
    return 5;
  return set[0] || set[1] ? 11 : 10;
}

TEST(TimestepPipeliningTest, GroupsAreChosenTogether) {
  std::vector<size_t> both = {0, 1};
  EXPECT_EQ(choosePipeGroups(2, both, pairPrice),
            (std::vector<bool>{true, true}));
  // One group at a time (more candidates than priced jointly) finds no
  // group that helps alone.
  EXPECT_EQ(choosePipeGroups(2, both, pairPrice, /*maxJoint=*/1),
            (std::vector<bool>{false, false}));
  // A candidate without a plan is never adopted; among equal prices the
  // first set found (the empty one first) stays.
  std::vector<size_t> second = {1};
  EXPECT_EQ(choosePipeGroups(2, second, pairPrice),
            (std::vector<bool>{false, false}));
  int priced = 0;
  auto flat = [&](const std::vector<bool> &) { return ++priced, 7.0; };
  std::vector<size_t> three = {0, 1, 2};
  EXPECT_EQ(choosePipeGroups(3, three, flat), std::vector<bool>(3, false));
  EXPECT_EQ(priced, 8); // every set of three
  priced = 0;
  EXPECT_EQ(choosePipeGroups(3, three, flat, /*maxJoint=*/2),
            std::vector<bool>(3, false));
  EXPECT_EQ(priced, 4); // the empty set, then each candidate joining it
}

TEST(TimestepPipeliningTest, StageCyclesAddUpToTheGroup) {
  MultiChipSystem system = multiChipPreset("dsm-8pf-asym");
  PerformanceModel model(system);
  LayerGraph g = lstmStack(4, 256, /*training=*/true);
  TimestepPipeliner pipeliner(model, SearchMode::Heuristic,
                              /*reuseWeightsAcrossSteps=*/true, {});
  SerialExecutor executor;
  std::optional<PipeGroupPlan> plan = pipeliner.plan(g, {1, 2, 3, 4}, executor);
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->stages.size(), 4u);
  int64_t rows = 0;
  double stageCycles = 0;
  for (const PipeStagePlan &stage : plan->stages) {
    EXPECT_EQ(stage.assignment.firstRow, rows);
    rows += stage.assignment.rows;
    const double share = double(stage.assignment.rows) / 16;
    ASSERT_EQ(stage.passes.size(), 3u); // FWD, BWD, UPD
    for (size_t p = 0; p < stage.passes.size(); ++p) {
      const Evaluation &eval = stage.passes[p];
      const CycleBreakdown &cycles = stage.cycles[p];
      // Its chips only: the split covers 4 x rows chips.
      EXPECT_EQ(product(eval.config.chipSplit), 4 * stage.assignment.rows);
      // Its own work, scaled to the system, within what it records.
      EXPECT_NEAR(cycles.useful, eval.cycles.useful * share, 1e-6);
      EXPECT_GE(cycles.total + 1e-6, eval.cycles.total * share);
      EXPECT_NEAR(cycles.total,
                  cycles.useful + cycles.underuse + cycles.ovldtVisible +
                      cycles.nonOvldt + cycles.auxComp,
                  1e-6 * cycles.total);
      stageCycles += cycles.total;
    }
  }
  EXPECT_EQ(rows, 16);
  EXPECT_NEAR(stageCycles, plan->cycles, 1e-9 * plan->cycles);
  EXPECT_DOUBLE_EQ(plan->cycles,
                   plan->forward.total + plan->backward.total + plan->update);
  // The steady state runs every timestep but the first at the period.
  EXPECT_DOUBLE_EQ(plan->forward.total,
                   plan->forward.fill + 127 * plan->forward.period);
}

/// Maps a bidirectional LSTM and six unidirectional ones with and without
/// timestep pipelining on `system`.
std::pair<MappingPlan, MappingPlan>
mapLstmStack(const MultiChipSystem &system) {
  LayerGraph g = lstmStack(6, 256, /*training=*/true);
  MapperOptions off;
  off.reuseWeightsAcrossSteps = true;
  MapperOptions on = off;
  on.pipelineTimesteps = true;
  SerialExecutor executor;
  llvm::Expected<MappingPlan> without =
      SpatialMapper(system, off).map(g, executor);
  llvm::Expected<MappingPlan> with = SpatialMapper(system, on).map(g, executor);
  EXPECT_TRUE(static_cast<bool>(without))
      << llvm::toString(without.takeError());
  EXPECT_TRUE(static_cast<bool>(with)) << llvm::toString(with.takeError());
  EXPECT_TRUE(without->pipeGroups.empty());
  EXPECT_EQ(with->pipeGroups.size(), 1u);
  const PipeGroupRecord &group = with->pipeGroups.front();
  EXPECT_EQ(group.layers, (std::vector<int>{1, 2, 3, 4, 5, 6}));
  // Unpipelined, the group costs what the plan without pipelining spends on
  // those layers (with the relayout from the bidirectional layer, which the
  // plan charges to layer 1).
  double layers = 0;
  for (int i = 1; i <= 6; ++i)
    for (const PassPlan &pass : without->layers[i].passes)
      layers += pass.cycles.total;
  EXPECT_NEAR(group.cyclesUnpipelined, layers, 1e-6 * layers);
  return {std::move(*without), std::move(*with)};
}

TEST(TimestepPipeliningTest, MapperPipelinesWhenLinksKeepUp) {
  // Y links 8x faster than the paper's: the per-timestep transfers between
  // stages hide under compute, and the stages beat the whole torus.
  MultiChipSystem system = multiChipPreset("dsm-8pf-asym");
  system.torus.y.bandwidth *= 8;
  auto [without, with] = mapLstmStack(system);
  const PipeGroupRecord &group = with.pipeGroups.front();
  EXPECT_TRUE(group.adopted);
  EXPECT_LT(group.cycles, group.cyclesUnpipelined);
  EXPECT_LT(with.totals.cycles.total, without.totals.cycles.total);
  int64_t nextRow = 0;
  for (int i = 1; i <= 6; ++i) {
    const MemoryDecision &memory =
        with.layers[i].passes.front().eval.config.memory;
    EXPECT_EQ(memory.pipeGroup, 0);
    EXPECT_EQ(memory.pipeFirstRow, nextRow);
    nextRow += memory.pipeRows;
  }
  EXPECT_EQ(nextRow, system.torus.y.size);
  EXPECT_FALSE(with.layers[0].passes.front().eval.config.memory.pipelined());
  // The plan's total is the group's wall-clock time plus the rest.
  double rest = 0;
  for (const PassPlan &pass : with.layers[0].passes)
    rest += pass.cycles.total;
  EXPECT_NEAR(with.totals.cycles.total, rest + group.cycles,
              1e-9 * with.totals.cycles.total);
}

TEST(TimestepPipeliningTest, MapperKeepsTheWholeTorusWhenLinksAreSlow) {
  // Y links 8x slower: every timestep waits for the boundary transfers.
  MultiChipSystem system = multiChipPreset("dsm-8pf-asym");
  system.torus.y.bandwidth /= 8;
  auto [without, with] = mapLstmStack(system);
  const PipeGroupRecord &group = with.pipeGroups.front();
  EXPECT_FALSE(group.adopted);
  EXPECT_GT(group.forward.period, group.forward.computePeriod);
  EXPECT_DOUBLE_EQ(with.totals.cycles.total, without.totals.cycles.total);
  for (const LayerPlan &layer : with.layers)
    EXPECT_FALSE(layer.passes.front().eval.config.memory.pipelined());
}

} // namespace
