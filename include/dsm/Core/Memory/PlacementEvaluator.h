//===- PlacementEvaluator.h - The reward of a memory map --------*- C++ -*-===//
//
// One place that turns a memory map into what the searches optimise, as
// Khadka et al. (EGRL), Algorithm 1, does with the hardware: a valid map is
// "run" (the cost model's latency) and rewarded with (speedup over the
// compiler's map)^2 (line 10); an invalid map is not run and gets minus the
// ratio of bytes the compiler's rectification re-assigns (line 12). Its
// speedup is reported as 0, as the paper scores invalid maps.
//
// Thread-safe: searches evaluate a population through an Executor.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_MEMORY_PLACEMENTEVALUATOR_H
#define DSM_CORE_MEMORY_PLACEMENTEVALUATOR_H

#include "dsm/Core/Memory/CapacityChecker.h"
#include "dsm/Core/Memory/MemoryCostModel.h"
#include "dsm/Core/Memory/Rectifier.h"

namespace dsm::core::memory {

struct Evaluation {
  bool valid = false;
  /// The cost model's latency in seconds (also computed for invalid maps).
  double latency = 0;
  /// Compiler latency / latency for a valid map, 0 for an invalid one.
  double speedup = 0;
  /// Re-assigned bytes ratio of the rectification (0 when valid).
  double reassignedRatio = 0;
  /// speedup^2 when valid, -reassignedRatio when not.
  double reward = 0;
};

class PlacementEvaluator {
public:
  /// Checks the problem (see MemoryCostModel::create and
  /// CapacityChecker::create) and evaluates the compiler's map, the baseline
  /// of every speedup.
  static llvm::Expected<PlacementEvaluator>
  create(const MemoryGraph &graph, const MemoryHierarchySystem &system);

  Evaluation evaluate(const MemoryMap &map) const;

  const MemoryGraph &getGraph() const { return *graph; }
  const MemoryCostModel &getCostModel() const { return model; }
  const CapacityChecker &getChecker() const { return checker; }
  Rectification rectify(const MemoryMap &map) const {
    return Rectifier(checker).rectify(map);
  }
  const MemoryMap &getCompilerMap() const { return compilerMap; }
  double getCompilerLatency() const { return compilerLatency; }

private:
  PlacementEvaluator(const MemoryGraph &graph, MemoryCostModel model,
                     CapacityChecker checker)
      : graph(&graph), model(std::move(model)), checker(std::move(checker)) {}

  const MemoryGraph *graph;
  MemoryCostModel model;
  CapacityChecker checker;
  MemoryMap compilerMap;
  double compilerLatency = 0;
};

} // namespace dsm::core::memory

#endif // DSM_CORE_MEMORY_PLACEMENTEVALUATOR_H
