//===- LayerFormation.h - Grouping graph ops into layers --------*- C++ -*-===//
//
// A layer in the DeepSpatialMatrix sense is a primary computation with the
// auxiliary computations that follow it (bias, activation, pooling,
// normalization, residual addition), or auxiliary computations alone when no
// primary computation precedes them (an embedding, a stand-alone pooling). This
// groups a function's dsm ops into such layers, in program order, and
// describes each one to the performance model.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_PASSES_COMMON_LAYERFORMATION_H
#define DSM_PASSES_COMMON_LAYERFORMATION_H

#include "dsm/Core/Spatial/LayerShape.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Operation.h"

#include <string>
#include <vector>

namespace dsm {

struct FormedLayer {
  std::string name;
  mlir::Operation *primary = nullptr; ///< null for auxiliary-only layers
  llvm::SmallVector<mlir::Operation *> ops;
  /// Activations read from outside the layer (function arguments or other
  /// layers' outputs), in first-use order.
  llvm::SmallVector<mlir::Value> inputs;
  /// Weight tensors (dsm.weight results) read, in first-use order:
  /// parameters and normalization statistics.
  llvm::SmallVector<mlir::Value> weights;
  /// The learnable parameters among them. A parameter several layers read
  /// (tied embeddings, cloned layers whose initializers an exporter merged)
  /// is a parameter of each: each fetches it and computes its share of the
  /// gradient, as with weights of their own.
  llvm::SmallVector<mlir::Value> parameters;
  /// Values defined in the layer and used after it (or returned).
  llvm::SmallVector<mlir::Value> outputs;
  core::LayerShape shape;
};

/// Forms the layers of `func`. Fails with an error at the first operation
/// that is neither a dsm graph op, a dsm.weight, a constant nor the return,
/// and at a dead layer: one whose results nothing reads or returns. A step
/// has no place for it (spatial mapping has no activation to give its FWD
/// pass, memory placement no live range to its output), and a compiler
/// would have removed it; the error names it so the model can be fixed.
mlir::FailureOr<std::vector<FormedLayer>> formLayers(mlir::func::FuncOp func);

} // namespace dsm

#endif // DSM_PASSES_COMMON_LAYERFORMATION_H
