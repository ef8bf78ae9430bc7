//===- LayerGraphBuilder.h - Expanded IR -> core LayerGraph -----*- C++ -*-===//
//
// Reads a function expanded by --dsm-expand-training into the core library's
// LayerGraph: one node per FWD layer pass (in order) with the passes the IR
// has for it, and one edge per activation a FWD pass reads from another.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_PASSES_SPATIAL_LAYERGRAPHBUILDER_H
#define DSM_PASSES_SPATIAL_LAYERGRAPHBUILDER_H

#include "dsm/Core/Spatial/SpatialMapper.h"
#include "dsm/Dialect/DsmOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <vector>

namespace dsm {

/// The passes of one layer in the IR (BWD and UPD may be absent).
struct LayerPassOps {
  LayerPassOp fwd, bwd, upd;
};

struct ExpandedFunction {
  core::LayerGraph graph;
  std::vector<LayerPassOps> layers; ///< index for index with graph.layers
};

/// Fails with an error at the offending op on a pass without a preceding FWD
/// of its layer or a repeated layer name.
mlir::FailureOr<ExpandedFunction> readLayerGraph(mlir::func::FuncOp func);

} // namespace dsm

#endif // DSM_PASSES_SPATIAL_LAYERGRAPHBUILDER_H
