//===- CoreError.cpp - Core errors emitted at the op they are about -------===//

#include "dsm/Support/CoreError.h"
#include "dsm/Core/Support/NodeError.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"

using namespace mlir;

void dsm::emitCoreError(
    llvm::Error error, size_t numNodes,
    llvm::function_ref<Operation *(size_t node)> getOperation,
    Location fallback, StringRef what) {
  llvm::handleAllErrors(
      std::move(error),
      [&](const core::NodeError &nodeError) {
        int64_t node = nodeError.getNode();
        Location loc = node >= 0 && size_t(node) < numNodes
                           ? getOperation(size_t(node))->getLoc()
                           : fallback;
        emitError(loc) << what << nodeError.getMessage();
      },
      [&](const llvm::ErrorInfoBase &other) {
        emitError(fallback) << what << other.message();
      });
}

void dsm::emitCoreError(llvm::Error error, ArrayRef<Operation *> operations,
                        Location fallback, StringRef what) {
  emitCoreError(
      std::move(error), operations.size(),
      [&](size_t node) { return operations[node]; }, fallback, what);
}
