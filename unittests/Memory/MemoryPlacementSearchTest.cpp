//===- MemoryPlacementSearchTest.cpp - Searches against brute force -------===//

#include "dsm/Core/Memory/MemoryPlacementSearch.h"

#include "MemoryTestHelpers.h"
#include "Support/RecordingProgress.h"

#include "llvm/Support/ThreadPool.h"

#include <atomic>
#include <limits>
#include <random>

using namespace dsm::core;
using namespace dsm::core::memory;
using namespace dsm::core::memory::test;

namespace {

/// A random graph of `n` nodes whose tensors compete for SRAM and LLC: each
/// node reads its predecessor and sometimes an earlier node (a skip).
MemoryGraph randomGraph(std::mt19937_64 &rng, int n) {
  std::vector<MemoryNode> nodes;
  for (int i = 0; i < n; ++i) {
    std::vector<int32_t> inputs;
    if (i > 0)
      inputs.push_back(i - 1);
    if (i > 1 && rng() % 2)
      inputs.push_back(int32_t(rng() % (i - 1)));
    nodes.push_back(makeNode("n" + std::to_string(i), int64_t(rng() % 25),
                             int64_t(rng() % 15 + 1), int64_t(rng() % 400),
                             inputs, i == 0 ? 5 : 0));
  }
  nodes.back().isModelOutput = true;
  return makeGraph(std::move(nodes));
}

struct BruteForce {
  double latency = std::numeric_limits<double>::infinity();
  MemoryMap map;
};

BruteForce bruteForce(const PlacementEvaluator &evaluator) {
  size_t n = evaluator.getGraph().size();
  BruteForce best;
  MemoryMap map(n);
  size_t total = 1;
  for (size_t i = 0; i < n; ++i)
    total *= 9;
  for (size_t code = 0; code < total; ++code) {
    size_t rest = code;
    for (size_t i = 0; i < n; ++i, rest /= 9)
      map[i] = {MemoryLevel(rest % 3), MemoryLevel(rest / 3 % 3)};
    if (!evaluator.getChecker().isValid(map))
      continue;
    double latency = evaluator.getCostModel().getNetworkLatency(map);
    if (latency < best.latency) {
      best.latency = latency;
      best.map = map;
    }
  }
  return best;
}

PlacementSearchResult run(PlacementSearchKind kind,
                          const PlacementEvaluator &evaluator,
                          int64_t iterations, uint64_t seed,
                          Executor &executor) {
  PlacementSearchOptions options;
  options.iterations = iterations;
  options.seed = seed;
  auto result = runPlacementSearch(kind, evaluator, options, executor);
  EXPECT_TRUE(bool(result)) << llvm::toString(result.takeError());
  return std::move(*result);
}

/// Runs `kind` with seed 7 serially and on a thread pool: the same search
/// (map, curve, rewards, count), which it returns.
PlacementSearchResult
expectSameWithOrWithoutThreads(PlacementSearchKind kind,
                               const PlacementEvaluator &evaluator,
                               int64_t iterations) {
  SerialExecutor serial;
  llvm::StdThreadPool pool(llvm::hardware_concurrency(4));
  ThreadPoolExecutor threads(pool);
  PlacementSearchResult a = run(kind, evaluator, iterations, 7, serial);
  PlacementSearchResult b = run(kind, evaluator, iterations, 7, threads);
  EXPECT_EQ(a.map, b.map);
  EXPECT_EQ(a.bestSpeedupByIteration, b.bestSpeedupByIteration);
  EXPECT_EQ(a.rewardByIteration, b.rewardByIteration);
  EXPECT_EQ(a.evaluations, b.evaluations);
  return a;
}

TEST(PlacementSearchTest, NamesRoundTrip) {
  for (auto kind :
       {PlacementSearchKind::Compiler, PlacementSearchKind::GreedyDP,
        PlacementSearchKind::EA, PlacementSearchKind::EGRL,
        PlacementSearchKind::PG, PlacementSearchKind::ILP})
    EXPECT_EQ(symbolizePlacementSearchKind(stringifyPlacementSearchKind(kind)),
              kind);
  EXPECT_FALSE(symbolizePlacementSearchKind("egrl-typo"));
}

TEST(PlacementSearchTest, IlpEqualsBruteForceAndNoSearchBeatsIt) {
  if (!isIlpSolverAvailable())
    GTEST_SKIP() << "built without GLPK (DSM_ENABLE_GLPK=OFF)";
  std::mt19937_64 rng(42);
  SerialExecutor serial;
  for (int trial = 0; trial < 12; ++trial) {
    int n = 2 + trial % 3; // 2..4 nodes: up to 9^4 maps
    MemoryGraph graph = randomGraph(rng, n);
    // Every other trial splits the SRAM over two engines, so that tensors
    // of 11-25 bytes fit the level but no engine's SRAM.
    int64_t engines = 1 + trial % 2;
    auto evaluator = PlacementEvaluator::create(
        graph, makeTinySystem(20, 30, 1000, engines));
    ASSERT_TRUE(bool(evaluator)) << llvm::toString(evaluator.takeError());
    BruteForce best = bruteForce(*evaluator);
    ASSERT_FALSE(best.map.empty());

    PlacementSearchResult ilp =
        run(PlacementSearchKind::ILP, *evaluator, 0, 1, serial);
    EXPECT_TRUE(ilp.optimal);
    EXPECT_TRUE(ilp.evaluation.valid);
    EXPECT_NEAR(ilp.evaluation.latency, best.latency, 1e-9 * best.latency)
        << "trial " << trial;
    EXPECT_NEAR(ilp.latencyLowerBound, best.latency, 1e-6 * best.latency);

    for (auto kind : {PlacementSearchKind::Compiler,
                      PlacementSearchKind::GreedyDP, PlacementSearchKind::EA}) {
      PlacementSearchResult result = run(kind, *evaluator, 2000, 3, serial);
      EXPECT_TRUE(evaluator->getChecker().isValid(result.map));
      EXPECT_TRUE(result.evaluation.valid);
      EXPECT_GE(result.evaluation.latency, best.latency * (1 - 1e-12));
      EXPECT_LE(result.evaluations, 2000);
    }
  }
}

/// `kind` with 2000 evaluations, a good part of 9^3 = 729 maps, lands on
/// the brute-force optimum of `trials` random 3-node graphs.
void expectOptimumOfTinyGraphs(PlacementSearchKind kind, int trials) {
  std::mt19937_64 rng(5);
  SerialExecutor serial;
  for (int trial = 0; trial < trials; ++trial) {
    MemoryGraph graph = randomGraph(rng, 3);
    auto evaluator = PlacementEvaluator::create(graph, makeTinySystem());
    ASSERT_TRUE(bool(evaluator));
    BruteForce best = bruteForce(*evaluator);
    PlacementSearchResult result = run(kind, *evaluator, 2000, 1, serial);
    EXPECT_EQ(result.evaluations, 2000);
    EXPECT_TRUE(result.evaluation.valid);
    EXPECT_NEAR(result.evaluation.latency, best.latency, 1e-9 * best.latency)
        << stringifyPlacementSearchKind(kind).str() << ", trial " << trial;
  }
}

TEST(PlacementSearchTest, EvolutionFindsTheOptimumOfSmallGraphs) {
  expectOptimumOfTinyGraphs(PlacementSearchKind::EA, 5);
}

TEST(PlacementSearchTest, CompilerMapIsTheBaselineAndValid) {
  std::mt19937_64 rng(9);
  MemoryGraph graph = randomGraph(rng, 4);
  auto evaluator = PlacementEvaluator::create(graph, makeTinySystem());
  ASSERT_TRUE(bool(evaluator));
  SerialExecutor serial;
  PlacementSearchResult compiler =
      run(PlacementSearchKind::Compiler, *evaluator, 10, 1, serial);
  EXPECT_EQ(compiler.map, evaluator->getCompilerMap());
  EXPECT_DOUBLE_EQ(compiler.evaluation.speedup, 1.0);
  EXPECT_EQ(compiler.evaluations, 1);
}

TEST(PlacementSearchTest, MeasuredLatencyDrivesTheSearch) {
  // A "hardware" where DRAM is fastest: latency = number of tensors off DRAM
  // + 1. Only valid maps are measured; the searches end on all-DRAM.
  std::mt19937_64 rng(5);
  MemoryGraph graph = randomGraph(rng, 3);
  std::atomic<int> measured{0};
  LatencyMeasure measure = [&](const MemoryMap &map) -> llvm::Expected<double> {
    ++measured;
    double offDram = 0;
    for (const NodePlacement &p : map)
      offDram += (p.weights != MemoryLevel::DRAM) +
                 (p.activations != MemoryLevel::DRAM);
    return 1 + offDram;
  };
  auto evaluator = PlacementEvaluator::create(graph, makeTinySystem(), measure);
  ASSERT_TRUE(bool(evaluator)) << llvm::toString(evaluator.takeError());
  EXPECT_TRUE(evaluator->isMeasured());
  EXPECT_EQ(measured, 1); // the compiler's map
  SerialExecutor serial;
  for (auto kind : {PlacementSearchKind::GreedyDP, PlacementSearchKind::EA}) {
    PlacementSearchResult result = run(kind, *evaluator, 500, 1, serial);
    EXPECT_EQ(result.map, makeUniformMap(3, MemoryLevel::DRAM));
    EXPECT_DOUBLE_EQ(result.evaluation.latency, 1);
  }
  auto ilp = runPlacementSearch(PlacementSearchKind::ILP, *evaluator,
                                PlacementSearchOptions(), serial);
  EXPECT_FALSE(bool(ilp));
  llvm::consumeError(ilp.takeError());
}

TEST(PlacementSearchTest, FailedMeasurementEndsTheSearchWithItsError) {
  std::mt19937_64 rng(5);
  MemoryGraph graph = randomGraph(rng, 3);
  std::atomic<int> calls{0};
  LatencyMeasure measure = [&](const MemoryMap &) -> llvm::Expected<double> {
    if (++calls > 3)
      return llvm::createStringError("the board is gone");
    return 1.0;
  };
  auto evaluator = PlacementEvaluator::create(graph, makeTinySystem(), measure);
  ASSERT_TRUE(bool(evaluator));
  SerialExecutor serial;
  PlacementSearchOptions options;
  options.iterations = 1000;
  auto result =
      runPlacementSearch(PlacementSearchKind::EA, *evaluator, options, serial);
  ASSERT_FALSE(bool(result));
  EXPECT_EQ(llvm::toString(result.takeError()), "the board is gone");
  // Stopped within a generation of the failure, not after 1000 maps.
  EXPECT_LT(calls, 60);
}

TEST(PlacementSearchTest, InvalidMapRewardIsMinusReassignedRatio) {
  MemoryGraph graph =
      makeGraph({makeNode("a", 15, 0, 0), makeNode("b", 15, 0, 0, {0})});
  auto evaluator = PlacementEvaluator::create(graph, makeTinySystem());
  ASSERT_TRUE(bool(evaluator));
  Evaluation invalid =
      evaluator->evaluate(makeUniformMap(2, MemoryLevel::SRAM));
  EXPECT_FALSE(invalid.valid);
  EXPECT_EQ(invalid.speedup, 0);
  EXPECT_DOUBLE_EQ(invalid.reward, -0.5);
  Evaluation valid = evaluator->evaluate(evaluator->getCompilerMap());
  EXPECT_DOUBLE_EQ(valid.reward, 1.0);
}

TEST(PlacementSearchTest, SameSeedSameMapWithOrWithoutThreads) {
  std::mt19937_64 rng(11);
  MemoryGraph graph = randomGraph(rng, 30);
  auto evaluator = PlacementEvaluator::create(graph, makeTinySystem(80, 60));
  ASSERT_TRUE(bool(evaluator));
  SerialExecutor serial;
  for (auto kind : {PlacementSearchKind::GreedyDP, PlacementSearchKind::EA}) {
    PlacementSearchResult a =
        expectSameWithOrWithoutThreads(kind, *evaluator, 1500);
    // greedy-dp stops early after a pass that changes nothing.
    if (kind == PlacementSearchKind::EA) {
      EXPECT_EQ(a.evaluations, 1500);
    }
  }
  PlacementSearchResult other =
      run(PlacementSearchKind::EA, *evaluator, 1500, 8, serial);
  PlacementSearchResult same =
      run(PlacementSearchKind::EA, *evaluator, 1500, 7, serial);
  EXPECT_NE(other.bestSpeedupByIteration, same.bestSpeedupByIteration);
}

TEST(PlacementSearchTest, BestSoFarNeverDecreases) {
  std::mt19937_64 rng(13);
  MemoryGraph graph = randomGraph(rng, 20);
  auto evaluator = PlacementEvaluator::create(graph, makeTinySystem(80, 60));
  ASSERT_TRUE(bool(evaluator));
  SerialExecutor serial;
  PlacementSearchResult ea =
      run(PlacementSearchKind::EA, *evaluator, 800, 2, serial);
  ASSERT_EQ(ea.bestSpeedupByIteration.size(), 800u);
  for (size_t i = 1; i < ea.bestSpeedupByIteration.size(); ++i)
    EXPECT_GE(ea.bestSpeedupByIteration[i], ea.bestSpeedupByIteration[i - 1]);
  EXPECT_DOUBLE_EQ(ea.bestSpeedupByIteration.back(), ea.evaluation.speedup);
}

TEST(PlacementSearchTest, ProgressSeesEveryMapUpToTheBudget) {
  std::mt19937_64 rng(13);
  MemoryGraph graph = randomGraph(rng, 20);
  auto evaluator = PlacementEvaluator::create(graph, makeTinySystem(80, 60));
  ASSERT_TRUE(bool(evaluator));
  SerialExecutor serial;
  PlacementSearchResult silent =
      run(PlacementSearchKind::EA, *evaluator, 500, 2, serial);
  dsm::core::testing::RecordingProgress progress;
  PlacementSearchOptions options;
  options.iterations = 500;
  options.seed = 2;
  options.progress = &progress;
  auto watched =
      runPlacementSearch(PlacementSearchKind::EA, *evaluator, options, serial);
  ASSERT_TRUE(bool(watched));
  // One step per map, with the best speedup so far; the search is the same.
  ASSERT_EQ(progress.steps.size(), 500u);
  progress.expectMonotoneUpTo(500, 500);
  for (size_t i = 0; i < progress.steps.size(); ++i)
    if (silent.bestSpeedupByIteration[i] > 0) {
      EXPECT_EQ(progress.steps[i].best, silent.bestSpeedupByIteration[i]);
    }
  EXPECT_FALSE(watched->interrupted);
  EXPECT_EQ(watched->map, silent.map);
  EXPECT_EQ(watched->rewardByIteration, silent.rewardByIteration);
  EXPECT_FALSE(
      bool(checkNotInterrupted(PlacementSearchKind::EA, *watched, options)));
}

/// Asks `kind` to stop after 60 maps: it stops at its next generation or
/// node with the best of the maps it evaluated, marked interrupted.
void expectStopsWithTheBestSoFar(PlacementSearchKind kind) {
  std::mt19937_64 rng(13);
  MemoryGraph graph = randomGraph(rng, 20);
  auto evaluator = PlacementEvaluator::create(graph, makeTinySystem(80, 60));
  ASSERT_TRUE(bool(evaluator));
  SerialExecutor serial;
  PlacementSearchResult whole = run(kind, *evaluator, 200, 3, serial);
  dsm::core::testing::RecordingProgress progress(/*stopAt=*/60);
  PlacementSearchOptions options;
  options.iterations = 200;
  options.seed = 3;
  options.progress = &progress;
  auto stopped = runPlacementSearch(kind, *evaluator, options, serial);
  ASSERT_TRUE(bool(stopped));
  EXPECT_TRUE(stopped->interrupted);
  // Stopped at the first boundary past 60 maps: within a generation (20
  // maps, egrl's 21 with the policy's rollout) or a node's 8 alternatives.
  EXPECT_GE(stopped->evaluations, 60);
  EXPECT_LE(stopped->evaluations, 60 + 21);
  progress.expectMonotoneUpTo(stopped->evaluations, 200);
  // The same maps as the whole run until then; the best of them returned.
  std::vector<double> prefix(whole.rewardByIteration.begin(),
                             whole.rewardByIteration.begin() +
                                 stopped->evaluations);
  EXPECT_EQ(stopped->rewardByIteration, prefix);
  if (!stopped->rectified) {
    EXPECT_DOUBLE_EQ(stopped->evaluation.speedup,
                     stopped->bestSpeedupByIteration.back());
  }
  llvm::Error error = checkNotInterrupted(kind, *stopped, options);
  EXPECT_EQ(llvm::toString(std::move(error)),
            "interrupted after " + std::to_string(stopped->evaluations) +
                " of 200 iterations");
}

TEST(PlacementSearchTest, StopsWhenAskedWithTheBestSoFar) {
  expectStopsWithTheBestSoFar(PlacementSearchKind::EA);
  expectStopsWithTheBestSoFar(PlacementSearchKind::GreedyDP);
}

/// egrl and pg need libtorch (DSM_ENABLE_TORCH).
#define SKIP_WITHOUT_TORCH()                                                   \
  if (!isPolicyLearnerAvailable())                                             \
  GTEST_SKIP() << "built without libtorch (DSM_ENABLE_TORCH=OFF)"

TEST(LearnedSearchTest, EgrlFindsTheOptimumOfTinyGraphs) {
  SKIP_WITHOUT_TORCH();
  // The EA's test (on the first graph egrl needs 1477 evaluations).
  expectOptimumOfTinyGraphs(PlacementSearchKind::EGRL, 3);
}

TEST(LearnedSearchTest, SameSeedSameMapWithOrWithoutThreads) {
  SKIP_WITHOUT_TORCH();
  std::mt19937_64 rng(11);
  MemoryGraph graph = randomGraph(rng, 12);
  auto evaluator = PlacementEvaluator::create(graph, makeTinySystem(80, 60));
  ASSERT_TRUE(bool(evaluator));
  SerialExecutor serial;
  for (auto kind : {PlacementSearchKind::EGRL, PlacementSearchKind::PG}) {
    PlacementSearchResult a =
        expectSameWithOrWithoutThreads(kind, *evaluator, 100);
    EXPECT_EQ(a.evaluations, 100);
    PlacementSearchResult other = run(kind, *evaluator, 100, 8, serial);
    EXPECT_NE(other.rewardByIteration, a.rewardByIteration);
  }
}

TEST(LearnedSearchTest, StopsWhenAskedWithTheBestSoFar) {
  SKIP_WITHOUT_TORCH();
  expectStopsWithTheBestSoFar(PlacementSearchKind::EGRL);
  expectStopsWithTheBestSoFar(PlacementSearchKind::PG);
}

/// Mean of `values[begin, end)`.
double mean(const std::vector<double> &values, size_t begin, size_t end) {
  double sum = 0;
  for (size_t i = begin; i < end; ++i)
    sum += values[i];
  return sum / double(end - begin);
}

TEST(LearnedSearchTest, PolicyGradientLearnsFromItsRollouts) {
  SKIP_WITHOUT_TORCH();
  // The policy's own rollouts get better: over seeds 1-3, its last 100 maps
  // earn more on average than its first 100 (after the initial all-DRAM
  // map), when before training they are nearly uniform, so mostly invalid.
  std::mt19937_64 rng(23);
  MemoryGraph graph = randomGraph(rng, 8);
  auto evaluator = PlacementEvaluator::create(graph, makeTinySystem(80, 60));
  ASSERT_TRUE(bool(evaluator));
  SerialExecutor serial;
  double first = 0, last = 0;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    PlacementSearchResult pg =
        run(PlacementSearchKind::PG, *evaluator, 400, seed, serial);
    ASSERT_EQ(pg.rewardByIteration.size(), 400u);
    first += mean(pg.rewardByIteration, 1, 101) / 3;
    last += mean(pg.rewardByIteration, 300, 400) / 3;
    EXPECT_TRUE(pg.evaluation.valid);
  }
  EXPECT_GT(last, first + 0.1) << "first " << first << ", last " << last;
}

TEST(LearnedSearchTest, WithoutTorchEgrlAndPgSayWhatIsMissing) {
  if (isPolicyLearnerAvailable())
    GTEST_SKIP() << "built with libtorch";
  std::mt19937_64 rng(3);
  MemoryGraph graph = randomGraph(rng, 3);
  auto evaluator = PlacementEvaluator::create(graph, makeTinySystem());
  ASSERT_TRUE(bool(evaluator));
  SerialExecutor serial;
  for (auto kind : {PlacementSearchKind::EGRL, PlacementSearchKind::PG}) {
    auto result =
        runPlacementSearch(kind, *evaluator, PlacementSearchOptions(), serial);
    ASSERT_FALSE(bool(result));
    EXPECT_NE(llvm::toString(result.takeError()).find("libtorch"),
              std::string::npos);
  }
}

} // namespace
