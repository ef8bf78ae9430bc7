//===- CoreError.h - Core errors at the op they are about -------*- C++ -*-===//
//
// Core algorithms name the node an error is about by its integer id
// (dsm/Core/Support/NodeError.h); the pass that built the graph knows which
// operation each id stands for. This is the one place that turns such an
// error into a diagnostic at that operation.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_SUPPORT_COREERROR_H
#define DSM_SUPPORT_COREERROR_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/FunctionExtras.h"
#include "llvm/Support/Error.h"

#include <cstddef>

namespace mlir {
class Operation;
} // namespace mlir

namespace dsm {

/// Emits `error` as an error diagnostic whose message is `what` followed by
/// the core's message. A `core::NodeError` about node `n` < `numNodes` is
/// emitted at `getOperation(n)`; any other error, or a node out of range, at
/// `fallback`. Consumes `error`.
void emitCoreError(
    llvm::Error error, size_t numNodes,
    llvm::function_ref<mlir::Operation *(size_t node)> getOperation,
    mlir::Location fallback, llvm::StringRef what);

/// The same for a graph whose node ids index `operations`.
void emitCoreError(llvm::Error error,
                   llvm::ArrayRef<mlir::Operation *> operations,
                   mlir::Location fallback, llvm::StringRef what);

} // namespace dsm

#endif // DSM_SUPPORT_COREERROR_H
