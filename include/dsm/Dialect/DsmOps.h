//===- DsmOps.h - dsm operations --------------------------------*- C++ -*-===//

#ifndef DSM_DIALECT_DSMOPS_H
#define DSM_DIALECT_DSMOPS_H

#include "dsm/Dialect/DsmAttrs.h"
#include "dsm/Dialect/DsmDialect.h"
#include "dsm/Dialect/DsmInterfaces.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "dsm/Dialect/DsmOps.h.inc"

#endif // DSM_DIALECT_DSMOPS_H
