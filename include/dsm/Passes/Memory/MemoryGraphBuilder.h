//===- MemoryGraphBuilder.h - A function as a core MemoryGraph --*- C++ -*-===//
//
// Reads one function of dsm graph ops into the memory-placement core: the
// nodes are the layers of formLayers (the spatial mapper's layer formation,
// a primary computation with the auxiliary ops that follow it -- Khadka et
// al.'s "operational layers"), with MACs and auxiliary operations summed from
// the ops' workloads and tensor bytes at the system's precision.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_PASSES_MEMORY_MEMORYGRAPHBUILDER_H
#define DSM_PASSES_MEMORY_MEMORYGRAPHBUILDER_H

#include "dsm/Core/Memory/MemoryGraph.h"
#include "dsm/Passes/Common/LayerFormation.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <vector>

namespace dsm {

struct MemoryGraphWithLayers {
  /// Without nodes for a function without graph ops.
  core::memory::MemoryGraph graph;
  /// The layers behind the graph's nodes, index for index.
  std::vector<FormedLayer> layers;

  /// The op an error about node `node` is reported at.
  mlir::Operation *getAnchor(size_t node) const {
    const FormedLayer &layer = layers[node];
    return layer.primary ? layer.primary : layer.ops.front();
  }
};

/// Fails with an error at the offending op (a non-dsm op, a dynamic shape,
/// sizes past 64 bits). `elementBytes` is the system's bytes per element.
mlir::FailureOr<MemoryGraphWithLayers> buildMemoryGraph(mlir::func::FuncOp func,
                                                        int64_t elementBytes);

} // namespace dsm

#endif // DSM_PASSES_MEMORY_MEMORYGRAPHBUILDER_H
