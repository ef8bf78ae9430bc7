//===- DsmInterfaces.h - dsm op interfaces ----------------------*- C++ -*-===//

#ifndef DSM_DIALECT_DSMINTERFACES_H
#define DSM_DIALECT_DSMINTERFACES_H

#include "dsm/Core/Workload/Workload.h"

#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>

namespace dsm {

/// Which values of a function's body (the first block of `body`; none for a
/// declaration) are computed from its inputs (the block's arguments), found
/// in one walk over the block in order. An add of
/// two such values is a residual connection, an add of one to parameters or
/// constants a bias addition (DeepSpatialMatrix §II-A): passes over a whole
/// function ask here (WorkloadOpInterface::getWorkloadGiven), where an add
/// asked alone searches its operands' histories, a bounded search per add.
class InputDependence {
public:
  explicit InputDependence(mlir::Region &body);

  /// Whether `value` is computed from the inputs; nullopt when `value` is
  /// defined in another block (nested or of another function).
  std::optional<bool> dependsOnInputs(mlir::Value value) const;

private:
  mlir::Block *body = nullptr;
  llvm::DenseSet<mlir::Operation *> dependent;
};

} // namespace dsm

namespace dsm::detail {
/// Rejects workloads whose counts overflow 64 bits.
mlir::LogicalResult verifyWorkload(mlir::Operation *op);
} // namespace dsm::detail

#include "dsm/Dialect/DsmInterfaces.h.inc"

#endif // DSM_DIALECT_DSMINTERFACES_H
