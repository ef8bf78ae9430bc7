//===- DevicePlacementSearchTest.cpp - Searches against brute force -------===//

#include "dsm/Core/Devices/DevicePlacementSearch.h"
#include "dsm/Core/Support/NodeError.h"

#include "DeviceTestHelpers.h"
#include "Support/RecordingProgress.h"

#include "llvm/Support/ThreadPool.h"

#include <limits>

using namespace dsm::core;
using namespace dsm::core::devices;
using namespace dsm::core::devices::testing;

namespace {

/// A CPU (1 TFLOP/s, roomy) and two GPUs (4 TFLOP/s, 1 GB each) on 1 GB/s
/// channels: the GPUs are faster but no GPU holds every weight, so the
/// optimum splits the graph and pays transfers. Times are milliseconds, so
/// the overflow penalty (ms + MB) matters as in the thesis.
DeviceNetwork makeServer() {
  DeviceNetwork network;
  network.addDevice({"cpu", 1000 * kGiga, 100e9, 0, 0});
  network.addDevice({"gpu0", 4000 * kGiga, 1e9, 0, 0});
  network.addDevice({"gpu1", 4000 * kGiga, 1e9, 0, 0});
  network.connect(0, 1, network.addChannel({"pcie0", 1 * kGiga, 1.0}));
  network.connect(0, 2, network.addChannel({"pcie1", 1 * kGiga, 1.0}));
  EXPECT_FALSE(bool(network.finalize()));
  return network;
}

/// Seven ops: a stem, two branches, a join, a head; 0.4 GB of weights on
/// four of them.
OpGraph makeBranchyGraph() {
  OpGraph graph;
  constexpr int64_t kW = 400'000'000, kOut = 5'000'000;
  graph.addOp(makeOp("stem", 2, kOut, {}, 4, kW));
  graph.addOp(makeOp("left1", 3, kOut, {0}, 6, kW));
  graph.addOp(makeOp("left2", 1, kOut, {1}, 2));
  graph.addOp(makeOp("right1", 3, kOut, {0}, 6, kW));
  graph.addOp(makeOp("right2", 1, kOut, {3}, 2));
  graph.addOp(makeOp("join", 1, kOut, {2, 4}, 2));
  graph.addOp(makeOp("head", 2, 1000, {5}, 4, kW));
  EXPECT_FALSE(bool(graph.verify()));
  return graph;
}

SimulationOptions trainingOptions() {
  SimulationOptions options;
  options.computeEfficiency = 1.0;
  return options;
}

/// The best fitness over all 3^7 placements; checks that the best fits.
double bruteForce(const OpGraph &graph, const DeviceNetwork &network,
                  const SimulationOptions &options) {
  ExecutionSimulator simulator(graph, network, options);
  size_t n = graph.size(), d = network.getNumDevices();
  Placement placement(n, 0), bestPlacement;
  double best = std::numeric_limits<double>::infinity();
  while (true) {
    double fitness = simulator.run(placement).fitness();
    if (fitness < best) {
      best = fitness;
      bestPlacement = placement;
    }
    size_t i = 0;
    while (i < n && ++placement[i] == int32_t(d))
      placement[i++] = 0;
    if (i == n)
      break;
  }
  EXPECT_EQ(simulator.run(bestPlacement).memoryOverflowBytes, 0);
  // Not a single device: the problem needs a real placement.
  EXPECT_GT(countDevicesUsed(bestPlacement, d), 1);
  return best;
}

SearchResult search(SearchKind kind, int64_t evaluations, uint64_t seed,
                    Executor &executor) {
  static const OpGraph graph = makeBranchyGraph();
  static const DeviceNetwork network = makeServer();
  SearchOptions options;
  options.kind = kind;
  options.evaluations = evaluations;
  options.seed = seed;
  llvm::Expected<SearchResult> result =
      searchPlacement(graph, network, trainingOptions(), options, executor);
  EXPECT_TRUE(bool(result));
  if (!result) {
    llvm::consumeError(result.takeError());
    return {};
  }
  return *result;
}

class SearchFindsTheOptimum : public ::testing::TestWithParam<SearchKind> {};

TEST_P(SearchFindsTheOptimum, OnASmallServer) {
  double optimum =
      bruteForce(makeBranchyGraph(), makeServer(), trainingOptions());
  SerialExecutor serial;
  for (uint64_t seed : {1, 2, 3}) {
    SearchResult result = search(GetParam(), 5000, seed, serial);
    EXPECT_EQ(result.evaluations, 5000);
    EXPECT_DOUBLE_EQ(result.bestFitness, optimum) << "seed " << seed;
  }
}

INSTANTIATE_TEST_SUITE_P(Devices, SearchFindsTheOptimum,
                         ::testing::Values(SearchKind::SimulatedAnnealing,
                                           SearchKind::Genetic,
                                           SearchKind::MapElites),
                         [](const auto &info) {
                           std::string name =
                               stringifySearchKind(info.param).str();
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(PlacementSearch, HillClimbingEndsWhereNoSingleMoveImproves) {
  OpGraph graph = makeBranchyGraph();
  DeviceNetwork network = makeServer();
  SerialExecutor serial;
  SearchResult result = search(SearchKind::HillClimbing, 3000, 7, serial);
  ExecutionSimulator simulator(graph, network, trainingOptions());
  EXPECT_DOUBLE_EQ(simulator.run(result.best).fitness(), result.bestFitness);
  for (size_t op = 0; op < graph.size(); ++op)
    for (int32_t device = 0; device < 3; ++device) {
      Placement neighbour = result.best;
      neighbour[op] = device;
      EXPECT_GE(simulator.run(neighbour).fitness(), result.bestFitness);
    }
}

TEST(PlacementSearch, SingleDeviceTakesTheFastestThatFits) {
  OpGraph graph = makeBranchyGraph();
  DeviceNetwork network = makeServer();
  SerialExecutor serial;
  SearchOptions options;
  options.kind = SearchKind::SingleDevice;
  llvm::Expected<SearchResult> result =
      searchPlacement(graph, network, trainingOptions(), options, serial);
  ASSERT_TRUE(bool(result));
  // 1.6 GB of weights: neither GPU holds them, gpu0 and gpu1 are tried
  // first, then the CPU.
  EXPECT_EQ(result->best, Placement(graph.size(), 0));
  EXPECT_EQ(result->evaluations, 3);

  OpGraph small;
  small.addOp(makeOp("a", 1, 100));
  result = searchPlacement(small, network, trainingOptions(), options, serial);
  ASSERT_TRUE(bool(result));
  EXPECT_EQ(result->best, Placement(1, 1));
}

TEST(PlacementSearch, ExpertFillsFastDevicesInOrder) {
  OpGraph graph = makeBranchyGraph();
  DeviceNetwork network = makeServer();
  SerialExecutor serial;
  SearchOptions options;
  options.kind = SearchKind::Expert;
  llvm::Expected<SearchResult> result =
      searchPlacement(graph, network, trainingOptions(), options, serial);
  ASSERT_TRUE(bool(result));
  // Per op 0.4 GB weights + 0.05 GB output where it has weights: two such
  // ops fill a 1 GB GPU.
  EXPECT_EQ(result->best, (Placement{1, 1, 1, 2, 2, 2, 2}));
  EXPECT_EQ(result->evaluations, 1);
}

TEST(PlacementSearch, ThreadsGiveTheSameResultAsOneThread) {
  SerialExecutor serial;
  llvm::StdThreadPool pool(llvm::hardware_concurrency(4));
  ThreadPoolExecutor threads(pool);
  for (SearchKind kind : {SearchKind::Genetic, SearchKind::MapElites,
                          SearchKind::SimulatedAnnealing}) {
    SearchResult one = search(kind, 600, 11, serial);
    SearchResult many = search(kind, 600, 11, threads);
    EXPECT_EQ(one.best, many.best);
    EXPECT_EQ(one.bestFitness, many.bestFitness);
    EXPECT_EQ(one.bestByEvaluation, many.bestByEvaluation);
    EXPECT_EQ(one.events, many.events);
  }
}

TEST(PlacementSearch, ProgressDoesNotChangeTheSearch) {
  SerialExecutor serial;
  for (SearchKind kind : {SearchKind::Genetic, SearchKind::MapElites,
                          SearchKind::SimulatedAnnealing}) {
    SearchResult silent = search(kind, 600, 11, serial);
    dsm::core::testing::RecordingProgress progress;
    SearchOptions options;
    options.kind = kind;
    options.evaluations = 600;
    options.seed = 11;
    options.progress = &progress;
    llvm::Expected<SearchResult> watched = searchPlacement(
        makeBranchyGraph(), makeServer(), trainingOptions(), options, serial);
    ASSERT_TRUE(bool(watched));
    progress.expectMonotoneUpTo(600, 600);
    EXPECT_EQ(progress.steps.back().best, silent.bestFitness);
    EXPECT_FALSE(watched->interrupted);
    EXPECT_EQ(watched->best, silent.best);
    EXPECT_EQ(watched->bestByEvaluation, silent.bestByEvaluation);
    EXPECT_EQ(watched->events, silent.events);
  }
}

TEST(PlacementSearch, StopsWhenAskedWithTheBestSoFar) {
  SerialExecutor serial;
  // Each checks at its boundary: a step (sa), a generation of 45 children
  // (ga), a batch of 50 (map-elites).
  for (auto [kind, boundary] : {std::pair(SearchKind::SimulatedAnnealing, 1),
                                std::pair(SearchKind::Genetic, 45),
                                std::pair(SearchKind::MapElites, 50)}) {
    SearchResult whole = search(kind, 2000, 5, serial);
    dsm::core::testing::RecordingProgress progress(/*stopAt=*/300);
    SearchOptions options;
    options.kind = kind;
    options.evaluations = 2000;
    options.seed = 5;
    options.progress = &progress;
    llvm::Expected<SearchResult> stopped = searchPlacement(
        makeBranchyGraph(), makeServer(), trainingOptions(), options, serial);
    ASSERT_TRUE(bool(stopped));
    EXPECT_TRUE(stopped->interrupted) << stringifySearchKind(kind).str();
    EXPECT_GE(stopped->evaluations, 300);
    EXPECT_LT(stopped->evaluations, 300 + boundary);
    progress.expectMonotoneUpTo(stopped->evaluations, 2000);
    // The whole run's history until then, and its best so far.
    std::vector<std::pair<int64_t, double>> prefix;
    for (auto entry : whole.bestByEvaluation)
      if (entry.first <= stopped->evaluations)
        prefix.push_back(entry);
    EXPECT_EQ(stopped->bestByEvaluation, prefix);
    EXPECT_EQ(stopped->bestFitness, prefix.back().second);
  }
}

TEST(PlacementSearch, SeedsChangeTheSearch) {
  SerialExecutor serial;
  SearchResult a = search(SearchKind::Genetic, 100, 1, serial);
  SearchResult b = search(SearchKind::Genetic, 100, 2, serial);
  EXPECT_NE(a.bestByEvaluation, b.bestByEvaluation);
}

TEST(PlacementSearch, OpLargerThanEveryDeviceIsNamed) {
  OpGraph graph;
  graph.addOp(makeOp("a", 1, 100));
  graph.addOp(makeOp("huge", 1, 100, {0}, 1, int64_t(200e9)));
  SerialExecutor serial;
  llvm::Expected<SearchResult> result = searchPlacement(
      graph, makeServer(), trainingOptions(), SearchOptions(), serial);
  ASSERT_FALSE(bool(result));
  int64_t node = -2;
  llvm::handleAllErrors(result.takeError(),
                        [&](const NodeError &e) { node = e.getNode(); });
  EXPECT_EQ(node, 1);
}

TEST(PlacementSearch, NamesRoundTrip) {
  for (SearchKind kind :
       {SearchKind::SingleDevice, SearchKind::Expert, SearchKind::HillClimbing,
        SearchKind::SimulatedAnnealing, SearchKind::Genetic,
        SearchKind::MapElites})
    EXPECT_EQ(symbolizeSearchKind(stringifySearchKind(kind)), kind);
  EXPECT_FALSE(symbolizeSearchKind("random"));
}

} // namespace
