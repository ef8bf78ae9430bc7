//===- MemoryCostModel.cpp - Latency of a memory map ----------------------===//

#include "dsm/Core/Memory/MemoryCostModel.h"
#include "dsm/Core/Support/NodeError.h"

#include "llvm/Support/Format.h"

#include <cmath>

using namespace dsm::core;
using namespace dsm::core::memory;

llvm::Expected<MemoryCostModel>
MemoryCostModel::create(const MemoryGraph &graph,
                        const MemoryHierarchySystem &system) {
  double opsPerSecond =
      double(system.engines) * double(system.macsPerCycle) * system.frequencyHz;
  if (!(opsPerSecond > 0) || !std::isfinite(opsPerSecond))
    return llvm::createStringError(
        "the system's engines have no compute (engines x MACs x frequency "
        "must be positive)");
  MemoryCostModel model(graph);
  model.bandwidth[int(MemoryLevel::DRAM)] = system.dram.effectiveBandwidth();
  model.bandwidth[int(MemoryLevel::LLC)] = system.llc.effectiveBandwidth();
  // A tensor in SRAM lives in one engine's SRAM (App. G: "the specific
  // target out of the 12 possible Deep SRAM locations"), so it streams at
  // that SRAM's bandwidth: App. G's "Deep SRAM is ... 100x faster than the
  // DRAM", as the LLC is 10x.
  model.bandwidth[int(MemoryLevel::SRAM)] = system.sram.effectiveBandwidth();
  for (MemoryLevel level : kMemoryLevels)
    if (!(model.bandwidth[int(level)] > 0) ||
        !std::isfinite(model.bandwidth[int(level)]))
      return llvm::createStringError(llvm::Twine("the system's ") +
                                     stringifyMemoryLevel(level) +
                                     " has no bandwidth");

  size_t count = graph.size();
  model.computeTime.resize(count);
  model.weightTime.resize(count);
  model.activationTime.resize(count);
  model.externalTime.resize(count);
  for (size_t i = 0; i < count; ++i) {
    const MemoryNode &node = graph.getNode(i);
    model.computeTime[i] = (double(node.macs) + node.auxOps) / opsPerSecond;
    for (MemoryLevel level : kMemoryLevels) {
      double perByte = 1.0 / model.bandwidth[int(level)];
      model.weightTime[i][int(level)] = double(node.weightBytes) * perByte;
      model.activationTime[i][int(level)] = double(node.outputBytes) * perByte;
    }
    model.externalTime[i] = double(node.externalInputBytes) /
                            model.bandwidth[int(MemoryLevel::DRAM)];
    // A denormal frequency or bandwidth gives infinite times, and the
    // searches would compare NaNs: each time must be a plausible number.
    auto implausible = [&](double seconds, llvm::StringRef what) {
      return makeNodeError(int64_t(i), "'", node.name, "' would take ",
                           llvm::format("%g", seconds), " s to ", what,
                           " (at most ", llvm::format("%g", kMaxNodeSeconds),
                           " s): the system's ",
                           what == "compute" ? "frequency" : "bandwidth",
                           " is implausibly small");
    };
    if (!(model.computeTime[i] <= kMaxNodeSeconds))
      return implausible(model.computeTime[i], "compute");
    for (MemoryLevel level : kMemoryLevels)
      if (!(model.weightTime[i][int(level)] <= kMaxNodeSeconds) ||
          !(model.activationTime[i][int(level)] <= kMaxNodeSeconds))
        return implausible(
            std::max(model.weightTime[i][int(level)],
                     model.activationTime[i][int(level)]),
            ("move its tensors in " + stringifyMemoryLevel(level)).str());
    if (!(model.externalTime[i] <= kMaxNodeSeconds))
      return implausible(model.externalTime[i], "read its inputs from DRAM");
  }
  return model;
}

NodeCost MemoryCostModel::getNodeCost(const MemoryMap &map, size_t node) const {
  NodeCost cost;
  cost.compute = computeTime[node];
  cost.weightRead = weightTime[node][int(map[node].weights)];
  cost.outputWrite = activationTime[node][int(map[node].activations)];
  cost.inputRead = externalTime[node];
  for (int32_t input : graph->getInputsOf(node))
    cost.inputRead += activationTime[input][int(map[input].activations)];
  return cost;
}

double MemoryCostModel::getNodeLatency(const MemoryMap &map,
                                       size_t node) const {
  double transfer = weightTime[node][int(map[node].weights)] +
                    activationTime[node][int(map[node].activations)] +
                    externalTime[node];
  for (int32_t input : graph->getInputsOf(node))
    transfer += activationTime[input][int(map[input].activations)];
  return std::max(computeTime[node], transfer);
}

double MemoryCostModel::getNetworkLatency(const MemoryMap &map) const {
  double total = 0;
  for (size_t i = 0, e = graph->size(); i < e; ++i)
    total += getNodeLatency(map, i);
  return total;
}
