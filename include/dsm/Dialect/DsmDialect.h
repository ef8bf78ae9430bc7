//===- DsmDialect.h - The dsm dialect ---------------------------*- C++ -*-===//

#ifndef DSM_DIALECT_DSMDIALECT_H
#define DSM_DIALECT_DSMDIALECT_H

#include "mlir/IR/Dialect.h"

#include "dsm/Dialect/DsmDialect.h.inc"

#endif // DSM_DIALECT_DSMDIALECT_H
