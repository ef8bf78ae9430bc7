//===- MemoryPlacementEvaluator.cpp - The reward of a memory map ----------===//

#include "dsm/Core/Memory/MemoryPlacementEvaluator.h"

using namespace dsm::core;
using namespace dsm::core::memory;

llvm::Expected<PlacementEvaluator>
PlacementEvaluator::create(const MemoryGraph &graph,
                           const MemoryHierarchySystem &system,
                           LatencyMeasure measure) {
  auto model = MemoryCostModel::create(graph, system);
  if (!model)
    return model.takeError();
  auto checker = CapacityChecker::create(graph, system);
  if (!checker)
    return checker.takeError();
  PlacementEvaluator evaluator(graph, std::move(*model), std::move(*checker));
  // The compiler's map: activations ask for SRAM, weights for the LLC, and
  // the allocator demotes in its documented order (MemoryPlacementSearch.h,
  // "compiler").
  MemoryMap wanted(graph.size(),
                   NodePlacement{MemoryLevel::LLC, MemoryLevel::SRAM});
  evaluator.compilerMap = evaluator.rectify(wanted).map;
  if (measure) {
    llvm::Expected<double> measured = measure(evaluator.compilerMap);
    if (!measured)
      return llvm::createStringError("cannot measure the compiler's map: " +
                                     llvm::toString(measured.takeError()));
    evaluator.compilerLatency = *measured;
    evaluator.measurement = std::make_shared<Measurement>();
    evaluator.measurement->measure = std::move(measure);
  } else {
    evaluator.compilerLatency =
        evaluator.model.getNetworkLatency(evaluator.compilerMap);
  }
  return evaluator;
}

Evaluation PlacementEvaluator::evaluate(const MemoryMap &map) const {
  Evaluation evaluation;
  evaluation.latency = model.getNetworkLatency(map);
  evaluation.valid = checker.isValid(map);
  if (evaluation.valid && measurement) {
    llvm::Expected<double> measured = measurement->measure(map);
    if (measured) {
      evaluation.latency = *measured;
    } else {
      // Scored as invalid; the search stops at its next step and fails.
      std::string message = llvm::toString(measured.takeError());
      std::lock_guard<std::mutex> lock(measurement->mutex);
      if (!measurement->failed.exchange(true))
        measurement->firstError = std::move(message);
      evaluation.valid = false;
      evaluation.reward = -1;
      return evaluation;
    }
  }
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

bool PlacementEvaluator::hasMeasurementFailed() const {
  return measurement && measurement->failed.load();
}

llvm::Error PlacementEvaluator::measurementError() const {
  if (!hasMeasurementFailed())
    return llvm::Error::success();
  std::lock_guard<std::mutex> lock(measurement->mutex);
  return llvm::createStringError(measurement->firstError);
}
