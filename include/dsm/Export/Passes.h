//===- Passes.h - Export passes ---------------------------------*- C++ -*-===//
//
// The back ends: passes that write a mapped dsm graph's decisions onto the
// program it was imported from, in upstream MLIR dialects (`shard`).
//
//===----------------------------------------------------------------------===//

#ifndef DSM_EXPORT_PASSES_H
#define DSM_EXPORT_PASSES_H

#include "dsm/Dialect/DsmDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace dsm {

#define GEN_PASS_DECL
#include "dsm/Export/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "dsm/Export/Passes.h.inc"

} // namespace dsm

#endif // DSM_EXPORT_PASSES_H
