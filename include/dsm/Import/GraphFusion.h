//===- GraphFusion.h - Composite functions found on dsm ops -----*- C++ -*-===//
//
// Front ends translate what they read one operation at a time; exporters
// spell some functions dsm has an operation for as several operations
// (torch.onnx's erf GELU, layer norms written out before ONNX opset 17,
// RMSNorm, a
// Linear layer's bias added after it, rows or attention heads merged into one
// dimension around a product). These patterns find such compositions in dsm
// ops, whatever front end made them, and replace each by the one operation.
// --dsm-fuse-graph runs them; the import passes and the ONNX importer run them
// after translating.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_IMPORT_GRAPHFUSION_H
#define DSM_IMPORT_GRAPHFUSION_H

#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace dsm {

/// Told of each fusion before the replaced ops are erased: the pattern's
/// name ("composed activation"), the fused op and the ops it replaces.
using FusionCallback =
    llvm::function_ref<void(llvm::StringRef pattern, mlir::Operation *fused,
                            llvm::ArrayRef<mlir::Operation *> replaced)>;

/// Applies the fusion patterns to the ops nested in `root` until none
/// applies; `listener` is told of every op created and erased. Ops left
/// without users are erased. Fails only if the rewrite does not converge.
llvm::LogicalResult fuseGraph(mlir::Operation *root,
                              FusionCallback onFused = nullptr,
                              mlir::RewriterBase::Listener *listener = nullptr);

} // namespace dsm

#endif // DSM_IMPORT_GRAPHFUSION_H
