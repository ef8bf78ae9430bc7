//===- PlacementEvaluator.cpp - The reward of a memory map ----------------===//

#include "dsm/Core/Memory/PlacementEvaluator.h"

using namespace dsm::core;
using namespace dsm::core::memory;

llvm::Expected<PlacementEvaluator>
PlacementEvaluator::create(const MemoryGraph &graph,
                           const MemoryHierarchySystem &system) {
  auto model = MemoryCostModel::create(graph, system);
  if (!model)
    return model.takeError();
  auto checker = CapacityChecker::create(graph, system);
  if (!checker)
    return checker.takeError();
  PlacementEvaluator evaluator(graph, std::move(*model), std::move(*checker));
  // The compiler's map: activations ask for SRAM, weights for the LLC, and
  // the allocator demotes in its documented order (PlacementSearch.h,
  // "compiler").
  MemoryMap wanted(graph.size(),
                   NodePlacement{MemoryLevel::LLC, MemoryLevel::SRAM});
  evaluator.compilerMap = evaluator.rectify(wanted).map;
  evaluator.compilerLatency =
      evaluator.model.getNetworkLatency(evaluator.compilerMap);
  return evaluator;
}

Evaluation PlacementEvaluator::evaluate(const MemoryMap &map) const {
  Evaluation evaluation;
  evaluation.latency = model.getNetworkLatency(map);
  evaluation.valid = checker.isValid(map);
  if (evaluation.valid) {
    evaluation.speedup =
        evaluation.latency > 0 ? compilerLatency / evaluation.latency : 1.0;
    evaluation.reward = evaluation.speedup * evaluation.speedup;
  } else {
    evaluation.reassignedRatio = rectify(map).reassignedRatio;
    evaluation.reward = -evaluation.reassignedRatio;
  }
  return evaluation;
}
