//===- MappedMemory.h - A mapped plan's memory per chip ---------*- C++ -*-===//
//
// A mapped function's memory per chip. The figure is the mapper's
// (core/Spatial/StepMemory.h), recorded on the function as
// `dsm.chip_memory`: every report format and the explain remarks show it.
// --dsm-verify-mapping checks it without trusting it against a count from
// the IR alone -- the passes in program order are the step's schedule --
// which sees only the tensors between tiled passes, so it is at most the
// mapper's by category.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_PASSES_SPATIAL_MAPPEDMEMORY_H
#define DSM_PASSES_SPATIAL_MAPPEDMEMORY_H

#include "dsm/Core/Spatial/PerformanceModel.h"
#include "dsm/Core/Spatial/StepMemory.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <map>
#include <memory>
#include <optional>

namespace dsm {

/// The cost model of the chips a pass runs on: the system's, or that of the
/// block of the torus its plan runs on (ChipBlocks.h), made once per block.
class BlockModels {
public:
  explicit BlockModels(const core::PerformanceModel &system) : system(system) {}
  const core::PerformanceModel &of(const core::MappingConfig &config);

private:
  const core::PerformanceModel &system;
  std::map<std::pair<int64_t, int64_t>, std::unique_ptr<core::PerformanceModel>>
      blocks;
};

/// The memory of the fullest chip over `func`'s step, or nullopt when it has
/// no tiled passes. Each distinct parameter counts once, held by the first
/// FWD reading it at that pass's chip share (core::heldParameters: with
/// `sharded_state`, its gradient and optimizer state only for a 1/chips
/// shard; a timestep pipe stage's on its rows only); every activation and
/// error lives from its pass to its last reader (or the end, if returned),
/// through the transfers between passes, spread over the chips its pass
/// runs on; a FWD output marked `recompute` lives again only around the
/// backward passes that read it (core::activationLiveTensors).
std::optional<core::MemoryPerChip>
memoryOfMappedStep(mlir::func::FuncOp func, const core::PerformanceModel &model,
                   core::Optimizer optimizer);

/// The memory of the fullest chip of a function's plan and, on a pipelined
/// plan, that chip's stage (-1: not pipelined or not known).
struct PlanMemory {
  core::MemoryPerChip memory;
  int64_t stage = -1;
};

/// `func`'s plan's memory: the figure the mapper recorded, with the
/// system's capacities; tiled passes without a record (written by hand)
/// have only the IR's count (memoryOfMappedStep). Nullopt: no tiled passes.
std::optional<PlanMemory> memoryOfPlan(mlir::func::FuncOp func,
                                       const core::PerformanceModel &model,
                                       core::Optimizer optimizer);

} // namespace dsm

#endif // DSM_PASSES_SPATIAL_MAPPEDMEMORY_H
