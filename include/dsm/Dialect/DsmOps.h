//===- DsmOps.h - dsm operations --------------------------------*- C++ -*-===//

#ifndef DSM_DIALECT_DSMOPS_H
#define DSM_DIALECT_DSMOPS_H

#include "dsm/Dialect/DsmAttrs.h"
#include "dsm/Dialect/DsmDialect.h"
#include "dsm/Dialect/DsmInterfaces.h"
#include "dsm/Dialect/DsmTraits.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "dsm/Dialect/DsmOps.h.inc"

namespace dsm {
/// A shape as the dialect's diagnostics print it: "[1, 3, 224, 224]", a
/// dynamic dimension as "?".
std::string formatShape(llvm::ArrayRef<int64_t> shape);
} // namespace dsm

#endif // DSM_DIALECT_DSMOPS_H
