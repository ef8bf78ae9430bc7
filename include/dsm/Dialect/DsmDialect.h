//===- DsmDialect.h - The dsm dialect ---------------------------*- C++ -*-===//

#ifndef DSM_DIALECT_DSMDIALECT_H
#define DSM_DIALECT_DSMDIALECT_H

#include "dsm/Dialect/DsmAttrs.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/Operation.h"

// After DsmAttrs.h: the discardable attribute helpers name attribute classes.
#include "dsm/Dialect/DsmDialect.h.inc"

namespace mlir {
class FunctionOpInterface;
} // namespace mlir

namespace dsm {
/// The dimension of argument `index` of `func` that holds the minibatch as its
/// `dsm.batch_dim` declares it (-1: the argument has none), or nullopt when
/// the argument does not say (then it is 0, or what its users imply).
std::optional<int64_t> getArgBatchDim(mlir::FunctionOpInterface func,
                                      unsigned index);

/// The dimension of argument `index` that holds the minibatch: as declared,
/// else as its users read it (a time-major dsm.lstm reads [T, N, C] and so
/// dimension 1; every other op leads with the batch). nullopt when users
/// disagree: re-batching a guessed dimension would be silently wrong.
std::optional<int64_t> findArgBatchDim(mlir::FunctionOpInterface func,
                                       unsigned index);
} // namespace dsm

#endif // DSM_DIALECT_DSMDIALECT_H
