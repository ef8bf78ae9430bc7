//===- DsmDialect.h - The dsm dialect ---------------------------*- C++ -*-===//

#ifndef DSM_DIALECT_DSMDIALECT_H
#define DSM_DIALECT_DSMDIALECT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/Operation.h"

#include "dsm/Dialect/DsmDialect.h.inc"

namespace mlir {
class FunctionOpInterface;
} // namespace mlir

namespace dsm {
/// The dimension of argument `index` of `func` that holds the minibatch: its
/// `dsm.batch_dim`, 0 when it has none, -1 for an argument without one.
int64_t getArgBatchDim(mlir::FunctionOpInterface func, unsigned index);
} // namespace dsm

#endif // DSM_DIALECT_DSMDIALECT_H
