//===- DevicesBench.cpp - Speed of the device-placement simulator ---------===//
//
// Google Benchmark of the execution simulator (docs/device-placement.md):
// simulated events per second for random placements of AlexNet, ResNet-50 and
// Inception-v3 (training, minibatch 64) on Malvik, on one core; and the time
// of a whole 20,000-evaluation GA on Inception-v3 on one core. The issue's
// targets: >= 1 M events/s, the GA in under 20 s.
//
//===----------------------------------------------------------------------===//

#include "ModelLoader.h"

#include "dsm/Core/Devices/DevicePlacementSearch.h"
#include "dsm/Core/Support/Random.h"
#include "dsm/Dialect/DsmAttrs.h"
#include "dsm/Passes/Common/WorkloadAnalysis.h"
#include "dsm/Passes/Devices/OpGraphBuilder.h"

#include <benchmark/benchmark.h>

#include <cstdlib>

using namespace dsm;
using namespace dsm::bench;
namespace devices = dsm::core::devices;

namespace {
struct Problem {
  devices::OpGraph graph;
  devices::DeviceNetwork network;
};

/// `model` at minibatch 64 on Malvik, read as --dsm-place-devices reads it.
Problem loadProblem(const char *model) {
  std::unique_ptr<mlir::MLIRContext> context = makeContext();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      runPipeline(*context, modelPath(model),
                  "dsm-set-batch{batch=64},dsm-attach-system{system=malvik}");
  WorkloadAnalysis analysis(*module);
  mlir::FailureOr<OpGraphWithOps> built = buildOpGraph(*module, analysis);
  mlir::FailureOr<core::SystemDescription> system = getModuleSystem(*module);
  llvm::Expected<devices::DeviceNetwork> network =
      devices::DeviceNetwork::fromSystem(
          *system->getIf<core::DeviceGraphSystem>());
  if (failed(built) || !network) {
    llvm::consumeError(network.takeError());
    std::abort();
  }
  return {std::move(built->graph), std::move(*network)};
}

void simulateRandomPlacements(benchmark::State &state, const char *model) {
  Problem problem = loadProblem(model);
  devices::SimulationOptions options;
  devices::ExecutionSimulator simulator(problem.graph, problem.network,
                                        options);
  core::Random random(1);
  std::vector<devices::Placement> placements(64);
  for (devices::Placement &placement : placements)
    for (size_t op = 0; op < problem.graph.size(); ++op)
      placement.push_back(
          int32_t(random.below(problem.network.getNumDevices())));
  int64_t events = 0, runs = 0;
  for (auto _ : state) {
    const devices::SimulationResult &result =
        simulator.run(placements[size_t(runs) % placements.size()]);
    events += result.events;
    ++runs;
    benchmark::DoNotOptimize(result.makespan);
  }
  state.counters["events/s"] =
      benchmark::Counter(double(events), benchmark::Counter::kIsRate);
  state.counters["evaluations/s"] =
      benchmark::Counter(double(runs), benchmark::Counter::kIsRate);
  state.counters["events/evaluation"] = double(events) / double(runs);
}

void geneticAlgorithm(benchmark::State &state, const char *model) {
  Problem problem = loadProblem(model);
  core::SerialExecutor serial;
  devices::SearchOptions search;
  search.kind = devices::SearchKind::Genetic;
  search.evaluations = 20000;
  for (auto _ : state) {
    llvm::Expected<devices::SearchResult> result =
        devices::searchPlacement(problem.graph, problem.network,
                                 devices::SimulationOptions(), search, serial);
    if (!result) {
      llvm::consumeError(result.takeError());
      std::abort();
    }
    state.counters["best step ms"] = result->bestFitness;
    state.counters["events/s"] =
        benchmark::Counter(double(result->events), benchmark::Counter::kIsRate);
    state.counters["evaluations/s"] = benchmark::Counter(
        double(result->evaluations), benchmark::Counter::kIsRate);
  }
}
} // namespace

BENCHMARK_CAPTURE(simulateRandomPlacements, alexnet, "alexnet")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(simulateRandomPlacements, resnet50, "resnet50")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(simulateRandomPlacements, inception_v3, "inception_v3")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(geneticAlgorithm, inception_v3, "inception_v3")
    ->Unit(benchmark::kSecond)
    ->Iterations(1);

BENCHMARK_MAIN();
