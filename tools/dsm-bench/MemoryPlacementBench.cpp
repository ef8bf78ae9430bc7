//===- MemoryPlacementBench.cpp - Speed of the memory placement model -----===//
//
// Google Benchmark of the memory-placement cost model
// (docs/memory-placement.md) on the NNP-I preset: a ResNet-like graph of 100
// nodes (a chain with a skip connection every third node, weights and
// activations of ResNet-50's orders of magnitude) and random maps.
// items_per_second counts node evaluations; the target is at least a million
// per second.
//
//===----------------------------------------------------------------------===//

#include "dsm/Core/Memory/MemoryPlacementEvaluator.h"
#include "dsm/Core/System/SystemLoader.h"

#include <benchmark/benchmark.h>

#include <random>

using namespace dsm::core;
using namespace dsm::core::memory;

namespace {
struct Problem {
  MemoryHierarchySystem system;
  MemoryGraph graph;
  std::vector<MemoryMap> maps;
};

Problem makeProblem(int nodes) {
  auto description = loadSystem("nnp-i");
  if (!description)
    llvm::report_fatal_error(description.takeError());
  std::mt19937_64 rng(1);
  std::vector<MemoryNode> list;
  for (int i = 0; i < nodes; ++i) {
    MemoryNode node;
    node.name = "n" + std::to_string(i);
    node.weightBytes = int64_t(rng() % 2'000'000);
    node.outputBytes = int64_t(rng() % 800'000 + 1000);
    node.macs = int64_t(rng() % 200'000'000);
    if (i > 0)
      node.inputs.push_back(i - 1);
    if (i > 3 && i % 3 == 0)
      node.inputs.push_back(i - 3);
    list.push_back(std::move(node));
  }
  auto graph = MemoryGraph::create(std::move(list));
  if (!graph)
    llvm::report_fatal_error(graph.takeError());
  Problem problem{
      *description->getIf<MemoryHierarchySystem>(), std::move(*graph), {}};
  for (int m = 0; m < 64; ++m) {
    MemoryMap map(static_cast<size_t>(nodes));
    for (NodePlacement &p : map)
      p = {MemoryLevel(rng() % 3), MemoryLevel(rng() % 3)};
    problem.maps.push_back(std::move(map));
  }
  return problem;
}
} // namespace

/// Latency only (the cost model's inner loop).
static void networkLatency(benchmark::State &state) {
  Problem problem = makeProblem(int(state.range(0)));
  auto model = MemoryCostModel::create(problem.graph, problem.system);
  size_t m = 0;
  for (auto _ : state)
    benchmark::DoNotOptimize(
        model->getNetworkLatency(problem.maps[m++ % problem.maps.size()]));
  state.SetItemsProcessed(int64_t(state.iterations()) * state.range(0));
}

/// Latency and the liveness capacity check: what a valid map costs a search.
static void latencyAndValidity(benchmark::State &state) {
  Problem problem = makeProblem(int(state.range(0)));
  auto model = MemoryCostModel::create(problem.graph, problem.system);
  auto checker = CapacityChecker::create(problem.graph, problem.system);
  size_t m = 0;
  for (auto _ : state) {
    const MemoryMap &map = problem.maps[m++ % problem.maps.size()];
    benchmark::DoNotOptimize(model->getNetworkLatency(map));
    benchmark::DoNotOptimize(checker->isValid(map));
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * state.range(0));
}

/// The full reward, rectification included for invalid maps.
static void evaluateWithRectification(benchmark::State &state) {
  Problem problem = makeProblem(int(state.range(0)));
  auto evaluator = PlacementEvaluator::create(problem.graph, problem.system);
  if (!evaluator)
    llvm::report_fatal_error(evaluator.takeError());
  size_t m = 0;
  for (auto _ : state)
    benchmark::DoNotOptimize(
        evaluator->evaluate(problem.maps[m++ % problem.maps.size()]));
  state.SetItemsProcessed(int64_t(state.iterations()) * state.range(0));
}

BENCHMARK(networkLatency)->Arg(100)->Arg(400);
BENCHMARK(latencyAndValidity)->Arg(100)->Arg(400);
BENCHMARK(evaluateWithRectification)->Arg(100)->Arg(400);

BENCHMARK_MAIN();
