//===- DevicePlacementSearch.cpp - Searches for a device placement --------===//

#include "dsm/Core/Devices/DevicePlacementSearch.h"
#include "dsm/Core/Support/NodeError.h"

#include "DeviceSearches.h"

#include "llvm/ADT/StringSwitch.h"

#include <algorithm>
#include <numeric>

using namespace dsm::core;
using namespace dsm::core::devices;
using namespace dsm::core::devices::detail;

llvm::StringRef devices::stringifySearchKind(SearchKind kind) {
  switch (kind) {
  case SearchKind::SingleDevice:
    return "single-device";
  case SearchKind::Expert:
    return "expert";
  case SearchKind::HillClimbing:
    return "hc";
  case SearchKind::SimulatedAnnealing:
    return "sa";
  case SearchKind::Genetic:
    return "ga";
  case SearchKind::MapElites:
    return "map-elites";
  }
  return "";
}

std::optional<SearchKind> devices::symbolizeSearchKind(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<SearchKind>>(name)
      .Case("single-device", SearchKind::SingleDevice)
      .Case("expert", SearchKind::Expert)
      .Case("hc", SearchKind::HillClimbing)
      .Case("sa", SearchKind::SimulatedAnnealing)
      .Case("ga", SearchKind::Genetic)
      .Case("map-elites", SearchKind::MapElites)
      .Default(std::nullopt);
}

llvm::StringRef devices::getSearchKindNames() {
  return "single-device, expert, hc, sa, ga, map-elites";
}

llvm::Error devices::checkPlaceable(const OpGraph &graph,
                                    const DeviceNetwork &network,
                                    const SimulationOptions &options) {
  double largest = 0;
  for (const ComputeDevice &device : network.getDevices())
    largest =
        std::max(largest, device.memoryBytes * options.usableMemoryFraction);
  for (auto [id, op] : llvm::enumerate(graph.getOps())) {
    double needs = double(op.weightBytes) + double(op.outputBytes);
    if (needs > largest)
      return makeNodeError(int64_t(id), "'", op.name, "' needs ",
                           int64_t(needs),
                           " bytes (weights and output), more than any "
                           "device's usable memory (largest: ",
                           int64_t(largest), " bytes)");
  }
  return ExecutionSimulator(graph, network, options).checkTimes();
}

/// Devices by peak FLOP/s, fastest first (lower id among equals).
static std::vector<int32_t> fastestFirst(const DeviceNetwork &network) {
  std::vector<int32_t> order(network.getNumDevices());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    return network.getDevice(a).peakFlops > network.getDevice(b).peakFlops;
  });
  return order;
}

/// The first device, fastest first, that holds the whole graph; when none
/// does, the evaluator's best (the smallest time plus overflow penalty).
static std::optional<Placement>
runSingleDevice(PlacementEvaluator &evaluator, const OpGraph &graph,
                const DeviceNetwork &network,
                const SimulationOptions &options) {
  ExecutionSimulator simulator(graph, network, options);
  for (int32_t device : fastestFirst(network)) {
    Placement placement(graph.size(), device);
    evaluator.evaluate(placement);
    if (simulator.run(placement).memoryOverflowBytes == 0)
      return placement;
  }
  return std::nullopt;
}

/// The expert rule (docs/device-placement.md): devices fastest first; ops in
/// topological order go to the current device until its usable memory
/// would not hold their weights and, per batch in flight, their outputs;
/// then the next device. What is left goes to the device with most memory.
static void runExpert(PlacementEvaluator &evaluator, const OpGraph &graph,
                      const DeviceNetwork &network,
                      const SimulationOptions &options) {
  std::vector<int32_t> order = fastestFirst(network);
  int32_t roomiest = 0;
  for (size_t d = 1; d < network.getNumDevices(); ++d)
    if (network.getDevice(int32_t(d)).memoryBytes >
        network.getDevice(roomiest).memoryBytes)
      roomiest = int32_t(d);
  Placement placement(graph.size(), roomiest);
  size_t next = 0;
  double used = 0;
  for (size_t op = 0; op < graph.size() && next < order.size(); ++op) {
    const Op &o = graph.getOp(int32_t(op));
    double needs = double(o.weightBytes) +
                   double(o.outputBytes) * double(options.batchesInFlight);
    while (next < order.size() &&
           used + needs > network.getDevice(order[next]).memoryBytes *
                              options.usableMemoryFraction) {
      ++next;
      used = 0;
    }
    if (next == order.size())
      break;
    placement[op] = order[next];
    used += needs;
  }
  evaluator.evaluate(placement);
}

llvm::Expected<SearchResult>
devices::searchPlacement(const OpGraph &graph, const DeviceNetwork &network,
                         const SimulationOptions &simulation,
                         const SearchOptions &search, Executor &executor) {
  if (search.evaluations < 1)
    return makeNodeError(-1, "the search needs at least one evaluation");
  if (llvm::Error error = checkPlaceable(graph, network, simulation))
    return error;
  PlacementEvaluator evaluator(graph, network, simulation, executor);
  // The baselines' few evaluations are not worth a progress line.
  if (search.kind != SearchKind::SingleDevice &&
      search.kind != SearchKind::Expert)
    evaluator.setProgress(*search.progress, search.evaluations);
  size_t devices = network.getNumDevices();
  std::optional<Placement> chosen;
  switch (search.kind) {
  case SearchKind::SingleDevice:
    chosen = runSingleDevice(evaluator, graph, network, simulation);
    break;
  case SearchKind::Expert:
    runExpert(evaluator, graph, network, simulation);
    break;
  case SearchKind::HillClimbing:
    runLocalSearch(evaluator, search, devices, /*anneal=*/false);
    break;
  case SearchKind::SimulatedAnnealing:
    runLocalSearch(evaluator, search, devices, /*anneal=*/true);
    break;
  case SearchKind::Genetic:
    runGenetic(evaluator, search, devices);
    break;
  case SearchKind::MapElites:
    runMapElites(evaluator, graph, search, devices);
    break;
  }
  SearchResult result;
  result.best = evaluator.getBest();
  result.bestFitness = evaluator.getBestFitness();
  result.evaluations = evaluator.getEvaluations();
  result.events = evaluator.getEvents();
  result.interrupted = evaluator.wasInterrupted();
  result.bestByEvaluation.assign(evaluator.getHistory().begin(),
                                 evaluator.getHistory().end());
  if (chosen && *chosen != result.best) {
    // A baseline's rule, not the fitness, decides what it returns.
    ExecutionSimulator simulator(graph, network, simulation);
    result.bestFitness = simulator.run(*chosen).fitness();
    result.best = std::move(*chosen);
  }
  return result;
}
