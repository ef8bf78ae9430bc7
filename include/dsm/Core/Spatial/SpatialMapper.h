//===- SpatialMapper.h - Mapping a network onto the system ------*- C++ -*-===//
//
// Maps every layer and pass of a network (DeepSpatialMatrix §II): explores
// each (layer, pass, parallelism) with the DesignSpaceExplorer -- memoized by
// layer shape, spread over a thread pool -- then chooses one parallelism per
// layer jointly over the graph, since switching parallelism between a
// producer and its consumer costs a relayout of the activations (and, in
// training, of the errors flowing back). The choice is an exact dynamic
// program over the layers in order whose state is the parallelism of every
// layer whose output is still to be read (residual shortcuts, attention
// memories), or, where those states are too many (nested skips), variable
// elimination (ParallelismSelection.h); see docs/performance-model.md.
//
// A mapping is a MappingProblem (MappingProblem.h) solved in stages, each
// memory optimization of §III an add-on of the solver (lib/Spatial/
// MappingSolver.h); map() runs the strategies around it -- weight preloading
// sweeps, blocks of the torus, pipelines -- in the order lib/Spatial/
// MappingDriver.h lists them.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SPATIAL_SPATIALMAPPER_H
#define DSM_CORE_SPATIAL_SPATIALMAPPER_H

#include "dsm/Core/Spatial/DesignSpaceExplorer.h"
#include "dsm/Core/Spatial/LayerGraph.h"
#include "dsm/Core/Spatial/MappingPlan.h"
#include "dsm/Core/Spatial/MappingProblem.h"
#include "dsm/Core/Spatial/PipelineParallelism.h"
#include "dsm/Core/Spatial/TimestepPipelining.h"
#include "dsm/Core/Support/Executor.h"
#include "dsm/Core/Support/Progress.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <vector>

namespace dsm::core {

class SpatialMapper {
public:
  SpatialMapper(const MultiChipSystem &system, MapperOptions options);

  const PerformanceModel &getModel() const { return model; }

  /// Maps `graph`, exploring layers in parallel on `executor` (the plan is
  /// the same for any executor). When some layer has no legal mapping under
  /// any parallelism, fails with a NodeError carrying that layer's index.
  llvm::Expected<MappingPlan> map(const LayerGraph &graph,
                                  Executor &executor) const;

private:
  PerformanceModel model;
  MapperOptions options;
};

/// A plan and the network it was made for.
struct NetworkPlan {
  MultiChipSystem system;
  MappingPlan plan;
};

/// Maps `graph` on `system` and, where its innermost dimension is a switch (a
/// DGX node), on each of its regroupings (a tensor group of every divisor of
/// the node's size, the node's other chips with the outer dimension:
/// regroupInnermost), and keeps the best -- a plan that fits before one that
/// does not, then the fewest cycles, the least regrouped on a tie -- with the
/// others' best plans among its rejected strategies. Tensor parallelism
/// inside a node is searched so, as pipeline and data parallelism are over
/// the outer dimension.
llvm::Expected<NetworkPlan> mapOnRegroupings(const MultiChipSystem &system,
                                             const MapperOptions &options,
                                             const LayerGraph &graph,
                                             Executor &executor);

} // namespace dsm::core

#endif // DSM_CORE_SPATIAL_SPATIALMAPPER_H
