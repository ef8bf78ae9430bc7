//===- MemoryPlacementEvaluator.h - The reward of a memory map --*- C++ -*-===//
//
// One place that turns a memory map into what the searches optimise, as
// Khadka et al. (EGRL), Algorithm 1, does with the hardware: a valid map is
// "run" (the cost model's latency) and rewarded with (speedup over the
// compiler's map)^2 (line 10); an invalid map is not run and gets minus the
// ratio of bytes the compiler's rectification re-assigns (line 12). Its
// speedup is reported as 0, as the paper scores invalid maps. With a
// LatencyMeasure (ExternalEvaluator.h) a valid map's latency, and the
// compiler's, are measured by it instead of the cost model.
//
// Thread-safe: searches evaluate a population through an Executor.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_MEMORY_MEMORYPLACEMENTEVALUATOR_H
#define DSM_CORE_MEMORY_MEMORYPLACEMENTEVALUATOR_H

#include "dsm/Core/Memory/CapacityChecker.h"
#include "dsm/Core/Memory/ExternalEvaluator.h"
#include "dsm/Core/Memory/MemoryCostModel.h"
#include "dsm/Core/Memory/Rectifier.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

namespace dsm::core::memory {

struct Evaluation {
  bool valid = false;
  /// The latency in seconds: measured for a valid map when there is a
  /// measure, else (and for invalid maps) the cost model's.
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
  /// With `measure`, the compiler's map is measured here (its error fails
  /// the creation) and every valid map in evaluate().
  static llvm::Expected<PlacementEvaluator>
  create(const MemoryGraph &graph, const MemoryHierarchySystem &system,
         LatencyMeasure measure = nullptr);

  Evaluation evaluate(const MemoryMap &map) const;

  const MemoryGraph &getGraph() const { return *graph; }
  const MemoryCostModel &getCostModel() const { return model; }
  const CapacityChecker &getChecker() const { return checker; }
  Rectification rectify(const MemoryMap &map) const {
    return Rectifier(checker).rectify(map);
  }
  const MemoryMap &getCompilerMap() const { return compilerMap; }
  double getCompilerLatency() const { return compilerLatency; }

  /// Whether latencies come from a measure rather than the cost model.
  bool isMeasured() const { return bool(measurement); }
  /// Whether a measurement failed: the map was scored as invalid, and the
  /// search should stop and fail with measurementError().
  bool hasMeasurementFailed() const;
  /// The first failed measurement's error (success if none failed).
  llvm::Error measurementError() const;

private:
  PlacementEvaluator(const MemoryGraph &graph, MemoryCostModel model,
                     CapacityChecker checker)
      : graph(&graph), model(std::move(model)), checker(std::move(checker)) {}

  const MemoryGraph *graph;
  MemoryCostModel model;
  CapacityChecker checker;
  MemoryMap compilerMap;
  double compilerLatency = 0;

  /// Shared by the copies a search's threads see: the measure and the first
  /// error it gave.
  struct Measurement {
    LatencyMeasure measure;
    std::mutex mutex;
    std::atomic<bool> failed{false};
    std::string firstError;
  };
  std::shared_ptr<Measurement> measurement;
};

} // namespace dsm::core::memory

#endif // DSM_CORE_MEMORY_MEMORYPLACEMENTEVALUATOR_H
