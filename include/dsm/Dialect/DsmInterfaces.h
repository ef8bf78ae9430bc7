//===- DsmInterfaces.h - dsm op interfaces ----------------------*- C++ -*-===//

#ifndef DSM_DIALECT_DSMINTERFACES_H
#define DSM_DIALECT_DSMINTERFACES_H

#include "dsm/Core/Workload/Workload.h"

#include "mlir/IR/OpDefinition.h"

namespace dsm::detail {
/// Rejects workloads whose counts overflow 64 bits.
mlir::LogicalResult verifyWorkload(mlir::Operation *op);
} // namespace dsm::detail

#include "dsm/Dialect/DsmInterfaces.h.inc"

#endif // DSM_DIALECT_DSMINTERFACES_H
