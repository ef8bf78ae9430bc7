//===- DeviceGraphFuzzer.cpp - Fuzz device-graph systems ------------------===//
//
// Any bytes as a system description (YAML, JSON, Exprimo's device graphs);
// a device graph that reads is made the execution simulator's network
// (routes between every pair of devices) and a small training step is
// simulated on it with every op on one device, then spread over all of them.
// Errors are fine. Crashes, hangs, sanitizer reports, a route that does not
// arrive, and a non-finite time from a network whose times passed
// ExecutionSimulator::checkTimes are not.
//
//===----------------------------------------------------------------------===//

#include "dsm/Core/Devices/DeviceNetwork.h"
#include "dsm/Core/Devices/ExecutionSimulator.h"
#include "dsm/Core/Devices/OpGraph.h"
#include "dsm/Core/System/SpecNode.h"
#include "dsm/Core/System/SystemDescription.h"

#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>

using namespace dsm::core;
using namespace dsm::core::devices;

namespace {
/// A chain with a shortcut: four ops, 1 GFLOP and 1 MB each, one with
/// weights.
const OpGraph &smallGraph() {
  static OpGraph graph = [] {
    OpGraph built;
    for (int i = 0; i < 4; ++i) {
      Op op;
      op.name = "op" + std::to_string(i);
      op.forwardFlops = 1e9;
      op.backwardFlops = 2e9;
      op.outputBytes = 1 << 20;
      op.weightBytes = i == 1 ? 4 << 20 : 0;
      if (i > 0)
        op.inputs.push_back(i - 1);
      if (i == 3)
        op.inputs.push_back(0);
      built.addOp(std::move(op));
    }
    return built;
  }();
  return graph;
}

[[noreturn]] void fail(const char *why) {
  llvm::errs() << why << "\n";
  std::abort();
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  llvm::Expected<SpecNode> tree = parseSpec(text, "fuzz.json");
  if (!tree) {
    llvm::consumeError(tree.takeError());
    return 0;
  }
  llvm::Expected<SystemDescription> system = readSystemDescription(*tree);
  if (!system) {
    llvm::consumeError(system.takeError());
    return 0;
  }
  const DeviceGraphSystem *graphSystem = system->getIf<DeviceGraphSystem>();
  if (!graphSystem)
    return 0;
  // Routes are a table over every pair: keep the fuzzer's inputs to
  // networks it can run many of per second.
  if (graphSystem->devices.size() > 256)
    return 0;
  llvm::Expected<DeviceNetwork> network =
      DeviceNetwork::fromSystem(*graphSystem);
  if (!network) {
    llvm::consumeError(network.takeError());
    return 0;
  }
  int32_t n = int32_t(network->getNumDevices());
  for (int32_t from = 0; from < n; ++from)
    for (int32_t to = 0; to < n; ++to) {
      std::vector<int32_t> hops = network->getRouteDevices(from, to);
      if (hops.front() != from || hops.back() != to ||
          hops.size() > size_t(n) ||
          network->getRoute(from, to).size() + 1 != hops.size())
        fail("a route does not go from its source to its destination");
    }

  const OpGraph &graph = smallGraph();
  SimulationOptions options;
  options.batches = 2;
  options.batchesInFlight = 2;
  ExecutionSimulator simulator(graph, *network, options);
  if (llvm::Error error = simulator.checkTimes()) {
    llvm::consumeError(std::move(error));
    return 0;
  }
  std::vector<int32_t> placement(graph.size(), 0);
  for (int spread = 0; spread < 2; ++spread) {
    for (size_t op = 0; op < graph.size(); ++op)
      placement[op] = spread ? int32_t(op % size_t(n)) : 0;
    const SimulationResult &result = simulator.run(placement);
    if (!std::isfinite(result.makespan) || !std::isfinite(result.stepTime) ||
        result.makespan < 0)
      fail("a simulated step is not a finite time");
  }
  return 0;
}
