//===- PlanBoundsTest.cpp - What no plan of a problem can beat ------------===//

#include "dsm/Core/Spatial/PlanBounds.h"
#include "dsm/Core/Spatial/ChipBlocks.h"
#include "dsm/Core/Spatial/PipelineParallelism.h"
#include "dsm/Core/Spatial/SpatialMapper.h"
#include "dsm/Core/Spatial/TimestepPipelining.h"
#include "dsm/Core/Support/Progress.h"

#include "TestHelpers.h"

#include <gtest/gtest.h>

#include <random>

using namespace dsm::core;
using dsm::core::testing::convLayer;
using dsm::core::testing::lstmLayer;
using dsm::core::testing::multiChipPreset;

namespace {

/// An auxiliary-only layer of `channels` x `pixels` outputs reading
/// `inputsPerOutput` elements per output (a concatenation reads one).
LayerShape auxiliaryLayer(int64_t channels, int64_t pixels, int64_t mb,
                          double inputsPerOutput, const char *name) {
  LayerShape l;
  l.name = name;
  l.kind = OpKind::Concat;
  l.dims = {1, channels, pixels, 1, mb};
  l.hasPrimary = false;
  l.hasWeights = false;
  l.auxInputsPerOutput = inputsPerOutput;
  return l;
}

/// A product of two activations (attention): its Kernel is the second.
LayerShape activationProduct(int64_t in, int64_t out, int64_t pixels,
                             int64_t mb, const char *name) {
  LayerShape l = convLayer(in, out, pixels, 1, mb, name);
  l.kind = OpKind::MatMul;
  l.hasWeights = false;
  l.params = 0;
  return l;
}

/// A random network of `fewest` to `fewest` + 5 layers: convolutions,
/// fully connected layers, auxiliary-only layers and activation products,
/// some reading a network input, some with a residual shortcut, some
/// returned.
LayerGraph randomNetwork(std::mt19937 &random, int64_t mb, bool training,
                         int fewest = 3) {
  LayerGraph g;
  const int layers = fewest + int(random() % 6);
  int64_t channels = 16 << (random() % 4);
  for (int i = 0; i < layers; ++i) {
    const int64_t out = 16 << (random() % 5);
    const std::string name = "l" + std::to_string(i);
    LayerShape shape;
    switch (random() % 4) {
    case 0:
      shape = convLayer(channels, out, 196, 9, mb, name.c_str());
      break;
    case 1:
      shape = convLayer(channels, out, 1, 1, mb, name.c_str());
      shape.kind = OpKind::FullyConnected;
      break;
    case 2:
      shape = auxiliaryLayer(channels, 49, mb, 1 + double(random() % 2),
                             name.c_str());
      break;
    default:
      shape = activationProduct(channels, out, 49, mb, name.c_str());
      break;
    }
    const bool shortcut = i >= 2 && shape.hasPrimary && random() % 3 == 0;
    if (shortcut)
      shape.auxInputsPerOutput = 1;
    LayerNode node{shape};
    node.networkOutput = i + 1 == layers || random() % 5 == 0;
    g.layers.push_back(node);
    // A fifth of the layers read a network input instead of the previous
    // layer's output.
    if (i > 0 && random() % 5 != 0) {
      LayerEdge edge{i - 1, i, double(channels * shape.dims[2] * mb)};
      edge.primaryInput = true;
      g.edges.push_back(edge);
    }
    if (shortcut)
      g.edges.push_back({i - 2, i, double(out * shape.dims[2] * mb)});
    channels = shape.hasPrimary ? out : channels;
  }
  g.assignTrainingPasses(training);
  return g;
}

/// A training chain of 16 to 23 convolutions of 64 to 256 channels on
/// 14 x 14 pixels, each reading the one before: at a large minibatch, its
/// activations fill a chip's memory long before its weights do.
LayerGraph convolutionChain(std::mt19937 &random, int64_t mb) {
  LayerGraph g;
  const int layers = 16 + int(random() % 8);
  int64_t channels = 64 << (random() % 3);
  for (int i = 0; i < layers; ++i) {
    const int64_t out = 64 << (random() % 3);
    const std::string name = "conv" + std::to_string(i);
    LayerNode node{convLayer(channels, out, 196, 9, mb, name.c_str())};
    node.networkOutput = i + 1 == layers;
    g.layers.push_back(node);
    if (i > 0) {
      LayerEdge edge{i - 1, i, double(channels * 196 * mb)};
      edge.primaryInput = true;
      g.edges.push_back(edge);
    }
    channels = out;
  }
  g.assignTrainingPasses(true);
  return g;
}

double boundOn(const MultiChipSystem &system, const LayerGraph &graph,
               const MapperOptions &options) {
  PerformanceModel model(system);
  llvm::Expected<MappingProblem> problem =
      MappingProblem::create(model, graph, options, /*preloadBudgets=*/{});
  EXPECT_TRUE(static_cast<bool>(problem));
  if (!problem) {
    llvm::consumeError(problem.takeError());
    return 0;
  }
  return planCyclesLowerBound(*problem);
}

TEST(PlanBoundsTest, NoPlanTakesFewerCyclesThanTheBound) {
  // Random networks, in inference and training, at small and large
  // minibatches, on the 8-PFLOP system and its blocks, with and without
  // the memory optimizations (activation reuse, output elision, DySM,
  // the preloading sweep): the bound is never above the plan. The
  // trials include bounds that the memory traffic makes: the same network
  // with a memory bus a thousand times faster bounds lower.
  std::mt19937 random(24);
  MapperOptions plain, all;
  all.reuseActivations = all.spatialMinibatching = all.preloadWeights = true;
  SerialExecutor serial;
  const MultiChipSystem system = multiChipPreset("dsm-8pf-asym");
  int trafficBinds = 0, plans = 0;
  for (int trial = 0; trial < 24; ++trial) {
    const int64_t mb = std::array<int64_t, 4>{1, 8, 64, 512}[trial % 4];
    const bool training = trial % 3 == 0;
    LayerGraph g = randomNetwork(random, mb, training);
    for (const ChipBlock &block :
         {ChipBlock{16, 4}, ChipBlock{16, 2}, ChipBlock{4, 4}}) {
      MultiChipSystem torus = blockSystem(system, block.rows, block.columns);
      for (const MapperOptions *options : {&plain, &all}) {
        llvm::Expected<MappingPlan> plan =
            SpatialMapper(torus, *options).map(g, serial);
        if (!plan) {
          llvm::consumeError(plan.takeError());
          continue;
        }
        ++plans;
        const double bound = boundOn(torus, g, *options);
        EXPECT_LE(bound, plan->totals.cycles.total * (1 + 1e-9))
            << "trial " << trial << ", block " << block.rows << "x"
            << block.columns;
        MultiChipSystem fastMemory = torus;
        fastMemory.chip.externalMemory.bandwidthBytesPerSecond *= 1000;
        trafficBinds += bound > boundOn(fastMemory, g, *options);
      }
    }
  }
  EXPECT_GT(plans, 100);
  EXPECT_GT(trafficBinds, 20);
}

TEST(PlanBoundsTest, NoPipelineTakesFewerCyclesThanItsBound) {
  // Random training networks as pipelines of 2, 4 and 8 stages on the
  // 8-PFLOP system's rows, each with 1 to 4 microbatches a stage, as the
  // mapper plans them (a pipeline named, every optimization): a step takes
  // at least (m + p - 1) / p of the least explored cycles of the network at
  // the microbatch size on a stage's chips. The bound assumes even stages:
  // a few random layers seldom balance, but where they do it is more than
  // half the step.
  std::mt19937 random(31);
  SerialExecutor serial;
  const MultiChipSystem system = multiChipPreset("dsm-8pf-asym");
  MapperOptions options;
  options.reuseActivations = options.spatialMinibatching = true;
  options.pipelineStages = true;
  int pipelines = 0;
  double tightest = 0;
  for (int trial = 0; trial < 12; ++trial) {
    const int64_t stages = int64_t(2) << (trial % 3);
    const int64_t microbatches = stages * (1 + int64_t(random() % 4));
    LayerGraph g = randomNetwork(random, 64 * microbatches, true);
    if (int64_t(g.layers.size()) < stages)
      continue;
    MapperOptions named = options;
    named.givenPipeline = {stages, microbatches, PipelineSchedule::OneFOneB};
    llvm::Expected<MappingPlan> plan =
        SpatialMapper(system, named).map(g, serial);
    if (!plan) {
      llvm::consumeError(plan.takeError());
      continue;
    }
    ASSERT_TRUE(plan->pipeline.pipelined()) << "trial " << trial;
    MapperOptions stageOptions = options;
    stageOptions.pipelineTimesteps = false;
    PerformanceModel stageModel(
        pipeStageSystem(system, system.torus.y.size / stages));
    const LayerGraph part = microbatchGraph(g, microbatches);
    llvm::Expected<MappingProblem> problem =
        MappingProblem::create(stageModel, part, stageOptions, {});
    ASSERT_TRUE(static_cast<bool>(problem));
    ExplorationProgress progress(Progress::none(), 1);
    llvm::Expected<double> least =
        leastPipelinedCycles(*problem, serial, progress);
    ASSERT_TRUE(static_cast<bool>(least));
    const double bound =
        *least * double(microbatches + stages - 1) / double(stages);
    EXPECT_LE(bound, plan->totals.cycles.total * (1 + 1e-9))
        << "trial " << trial << ": " << stages << " stages, " << microbatches
        << " microbatches";
    ++pipelines;
    tightest = std::max(tightest, bound / plan->totals.cycles.total);
  }
  EXPECT_GE(pipelines, 6);
  EXPECT_GT(tightest, 0.5);
}

TEST(PlanBoundsTest, NoStageThatFitsTakesFewerCyclesThanItsBound) {
  // Random training networks as named pipelines of 2 and 4 stages on the
  // 8-PFLOP system, with chips of as much memory as the fullest stage needs
  // unsaved and less, every optimization:
  // each stage whose plan fits takes, a microbatch, at least the least that
  // fits of its layers with its microbatches in flight
  // (leastStageCyclesThatFit, from the network's figures at the microbatch
  // size). Where memory binds the bound rises above the stage's explored
  // least (at times to twice it).
  std::mt19937 random(41);
  SerialExecutor serial;
  const MultiChipSystem full = multiChipPreset("dsm-8pf-asym");
  MapperOptions options;
  options.reuseActivations = options.spatialMinibatching = true;
  options.pipelineStages = true;
  MapperOptions stageOptions = options;
  stageOptions.pipelineTimesteps = false;
  int stagesChecked = 0, memoryBinds = 0;
  for (int trial = 0; trial < 16; ++trial) {
    const int64_t stages = int64_t(2) << (trial % 2);
    const int64_t microbatches = stages * (1 + int64_t(random() % 3));
    // Stages of many layers (a stage's first and last, explored in the
    // network with edges the stage lacks, count nothing) whose activations
    // bind.
    LayerGraph g = convolutionChain(random, 128 * microbatches);
    MapperOptions named = options;
    named.givenPipeline = {stages, microbatches, PipelineSchedule::OneFOneB};
    // What the fullest stage needs on chips of ample memory, and less.
    llvm::Expected<MappingPlan> ample =
        SpatialMapper(full, named).map(g, serial);
    if (!ample) {
      llvm::consumeError(ample.takeError());
      continue;
    }
    double need = 0;
    for (const PipelineStageRecord &stage : ample->pipeline.stages)
      need = std::max(need, stage.memory.total());
    for (double share : {1.0, 0.5, 0.2, 0.1, 0.05}) {
      MultiChipSystem system = full;
      system.chip.externalMemory.capacityBytes = need * share;
      llvm::Expected<MappingPlan> plan =
          SpatialMapper(system, named).map(g, serial);
      if (!plan) {
        llvm::consumeError(plan.takeError());
        continue;
      }
      if (!plan->fitsMemory())
        continue;
      PerformanceModel stageModel(
          pipeStageSystem(system, system.torus.y.size / stages));
      const LayerGraph part = microbatchGraph(g, microbatches);
      llvm::Expected<MappingProblem> whole =
          MappingProblem::create(stageModel, part, stageOptions, {});
      ASSERT_TRUE(static_cast<bool>(whole));
      ExplorationProgress progress(Progress::none(), 1);
      std::vector<double> leastOfLayer;
      std::shared_ptr<const LayerFitFigures> figures;
      llvm::Expected<double> least = leastPipelinedCycles(
          *whole, serial, progress, nullptr, &leastOfLayer, &figures);
      ASSERT_TRUE(static_cast<bool>(least));
      ASSERT_TRUE(figures);
      for (size_t s = 0; s < plan->pipeline.stages.size(); ++s) {
        const PipelineStageRecord &stage = plan->pipeline.stages[s];
        const LayerGraph layers =
            stageGraph(part, stage.firstLayer, stage.lastLayer);
        llvm::Expected<MappingProblem> problem =
            MappingProblem::create(stageModel, layers, stageOptions, {});
        ASSERT_TRUE(static_cast<bool>(problem));
        problem->setActivationCopies(stage.inFlight);
        const double bound =
            leastStageCyclesThatFit(*figures, stage.firstLayer, *problem);
        const double cycles = stage.forward + stage.backward;
        EXPECT_LE(bound, cycles * (1 + 1e-9))
            << "trial " << trial << ", memory x" << share << ", stage " << s;
        double explored = 0;
        for (int i = stage.firstLayer; i < stage.lastLayer; ++i)
          explored += leastOfLayer[i];
        ++stagesChecked;
        memoryBinds += bound > 1.01 * explored;
      }
    }
  }
  EXPECT_GT(stagesChecked, 60);
  EXPECT_GE(memoryBinds, 8) << "of " << stagesChecked;
}

TEST(PlanBoundsTest, NoPlanFitsWhereEvenShardedParametersDoNot) {
  // Random networks in training and inference on blocks of the 8-PFLOP
  // system, on chips of less and less memory, every saver on offer: where
  // mayFitMemory says no plan can fit, the mapper finds none that does;
  // where it says one may, one often does.
  std::mt19937 random(57);
  SerialExecutor serial;
  const MultiChipSystem system = multiChipPreset("dsm-8pf-asym");
  MapperOptions options;
  options.reuseActivations = options.spatialMinibatching = true;
  int refused = 0, mayAndDoes = 0;
  for (int trial = 0; trial < 12; ++trial) {
    const int64_t mb = std::array<int64_t, 3>{8, 64, 512}[trial % 3];
    LayerGraph g = randomNetwork(random, mb, /*training=*/trial % 2 == 0);
    for (const ChipBlock &block : {ChipBlock{16, 4}, ChipBlock{4, 2}}) {
      MultiChipSystem torus = blockSystem(system, block.rows, block.columns);
      llvm::Expected<MappingPlan> ample =
          SpatialMapper(torus, options).map(g, serial);
      ASSERT_TRUE(static_cast<bool>(ample))
          << llvm::toString(ample.takeError());
      const double need = ample->memory.total();
      for (double share : {1.0, 0.3, 0.1, 0.03, 0.01, 0.003}) {
        torus.chip.externalMemory.capacityBytes = need * share;
        PerformanceModel model(torus);
        llvm::Expected<MappingProblem> problem =
            MappingProblem::create(model, g, options, /*preloadBudgets=*/{});
        ASSERT_TRUE(static_cast<bool>(problem));
        const bool may = mayFitMemory(*problem);
        llvm::Expected<MappingPlan> plan =
            SpatialMapper(torus, options).map(g, serial);
        const bool fits = plan && plan->fitsMemory();
        if (!plan)
          llvm::consumeError(plan.takeError());
        if (!may) {
          EXPECT_FALSE(fits) << "trial " << trial << ", memory x" << share;
        }
        refused += !may;
        mayAndDoes += may && fits;
      }
    }
  }
  // Of the 144 mappings: 68 refused, 12 that may fit and do.
  EXPECT_GE(refused, 40);
  EXPECT_GE(mayAndDoes, 10);
}

TEST(PlanBoundsTest, EveryConfigurationMovesTheLeastForwardTraffic) {
  // The model's own accounting: under every parallelism, core split and
  // DySM factor, with nothing on chip, the FWD memory streams and the
  // Input's rotation move at least the least traffic over the chips.
  const MultiChipSystem system = multiChipPreset("dsm-8pf-asym");
  PerformanceModel model(system);
  LayerShape strided = convLayer(64, 128, 784, 9, 64, "strided");
  strided.inputPixelRatio = 4;
  LayerShape grouped = convLayer(8, 256, 196, 9, 64, "grouped");
  grouped.groups = 32;
  LayerShape pooled = convLayer(64, 64, 196, 9, 64, "pooled");
  pooled.outputPixelRatio = 0.25;
  const LayerShape layers[] = {strided,
                               grouped,
                               pooled,
                               activationProduct(128, 128, 64, 64, "scores"),
                               auxiliaryLayer(4096, 128, 64, 1, "cache"),
                               lstmLayer(256, 1024, 64, 4, "lstm")};
  DesignSpaceExplorer explorer(model, SearchMode::Heuristic);
  int checked = 0;
  for (const LayerShape &layer : layers) {
    const ForwardTraffic least =
        model.leastForwardTraffic(layer, /*inputFromMemory=*/true,
                                  /*outputToMemory=*/true);
    EXPECT_GT(least.otherBytes, 0) << layer.name;
    for (int p = 0; p < kNumParallelisms; ++p)
      for (int64_t factor : {1, 2, 4}) {
        MemoryDecision memory;
        memory.spatialMinibatches = factor;
        ExplorationResult result =
            explorer.explore(layer, TrainingPass::FWD, Parallelism(p), memory);
        if (!result.best)
          continue;
        double bytes = 0;
        for (const TransferGroup &group : result.best->transfers)
          if (group.overlapped)
            bytes += group.bytes[int(Link::MemoryBus)];
        EXPECT_GE(bytes * double(model.numChips()) * (1 + 1e-12),
                  least.weightBytes + least.otherBytes)
            << layer.name << " under "
            << stringifyParallelism(Parallelism(p)).str() << " with " << factor
            << " spatial minibatches";
        ++checked;
      }
  }
  EXPECT_GT(checked, 20);
}

TEST(PlanBoundsTest, ADecodeStepMapsNoBlockItsKVCacheMakesSlower) {
  // A decode step whose KV cache is most of its traffic: a block of half
  // the chips reads each chip's share twice over, so no block can beat the
  // whole torus, and none is mapped -- the compute (a token per sequence)
  // and the weights alone would not tell.
  LayerGraph g;
  const int64_t mb = 64, heads = 32, context = 1024, headDim = 128;
  LayerShape query = convLayer(4096, 4096, 1, 1, mb, "q");
  query.kind = OpKind::FullyConnected;
  LayerShape cache = auxiliaryLayer(heads * headDim, context, mb, 1, "k.cache");
  LayerShape scores = activationProduct(headDim, context, heads, mb, "scores");
  g.layers = {{query}, {cache}, {scores}};
  g.layers[1].networkOutput = true;
  g.layers[2].networkOutput = true;
  LayerEdge q{0, 2, double(4096 * mb)},
      k{1, 2, double(heads * headDim) * double(context * mb)};
  q.primaryInput = true;
  g.edges = {q, k};
  g.assignTrainingPasses(false);
  MapperOptions options;
  options.reuseActivations = options.preloadWeights = true;
  SerialExecutor serial;
  const MultiChipSystem system = multiChipPreset("dsm-8pf-asym");
  llvm::Expected<MappingPlan> whole =
      SpatialMapper(system, options).map(g, serial);
  options.chipBlocks = true;
  llvm::Expected<MappingPlan> withBlocks =
      SpatialMapper(system, options).map(g, serial);
  ASSERT_TRUE(whole && withBlocks);
  EXPECT_TRUE(withBlocks->block.whole());
  EXPECT_EQ(withBlocks->totals.cycles.total, whole->totals.cycles.total);
  EXPECT_EQ(withBlocks->explorations, whole->explorations);
  // The bound on the largest block is the cache's traffic, above the plan.
  const double blockBound = boundOn(blockSystem(system, 16, 2), g, options);
  EXPECT_GT(blockBound, whole->totals.cycles.total);
  PerformanceModel model(system);
  const double cacheBytes = 2 * double(heads * headDim) * double(context * mb) *
                            model.bytesPerElement();
  EXPECT_GE(blockBound, model.linkCycles(cacheBytes / 32, Link::MemoryBus));
}

} // namespace
